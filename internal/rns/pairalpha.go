package rns

import (
	"math/big"
)

// The α of the pair, mma and spread mappings of wide channels. A second
// extension needs α = ⌊Σ_k ξ̃_k/m̃_k⌋, the multiple of M̃ that the CRT sum
// Σ_k ξ̃_k·M̃_k exceeds the extended value X by. These mappings take it
// from no m_e: an item's ξ̃ fall into PairAlphaLanes sums S_l (the pair
// mapping's lanes of a group: channels k < 8 by k mod 4, channel 8 in one
// of them), each keeps its bits from 2^PairAlphaShift up, and
// α = ⌊(Σ_l ⌊S_l/2^24⌋ + Φ)/2^6⌋ (internal/kernels/ecmul.cu: pair_alpha,
// frag_alpha of the mma mapping, wide_alpha of the spread mapping, whose
// lane holds the whole row).
// With A = Σ_k ξ̃_k/m̃_k = α + X/M̃ and T = Σ_l ⌊S_l/2^24⌋,
//
//	0 <= A − T/2^6 <= Δ = L·(2^24 − 1)/2^30 + Σ_k (m̃_k − 1)·c_k/(m̃_k·2^30),
//
// since each floor drops less than 1 and 1/2^30 <= 1/m̃_k differs from 1/m̃_k
// by c_k/(m̃_k·2^30). So Φ = ⌈2^6·Δ⌉ gives α <= (T + Φ)/2^6 < α + 1 whenever
// X/M̃ < 1 − Φ/2^6, which pairAlphaBounds proves for every X < u.
const (
	PairAlphaLanes = 4                                       // the lanes of an item's group in the pair mapping
	PairAlphaShift = WideChannelBits - 6                     // the bits of S_l below 2^24 are dropped
	pairAlphaScale = 1 << (WideChannelBits - PairAlphaShift) // 2^6: T counts units of 2^-6
)

// pairAlphaDelta returns Δ for the wide basis bt.
func pairAlphaDelta(bt Basis) *big.Rat {
	delta := big.NewRat(PairAlphaLanes*(1<<PairAlphaShift-1), 1<<WideChannelBits)
	for _, mod := range bt.Moduli {
		m := int64(mod.M)
		delta.Add(delta, big.NewRat((m-1)*int64(mod.C), m<<WideChannelBits))
	}
	return delta
}

// pairAlphaPhi returns ⌈2^6·Δ⌉ for the wide basis bt.
func pairAlphaPhi(bt Basis) uint32 {
	scaled := new(big.Rat).Mul(pairAlphaDelta(bt), new(big.Rat).SetInt64(pairAlphaScale))
	return uint32(ceilRat(scaled).Uint64())
}

// PairAlpha computes α the kernel's way from the ξ̃ of one item: lane l
// holds the channels k < 8 with k mod 4 = l, and channel 8 is on lane half
// (the pair mapping: 0 for item g of a group, 1 for item g + 8; the mma and
// spread mappings: 0).
func (p *Params) PairAlpha(xi []uint32, half int) uint32 {
	var sums [PairAlphaLanes]uint32
	for k, x := range xi {
		sums[pairAlphaLane(k, half)] += x
	}
	var t uint32
	for _, s := range sums {
		t += s >> PairAlphaShift
	}
	return (t + p.Phi) / pairAlphaScale
}

// pairAlphaLane returns the sum S_l that channel k's ξ̃ joins: k mod 4 for
// k < 8, half from 8 up.
func pairAlphaLane(k, half int) int {
	if k >= 2*PairAlphaLanes {
		return half
	}
	return k % PairAlphaLanes
}

// pairAlphaMostTerms returns the most ξ̃ of n channels that one sum S_l
// adds, over both halves.
func pairAlphaMostTerms(n int) int {
	most := 0
	for half := range 2 {
		var terms [PairAlphaLanes]int
		for k := range n {
			l := pairAlphaLane(k, half)
			terms[l]++
			most = max(most, terms[l])
		}
	}
	return most
}

// pairAlphaBounds proves the α of the pair, mma and spread mappings exact
// and its words whole.
func (p *Params) pairAlphaBounds() []Bound {
	perLane := int64(pairAlphaMostTerms(p.N))
	var mMax, sum uint64
	for _, mod := range p.BT.Moduli {
		mMax = max(mMax, uint64(mod.M))
		sum += uint64(mod.M) - 1
	}
	delta := new(big.Rat).Mul(pairAlphaDelta(p.BT), new(big.Rat).SetInt64(pairAlphaScale))
	phi := big.NewInt(int64(p.Phi))
	scale := big.NewInt(pairAlphaScale)
	return []Bound{
		lt("pair α lane sums fit 32 bits", "t·(m̃_max − 1) < 2^32, t the most ξ̃ of one item a sum S_l adds (3 for n = 9): S_l fits a word",
			new(big.Int).Mul(big.NewInt(perLane), bigU(mMax-1)), bigU(1<<32)),
		lte("pair α: Φ covers Δ", "⌈2^6·Δ⌉ <= Φ, Δ = 4·(2^24 − 1)/2^30 + Σ_k (m̃_k − 1)·c_k/(m̃_k·2^30) the worst error of the truncated lane sums",
			ceilRat(delta), phi),
		lte("pair α exact", "2^6·u <= (2^6 − Φ)·M̃: every extended value X < u has X/M̃ < 1 − Φ/2^6",
			new(big.Int).Mul(p.U, scale), new(big.Int).Mul(new(big.Int).Sub(scale, phi), p.BT.M)),
		lt("pair α in a byte", "⌊Σ_k (m̃_k − 1)/2^24⌋ + Φ < 2^14: T + Φ fits its half of a word with no carry, and α, its bits 6 to 13, one byte of A",
			new(big.Int).Add(bigU(sum>>PairAlphaShift), phi), big.NewInt(1<<14)),
	}
}
