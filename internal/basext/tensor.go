package basext

import "github.com/rnsec/ecmul/internal/rns"

// byteSums returns D_hg = Σ_k byte_h(v_k)·byte_g(e_k) for h, g ∈ {0, 1}: the
// four 8-bit integer matrix products of the kernel's tile mapping, each exact
// in 32 bits for up to 2^31/255² terms (rns.Params.Bounds).
func byteSums(v, e []uint32) (d [2][2]uint32) {
	for k := range v {
		for h := range 2 {
			for g := range 2 {
				d[h][g] += (v[k] >> (8 * h) & 0xff) * (e[k] >> (8 * g) & 0xff)
			}
		}
	}
	return d
}

// ByteSplitSum returns Σ v_k·e_k mod m, for residues v_k and constants e_k
// below 2^16, the way the kernel's tile mapping computes it on the tensor
// cores: D00 + 2^8·(D01 + D10) + c·D11 in 32 bits (2^16 ≡ c mod m = 2^16 − c,
// below 2^32 by rns.Params.Bounds), then one reduction. It is the CPU model
// of tile_mod in internal/kernels/ecmul.cu.
func ByteSplitSum(v, e []uint32, m rns.Modulus) uint32 {
	d := byteSums(v, e)
	return m.Reduce(d[0][0] + (d[0][1]+d[1][0])<<8 + m.C*d[1][1])
}

// ByteSplitSumPow2 is the same sum modulo 2^32, the kernel's tile_pow2 for
// the redundant channel m_e = 2^k (whose value is its low k bits).
func ByteSplitSumPow2(v, e []uint32) uint32 {
	d := byteSums(v, e)
	return d[0][0] + (d[0][1]+d[1][0])<<8 + d[1][1]<<16
}
