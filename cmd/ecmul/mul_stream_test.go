package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// streamSource produces lines on the fly: line i is pattern[i % len]. It
// holds nothing of what it has produced.
type streamSource struct {
	pattern  []item
	total    int
	i        int
	produced atomic.Int64 // i, published for the heap sampler
	buf      []byte
}

func (s *streamSource) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.i < s.total {
		s.buf = append(s.buf, s.pattern[s.i%len(s.pattern)].in...)
		s.buf = append(s.buf, '\n')
		s.i++
	}
	s.produced.Store(int64(s.i))
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// streamCheck checks the output line by line as it is written: line i
// must be pattern[i % len].out. It holds at most one partial line.
type streamCheck struct {
	pattern []item
	lines   int
	partial []byte
	err     error
}

func (s *streamCheck) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		line := string(append(s.partial, p[:i]...))
		s.partial, p = s.partial[:0], p[i+1:]
		want := s.pattern[s.lines%len(s.pattern)].out
		if s.err == nil && !(line == want || strings.HasPrefix(want, "error: ") && strings.HasPrefix(line, "error: ")) {
			s.err = fmt.Errorf("output line %d is %q, want %q", s.lines, line, want)
		}
		s.lines++
	}
	return n, nil
}

// streamPattern is a cycle of 97 lines: real multiplications, cheap items
// (scalar 0 or n, which validate the point and give infinity) and invalid
// lines, so that a long stream computes fast.
func streamPattern(t *testing.T, c *curves.Curve) []item {
	rng := newRNG(77)
	valid := validItems(t, rng, c, 20)
	bad := invalidItems(t, c)
	var pattern []item
	for i := range 97 {
		switch {
		case i%10 == 0:
			pattern = append(pattern, valid[(i/10)%len(valid)])
		case i%13 == 0:
			pattern = append(pattern, bad[(i/13)%len(bad)])
		default:
			p := randPoint(t, rng, c)
			k := "0"
			if i%2 == 1 {
				k = c.N().Text(16)
			}
			pattern = append(pattern, item{in: k + " " + p.X.Text(16) + " " + p.Y.Text(16), out: "infinity"})
		}
	}
	return pattern
}

// TestMulStreamBoundedMemory streams many items through mul with small
// chunks and checks the order of the answers and that the heap stays flat:
// the second half of the run must not need more than the first.
func TestMulStreamBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200,000 items")
	}
	c := curves.P224()
	pattern := streamPattern(t, c)
	const total = 200_000
	failedPer := 0
	for _, it := range pattern {
		if strings.HasPrefix(it.out, "error: ") {
			failedPer++
		}
	}
	wantFailed := failedPer * (total / len(pattern))
	for _, it := range pattern[:total%len(pattern)] {
		if strings.HasPrefix(it.out, "error: ") {
			wantFailed++
		}
	}

	src := &streamSource{pattern: pattern, total: total}
	check := &streamCheck{pattern: pattern}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)

	// Sample the heap in use while the run goes, with how far it got.
	var peakFirst, peakSecond atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak := &peakFirst
			if src.produced.Load() > int64(total/2) {
				peak = &peakSecond
			}
			for {
				old := peak.Load()
				if ms.HeapInuse <= old || peak.CompareAndSwap(old, ms.HeapInuse) {
					break
				}
			}
		}
	})
	var errOut bytes.Buffer
	code := run([]string{"mul", "--backend", "cpu", "--chunk", "1000", "--stats"}, src, check, &errOut)
	close(stop)
	wg.Wait()

	require.NoError(t, check.err)
	require.Equal(t, total, check.lines)
	require.Empty(t, check.partial)
	require.Equal(t, exitFail, code, errOut.String())
	require.Contains(t, errOut.String(), fmt.Sprintf("items=%d failed=%d ", total, wantFailed))
	require.Contains(t, errOut.String(), fmt.Sprintf("ecmul mul: %d item(s) failed", wantFailed))

	first, second := peakFirst.Load(), peakSecond.Load()
	t.Logf("heap in use: %d MiB before, peak %d MiB in the first half, %d MiB in the second",
		base.HeapInuse>>20, first>>20, second>>20)
	// 200,000 items held at once would take well over 100 MiB.
	const bound = 48 << 20
	require.Less(t, first, base.HeapInuse+bound)
	require.Less(t, second, base.HeapInuse+bound)
	require.Less(t, second, first+first/2+8<<20, "the heap grows with the stream")
}

