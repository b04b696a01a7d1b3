package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"math/rand"
	"runtime"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// pipeItems is the number of items BenchmarkStreamPipe streams per
// operation: 64 default chunks, 4 Mi items as in gen --n 4194304 | mul
// (one chunk's distinct items over and over), so that reading, computing
// and writing overlap, and the chunks' buffers are reused, as they are on
// a long stream.
const pipeItems = 64 * DefaultChunk

// repeatReader reads data n times over.
type repeatReader struct {
	data []byte
	at   int
	n    int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.data[r.at:])
	if r.at += k; r.at == len(r.data) {
		r.at, r.n = 0, r.n-1
	}
	return k, nil
}

// fakeBytesMul stands for Engine.ScalarMultBytesProgress without computing:
// every result is its item's own point.
func fakeBytesMul(_ context.Context, out []byte, status []ecmul.Status, _, points []byte, progress func(done, total int)) error {
	copy(out, points)
	for i := range status {
		status[i] = ecmul.StatusPoint
	}
	if progress != nil {
		progress(len(status), len(status))
	}
	return nil
}

// benchPipeInput is n items of c in format (hex lines as gen writes them,
// or raw records): random scalars in [1, n) and points from a pool of 64
// multiples of G.
func benchPipeInput(b testing.TB, c *curves.Curve, format Format, n int) []byte {
	b.Helper()
	rng := rand.New(rand.NewSource(6))
	L := c.ByteLen()
	type xy struct{ x, y []byte }
	pool := make([]xy, 64)
	for i := range pool {
		k := new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(c.N(), big.NewInt(1))), big.NewInt(1))
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
		if err != nil {
			b.Fatal(err)
		}
		pool[i] = xy{x.FillBytes(make([]byte, L)), y.FillBytes(make([]byte, L))}
	}
	var in []byte
	k := make([]byte, L)
	for range n {
		new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(c.N(), big.NewInt(1))), big.NewInt(1)).FillBytes(k)
		p := pool[rng.Intn(len(pool))]
		if format == Raw {
			in = append(append(append(in, k...), p.x...), p.y...)
			continue
		}
		in = fmt.Appendf(in, "%x %x %x\n", k, p.x, p.y)
	}
	return in
}

// BenchmarkStreamPipe runs the whole stream of mul, reading, parsing,
// computing, formatting and writing, with a fake engine that computes
// nothing (fakeBytesMul): the host's own cost per item of the pipe, in the
// hex and raw formats, with ns/item (wall clock), cpu-ns/item (the
// process's CPU time, every goroutine and the GC's included: the cores'
// time the pipe takes from the engine's own host work, where the platform
// tells it) and allocs/item (mallocs of the whole process during the run,
// per item), at GOMAXPROCS 1 and every core (procs=N): the cost on one
// core, and the rate on all.
func BenchmarkStreamPipe(b *testing.B) {
	for _, format := range []Format{Hex, Raw} {
		for _, c := range []*curves.Curve{curves.P224(), curves.P256()} {
			in := benchPipeInput(b, c, format, DefaultChunk)
			for _, procs := range benchProcs() {
				b.Run(fmt.Sprintf("format=%s/curve=%s/procs=%d", format, c.Name(), procs), func(b *testing.B) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					opts := mulOptions{chunk: DefaultChunk, inflight: 2, codec: codec{c: c, format: format},
						errOut: io.Discard, progress: func(int) {}, bytesMul: fakeBytesMul}
					b.SetBytes(int64(len(in) * pipeItems / DefaultChunk))
					runtime.GC()
					var m0, m1 runtime.MemStats
					runtime.ReadMemStats(&m0)
					cpu0 := cpuTime()
					for b.Loop() {
						sum, err := mulStream(context.Background(), nil, &repeatReader{data: in, n: pipeItems / DefaultChunk}, io.Discard, opts)
						if err != nil || sum.items != pipeItems || sum.failed != 0 {
							b.Fatal(sum, err)
						}
					}
					cpu := cpuTime() - cpu0
					runtime.ReadMemStats(&m1)
					items := float64(b.N * pipeItems)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/items, "ns/item")
					if cpu > 0 {
						b.ReportMetric(float64(cpu.Nanoseconds())/items, "cpu-ns/item")
					}
					b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/items, "allocs/item")
				})
			}
		}
	}
}

// benchProcs are the GOMAXPROCS the pipe's benchmarks run at, set by each
// sub-benchmark itself (procs=N): 1, and every core when there are more.
func benchProcs() []int {
	if n := runtime.NumCPU(); n > 1 {
		return []int{1, n}
	}
	return []int{1}
}

// TestStreamPipeFake: the fake engine's pipe answers every item with its
// own point, in order, in both formats: the benchmark measures a stream
// that works.
func TestStreamPipeFake(t *testing.T) {
	c := curves.P224()
	L := c.ByteLen()
	for _, format := range []Format{Hex, Raw} {
		in := benchPipeInput(t, c, format, 3000)
		var out bytes.Buffer
		opts := mulOptions{chunk: 1000, inflight: 2, codec: codec{c: c, format: format}, bytesMul: fakeBytesMul}
		sum, err := mulStream(context.Background(), nil, bytes.NewReader(in), &out, opts)
		if err != nil || sum.items != 3000 || sum.failed != 0 {
			t.Fatal(format, sum, err)
		}
		var want []byte
		for i := range 3000 {
			if format == Raw {
				want = append(append(want, RawPoint), in[i*3*L+L:(i+1)*3*L]...)
				continue
			}
			line, rest, _ := bytes.Cut(in, []byte("\n"))
			in = rest
			want = append(append(want, line[2*L+1:]...), '\n')
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%s: the fake pipe's output differs", format)
		}
	}
}
