package main

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestMakeVerifyUnpack holds the verify unpack vectors to what their items
// are for: every Outcome of the unpack kernel among the keys, u1·G at
// infinity and not, r + n below p and not, the finish and scalar rows of
// the unpack file of the same keys, a wire input of VerifyWireInBytes per item, and the
// header of the file.
func TestMakeVerifyUnpack(t *testing.T) {
	I := len(unpackEdges) + 2
	forKindsVectors(t, []ladder.Kind{ladder.CoZ}, I, []int{16, 30}, makeVerifyUnpack,
		func(t *testing.T, su *ladder.Setup, _ int, v *unpackVectors) {
			R, at := su.VerifyInputRows(), su.VerifyRowAt()
			kinds := map[ladder.Outcome]int{}
			flags := map[ladder.VerifyFlags]int{}
			for i := range I {
				kinds[ladder.Outcome(ladder.Fixed(v.inWant[(at-1)*I+i])&ladder.FixedRejected>>ladder.FixedRejectedShift)]++
				flags[ladder.VerifyFlags(v.inWant[(at+ladder.VerifyRowFlags)*I+i])]++
			}
			if len(kinds) != 4 || len(flags) != 4 {
				t.Errorf("outcomes %v and flags %v, want every one", kinds, flags)
			}
			u, err := makeUnpack(su, su.Curve, I, rand.New(rand.NewSource(1)))
			if err != nil {
				t.Fatal(err)
			}
			finish := v.inWant[su.FinishRowAt()*I : at*I]
			if !slices.Equal(finish, u.inWant[su.FinishRowAt()*I:]) || !slices.Equal(v.scWant, u.scWant) {
				t.Errorf("the finish and scalar rows are not the unpack file's")
			}
			if n := (I*su.VerifyWireInBytes() + 3) / 4; len(v.wire) != n {
				t.Errorf("%d words of wire input, want %d", len(v.wire), n)
			}
			words := verifyUnpackWords(su, I, v)
			hdr := []uint32{verifyUnpackMagic, unpackVersion, uint32(su.Params.N), uint32(R), uint32(su.InputRows()),
				uint32(su.ScalarWords()), uint32(su.Curve.ByteLen()), uint32(I), kernels.FinishThreads, uint32(len(v.consts))}
			if !slices.Equal(words[0], hdr) || len(words[3]) != R*I || len(words[5]) != R*I {
				t.Errorf("header %v, want %v", words[0], hdr)
			}
		})
}

// TestMakeVerifyPack holds the verify pack vectors to what their items are
// for: valid and invalid signatures and the other outcomes among the
// rows, the wire output one byte an item, and the header of the file.
func TestMakeVerifyPack(t *testing.T) {
	I := len(finishEdges) + 2
	forKindsVectors(t, []ladder.Kind{ladder.CoZ}, I, []int{30}, makeVerifyPack,
		func(t *testing.T, su *ladder.Setup, _ int, v *packVectors) {
			seen := map[ladder.Outcome]bool{}
			for i := range I {
				seen[ladder.Outcome(v.results[i])] = true
			}
			for _, o := range []ladder.Outcome{ladder.OutValid, ladder.OutInvalid, ladder.OutFailed, ladder.OutOffCurve} {
				if !seen[o] {
					t.Errorf("no item has the outcome %d", o)
				}
			}
			words := verifyPackWords(su, I, v)
			hdr := []uint32{verifyPackMagic, verifyPackVersion, uint32(su.Params.N), verifyPackRows, uint32(I),
				kernels.FinishThreads, uint32(len(v.consts))}
			n := (I + 3) / 4
			if !slices.Equal(words[0], hdr) || len(words[2]) != verifyPackRows*I || len(words[3]) != n || len(words[4]) != n {
				t.Errorf("header %v, want %v", words[0], hdr)
			}
		})
}