// TestMulInflightOrder computes several chunks at once, as on the gpu
// backend, and checks that the answers keep the input order.
func TestMulInflightOrder(t *testing.T) {
	c := curves.P256()
	rng := newRNG(31)
	items := validItems(t, rng, c, 40)
	for i, b := range invalidItems(t, c) {
		items = append(items[:i*3+1], append([]item{b}, items[i*3+1:]...)...)
	}
	in := input(rng, items)
	eng, err := ecmul.New(publicCurve(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer eng.Close()
	for _, chunk := range []int{1, 2, 3, 7, 100} {
		for _, inflight := range []int{1, 2, 4} {
			var out bytes.Buffer
			var progressed atomic.Int64
			sum, err := stream.Mul(context.Background(), eng, strings.NewReader(in), &out,
				stream.Options{Chunk: chunk, Inflight: inflight, Progress: func(n int) { progressed.Add(int64(n)) }})
			require.NoError(t, err)
			require.Equal(t, len(items), sum.Items)
			require.Equal(t, len(invalidItems(t, c)), sum.Failed)
			require.Equal(t, int64(len(items)), progressed.Load())
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, len(items))
			for i, it := range items {
				if strings.HasPrefix(it.out, "error: ") {
					require.True(t, strings.HasPrefix(lines[i], "error: "), "chunk %d inflight %d line %d", chunk, inflight, i)
				} else {
					require.Equal(t, it.out, lines[i], "chunk %d inflight %d line %d", chunk, inflight, i)
				}
			}
		}
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errors.New("disk full")
	}
	w.limit -= len(p)
	return len(p), nil
}

// failingReader gives its data, then an error.
type failingReader struct{ data *strings.Reader }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data.Len() == 0 {
		return 0, errors.New("connection reset")
	}
	return r.data.Read(p)
}

func TestMulStreamErrors(t *testing.T) {
	c := curves.P224()
	rng := newRNG(32)
	items := validItems(t, rng, c, 30)
	in := input(rng, items)

	// An unwritable output stops the run with status 1, without hanging.
	for _, limit := range []int{0, 100, 2000} {
		var errOut bytes.Buffer
		done := make(chan int)
		go func() {
			done <- run([]string{"mul", "--backend", "cpu", "--chunk", "2"}, strings.NewReader(in), &failingWriter{limit: limit}, &errOut)
		}()
		select {
		case code := <-done:
			require.Equal(t, exitFail, code)
			require.Contains(t, errOut.String(), "disk full")
		case <-time.After(time.Minute):
			t.Fatal("mul hangs on a write error")
		}
	}

	// A read error answers what was read, then fails.
	var out, errOut bytes.Buffer
	code := run([]string{"mul", "--backend", "cpu", "--chunk", "4"}, &failingReader{strings.NewReader(in)}, &out, &errOut)
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut.String(), "connection reset")
	require.Equal(t, output(items), out.String())
}

func TestMulStats(t *testing.T) {
	c := curves.P224()
	rng := newRNG(33)
	items := append(validItems(t, rng, c, 9), invalidItems(t, c)[:2]...)
	code, out, errOut := cli(t, input(rng, items), "mul", "--backend", "cpu", "--stats")
	require.Equal(t, exitFail, code)
	require.Len(t, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), 11)
	m := regexp.MustCompile(`(?m)^ecmul mul: stats: items=11 failed=2 seconds=[0-9.]+ op/s=[0-9]+ peak_rss_mib=([0-9.]+|n/a) backend=cpu open_seconds=[0-9.]+$`).FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	if runtime.GOOS == "linux" {
		require.NotEqual(t, "n/a", m[1])
	}
	require.Contains(t, errOut, "ecmul mul: 2 item(s) failed")

	// Without --stats, nothing but the count of failures.
	code, _, errOut = cli(t, input(rng, items), "mul", "--backend", "cpu")
	require.Equal(t, exitFail, code)
	require.Equal(t, "ecmul mul: 2 item(s) failed\n", errOut)
}

