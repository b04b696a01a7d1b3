package stream

import (
	"bufio"
	"bytes"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// pieceReader hands out its input in pieces of random sizes, and calls
// onRead before each.
type pieceReader struct {
	in     []byte
	rng    *rand.Rand
	onRead func()
}

func (r *pieceReader) Read(p []byte) (int, error) {
	r.onRead()
	if len(r.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.in[:min(len(r.in), 1+r.rng.Intn(3000))])
	r.in = r.in[n:]
	return n, nil
}

// TestLineReaderWaitsOnlyWithoutAWholeLine: the line reader gives the lines
// fzLines gives, calls beforeWait only when no whole line is buffered, and
// calls it before every read of its input (which may wait), on inputs of
// random lines in random pieces.
func TestLineReaderWaitsOnlyWithoutAWholeLine(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for range 300 {
		var in strings.Builder
		if rng.Intn(4) == 0 {
			in.WriteString("\xef\xbb\xbf")
		}
		for range rng.Intn(600) {
			switch r := rng.Intn(20); {
			case r == 0:
				in.WriteString(strings.Repeat("z", MaxLine+rng.Intn(3)-1))
			case r == 1:
				in.WriteString(" \t ")
			case r > 2:
				in.WriteString(strings.Repeat("ab c", rng.Intn(60)))
			}
			in.WriteString([]string{"\n", "\r\n", "\r\r\n"}[rng.Intn(3)])
		}
		if rng.Intn(2) == 0 {
			in.WriteString("tail")
		}
		var lr *lineReader
		armed := false
		src := &pieceReader{in: []byte(in.String()), rng: rng, onRead: func() {
			if !armed {
				t.Fatalf("a read without beforeWait before it")
			}
		}}
		lr = &lineReader{r: bufio.NewReaderSize(src, 1<<16), beforeWait: func() {
			if buf, _ := lr.r.Peek(lr.r.Buffered()); bytes.IndexByte(buf, '\n') >= 0 {
				t.Fatalf("beforeWait with a whole line buffered")
			}
			armed = true
		}}
		lines, tooLong, nums := fzLines([]byte(in.String()))
		for i := 0; ; i++ {
			armed = false
			line, num, long, ok := lr.next()
			if !ok {
				if i != len(lines) {
					t.Fatalf("%d lines, want %d", i, len(lines))
				}
				break
			}
			if i >= len(lines) || string(line) != lines[i] || long != tooLong[i] || num != nums[i] {
				t.Fatalf("line %d: %q %v %d, want %q %v %d", i, line, long, num, lines[i], tooLong[i], nums[i])
			}
		}
	}
}
