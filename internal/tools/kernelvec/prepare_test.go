package main

import (
	"math/big"
	"slices"
	"testing"

	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestMakePrepare holds the prepare vectors to what their edge items are
// for: FixedOffCurve on the points off the curve alone, the ladder's rows
// of the co-Z ladder all rewritten, a 30-bit channel whose eight products
// sum past 2^64 for the big input, residues 0 for the channels' multiple,
// and the header of the file.
func TestMakePrepare(t *testing.T) {
	I := len(prepareEdges) + 2
	forEachVectors(t, I, []int{16, 30}, makePrepare, func(t *testing.T, su *ladder.Setup, bits int, v *prepareVectors) {
		R, L, n := su.GPUInputRows(), su.InputRows(), su.Params.N
		fixedRow := R - 1
		for i := range I {
			off := ladder.Fixed(v.want[fixedRow*I+i])&ladder.FixedOffCurve != 0
			if want := i < len(prepareEdges) && prepareEdges[i].point.offCurve(); off != want {
				t.Errorf("item %d: FixedOffCurve %v, want %v", i, off, want)
			}
			for r := range L {
				if v.want[r*I+i] == v.raw[r*I+i] {
					t.Errorf("item %d: ladder row %d kept its raw word %#x", i, r, v.raw[r*I+i])
				}
			}
		}
		if su.Schedule.Kind == ladder.CoZ {
			l := ladder.PrepareLayoutFor(n)
			at := slices.IndexFunc(prepareEdges, func(cs prepareCase) bool { return cs.point == pointBigInput })
			if big := maxChannelSum(su, v, l, n, I, at); bits == 30 && big.BitLen() <= 64 {
				t.Errorf("the big input's largest channel sum %#x is below 2^64", big)
			}
			at = slices.IndexFunc(prepareEdges, func(cs prepareCase) bool { return cs.point == pointChannelZero })
			zeros := 0
			for r := range 2 * n {
				if v.want[r*I+at] == 0 {
					zeros++
				}
			}
			if zeros < 2 {
				t.Errorf("the channels' multiple has %d residues 0", zeros)
			}
		}
		words := prepareWords(su, I, v)
		hdr := []uint32{prepareMagic, prepareVersion, uint32(n), uint32(R), uint32(L), uint32(I), kernels.FinishThreads,
			uint32(len(v.consts))}
		if !slices.Equal(words[0], hdr) || len(words[2]) != R*I || len(words[3]) != R*I {
			t.Errorf("header %v, want %v", words[0], hdr)
		}
	})
}

// maxChannelSum returns the largest sum of the eight products of a channel
// (of the 2n) of item i's ladder input, x·M mod p with x from its raw rows, without the
// first reduction.
func maxChannelSum(su *ladder.Setup, v *prepareVectors, l ladder.PrepareLayout, n, I, i int) *big.Int {
	x := new(big.Int)
	for k := 2*4 - 1; k >= 0; k-- {
		x.Lsh(x, 32).Or(x, big.NewInt(int64(v.raw[(su.FinishRowAt()+k)*I+i])))
	}
	p := su.Params.P
	in := x.Mul(x, su.Params.B.M).Mod(x, p)
	most := new(big.Int)
	for ch := range 2 * n {
		at := l.Chan + ch*l.ChanWords
		s := new(big.Int)
		for k := range 8 {
			w := new(big.Int).Rsh(in, uint(32*k)).Uint64() & 0xffffffff
			s.Add(s, new(big.Int).SetUint64(w*uint64(v.consts[at+1+k])))
		}
		if s.Cmp(most) > 0 {
			most = s
		}
	}
	return most
}
