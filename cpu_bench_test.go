package ecmul_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// BenchmarkCPUBackend measures the cpu backend on one worker, per item:
// k·P and k·G through the bytes API, on random points and scalars.
func BenchmarkCPUBackend(b *testing.B) {
	const count = 256
	for _, c := range curves.All() {
		e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		rng := newRNG(9)
		L := c.ByteLen()
		scalars, points := make([]byte, count*L), make([]byte, 0, count*(1+2*L))
		for i := range count {
			randScalar(rng, c).FillBytes(scalars[i*L : (i+1)*L])
			points = append(points, c.EncodeSEC1(cp(randPoint(b, rng, c)), false)...)
		}
		out, status := make([]byte, count*(1+2*L)), make([]ecmul.Status, count)
		b.Run(fmt.Sprintf("curve=%s/op=mul", c.Name()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := e.ScalarMultBytes(context.Background(), out, status, scalars, points); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
		b.Run(fmt.Sprintf("curve=%s/op=base", c.Name()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := e.ScalarBaseMultBytes(context.Background(), out, status, scalars); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
		e.Close()
	}
}
