package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/stream"
)

// BenchmarkGen writes gen's hex lines to io.Discard: its cost per line
// (drawing, formatting, writing), the pool of 1,024 points (made on each
// run, as gen does) spread over 4 Mi lines.
func BenchmarkGen(b *testing.B) {
	const count = 1 << 22
	for _, c := range curves.All() {
		b.Run(fmt.Sprintf("curve=%s", c.Name()), func(b *testing.B) {
			for b.Loop() {
				if err := genItems(io.Discard, c, count, 1, stream.Hex, false, 1024); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
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
