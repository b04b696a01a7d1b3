package ecmul_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

// BenchmarkGPUHostPath measures the host's share of the gpu backend's end
// to end, the kernels left undone by a fake driver: the *big.Int API
// against the bytes API, per item, with the items finished by the GPU's
// finish kernel (finish=gpu: the host only prepares, packs and copies
// bytes) or on the host (finish=host: CRT, inversion and bytes too; the
// outputs fail the result check, which costs what a good result costs).
func BenchmarkGPUHostPath(b *testing.B) {
	const count = 1 << 16
	for _, c := range curves.All() {
		for _, finish := range []string{"gpu", "host"} {
			hostPath(b, c, count, finish)
		}
	}
}

// hostPath is BenchmarkGPUHostPath on one curve, finished on the GPU or the host.
func hostPath(b *testing.B, c *curves.Curve, count int, finish string) {
	d := fakecuda.New()
	restore := ecmul.UseGPUDriver(d, []byte("fatbin"))
	e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 1 << 14, HostFinish: finish == "host"})
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
		points = append(points, c.EncodeSEC1(cp(pts[i]), false)...)
	}
	out, status := make([]byte, count*(1+2*L)), make([]ecmul.Status, count)
	b.Run(fmt.Sprintf("curve=%s/finish=%s/api=big", c.Name(), finish), func(b *testing.B) {
		for b.Loop() {
			if _, err := scalarMult(e, context.Background(), pts, ks); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
	})
	b.Run(fmt.Sprintf("curve=%s/finish=%s/api=bytes", c.Name(), finish), func(b *testing.B) {
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
