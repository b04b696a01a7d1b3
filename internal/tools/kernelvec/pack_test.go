package main

import (
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestMakePack holds the pack vectors to what their items are for: every
// Outcome of the finish kernel among them, random words in the x‖y of all
// but points, and the header of the file.
func TestMakePack(t *testing.T) {
	I := len(finishEdges) + 2
	forEachVectors(t, I, []int{30}, makePack, func(t *testing.T, su *ladder.Setup, _ int, v *packVectors) {
		Q := su.ResultRows()
		seen := map[ladder.Outcome]bool{}
		for i := range I {
			o := ladder.Outcome(v.results[(Q-1)*I+i])
			seen[o] = true
			zeros := 0
			for r := range Q - 1 {
				if v.results[r*I+i] == 0 {
					zeros++
				}
			}
			if o != ladder.OutPoint && zeros > 1 {
				t.Errorf("item %d (outcome %d): %d zero words of x‖y, want random ones", i, o, zeros)
			}
		}
		for o := ladder.OutPoint; o <= ladder.OutInfinityInput; o++ {
			if !seen[o] {
				t.Errorf("no item has the outcome %d", o)
			}
		}
		words := packWords(su, I, v)
		hdr := []uint32{packMagic, packVersion, uint32(su.Params.N), uint32(su.Curve.ByteLen()), uint32(Q), uint32(I),
			kernels.FinishThreads, uint32(len(v.consts))}
		n := (I*su.WireOutBytes() + 3) / 4
		if !slices.Equal(words[0], hdr) || len(words[2]) != Q*I || len(words[3]) != n || len(words[4]) != n {
			t.Errorf("header %v, want %v", words[0], hdr)
		}
	})
}
