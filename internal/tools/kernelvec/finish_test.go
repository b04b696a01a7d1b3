package main

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/kernels"
)

// TestMakeFinish holds the finish vectors to what their edge items are
// for: the outcome of each, zero bytes for a failure or a base off the
// curve, the ladder's outputs untouched below the results, and the header
// of the file.
func TestMakeFinish(t *testing.T) {
	c := curves.P224()
	for _, kind := range []ladder.Kind{ladder.CoZ, ladder.Comb} {
		su, err := ladder.NewSetupBits(c, kind, 30)
		if err != nil {
			t.Fatal(err)
		}
		I := len(finishEdges) + 2
		v, err := makeFinish(su, c, I, rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		const pt, inf, fail = ladder.OutPoint, ladder.OutInfinity, ladder.OutFailed
		// k = n−1 is −G on the co-Z ladder (a fixed result, whatever the
		// denominator), the comb's own sum otherwise; k = 1 on the comb
		// has the denominator one, which a zero one is replaced by
		off := ladder.OutOffCurve
		want := []ladder.Outcome{pt, inf, pt, fail, fail, pt, inf, fail, inf, pt, pt, fail, off, off, off, pt, pt}
		if kind == ladder.Comb {
			want[9], want[11] = fail, pt
		}
		xy := make([]byte, 2*c.ByteLen())
		for i, w := range want {
			if o := su.ReadResult(v.want, I, i, xy); o != w {
				t.Errorf("%v: item %d: outcome %d, want %d", kind, i, o, w)
			} else if (o == fail || o == off) && slices.ContainsFunc(xy, func(b byte) bool { return b != 0 }) {
				t.Errorf("%v: item %d failed with bytes %x, want zeros", kind, i, xy)
			}
		}
		if r := su.ResultRows() * I; !slices.Equal(v.want[r:], v.outs[r:]) {
			t.Errorf("%v: the finish changed the rows below its results", kind)
		}
		words := finishWords(su, I, v)
		hdr := []uint32{finishMagic, finishVersion, 8, 3, uint32(su.GPUInputRows()), uint32(su.ResultRows()), uint32(I),
			kernels.FinishThreads, kernels.FinishItemsPerThread, uint32(len(v.consts))}
		if !slices.Equal(words[0], hdr) || len(words[2]) != su.GPUInputRows()*I || len(words[4]) != 3*8*I {
			t.Errorf("%v: header %v, want %v", kind, words[0], hdr)
		}
	}
}
