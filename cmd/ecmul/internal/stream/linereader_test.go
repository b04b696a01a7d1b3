package stream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/rnsec/ecmul/internal/curves"
)

// pieceReader hands out its input in pieces of random sizes, then err
// (io.EOF when nil).
type pieceReader struct {
	in  []byte
	rng *rand.Rand
	max int
	err error
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.in) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	if r.rng.Intn(20) == 0 {
		return 0, nil // a read that brings nothing, and no error
	}
	n := copy(p, r.in[:min(len(r.in), 1+r.rng.Intn(r.max))])
	r.in = r.in[n:]
	return n, nil
}

// readItem is one item as the reading stage records it.
type readItem struct {
	text    string
	num     int
	tooLong bool
}

// readItems runs the reading stage of mul on in, chunk items a chunk, and
// returns the items of every chunk handed on, checking that each chunk but
// the last is full (with no pause in the input, pauseFlush long), and the
// error of reading.
func readItems(t *testing.T, in io.Reader, format Format, chunk int) ([]readItem, error) {
	t.Helper()
	p := newMulPipeline(context.Background(), nil, mulOptions{chunk: chunk, codec: codec{c: curves.P224(), format: format}})
	go p.read(in)
	var items []readItem
	last := chunk
	for ch := range p.parsed {
		if last != chunk {
			t.Fatalf("a chunk of %d items before another one", last)
		}
		last = ch.lines
		if ch.lines != len(ch.spans) || ch.lines != len(ch.nums) || ch.lines == 0 || ch.lines > chunk {
			t.Fatalf("a chunk of %d items, %d spans, %d numbers", ch.lines, len(ch.spans), len(ch.nums))
		}
		for i, sp := range ch.spans {
			if sp[0] < 0 {
				items = append(items, readItem{num: ch.nums[i], tooLong: true})
			} else {
				items = append(items, readItem{text: string(ch.text[sp[0]:sp[1]]), num: ch.nums[i]})
			}
		}
		ch.reset()
		p.free <- ch
	}
	p.readErr.Lock()
	defer p.readErr.Unlock()
	return items, p.readErr.err
}

// refItems are the items of in as Lines gives them (lineReader), or the
// raw records of size bytes, and the error of reading.
func refItems(in io.Reader, size int) (items []readItem, err error) {
	if size > 0 {
		br := bufio.NewReaderSize(in, 1<<16)
		for num := 1; ; num++ {
			rec := make([]byte, size)
			n, err := io.ReadFull(br, rec)
			if n > 0 {
				items = append(items, readItem{text: string(rec[:n]), num: num})
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return items, nil
			}
			if err != nil {
				return items, err
			}
		}
	}
	err = Lines(in, func(line []byte, num int, tooLong bool) error {
		items = append(items, readItem{string(line), num, tooLong})
		return nil
	})
	return items, err
}

// randomLines is an input of random lines: items, blank lines, spaces and
// tabs around them, Unicode spaces, \r\n and \r\r\n endings, lines just
// under and over MaxLine, lines of nearly or fully 64 KiB that are
// carriage returns past a short text, a byte-order mark at the start, and
// no newline at the end.
func randomLines(rng *rand.Rand, lines int) []byte {
	var in bytes.Buffer
	if rng.Intn(4) == 0 {
		in.WriteString("\xef\xbb\xbf")
	}
	for range lines {
		switch r := rng.Intn(40); {
		case r == 0:
			in.WriteString(strings.Repeat("z", MaxLine+rng.Intn(3)-1))
		case r == 1:
			in.WriteString(" \t ")
		case r == 2:
			in.WriteString("\u00a0x y\u2003")
		case r == 3:
			in.WriteString("k" + strings.Repeat("\r", maxRawLine-2+rng.Intn(3)))
		case r == 4:
			in.WriteString(strings.Repeat("w", maxRawLine-1+rng.Intn(3)))
		case r == 5:
			in.WriteString(strings.Repeat(" ", rng.Intn(3*maxRawLine)))
		case r > 6:
			in.WriteString(strings.Repeat(" ", rng.Intn(2)) + strings.Repeat("ab c", 1+rng.Intn(60)))
		}
		in.WriteString([]string{"\n", "\r\n", "\r\r\n"}[rng.Intn(3)])
	}
	if rng.Intn(2) == 0 {
		in.WriteString("tail")
	}
	return in.Bytes()
}

