package basext

import "github.com/rnsec/ecmul/internal/rns"

// pairSums holds what the kernel's pair mapping computes for one output of
// a base extension on 30-bit channels, before the reduction: the four byte
// sums D_g = Σ_k Σ_{h<4} byte_h(v_k)·byte_g(e'_{k,h}), as the s32
// accumulators of mma.sync (u8 × u8 → s32) hold them (every byte of a
// residue in one row of A, its constants pre-shifted by 2^(8h)); the 32-bit
// words lo = D_0 + 2^8·D_1 and hi = D_2 + 2^8·D_3; and the sum
// s = lo + 2^16·hi as the two words the kernel forms from 32-bit operations
// (pair_split): s mod 2^32 and s >> 30. rns.Params.Bounds proves that none
// of them wraps ("pair …").
type pairSums struct {
	d        [4]int32
	lo, hi   uint32
	low, top uint32 // s mod 2^32 and s >> 30
}

// pairSumsOf computes the pair sums of Σ v_k·e_k from the words v and the
// pre-shifted constants ep[k][h] ≡ 2^(8h)·e_k, in the kernel's widths: the
// accumulators in int32, the words in uint32.
func pairSumsOf(v []uint32, ep [][4]uint32) (p pairSums) {
	for k, vk := range v {
		for h := range 4 {
			a := byteOf(vk, h)
			for g := range 4 {
				p.d[g] += int32(a * byteOf(ep[k][h], g))
			}
		}
	}
	p.lo = uint32(p.d[0]) + uint32(p.d[1])<<8
	p.hi = uint32(p.d[2]) + uint32(p.d[3])<<8
	p.low = p.lo + p.hi<<16
	p.top = (p.hi + p.lo>>16) >> 14
	return p
}

// fold reduces the sum mod m from its two words as Channel<30>::fold_split
// does: t = lo32(s) − (s >> 30)·m, then min(t, t − m) in 32 bits ("pair
// extensions in 32 bits" proves t < 2m).
func (p pairSums) fold(m rns.Modulus) uint32 {
	t := p.low - p.top*m.M
	return min(t, t-m.M)
}

// pairShiftedMod returns e'_{k,h} = 2^(8h)·e_k mod m, h < 4: the constants
// of the pair mapping's B for an output modulus m.
func pairShiftedMod(e []uint32, m rns.Modulus) [][4]uint32 {
	ep := make([][4]uint32, len(e))
	for k, ek := range e {
		for h := range 4 {
			ep[k][h] = preShift(ek, h, m.M)
		}
	}
	return ep
}

// PairSum returns (Σ_k v_k·e_k + pt·tj) mod m, for words v_k, constants
// e_k < m and tj < m of a 30-bit channel m = 2^30 − c, the way the kernel's
// pair mapping computes an output of its first extension on the tensor
// cores: it is the CPU model of frag_extend and FragConsts::load_pt_b in
// internal/kernels/ecmul.cu. Byte h of v_k meets the constant e'_{k,h} =
// 2^(8h)·e_k mod m, and byte g of e'_{k,h} weighs 2^(8g), so
//
//	Σ_k v_k·e_k ≡ Σ_k Σ_h byte_h(v_k)·e'_{k,h} = Σ_g 2^(8g)·D_g = lo + 2^16·hi  (mod m);
//
// P̃_j = pt (below 2^64) joins as two more words of A, its low and high
// words, whose constants are T_j = tj and 2^32·T_j mod m, and the sum is
// folded from its two words (fold).
func PairSum(v, e []uint32, pt uint64, tj uint32, m rns.Modulus) uint32 {
	return pairSumsOf(withPT(v, pt), pairShiftedMod(withT(e, tj, pow32Mod(tj, m)), m)).fold(m)
}

// withPT returns the words v and then P̃_j = pt's low and high words, as the
// first extension's A holds them.
func withPT(v []uint32, pt uint64) []uint32 {
	return append(v[:len(v):len(v)], uint32(pt), uint32(pt>>32))
}

// withT returns the constants e and then those of P̃_j's low and high words,
// T_j = tj and tj32, which the kernel takes as 2^32·T_j mod m.
func withT(e []uint32, tj, tj32 uint32) []uint32 { return append(e[:len(e):len(e)], tj, tj32) }

// pow32Mod returns 2^32·x mod m.
func pow32Mod(x uint32, m rns.Modulus) uint32 { return uint32(uint64(x) << 32 % uint64(m.M)) }

// PairSecondSum returns (Σ_k v_k·e_k + α·negMt) mod m the way the pair
// mapping's second extension computes an output of B: α (below 2^8) is one
// more byte of A, whose row of B holds negMt = |−M̃·σ_j|_{m_j} (pair_alpha
// and PairShape::b_word in internal/kernels/ecmul.cu), and the sum is
// folded from its two words (fold).
func PairSecondSum(v, e []uint32, alpha, negMt uint32, m rns.Modulus) uint32 {
	return pairSumsOf(append(v[:len(v):len(v)], alpha), append(pairShiftedMod(e, m), [4]uint32{negMt})).fold(m)
}