// withFastProgress makes the progress line due at once, for a test.
func withFastProgress(t *testing.T) {
	after, every := progressAfter, progressEvery
	progressAfter, progressEvery = 0, time.Millisecond
	t.Cleanup(func() { progressAfter, progressEvery = after, every })
}

// TestMulNoProgressOffTerminal runs mul with standard error on a pipe and
// on a file, with the progress line due at once: nothing but the summary
// may be written there.
func TestMulNoProgressOffTerminal(t *testing.T) {
	withFastProgress(t)
	c := curves.P224()
	rng := newRNG(34)
	items := validItems(t, rng, c, 60)
	in := input(rng, items)

	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	file, err := os.Create(t.TempDir() + "/stderr")
	require.NoError(t, err)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer devnull.Close()
	require.False(t, isTerminal(pw))
	require.False(t, isTerminal(file))
	require.False(t, isTerminal(devnull), "/dev/null is a character device, not a terminal")

	var piped bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(&piped, pr) })
	for _, stderr := range []*os.File{pw, file, devnull} {
		var out bytes.Buffer
		code := run([]string{"mul", "--backend", "cpu", "--chunk", "3", "--stats"}, strings.NewReader(in), &out, stderr)
		require.Equal(t, exitOK, code)
		require.Equal(t, output(items), out.String())
	}
	pw.Close()
	wg.Wait()
	written, err := os.ReadFile(file.Name())
	require.NoError(t, err)
	file.Close()
	for _, got := range []string{piped.String(), string(written)} {
		require.NotContains(t, got, "\r")
		require.NotContains(t, got, "\x1b")
		require.Regexp(t, `^ecmul mul: stats: items=60 failed=0 [^\n]*\n$`, got)
	}

	// A bytes.Buffer is no terminal either.
	code, _, errOut := cli(t, in, "mul", "--backend", "cpu", "--chunk", "3")
	require.Equal(t, exitOK, code)
	require.Empty(t, errOut)
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMulAnswersAPausedStream: when the input pauses, the lines read so far
// are answered without waiting for a full chunk or the end of the input, a
// partial last line included; the next lines are answered after them, in
// order.
func TestMulAnswersAPausedStream(t *testing.T) {
	c := curves.P224()
	items := validItems(t, newRNG(41), c, 3)
	pr, pw := io.Pipe()
	var out lockedBuffer
	done := make(chan int)
	go func() { done <- run([]string{"mul", "--backend", "cpu"}, pr, &out, io.Discard) }()
	waitFor := func(want string) time.Duration {
		t.Helper()
		start := time.Now()
		for out.String() != want {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("after %v the output is %q, want %q", time.Since(start), out.String(), want)
			}
			time.Sleep(time.Millisecond)
		}
		return time.Since(start)
	}
	_, err := io.WriteString(pw, items[0].in+"\n\n")
	require.NoError(t, err)
	first := waitFor(items[0].out + "\n")
	_, err = io.WriteString(pw, items[1].in+"\n"+items[2].in[:10]) // the third line only begun
	require.NoError(t, err)
	waitFor(items[0].out + "\n" + items[1].out + "\n")
	_, err = io.WriteString(pw, items[2].in[10:]+"\n")
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.Equal(t, exitOK, <-done)
	require.Equal(t, items[0].out+"\n"+items[1].out+"\n"+items[2].out+"\n", out.String())
	t.Logf("first answer %v after its line", first)
}

// TestMulCPUProfile: --cpuprofile writes a gzipped pprof profile beside the
// usual output, and a profile that cannot be created is a failure.
func TestMulCPUProfile(t *testing.T) {
	_, in, _ := cli(t, "", "gen", "--curve", "p224", "--n", "3", "--seed", "2")
	path := filepath.Join(t.TempDir(), "mul.pprof")
	code, out, errOut := cli(t, in, "mul", "--backend", "cpu", "--cpuprofile", path)
	require.Equal(t, exitOK, code, errOut)
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 3)
	prof, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(prof), 2)
	require.Equal(t, []byte{0x1f, 0x8b}, prof[:2], "gzip")
	code, _, errOut = cli(t, in, "mul", "--backend", "cpu", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir"))
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "ecmul mul:")
}
