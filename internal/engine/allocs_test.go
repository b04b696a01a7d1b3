package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

// bigBatch returns n items of the *big.Int path: multiples of G by
// scalars below n, and room for their results.
func bigBatch(c *curves.Curve, n int) ([]Result, []*big.Int, []*Point) {
	res, scalars, points := make([]Result, n), make([]*big.Int, n), make([]*Point, n)
	g := &Point{X: c.Gx(), Y: c.Gy()}
	for i := range n {
		scalars[i], points[i] = big.NewInt(int64(i+2)), g
	}
	return res, scalars, points
}

// allocsPerBatch returns the allocations of one ScalarMult batch of n
// items on e.
func allocsPerBatch(t testing.TB, e *Engine, n int) float64 {
	res, scalars, points := bigBatch(e.Curve(), n)
	return testing.AllocsPerRun(3, func() {
		if err := e.ScalarMult(context.Background(), res, scalars, points); err != nil {
			t.Fatal(err)
		}
	})
}

// TestScalarMultAllocsPerBatch: the *big.Int path allocates per batch, not
// per item, on the gpu backend (a fake driver whose kernels do nothing: the
// results are whatever the zeroed buffers say) and on the cpu backend, so
// that a batch does not leave millions of objects for the collector to
// mark; the results' coordinates share the batch's slabs.
func TestScalarMultAllocsPerBatch(t *testing.T) {
	c := curves.P256()
	t.Cleanup(UseGPUDriver(fakecuda.New(), []byte("fatbin")))
	for _, b := range []Backend{GPU, CPU} {
		e, err := New(c, Options{Backend: b, Workers: 4}, GPUConfig{Chunk: 1 << 17})
		if err != nil {
			t.Fatal(err)
		}
		n := 1 << 15
		if b == CPU {
			n = 1 << 9 // milliseconds an item on one core
		}
		small, large := allocsPerBatch(t, e, n), allocsPerBatch(t, e, 4*n)
		t.Logf("%v: %.0f allocations for %d items, %.0f for %d", b, small, n, large, 4*n)
		// the gpu backend's per batch; the cpu backend's a goroutine or
		// two per chunk of cpuChunk items
		most := 1.0 / 1024
		if b == CPU {
			most = 4.0 / cpuChunk
		}
		if perItem := (large - small) / float64(3*n); perItem > most {
			t.Errorf("%v: %.0f allocations for %d items, %.0f for %d: %.4f more per item, want at most %.4f", b, small, n, large, 4*n, perItem, most)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkScalarMultAllocs measures ScalarMult batches of the *big.Int
// path and reports their allocations: the gpu backend on a fake driver
// whose kernels do nothing (the host's work alone), the cpu backend whole.
func BenchmarkScalarMultAllocs(b *testing.B) {
	c := curves.P256()
	b.Cleanup(UseGPUDriver(fakecuda.New(), []byte("fatbin")))
	for _, bc := range []struct {
		backend Backend
		batch   int
	}{{GPU, 1 << 12}, {GPU, 1 << 16}, {CPU, 1 << 8}, {CPU, 1 << 10}} {
		b.Run(fmt.Sprintf("backend=%v/batch=%d", bc.backend, bc.batch), func(b *testing.B) {
			e, err := New(c, Options{Backend: bc.backend}, GPUConfig{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			res, scalars, points := bigBatch(c, bc.batch)
			b.ReportAllocs()
			for b.Loop() {
				if err := e.ScalarMult(context.Background(), res, scalars, points); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestResultSlabApart: results that share a slab are apart: arithmetic that
// grows one leaves its neighbours as they were.
func TestResultSlabApart(t *testing.T) {
	c := curves.P256()
	e, err := New(c, Options{Backend: CPU}, GPUConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, scalars, points := bigBatch(c, 3)
	if err := e.ScalarMult(context.Background(), res, scalars, points); err != nil {
		t.Fatal(err)
	}
	wantX, wantY := new(big.Int).Set(res[1].X), new(big.Int).Set(res[1].Y)
	res[0].Y.Lsh(res[0].Y, 1000)
	res[0].X.Mul(res[0].X, res[0].X)
	res[2].X.SetInt64(-1)
	if res[1].X.Cmp(wantX) != 0 || res[1].Y.Cmp(wantY) != 0 {
		t.Errorf("item 1 changed with its neighbours: (%x, %x), want (%x, %x)", res[1].X, res[1].Y, wantX, wantY)
	}
	x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), scalars[1])
	if err != nil {
		t.Fatal(err)
	}
	if x.Cmp(wantX) != 0 || y.Cmp(wantY) != 0 {
		t.Errorf("item 1 is (%x, %x), want (%x, %x)", wantX, wantY, x, y)
	}
}

// TestWordsOfMatchesSetBytes: the slab's word-at-a-time decoding gives
// big.Int.SetBytes's value on random bytes and on zeros, ones and single
// bytes, for every length up to four words.
func TestWordsOfMatchesSetBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const wordBytes = bits.UintSize / 8
	for L := 1; L <= 4*wordBytes; L++ {
		w := (L + wordBytes - 1) / wordBytes
		cases := [][]byte{make([]byte, L), bytes.Repeat([]byte{0xff}, L)}
		one := make([]byte, L)
		one[0] = 0x80
		cases = append(cases, one)
		for range 20 {
			b := make([]byte, L)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			cases = append(cases, b)
		}
		for _, b := range cases {
			got := new(big.Int).SetBits(wordsOf(make([]big.Word, w), b))
			if want := new(big.Int).SetBytes(b); got.Cmp(want) != 0 {
				t.Fatalf("%d bytes %x: %x, want %x", L, b, got, want)
			}
		}
	}
}
