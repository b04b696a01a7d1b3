package stream

import (
	"bytes"
	"io"
)

// WriteSize is the most an ItemWriter writes at once, unless one item is
// longer.
const WriteSize = 1 << 16

// ItemWriter is a buffered writer whose every write to the writer below
// ends where an item ends: after a \n, or after a whole record of a fixed
// size. A process stopped between two writes, by a signal it does not
// handle or a crash, leaves whole items, never part of a line. Items pass
// through in writes of at most WriteSize bytes (a longer item alone in
// one), and a Write of many items is not copied, but for the part of an
// item that it leaves to the next Write.
type ItemWriter struct {
	w      io.Writer
	record int // the size of an item; 0 for lines
	buf    []byte
	err    error
}

// NewLineWriter returns an ItemWriter of lines, each ending with \n.
func NewLineWriter(w io.Writer) *ItemWriter { return &ItemWriter{w: w} }

// newRecordWriter returns an ItemWriter of records of size bytes each.
func newRecordWriter(w io.Writer, size int) *ItemWriter { return &ItemWriter{w: w, record: size} }

// Write takes p, the continuation of the items written so far; what it
// does not write now waits for a later Write or Flush. Its error is the
// first write's error below, after which nothing is written.
func (w *ItemWriter) Write(p []byte) (int, error) {
	n := len(p)
	for w.err == nil && len(w.buf)+len(p) > WriteSize {
		c := w.cut(p, WriteSize-len(w.buf), len(w.buf))
		if c == 0 { // no item ends in p: wait for its end
			break
		}
		switch e := w.cut(w.buf, len(w.buf), 0); {
		case len(w.buf) == 0:
			w.write(p[:c])
		case len(w.buf)+c > WriteSize && e > 0:
			// the item that p ends is long: the whole items before it go
			// first, on their own
			w.write(w.buf[:e])
			w.buf = w.buf[:copy(w.buf, w.buf[e:])]
			continue
		default:
			w.buf = append(w.buf, p[:c]...)
			w.write(w.buf)
			w.buf = w.buf[:0]
		}
		p = p[c:]
	}
	if w.err != nil {
		return n - len(p), w.err
	}
	w.buf = append(w.buf, p...)
	return n, nil
}

// WriteString is Write of s.
func (w *ItemWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush writes what is buffered: whole items when what was given ends
// with one.
func (w *ItemWriter) Flush() error {
	if w.err == nil && len(w.buf) > 0 {
		w.write(w.buf)
		w.buf = w.buf[:0]
	}
	return w.err
}

func (w *ItemWriter) write(b []byte) {
	if _, err := w.w.Write(b); err != nil {
		w.err = err
	}
}

// cut returns the length of the longest prefix of b of at most limit
// bytes that ends where an item ends or, when there is none, of the
// shortest such prefix; 0 when no item ends in b. b begins at off bytes
// into an item (records; lines need no offset).
func (w *ItemWriter) cut(b []byte, limit, off int) int {
	limit = min(max(limit, 0), len(b))
	if w.record > 0 {
		if c := (off+limit)/w.record*w.record - off; c > 0 {
			return c
		}
		if c := ((off+limit)/w.record+1)*w.record - off; c <= len(b) {
			return c
		}
		return 0
	}
	if i := bytes.LastIndexByte(b[:limit], '\n'); i >= 0 {
		return i + 1
	}
	if i := bytes.IndexByte(b[limit:], '\n'); i >= 0 {
		return limit + i + 1
	}
	return 0
}
