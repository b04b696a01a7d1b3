package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The progress line appears once a run has lasted progressAfter, and is
// redrawn every progressEvery.
var (
	progressAfter = time.Second
	progressEvery = 250 * time.Millisecond
)

// progress draws a one-line progress report on a terminal: items done,
// throughput, elapsed time and, when the total is known, a bar. It is a
// no-op unless w is a terminal, so pipes and files never see it.
type progress struct {
	w      io.Writer
	label  string
	start  time.Time
	done   atomic.Int64 // items done
	frac   func(done int64) float64
	stop   chan struct{}
	wg     sync.WaitGroup
	drawn  bool
	active bool
}

// startProgress starts a progress report on w if w is a terminal. frac,
// when not nil, returns the fraction of the work that done items are (0 to
// 1).
func startProgress(w io.Writer, label string, frac func(done int64) float64) *progress {
	p := &progress{w: w, label: label, start: time.Now(), frac: frac, stop: make(chan struct{})}
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return p
	}
	p.active = true
	p.wg.Go(p.loop)
	return p
}

// add counts n more items done.
func (p *progress) add(n int) { p.done.Add(int64(n)) }

func (p *progress) loop() {
	delay := time.NewTimer(progressAfter)
	defer delay.Stop()
	select {
	case <-p.stop:
		return
	case <-delay.C:
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

func (p *progress) draw() {
	el := time.Since(p.start).Seconds()
	done := p.done.Load()
	line := fmt.Sprintf("%s: %d items, %.0f op/s, %.0f s", p.label, done, float64(done)/el, el)
	if p.frac != nil {
		f := min(max(p.frac(done), 0), 1)
		const width = 30
		n := int(f * width)
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < n {
				bar[i] = '='
			}
		}
		line = fmt.Sprintf("[%s] %3.0f%% %s", bar, 100*f, line)
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

// finish stops the report and erases its line.
func (p *progress) finish() {
	if !p.active {
		return
	}
	p.active = false
	close(p.stop)
	p.wg.Wait()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// inputCounter counts what has been read through it: bytes, and items,
// which are the lines with something other than blanks or, when record is
// set, records of that many bytes.
type inputCounter struct {
	r      io.Reader
	record int64
	bytes  atomic.Int64
	lines  atomic.Int64
	inLine bool // the last byte read is in a line already counted
}

func (c *inputCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.record == 0 {
		c.lines.Add(c.countLines(p[:n]))
	}
	c.bytes.Add(int64(n))
	return n, err
}

// countLines returns the number of lines with something other than blanks
// that begin in b, which follows what was read before.
func (c *inputCounter) countLines(b []byte) int64 {
	var n int64
	for len(b) > 0 {
		if !c.inLine {
			b = bytes.TrimLeft(b, " \t\r")
			if len(b) == 0 {
				break
			}
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
			c.inLine = true
			n++
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		c.inLine = false
		b = b[i+1:]
	}
	return n
}

// fraction returns the share of the input's items that done items are,
// for an input of size bytes: its items are estimated from those read so
// far, and known once it has all been read.
func (c *inputCounter) fraction(done, size int64) float64 {
	read := c.bytes.Load()
	items := c.lines.Load()
	if c.record > 0 {
		items = (read + c.record - 1) / c.record
	}
	if read == 0 || items == 0 {
		return 0
	}
	return float64(done) / (float64(items) * float64(size) / float64(read))
}
