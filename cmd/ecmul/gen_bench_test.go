package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rnsec/ecmul/cmd/ecmul/internal/stream"
	"github.com/rnsec/ecmul/internal/curves"
)

// BenchmarkGen writes gen's lines (hex) or records (raw) to io.Discard:
// its cost per item (drawing, formatting, writing), the pool of 1,024
// points (made on each run, as gen does) spread over 4 Mi items, and its
// allocations per item, at GOMAXPROCS 1 and every core (procs=N, set by
// each sub-benchmark: -cpu does not reach a b.Loop benchmark's first run).
func BenchmarkGen(b *testing.B) {
	const count = 1 << 22
	procs := []int{1}
	if n := runtime.NumCPU(); n > 1 {
		procs = append(procs, n)
	}
	for _, format := range []stream.Format{stream.Hex, stream.Raw} {
		for _, c := range curves.All() {
			for _, p := range procs {
				b.Run(fmt.Sprintf("format=%s/curve=%s/procs=%d", format, c.Name(), p), func(b *testing.B) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
					var m0, m1 runtime.MemStats
					runtime.ReadMemStats(&m0)
					for b.Loop() {
						if _, err := genItems(context.Background(), io.Discard, c, count, 1, format, false, 1024); err != nil {
							b.Fatal(err)
						}
					}
					runtime.ReadMemStats(&m1)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
					b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(b.N*count), "allocs/item")
				})
			}
		}
	}
}

// BenchmarkGenDraw times the part of gen that runs on one core: drawing
// each line's scalar and point, as genItems does.
func BenchmarkGenDraw(b *testing.B) {
	for _, c := range curves.All() {
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			ks := newScalarSampler(c.N())
			blk := &genBlockBuf{scalars: make([]byte, genBlock*len(ks.n)), picks: make([]int, genBlock)}
			for b.Loop() {
				for i := range genBlock {
					ks.nextInto(rng, blk.scalars[i*len(ks.n):(i+1)*len(ks.n)])
					blk.picks[i] = rng.IntN(1024)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*genBlock), "ns/item")
		})
	}
}

// BenchmarkGenFormat times the part of gen that runs on all cores:
// formatting a block of hex lines, and writing it to io.Discard.
func BenchmarkGenFormat(b *testing.B) {
	for _, c := range curves.All() {
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			ks := newScalarSampler(c.N())
			pool := &genPool{s: sampler{c, 1}, points: make([]*curves.Point, 64)}
			pt := &pointTexts{c: c, pool: pool, format: stream.Hex, texts: make([][]byte, 64)}
			blk := &genBlockBuf{m: genBlock, scalars: make([]byte, genBlock*len(ks.n)), picks: make([]int, genBlock)}
			for i := range genBlock {
				copy(blk.scalars[i*len(ks.n):], ks.next(rng))
				blk.picks[i] = rng.IntN(64)
				pt.text(blk.picks[i])
			}
			for b.Loop() {
				if err := blk.write(io.Discard, stream.Hex, len(ks.n), pt.texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*genBlock), "ns/item")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
		})
	}
}
