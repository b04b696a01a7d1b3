package stream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand"
	"runtime"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// The hex stream's own work per item, without the engine: reading lines
// into chunks, parsing a chunk into the flat buffers, and formatting a
// computed chunk's lines, on lines as gen writes them; each reports
// ns/item (the allocs/op of parsing and formatting are per chunk).

const benchChunk = DefaultChunk

// benchHexInput is benchChunk hex lines of c: random scalars in [1, n) and
// points from a pool of k·G, all digits lowercase and zero-padded.
func benchHexInput(b *testing.B, c *curves.Curve) []byte {
	b.Helper()
	rng := rand.New(rand.NewSource(6))
	pool := make([]string, 64)
	for i := range pool {
		k := new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(c.N(), big.NewInt(1))), big.NewInt(1))
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
		if err != nil {
			b.Fatal(err)
		}
		pool[i] = string(AppendCoordinate(append(AppendCoordinate(nil, c, x), ' '), c, y))
	}
	var in []byte
	for range benchChunk {
		k := new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(c.N(), big.NewInt(1))), big.NewInt(1))
		in = append(AppendCoordinate(in, c, k), ' ')
		in = append(append(in, pool[rng.Intn(len(pool))]...), '\n')
	}
	return in
}

// readChunk reads every line of in into one chunk, as the stream's
// reading stage does.
func readChunk(cd *codec, in io.Reader) *mulChunk {
	p := newMulPipeline(context.Background(), nil, mulOptions{chunk: math.MaxInt, codec: *cd})
	go p.read(in)
	ch := <-p.parsed
	if _, ok := <-p.parsed; ok {
		panic("readChunk: more than one chunk")
	}
	return ch
}

func reportPerItem(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunk), "ns/item")
}

// BenchmarkHexRead times the reading stage alone, the one part of the
// stream that runs on one goroutine (with the reads of the input), as on a
// long stream: 16 chunks of benchChunk lines read through one pipeline,
// each chunk handed back to be filled again as soon as it is read. Its
// ns/item bounds the rate of the whole stream, whatever the cores.
func BenchmarkHexRead(b *testing.B) {
	const chunks = 16
	for _, c := range curves.All() {
		in := benchHexInput(b, c)
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			cd := &codec{c: c, format: Hex}
			b.SetBytes(int64(len(in) * chunks))
			for b.Loop() {
				p := newMulPipeline(context.Background(), nil, mulOptions{chunk: benchChunk, codec: *cd})
				go p.read(&repeatReader{data: in, n: chunks})
				n := 0
				for ch := range p.parsed {
					n += ch.lines
					ch.reset()
					p.free <- ch
				}
				if n != chunks*benchChunk {
					b.Fatalf("%d lines read, want %d", n, chunks*benchChunk)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chunks*benchChunk), "ns/item")
		})
	}
}

// hexChunk returns the hex codec of c and a chunk read from in, unparsed.
func hexChunk(c *curves.Curve, in []byte) (*codec, *mulChunk) {
	cd := &codec{c: c, format: Hex}
	return cd, readChunk(cd, bytes.NewReader(in))
}

func BenchmarkHexParse(b *testing.B) {
	for _, c := range curves.All() {
		in := benchHexInput(b, c)
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			cd, ch := hexChunk(c, in)
			for b.Loop() {
				ch.valid = ch.valid[:0]
				ch.parse(cd)
			}
			if len(ch.valid) != benchChunk {
				b.Fatalf("%d of %d lines valid", len(ch.valid), benchChunk)
			}
			reportPerItem(b)
		})
	}
}

func BenchmarkHexFormat(b *testing.B) {
	for _, c := range curves.All() {
		in := benchHexInput(b, c)
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			cd, ch := hexChunk(c, in)
			ch.parse(cd)
			ch.flat.out = append(ch.flat.out[:0], ch.flat.points...) // the inputs stand for the results
			ch.flat.status = make([]ecmul.Status, benchChunk)
			for i := range ch.flat.status {
				ch.flat.status[i] = ecmul.StatusPoint // StatusNotComputed would time the error lines
			}
			for b.Loop() {
				ch.failed = 0
				formatBytesChunk(cd, ch)
			}
			reportPerItem(b)
		})
	}
}
