package stream_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// BenchmarkMulCompressed streams the same SEC1 items, uncompressed and
// compressed, through Mul on the cpu backend, per curve: ns/item of each
// and their throughput ratio (compressed/uncompressed, the share of the
// uncompressed rate that compressed input keeps).
func BenchmarkMulCompressed(b *testing.B) {
	const items = 2000
	for _, c := range curves.All() {
		eng, err := ecmul.New(must(ecmul.ParseCurve(c.Name())), ecmul.Options{Backend: ecmul.CPU})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewSource(4))
		var plain, packed bytes.Buffer
		for range items {
			k := new(big.Int).Rand(rng, c.N())
			k.Add(k, big.NewInt(1))
			m := new(big.Int).Rand(rng, c.N())
			g := c.Generator()
			x, y, _, err := c.ReferenceScalarMult(g.X, g.Y, m.Add(m, big.NewInt(1)))
			if err != nil {
				b.Fatal(err)
			}
			p := &ecmul.Point{X: x, Y: y}
			fmt.Fprintf(&plain, "%x %s\n", k, hex.EncodeToString(c.EncodeSEC1((*curves.Point)(p), false)))
			fmt.Fprintf(&packed, "%x %s\n", k, hex.EncodeToString(c.EncodeSEC1((*curves.Point)(p), true)))
		}
		var perItem [2]float64
		for i, in := range []*bytes.Buffer{&plain, &packed} {
			b.Run(fmt.Sprintf("curve=%s/compressed=%t", c.Name(), i == 1), func(b *testing.B) {
				for b.Loop() {
					sum, err := stream.Mul(context.Background(), eng, bytes.NewReader(in.Bytes()), io.Discard, stream.Options{Format: stream.SEC1})
					if err != nil || sum.Failed != 0 {
						b.Fatal(sum, err)
					}
				}
				perItem[i] = float64(b.Elapsed().Nanoseconds()) / float64(b.N*items)
				b.ReportMetric(perItem[i], "ns/item")
				if i == 1 && perItem[0] > 0 {
					b.ReportMetric(perItem[0]/perItem[1], "compressed/uncompressed")
				}
			})
		}
		eng.Close()
	}
}

// must is v, or a panic with err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
