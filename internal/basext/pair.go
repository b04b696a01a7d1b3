package basext

import "github.com/rnsec/ecmul/internal/rns"

// pairSums holds what the kernel's pair mapping computes for one output of
// a base extension on 30-bit channels, before the reduction: the four byte
// sums D_g = Σ_k Σ_{h<4} byte_h(v_k)·byte_g(e'_{k,h}), as the s32
// accumulators of mma.sync (u8 × u8 → s32) hold them (every byte of a
// residue in one row of A, its constants pre-shifted by 2^(8h)); the 32-bit
// words lo = D_0 + 2^8·D_1 and hi = D_2 + 2^8·D_3; and lo + 2^16·hi as the
// two words the kernel forms from 32-bit operations (pair_combine).
// rns.Params.Bounds proves that none of them wraps ("pair …").
type pairSums struct {
	d          [4]int32
	lo, hi     uint32
	low, upper uint32 // the words of lo + 2^16·hi
}

// pairSumsOf computes the pair sums of Σ v_k·e_k from the residues v and the
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
	p.upper = (p.hi + p.lo>>16) >> 16
	return p
}

// sum64 returns the recombined sum plus extra in 64 bits (wrapping as the
// kernel's registers would; "pair 64-bit sum" proves it does not).
func (p pairSums) sum64(extra uint64) uint64 {
	return (uint64(p.upper)<<32 | uint64(p.low)) + extra
}

// pairShiftedMod returns e'_{k,h} = 2^(8h)·e_k mod m, h < 4: the constants
// of the pair mapping's B for an output modulus m.
func pairShiftedMod(e []uint32, m rns.Modulus) [][4]uint32 { return shifted4(e, m.M) }

// pairShiftedPow2 returns e'_{k,h} = (e_k << 8h) mod 2^32, h < 4, the
// constants of the redundant channel m_e = 2^k.
func pairShiftedPow2(e []uint32) [][4]uint32 { return shifted4(e, 0) }

// shifted4 returns preShift(e_k, h, m) for h < 4.
func shifted4(e []uint32, m uint32) [][4]uint32 {
	ep := make([][4]uint32, len(e))
	for k, ek := range e {
		for h := range 4 {
			ep[k][h] = preShift(ek, h, m)
		}
	}
	return ep
}

// PairSum returns (Σ_k v_k·e_k + extra) mod m, for residues v_k < 2^30 and
// constants e_k < m of a 30-bit channel m = 2^30 − c, the way the kernel's
// pair mapping computes a base extension's output on the tensor cores: it
// is the CPU model of the pair mapping's frag_extend and pair_combine in
// internal/kernels/ecmul.cu. Byte h of v_k meets the constant e'_{k,h} =
// 2^(8h)·e_k mod m, and byte g of e'_{k,h} weighs 2^(8g), so
//
//	Σ_k v_k·e_k ≡ Σ_k Σ_h byte_h(v_k)·e'_{k,h} = Σ_g 2^(8g)·D_g = lo + 2^16·hi  (mod m);
//
// that sum and extra (the extension's one more term, as for FragmentSum)
// are reduced as every wide sum is (rns.Modulus.Reduce64).
func PairSum(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
	return m.Reduce64(pairSumsOf(v, pairShiftedMod(e, m)).sum64(extra))
}

// PairSecondSum returns (Σ_k v_k·e_k + α·negMt) mod m the way the pair
// mapping's second extension computes an output of B: α (below 2^8) is one
// more byte of A, whose row of B holds negMt = |−M̃·σ_j|_{m_j} (pair_alpha
// and PairShape::b_word in internal/kernels/ecmul.cu), and the sum
// s = lo + 2^16·hi is reduced from its low word and s >> 30 (pair_split and
// Channel<30>::fold_split): t = lo32(s) − (s >> 30)·m, then min(t, t − m)
// in 32 bits ("pair second extension in 32 bits" proves t < 2m).
func PairSecondSum(v, e []uint32, alpha, negMt uint32, m rns.Modulus) uint32 {
	p := pairSumsOf(append(v[:len(v):len(v)], alpha), append(pairShiftedMod(e, m), [4]uint32{negMt}))
	t := p.low - (p.hi+p.lo>>16)>>14*m.M
	return min(t, t-m.M)
}

// PairSumPow2 is PairSum for the redundant channel m_e = 2^k: (Σ_k v_k·e_k +
// extra) mod 2^32 for any 32-bit constants e_k, pre-shifted modulo 2^32.
func PairSumPow2(v, e []uint32, extra uint64) uint32 {
	return uint32(pairSumsOf(v, pairShiftedPow2(e)).sum64(extra))
}
