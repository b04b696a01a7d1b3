package main

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// forEachVectors runs test, as a subtest, on the vectors that parts makes
// for items items from seed 1 on P-224, for each schedule whose kernels
// around the ladder run on the GPU (the co-Z ladder and the comb) at each
// channel width of bits.
func forEachVectors[V any](t *testing.T, items int, bits []int, parts makeVectors[V],
	test func(t *testing.T, su *ladder.Setup, bits int, v V)) {
	forKindsVectors(t, []ladder.Kind{ladder.CoZ, ladder.Comb}, items, bits, parts, test)
}

// forKindsVectors is forEachVectors on the schedules of kinds.
func forKindsVectors[V any](t *testing.T, kinds []ladder.Kind, items int, bits []int, parts makeVectors[V],
	test func(t *testing.T, su *ladder.Setup, bits int, v V)) {
	c := curves.P224()
	for _, kind := range kinds {
		for _, b := range bits {
			t.Run(fmt.Sprintf("%v_c%d", kind, b), func(t *testing.T) {
				su, err := ladder.NewSetupBits(c, kind, b)
				if err != nil {
					t.Fatal(err)
				}
				v, err := parts(su, c, items, rand.New(rand.NewSource(1)))
				if err != nil {
					t.Fatal(err)
				}
				test(t, su, b, v)
			})
		}
	}
}

// TestMakeFinish holds the finish vectors to what their edge items are
// for: the outcome of each, zero bytes for a failure, a base off the curve
// or a rejected point, the ladder's outputs untouched below the results,
// and the header of the file.
func TestMakeFinish(t *testing.T) {
	I := len(finishEdges) + 2
	forEachVectors(t, I, []int{30}, makeFinish, func(t *testing.T, su *ladder.Setup, _ int, v *finishVectors) {
		const pt, inf, fail = ladder.OutPoint, ladder.OutInfinity, ladder.OutFailed
		// k = n−1 is −G on the co-Z ladder (a fixed result, whatever the
		// denominator), the comb's own sum otherwise; k = 1 on the comb
		// has the denominator one, which a zero one is replaced by
		off := ladder.OutOffCurve
		enc, coord, zero := ladder.OutBadEncoding, ladder.OutBadCoordinate, ladder.OutInfinityInput
		want := []ladder.Outcome{pt, inf, pt, fail, fail, pt, inf, fail, inf, pt, pt, fail, off, off, off, enc, coord, zero, enc, pt, pt}
		if su.Schedule.Kind.IsComb() {
			want[9], want[11] = fail, pt
		}
		xy := make([]byte, 2*su.Curve.ByteLen())
		for i, w := range want {
			if o := su.ReadResult(v.want, I, i, xy); o != w {
				t.Errorf("item %d: outcome %d, want %d", i, o, w)
			} else if o != pt && o != inf && slices.ContainsFunc(xy, func(b byte) bool { return b != 0 }) {
				t.Errorf("item %d failed with bytes %x, want zeros", i, xy)
			}
		}
		if r := su.ResultRows() * I; !slices.Equal(v.want[r:], v.outs[r:]) {
			t.Errorf("the finish changed the rows below its results")
		}
		words := finishWords(su, I, v)
		hdr := []uint32{finishMagic, finishVersion, 8, 3, uint32(su.GPUInputRows()), uint32(su.ResultRows()), uint32(I),
			kernels.FinishThreads, kernels.FinishItemsMax, uint32(len(v.consts))}
		if !slices.Equal(words[0], hdr) || len(words[2]) != su.GPUInputRows()*I || len(words[4]) != 3*8*I {
			t.Errorf("header %v, want %v", words[0], hdr)
		}
	})
}
