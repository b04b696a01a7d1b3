package basext

import "github.com/rnsec/ecmul/internal/rns"

// fragment holds what the kernel's mma mapping computes for one output of a
// base extension on 30-bit channels, before the reduction: the eight byte
// sums D_r[g] = Σ_k Σ_{h∈{0,1}} byte_{h+2r}(v_k)·byte_g(e'_{k,h}), as the s32
// accumulators of mma.sync (u8 × u8 → s32) hold them, and their
// recombination into three 32-bit words,
//
//	lo  = D_0[0] + 2^8·D_0[1]
//	mid = (D_0[2] + D_1[0]) + 2^8·(D_0[3] + D_1[1])
//	hi  = D_1[2] + 2^8·D_1[3]
//
// rns.Params.Bounds proves, for wide channels, every D_r[g] below 2^31 and
// lo, mid and hi below 2^32 ("mma byte sums exact", "mma lo/mid/hi fits 32
// bits"), so none of them wraps.
type fragment struct {
	d           [2][4]int32 // d[r][g] = D_r[g]
	lo, mid, hi uint32
}

// byteOf returns byte b of x.
func byteOf(x uint32, b int) uint32 { return x >> (8 * b) & 0xff }

// fragmentSums computes the fragment of Σ v_k·e_k from the residues v and
// the pre-shifted constants ep[k][h] = e'_{k,h} ≡ 2^(8h)·e_k: the
// accumulators add in int32 and the words in uint32, wrapping as the
// kernel's registers would, so that a bound that failed would show as a
// wrong result rather than be hidden by wider arithmetic.
func fragmentSums(v []uint32, ep [][2]uint32) (f fragment) {
	for k, vk := range v {
		for r := range 2 {
			for h := range 2 {
				a := byteOf(vk, h+2*r)
				for g := range 4 {
					f.d[r][g] += int32(a * byteOf(ep[k][h], g))
				}
			}
		}
	}
	d := func(r, g int) uint32 { return uint32(f.d[r][g]) }
	f.lo = d(0, 0) + d(0, 1)<<8
	f.mid = (d(0, 2) + d(1, 0)) + (d(0, 3)+d(1, 1))<<8
	f.hi = d(1, 2) + d(1, 3)<<8
	return f
}

// sum64 returns s = hi·2^32 + lo + 2^16·mid + extra in 64 bits (wrapping as
// the kernel's register would; "mma 64-bit sum" proves it does not).
func (f fragment) sum64(extra uint64) uint64 {
	return uint64(f.hi)<<32 + uint64(f.lo) + uint64(f.mid)<<16 + extra
}

// preShift returns 2^(8h)·e mod m, or mod 2^32 for m = 0 (the redundant
// channel m_e = 2^k, whose sums are taken modulo 2^32): a pre-shifted
// constant of the kernel's B matrices.
func preShift(e uint32, h int, m uint32) uint32 {
	if m == 0 {
		return e << (8 * h)
	}
	return uint32(uint64(e) << (8 * h) % uint64(m))
}

// shiftedMod returns the pre-shifted constants e'_{k,h} = 2^(8h)·e_k mod m,
// h ∈ {0, 1}, of the mma mapping's B for an output modulus m.
func shiftedMod(e []uint32, m rns.Modulus) [][2]uint32 { return shifted2(e, m.M) }

// shiftedPow2 returns e'_{k,h} = (e_k << 8h) mod 2^32, h ∈ {0, 1}, the
// pre-shifted constants of the redundant channel m_e = 2^k.
func shiftedPow2(e []uint32) [][2]uint32 { return shifted2(e, 0) }

// shifted2 returns preShift(e_k, h, m) for h ∈ {0, 1}.
func shifted2(e []uint32, m uint32) [][2]uint32 {
	ep := make([][2]uint32, len(e))
	for k, ek := range e {
		ep[k] = [2]uint32{preShift(ek, 0, m), preShift(ek, 1, m)}
	}
	return ep
}

// fragmentFor returns the fragment of FragmentSum (for tests of its bounds).
func fragmentFor(v, e []uint32, m rns.Modulus) fragment { return fragmentSums(v, shiftedMod(e, m)) }

// fragmentForPow2 returns the fragment of FragmentSumPow2.
func fragmentForPow2(v, e []uint32) fragment { return fragmentSums(v, shiftedPow2(e)) }

// FragmentSum returns (Σ_k v_k·e_k + extra) mod m, for residues v_k < 2^30
// and constants e_k < m of a 30-bit channel m = 2^30 − c, the way the
// kernel's mma mapping computes a base extension's output on the tensor
// cores with mma.sync (u8 × u8 → s32): it is the CPU model of frag_extend and frag_combine
// in internal/kernels/ecmul.cu.
//
// The two low bytes of each residue multiply the pre-shifted constants
// e'_{k,h} = 2^(8h)·e_k mod m (byte h of v_k weighs 2^(8h)), its two high
// bytes the same constants with a weight of 2^16 (byte h+2 weighs
// 2^16·2^(8h)); the eight byte sums D_r[g] (r ∈ {0, 1} the pair of bytes of
// v_k, g the byte of e'_{k,h}) are the mma's s32 accumulators. Since
// e'_{k,h} ≡ 2^(8h)·e_k (mod m),
//
//	Σ_k v_k·e_k ≡ Σ_g 2^(8g)·(D_0[g] + 2^16·D_1[g]) = lo + 2^16·mid + 2^32·hi  (mod m)
//
// with lo, mid and hi the 32-bit words of fragment. The 64-bit
// s = hi·2^32 + lo + 2^16·mid + extra, where extra is the extension's one
// more term (P̃_j·T_j, or α·|−M̃|_{m_j}), is then reduced as every wide sum
// is (rns.Modulus.Reduce64, the kernel's Channel<30>::reduce). rns.Params.Bounds
// proves for the actual n and moduli that the byte sums are exact in s32,
// that lo, mid and hi fit 32 bits and s 64 bits, for every byte up to 255
// and extra up to (m_max − 1)·max(m_max − 1, m_e − 1); the model wraps
// where the kernel would, so a failing bound would show as a wrong result.
func FragmentSum(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
	return m.Reduce64(fragmentFor(v, e, m).sum64(extra))
}

// FragmentSumPow2 is FragmentSum for the redundant channel m_e = 2^k, whose
// value is the low k bits of the sum: (Σ_k v_k·e_k + extra) mod 2^32 for any
// 32-bit constants e_k, pre-shifted as e'_{k,h} = (e_k << 8h) mod 2^32
// (≡ 2^(8h)·e_k modulo 2^32, so the identity of FragmentSum holds there).
func FragmentSumPow2(v, e []uint32, extra uint64) uint32 {
	return uint32(fragmentForPow2(v, e).sum64(extra))
}
