package stream

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// The reading stage of Mul reads the input straight into the text of the
// chunk being filled, in reads of up to readSize bytes, and records where
// each item's line (or raw record) lies in it: no copy of the text (but of
// the last read of a chunk, through the stage), no allocation per item, no
// hand-off per item, and only the line search (bytes.IndexByte) and the
// trimming of blanks run on this one goroutine; the parsing itself runs on
// all cores once the chunk is handed on (mulChunk.parse). The lines are
// those Lines gives (lineReader): a UTF-8 byte-order mark at the start
// skipped, \n endings, blank lines counted but no item, and a line too
// long — longer than MaxLine without its \r endings, or of maxRawLine bytes
// or more whatever they are, as Lines's 64 KiB buffer refuses it — one item
// answered with an error and not held in memory.

// maxRawLine is the length, its \n excluded, from which a line is too long
// whatever it holds: a line that fills the 64 KiB buffer through which
// Lines reads (bufio.ErrBufferFull).
const maxRawLine = 1 << 16

// readSize bounds one read of the input: what a read past the end of a full
// chunk brings is copied into the next one. Near the end of a chunk, reads
// ask for about what its remaining items take (readWant), down to
// minReadSize, so that little is copied, whatever the chunk's size.
const (
	readSize    = 256 << 10
	minReadSize = 4 << 10
)

// maxEmptyReads is how many reads in a row may return nothing, no error
// either, before the input fails with io.ErrNoProgress, as bufio has it.
const maxEmptyReads = 100

// readResult is what one read of the input gave.
type readResult struct {
	n   int
	err error
}

// chunkReader is the reading stage's state: the chunk being filled, its
// text and how far it has been read and split.
type chunkReader struct {
	p   *mulPipeline
	raw int // the size of a raw record; 0 for the line formats

	// reqs and results run the reads on their own goroutine, so that a
	// read that waits for input can be timed out (pauseFlush) without
	// being cancelled: the data it brings is read into buf all the same,
	// and moved to the next chunk when the one it was read into has gone.
	reqs    chan []byte
	results chan readResult
	timer   *time.Timer

	ch       *mulChunk // being filled; nil after it was handed on, until the next data
	buf      []byte    // ch's text, all of its capacity (the last chunk's while ch is nil)
	pos      int       // bytes read into buf
	start    int       // where the line (or record) being read begins
	scan     int       // buf[start:scan] holds no \n
	num      int       // lines (records) begun
	skipping bool      // the line being read is too long: its bytes are dropped as they come
	garbage  int       // bytes of buf[:start] that no item's span covers
	added    bool      // items were added since the last read that waited
	deadline time.Time // ch goes on at this time if no item comes before, when it has items

	stage    []byte // input read ahead of the chunk's need, from stageAt on
	stageAt  int
	stageErr error // the error of the read into the stage, due once it is used up
	// full is the text and items of the last full chunk: a chunk taken to
	// fill gets room for as much at once, not by doubling as it fills.
	full struct{ text, items int }
}

