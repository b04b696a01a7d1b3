package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// The hex stream's own work per item, without the engine: reading lines
// into a chunk, parsing a chunk into the flat buffers, and formatting a
// computed chunk's lines. Each runs on one chunk of benchChunk items as
// gen writes them, and reports ns/item (its allocs/op are per chunk).

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

// readChunk reads every line of in into ch through a line batch, as the
// stream's reading and chunking goroutines do.
func readChunk(ch *mulChunk, bat *lineBatch, in io.Reader) {
	lr := &lineReader{r: bufio.NewReaderSize(in, 1<<16), beforeWait: func() {}}
	bat.reset()
	for {
		line, num, tooLong, ok := lr.next()
		if !ok {
			break
		}
		bat.add(line, num, tooLong)
		if len(bat.nums) == parseBatch {
			ch.addLines(bat, 0, len(bat.nums))
			bat.reset()
		}
	}
	ch.addLines(bat, 0, len(bat.nums))
}

func reportPerItem(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunk), "ns/item")
}

func BenchmarkHexRead(b *testing.B) {
	for _, c := range curves.All() {
		in := benchHexInput(b, c)
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			ch, bat := &mulChunk{}, &lineBatch{}
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				ch.reset()
				readChunk(ch, bat, bytes.NewReader(in))
			}
			reportPerItem(b)
		})
	}
}

// hexChunk returns the hex codec of c and a chunk read from in, unparsed.
func hexChunk(c *curves.Curve, in []byte) (*codec, *mulChunk) {
	ch := &mulChunk{}
	readChunk(ch, &lineBatch{}, bytes.NewReader(in))
	return &codec{c: c, format: Hex}, ch
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
			for b.Loop() {
				ch.failed = 0
				formatBytesChunk(cd, ch)
			}
			reportPerItem(b)
		})
	}
}