// TestReaderSplitsAsLines: the reading stage of mul records the items that
// Lines gives (and fzLines, the help's description, but for lines of
// 64 KiB of carriage returns), with their numbers, on inputs of random
// lines read in random pieces (200 inputs, 50 with -short), in chunks of
// every size; the raw format's
// records are those io.ReadFull gives, a partial one at the end included;
// a read error ends the input after what came before it.
func TestReaderSplitsAsLines(t *testing.T) {
	defer func(d time.Duration) { pauseFlush = d }(pauseFlush)
	pauseFlush = time.Hour // no chunk goes on before it is full, whatever the scheduling
	rng := rand.New(rand.NewSource(11))
	trials := 200
	if testing.Short() {
		trials = 50 // the race detector's run: a quarter of the inputs, each in every chunk size
	}
	for trial := range trials {
		in := randomLines(rng, rng.Intn(300))
		var readErr error
		if trial%5 == 0 {
			readErr = errors.New("connection reset")
		}
		format, size := Hex, 0
		if trial%7 == 3 {
			format, size = Raw, 3*curves.P224().ByteLen()
		}
		want, wantErr := refItems(&pieceReader{in: in, rng: rng, max: 1 << 17, err: readErr}, size)
		if format == Hex && !bytes.Contains(in, []byte("k\r")) {
			lines, tooLong, nums := fzLines(in)
			if len(lines) != len(want) {
				t.Fatalf("trial %d: Lines gives %d items, fzLines %d", trial, len(want), len(lines))
			}
			for i := range lines {
				if (readItem{lines[i], nums[i], tooLong[i]}) != want[i] {
					t.Fatalf("trial %d: item %d is %+v in Lines, %q %d %v in fzLines", trial, i, want[i], lines[i], nums[i], tooLong[i])
				}
			}
		}
		for _, chunk := range []int{1, 1 + rng.Intn(5), 1 + rng.Intn(500), 1 << 20} {
			got, err := readItems(t, &pieceReader{in: in, rng: rng, max: []int{3000, 1 << 17}[rng.Intn(2)], err: readErr}, format, chunk)
			if err != wantErr && (err == nil || wantErr == nil || err.Error() != wantErr.Error()) {
				t.Fatalf("trial %d chunk %d: error %v, want %v", trial, chunk, err, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("trial %d chunk %d: %d items, want %d", trial, chunk, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("trial %d chunk %d: item %d is %+v, want %+v", trial, chunk, i, got[i], want[i])
				}
			}
		}
	}
}

// emptyReader returns nothing, and no error, for ever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestReaderNoProgress: an input that returns nothing, and no error, read
// after read fails with io.ErrNoProgress, as through bufio.
func TestReaderNoProgress(t *testing.T) {
	_, err := readItems(t, io.MultiReader(strings.NewReader("a b c\n"), emptyReader{}), Hex, 10)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("error %v, want io.ErrNoProgress", err)
	}
}

// TestReaderHandsOnAtAPause: when the input pauses, the reading stage
// hands on the items read so far, without waiting for a full chunk, the
// line begun but not ended kept for the next chunk; a flood of blank lines
// holds no memory.
func TestReaderHandsOnAtAPause(t *testing.T) {
	pr, pw := io.Pipe()
	p := newMulPipeline(context.Background(), nil, mulOptions{chunk: 1000, codec: codec{c: curves.P224(), format: Hex}})
	go p.read(pr)
	texts := func(ch *mulChunk) (s []string) {
		for _, sp := range ch.spans {
			s = append(s, string(ch.text[sp[0]:sp[1]]))
		}
		ch.reset()
		p.free <- ch
		return s
	}
	next := func() *mulChunk {
		select {
		case ch := <-p.parsed:
			return ch
		case <-time.After(10 * time.Second):
			t.Fatal("no chunk at a pause of the input")
			return nil
		}
	}
	go func() {
		io.WriteString(pw, "a 1\n\nb 2\r\nc ")
	}()
	if got := texts(next()); strings.Join(got, "|") != "a 1|b 2" {
		t.Fatalf("first chunk %q", got)
	}
	go func() {
		io.WriteString(pw, "3\n")
		pw.Write(bytes.Repeat([]byte("\n"), 64<<20))
		io.WriteString(pw, "d 4")
		pw.Close()
	}()
	ch := next()
	if got := strings.Join(texts(ch), "|"); got != "c 3" && got != "c 3|d 4" {
		t.Fatalf("second chunk %q", got)
	}
	if cap(ch.text) > 8<<20 {
		t.Fatalf("a chunk of %d MiB of text for blank lines", cap(ch.text)>>20)
	}
	for ch := range p.parsed {
		if got := texts(ch); strings.Join(got, "|") != "d 4" {
			t.Fatalf("last chunk %q", got)
		}
	}
}

// TestReaderHandsOnAtAPauseSmallChunks: with chunks small enough that the
// input is read ahead of them (the stage), a pause still hands on the
// items read so far, and what was read ahead comes in the next chunks, in
// order.
func TestReaderHandsOnAtAPauseSmallChunks(t *testing.T) {
	pr, pw := io.Pipe()
	p := newMulPipeline(context.Background(), nil, mulOptions{chunk: 2, codec: codec{c: curves.P224(), format: Hex}})
	go p.read(pr)
	next := func() string {
		select {
		case ch := <-p.parsed:
			var s []string
			for _, sp := range ch.spans {
				s = append(s, string(ch.text[sp[0]:sp[1]]))
			}
			ch.reset()
			p.free <- ch
			return strings.Join(s, "|")
		case <-time.After(10 * time.Second):
			t.Fatal("no chunk at a pause of the input")
			return ""
		}
	}
	write := func(s string) {
		go func() { io.WriteString(pw, s) }()
	}
	write("a\nb\nc\n")
	for _, want := range []string{"a|b", "c"} {
		if got := next(); got != want {
			t.Fatalf("chunk %q, want %q", got, want)
		}
	}
	write("d\ne\nf\ng")
	for _, want := range []string{"d|e", "f"} {
		if got := next(); got != want {
			t.Fatalf("chunk %q, want %q", got, want)
		}
	}
	write("h\n")
	if got := next(); got != "gh" {
		t.Fatalf("chunk %q, want %q", got, "gh")
	}
	pw.Close()
	if ch, ok := <-p.parsed; ok {
		t.Fatalf("a chunk of %d items after the end", ch.lines)
	}
}