// read runs the reading stage: it fills chunks from in and hands them on
// to be computed, each when it holds opts.chunk items, when the input ends,
// or when a read has waited for pauseFlush since the last item came, so
// that a pause in the input never holds back the answers to the items
// before it.
func (p *mulPipeline) read(in io.Reader) {
	defer close(p.parsed)
	r := &chunkReader{p: p, reqs: make(chan []byte), results: make(chan readResult, 1), timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	if p.cd.format == Raw {
		r.raw = p.cd.recordSize()
	}
	go func() {
		for b := range r.reqs {
			n, err := in.Read(b)
			if n < 0 || n > len(b) {
				n, err = 0, errors.New("stream: the input's reader returned an invalid count")
			}
			r.results <- readResult{n, err}
		}
	}()
	defer close(r.reqs)
	err := r.run()
	if err != nil && err != io.EOF {
		p.readErr.Lock()
		p.readErr.err = err
		p.readErr.Unlock()
	}
}

// errStopped is run's error when the pipeline was cancelled.
var errStopped = errors.New("stream: stopped")

// run reads the input to its end, or to the first error of a read, which
// it returns (io.EOF at the end); errStopped when the pipeline ends first.
// A chunk that needs readSize or more reads it straight into its text;
// near its end (or for a small chunk) the input is read into the stage,
// readSize at a time, and copied into the text as the chunk needs it, so
// that neither a read per few items nor the copy of a long read's rest
// into the next chunk costs more than the items.
func (r *chunkReader) run() error {
	empty := 0
	for {
		if r.ch == nil && !r.acquire() {
			return errStopped
		}
		want := r.readWant()
		r.makeRoom(want)
		var res readResult
		switch {
		case r.stageAt < len(r.stage) || r.stageErr != nil:
			res = r.fromStage(want)
		case want < readSize:
			if r.stage == nil {
				r.stage = make([]byte, readSize)
			}
			got, ok := r.wait(r.stage[:readSize])
			if !ok || r.ch == nil && !r.acquire() { // the chunk went on while the read waited
				return errStopped
			}
			r.stage, r.stageAt, r.stageErr = r.stage[:got.n], 0, got.err
			r.makeRoom(want)
			res = r.fromStage(want)
		default:
			var ok bool
			if res, ok = r.wait(r.buf[r.pos : r.pos+want]); !ok {
				return errStopped
			}
			r.pos += res.n
			if r.ch == nil && !r.acquire() { // the chunk went on while the read waited
				return errStopped
			}
		}
		if res.n == 0 && res.err == nil {
			if empty++; empty == maxEmptyReads {
				res.err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		if !r.split(res.err != nil) {
			return errStopped
		}
		if res.err != nil {
			if r.ch.lines > 0 && !r.hand() {
				return errStopped
			}
			return res.err
		}
	}
}

// wait reads the input into b, on the reads' goroutine. While it waits,
// the chunk goes on once pauseFlush has passed since its last item came,
// and r.ch is nil then (the data read into b, when b is its text, is
// moved to the next chunk by acquire). It reports false when the pipeline
// ends first.
func (r *chunkReader) wait(b []byte) (readResult, bool) {
	ctx := r.p.ctx
	r.reqs <- b
	if r.ch.lines > 0 {
		if r.added {
			r.deadline, r.added = time.Now().Add(pauseFlush), false
		}
		r.timer.Reset(time.Until(r.deadline))
		select {
		case res := <-r.results:
			r.timer.Stop()
			return res, true
		case <-r.timer.C: // the input pauses: the items so far go on now
			if !r.hand() {
				return readResult{}, false
			}
		case <-ctx.Done():
			return readResult{}, false
		}
	}
	select {
	case res := <-r.results:
		return res, true
	case <-ctx.Done():
		return readResult{}, false
	}
}

// fromStage copies up to want bytes of the stage into buf, as a read of
// them: the stage's error comes with its last bytes.
func (r *chunkReader) fromStage(want int) readResult {
	n := copy(r.buf[r.pos:r.pos+want], r.stage[r.stageAt:])
	r.pos += n
	r.stageAt += n
	res := readResult{n: n}
	if r.stageAt == len(r.stage) {
		res.err, r.stageErr = r.stageErr, nil
	}
	return res
}

// acquire takes a chunk to fill and moves into its text what was read
// past the last one's items.
func (r *chunkReader) acquire() bool {
	select {
	case r.ch = <-r.p.free:
	case <-r.p.ctx.Done():
		return false
	}
	ch := r.ch
	buf := ch.text[:cap(ch.text)]
	if keep := r.pos - r.start; len(buf) < keep+readSize || len(buf) < r.full.text+readSize {
		buf = make([]byte, max(keep, r.full.text+r.full.text/8)+readSize)
	}
	if cap(ch.spans) < r.full.items {
		ch.spans, ch.nums = make([][2]int, 0, r.full.items), make([]int, 0, r.full.items)
	}
	// buf may be the last chunk's own text, come back: copy moves the rest
	// down within it.
	copy(buf, r.buf[r.start:r.pos])
	r.buf, r.pos, r.scan, r.start, r.garbage = buf, r.pos-r.start, r.scan-r.start, 0, 0
	return true
}

// readWant is the size of the next read: readSize, or about what the
// items the chunk still lacks take, at the bytes per item read so far (in
// this chunk, or the last full one), when that is less.
func (r *chunkReader) readWant() int {
	items, text := r.ch.lines, r.start
	if items == 0 {
		items, text = r.full.items, r.full.text
	}
	if items == 0 {
		return readSize
	}
	per := max(text/items, 1)
	rest := r.p.opts.chunk - r.ch.lines
	if rest >= readSize/per {
		return readSize
	}
	return min(max((rest+1)*per, minReadSize), readSize)
}

// makeRoom makes room in buf for a read of want bytes: the text before the
// line being read is dropped when no item lies in it, compacted when most
// of it is blanks (a flood of blank lines between items holds no memory),
// and buf grows otherwise.
func (r *chunkReader) makeRoom(want int) {
	if len(r.buf)-r.pos >= want {
		return
	}
	switch {
	case r.ch.lines == 0:
		r.pos, r.scan, r.start = copy(r.buf, r.buf[r.start:r.pos]), r.scan-r.start, 0
		r.garbage = 0
	case r.garbage > r.start/2:
		r.compact()
	}
	if len(r.buf)-r.pos < want {
		buf := make([]byte, max(2*len(r.buf), r.pos+readSize))
		copy(buf, r.buf[:r.pos])
		r.buf = buf
	}
}

// compact moves the chunk's items' text, and the line being read, down to
// the start of buf, leaving out everything else.
func (r *chunkReader) compact() {
	w := 0
	for i, sp := range r.ch.spans {
		if sp[0] < 0 {
			continue
		}
		n := copy(r.buf[w:], r.buf[sp[0]:sp[1]])
		r.ch.spans[i] = [2]int{w, w + n}
		w += n
	}
	n := copy(r.buf[w:], r.buf[r.start:r.pos])
	r.pos, r.scan, r.start, r.garbage = w+n, w+r.scan-r.start, w, 0
}

// hand hands the chunk on to be computed, its text what was read up to the
// line being read.
func (r *chunkReader) hand() bool {
	if r.ch.lines == r.p.opts.chunk {
		r.full.text, r.full.items = r.start, r.ch.lines
	}
	r.ch.text = r.buf[:r.start]
	select {
	case r.p.parsed <- r.ch:
		r.ch = nil
		return true
	case <-r.p.ctx.Done():
		return false
	}
}

// split records the items of the whole lines (or records) read, handing
// on each chunk as it fills, and, at the end of the input, the line (or
// partial record) that the end cut.
func (r *chunkReader) split(end bool) bool {
	if r.raw > 0 {
		return r.splitRecords(end)
	}
	for {
		i := bytes.IndexByte(r.buf[r.scan:r.pos], '\n')
		if i < 0 {
			break
		}
		eol := r.scan + i
		if r.skipping { // the end of a line too long, answered already
			r.skipping = false
			r.garbage += eol + 1 - r.start
		} else {
			r.line(r.start, eol)
		}
		r.start, r.scan = eol+1, eol+1
		if r.ch.lines == r.p.opts.chunk && (!r.hand() || !r.acquire()) {
			return false
		}
	}
	r.scan = r.pos
	if !r.skipping && r.pos-r.start >= maxRawLine {
		r.num++
		r.item(-1, -1)
		r.skipping = true
	}
	if r.skipping { // drop what came of the line
		r.pos, r.scan = r.start, r.start
	}
	if end && !r.skipping && r.pos > r.start {
		r.line(r.start, r.pos)
		r.start = r.pos
	}
	if r.ch.lines == r.p.opts.chunk && !end && (!r.hand() || !r.acquire()) {
		return false
	}
	return true
}

// splitRecords is split for the raw format: records of r.raw bytes, and a
// partial one at the end of the input.
func (r *chunkReader) splitRecords(end bool) bool {
	for r.pos-r.start >= r.raw || end && r.pos > r.start {
		n := min(r.raw, r.pos-r.start)
		r.num++
		r.item(r.start, r.start+n)
		r.start += n
		if r.ch.lines == r.p.opts.chunk && !(end && r.pos == r.start) && (!r.hand() || !r.acquire()) {
			return false
		}
	}
	r.scan = r.pos
	return true
}

// line records the line buf[a:b], its \n excluded: an item, an item too
// long, or nothing for a blank line.
func (r *chunkReader) line(a, b int) {
	r.num++
	n := b - a
	if r.num == 1 && bytes.HasPrefix(r.buf[a:b], utf8BOM) {
		a += len(utf8BOM)
	}
	if n >= maxRawLine || len(trimEOL(r.buf[a:b])) > MaxLine {
		r.garbage += n + 1
		r.item(-1, -1)
		return
	}
	s := r.buf[a:b]
	if len(s) > 0 && (isBlank(s[0]) || isBlank(s[len(s)-1])) {
		s = bytes.TrimSpace(s)
	}
	if len(s) == 0 {
		r.garbage += n + 1
		return
	}
	at := cap(r.buf) - cap(s) // s lies in buf
	r.garbage += n + 1 - len(s)
	r.item(at, at+len(s))
}

// isBlank reports whether c may begin or end a blank that bytes.TrimSpace
// trims: ASCII white space, or a byte of a multi-byte UTF-8 sequence.
func isBlank(c byte) bool { return c <= ' ' || c >= 0x80 }

// item records an item of the chunk: its text buf[a:b], or {-1, -1} for a
// line too long, and its number.
func (r *chunkReader) item(a, b int) {
	ch := r.ch
	ch.spans = append(ch.spans, [2]int{a, b})
	ch.nums = append(ch.nums, r.num)
	ch.lines++
	r.added = true
}
