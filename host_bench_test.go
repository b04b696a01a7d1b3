package ecmul_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/gpu/fakecuda"
)

// BenchmarkGPUHostPath measures the host's share of the gpu backend's end
// to end, the kernel left undone by a fake driver (its outputs fail the
// result check, which costs what a good result costs): the *big.Int API
// against the bytes API, per item.
func BenchmarkGPUHostPath(b *testing.B) {
	const count = 1 << 16
	for _, c := range curves.All() {
		d := fakecuda.New()
		restore := ecmul.UseGPUDriver(d, []byte("fatbin"))
		e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU, GPU: ecmul.GPUOptions{Chunk: 1 << 14}})
		if err != nil {
			b.Fatal(err)
		}
		rng := newRNG(5)
		pool := make([]*ecmul.Point, 256)
		for i := range pool {
			pool[i] = randPoint(b, rng, c)
		}
		pts, ks := make([]*ecmul.Point, count), make([]*big.Int, count)
		L := c.ByteLen()
		scalars, points := make([]byte, count*L), make([]byte, 0, count*(1+2*L))
		for i := range pts {
			pts[i], ks[i] = pool[i%len(pool)], randScalar(rng, c)
			ks[i].FillBytes(scalars[i*L : (i+1)*L])
			points = append(points, c.EncodeSEC1(pts[i], false)...)
		}
		out, status := make([]byte, count*(1+2*L)), make([]ecmul.Status, count)
		b.Run(fmt.Sprintf("curve=%s/api=big", c.Name()), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.ScalarMult(context.Background(), pts, ks); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
		b.Run(fmt.Sprintf("curve=%s/api=bytes", c.Name()), func(b *testing.B) {
			for b.Loop() {
				if err := e.ScalarMultBytes(context.Background(), out, status, scalars, points); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
		e.Close()
		restore()
	}
}

// BenchmarkGPUHostLatency measures the host's share of small batches on the
// gpu backend through the bytes API, the kernel left undone by a fake
// driver: the time a batch spends filling and draining chunks (fill-us,
// drain-us) and in all (wall-us, the fake driver's own bookkeeping
// included), per batch. Run with -cpu to see how the host's work spreads
// over cores (par.Team for batches up to latencyBatchItems).
func BenchmarkGPUHostLatency(b *testing.B) {
	c := curves.P224()
	restore := ecmul.UseGPUDriver(fakecuda.New(), []byte("fatbin"))
	defer restore()
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	rng := newRNG(5)
	L := c.ByteLen()
	for _, count := range []int{1, 1024, 8192} {
		scalars, points := make([]byte, count*L), make([]byte, 0, count*(1+2*L))
		for i := range count {
			randScalar(rng, c).FillBytes(scalars[i*L : (i+1)*L])
			points = append(points, c.EncodeSEC1(randPoint(b, rng, c), false)...)
		}
		out, status := make([]byte, count*(1+2*L)), make([]ecmul.Status, count)
		b.Run(fmt.Sprintf("items=%d", count), func(b *testing.B) {
			var fill, drain, wall float64
			for b.Loop() {
				if err := e.ScalarMultBytes(context.Background(), out, status, scalars, points); err != nil {
					b.Fatal(err)
				}
				st, _ := e.Diagnostics().LastBatch()
				fill, drain, wall = fill+st.FillMs, drain+st.DrainMs, wall+st.WallMs
			}
			b.ReportMetric(1e3*fill/float64(b.N), "fill-us")
			b.ReportMetric(1e3*drain/float64(b.N), "drain-us")
			b.ReportMetric(1e3*wall/float64(b.N), "wall-us")
		})
	}
}
