package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruptSignals are the signals that stop a streaming command cleanly.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// catchSignals returns a context that the first SIGINT or SIGTERM ends,
// so that a command stops reading, writes the whole lines it has and exits
// with signalStatus; after it, a second signal of either kind ends the
// process at once, as if none was caught (for a run whose output nobody
// reads). A signal that was ignored when the process started stays
// ignored (nohup, a background job). stop ends the catching and returns
// the signal that came, nil when none did; a second call returns the same.
func catchSignals() (ctx context.Context, stop func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	var caught []os.Signal
	for _, s := range interruptSignals {
		if !signal.Ignored(s) {
			caught = append(caught, s)
		}
	}
	ch := make(chan os.Signal, 1)
	if len(caught) > 0 { // none would relay every signal
		signal.Notify(ch, caught...)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	var got os.Signal
	go func() {
		defer close(done)
		select {
		case got = <-ch:
			signal.Stop(ch)
			cancel()
		case <-quit:
		}
	}()
	return ctx, sync.OnceValue(func() os.Signal {
		close(quit)
		<-done
		signal.Stop(ch)
		cancel()
		return got
	})
}

// signalStatus is the exit status of a run that sig stopped: 128 plus its
// number, as a shell reports a process that sig killed (130 for SIGINT,
// 143 for SIGTERM).
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFail
}

// signalName is SIGINT or SIGTERM.
func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// interrupted reports on stderr that sig stopped cmd after items items
// were written, and whether --out was left as it was; it returns the exit
// status.
func interrupted(stderr io.Writer, cmd string, sig os.Signal, items int, out *outputFile) int {
	if out.target != "" {
		fmt.Fprintf(stderr, "ecmul %s: stopped by %s: --out %s left as it was\n", cmd, signalName(sig), out.name)
	} else {
		fmt.Fprintf(stderr, "ecmul %s: stopped by %s after %d item(s)\n", cmd, signalName(sig), items)
	}
	return signalStatus(sig)
}

// ctxReader reads r on a goroutine of its own, so that a read waiting for
// input ends when ctx does, with ctx's error, and the command stops
// reading at once; the read under way is left to finish into the reader's
// own buffer, and nothing is read after.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
	res chan ctxRead
}

type ctxRead struct {
	n   int
	err error
}

func newCtxReader(ctx context.Context, r io.Reader) *ctxReader {
	return &ctxReader{ctx: ctx, r: r, res: make(chan ctxRead, 1)}
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	go func() {
		n, err := c.r.Read(buf)
		c.res <- ctxRead{n, err}
	}()
	select {
	case r := <-c.res:
		return copy(p, buf[:max(0, min(r.n, len(buf)))]), r.err
	case <-c.ctx.Done():
		c.buf = nil // the read under way keeps it
		return 0, c.ctx.Err()
	}
}
