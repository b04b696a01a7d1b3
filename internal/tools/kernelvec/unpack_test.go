package main

import (
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestMakeUnpack holds the unpack vectors to what their edge items are
// for: the Outcome in FixedRejected of each point on the co-Z ladder and
// of none on the comb, the ladder's rows kept and the finish and scalar
// rows rewritten, a wire input of WireInBytes per item, and the header of
// the file.
func TestMakeUnpack(t *testing.T) {
	I := len(unpackEdges) + 2
	forEachVectors(t, I, []int{16, 30}, makeUnpack, func(t *testing.T, su *ladder.Setup, _ int, v *unpackVectors) {
		R, L, W := su.GPUInputRows(), su.InputRows(), su.ScalarWords()
		fixedRow := R - 1
		kinds := map[ladder.Outcome]int{}
		for i := range I {
			want := ladder.OutPoint
			if i < len(unpackEdges) && L > 0 {
				want = unpackEdges[i].point.outcome()
			}
			got := ladder.Outcome(ladder.Fixed(v.inWant[fixedRow*I+i]) & ladder.FixedRejected >> ladder.FixedRejectedShift)
			if got != want {
				t.Errorf("item %d: outcome %d in Fixed, want %d", i, got, want)
			}
			kinds[got]++
			for r := range R {
				kept := v.inWant[r*I+i] == v.in[r*I+i]
				if r < L && !kept {
					t.Errorf("item %d: the ladder's row %d changed", i, r)
				}
				if r >= L && r < fixedRow && kept {
					t.Errorf("item %d: finish row %d kept its random word %#x", i, r, v.in[r*I+i])
				}
			}
			for r := range W {
				if v.scWant[r*I+i] == v.sc[r*I+i] {
					t.Errorf("item %d: scalar row %d kept its random word %#x", i, r, v.sc[r*I+i])
				}
			}
		}
		if L > 0 && len(kinds) != 4 {
			t.Errorf("outcomes %v, want every one of the unpack kernel", kinds)
		}
		if n := (I*su.WireInBytes() + 3) / 4; len(v.wire) != n {
			t.Errorf("%d words of wire input, want %d", len(v.wire), n)
		}
		words := unpackWords(su, I, v)
		hdr := []uint32{unpackMagic, unpackVersion, uint32(su.Params.N), uint32(R), uint32(L), uint32(W),
			uint32(su.Curve.ByteLen()), uint32(I), kernels.FinishThreads, uint32(len(v.consts))}
		if !slices.Equal(words[0], hdr) || len(words[3]) != R*I || len(words[6]) != W*I {
			t.Errorf("header %v, want %v", words[0], hdr)
		}
	})
}
