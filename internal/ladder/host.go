package ladder

import (
	"math/big"
	"math/bits"
	"sync"

	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/rns"
)

// hostField holds the constants of the host's conversions around the kernel
// in four-limb Montgomery arithmetic mod p (internal/fp): binary → RNS for
// the inputs, RNS → GF(p) for the outputs, and the curve's coefficients. It
// is built once per Setup and only read afterwards.
type hostField struct {
	f *fp.Field
	p [fp.Limbs]uint64 // the limbs of p

	// RNS → GF(p) out of the Montgomery domain, per B channel j its
	// weights in the estimate β and, as λ_j·M^{-1}·R² mod p, in the sum
	// (Params.FromRNS), and the weight of the correction β
	crt  []fp.CRTTerm
	negM [fp.Limbs]uint64 // (−M·M^{-1}·R²) mod p = −R² mod p

	// binary → RNS
	toMont fp.Element   // M·R mod p: Mul(x, toMont) = x·M mod p, canonical, for any x < 2^256
	montM  fp.Element   // M mod p: Mul(X, montM) = x·M mod p for X the field form of x
	in     []inChannel  // the B channels, then the B̃ channels
	meMask uint64       // m_e − 1, m_e = 2^MeBits
	wide   bool         // residues up to 2^30: residues reduces its sum in two parts
	eq     *fp.Equation // the curve equation, for the check of results
	twoB   fp.Element   // 2b
	// unitY says the finish's y numerator is y itself (the comb), not y/y_G
	// (the co-Z ladder): public, a fact of the schedule.
	unitY bool

	scratchPool sync.Pool // *finishScratch
}

// inChannel is one channel of B or B̃ for the input conversion: w[k] is
// 2^(32k) mod m times the factor the channel's residues are stored times
// (rns.Params.ResidueScales: σ_j in B, |M̃_j^{-1}|_{m̃_j} in B̃).
type inChannel struct {
	w        [8]uint64
	m, recip uint64
}

// barrett returns s mod m for any s < 2^64 and m > 1 not a power of two,
// with recip = ⌊2^64/m⌋ = 2^64/m − ε, 0 < ε < 1: then
// s/m − 1 < s/m − s·ε/2^64 = s·recip/2^64 <= s/m, so q = ⌊s·recip/2^64⌋ is
// ⌊s/m⌋ or one less, s − q·m < 2m, and one conditional subtraction ends it,
// made without a branch (the residues of results are secrets in ECDH).
func barrett(s, m, recip uint64) uint64 {
	q, _ := bits.Mul64(s, recip)
	r := s - q*m
	d, borrow := bits.Sub64(r, m, 0)
	keep := -borrow // r < m: keep r; selected by a mask, not a branch
	return r&keep | d&^keep
}

// newHostField builds the conversion constants for par and the curve
// coefficients a, b; nil when p is outside what internal/fp handles
// (2^64 < p < 2^256), where NewSetupBits refuses the curve.
func newHostField(par *rns.Params, a int64, b *big.Int) *hostField {
	f, err := fp.New(par.P)
	if err != nil {
		return nil
	}
	h := &hostField{f: f, p: f.Modulus(), meMask: uint64(par.Me() - 1), wide: par.Wide()}
	p := par.P
	r2 := new(big.Int).Lsh(big.NewInt(1), 512)
	r2.Mod(r2, p)
	// elem returns v·R² mod p as limbs: Reduce5 of a sum of such constants
	// times small integers lands in Montgomery form.
	elem := func(v *big.Int) [fp.Limbs]uint64 {
		t := new(big.Int).Mul(v, r2)
		return limbsOf(t.Mod(t, p))
	}
	mInv := new(big.Int).ModInverse(par.B.M, p)
	for j := range par.B.Moduli {
		w := elem(new(big.Int).Mul(par.CRTLift(j), mInv))
		h.crt = append(h.crt, fp.CRTTerm{Frac: par.CRTFraction(j), W: w})
	}
	h.negM = elem(big.NewInt(-1))

	t := new(big.Int).Lsh(par.B.M, 256)
	h.toMont = fp.Element(limbsOf(t.Mod(t, p)))
	h.montM = fp.Element(limbsOf(new(big.Int).Mod(par.B.M, p)))
	scaleB, scaleBT := par.ResidueScales()
	for _, basis := range []struct {
		b     rns.Basis
		scale []uint32
	}{{par.B, scaleB}, {par.BT, scaleBT}} {
		for j, mod := range basis.b.Moduli {
			m := uint64(mod.M)
			ch := inChannel{m: m, recip: ^uint64(0) / m}
			pow := uint64(1) // 2^(32k) mod m
			for k := range ch.w {
				ch.w[k] = pow * uint64(basis.scale[j]) % m
				pow = (pow << 32) % m
			}
			h.in = append(h.in, ch)
		}
	}
	h.eq = fp.NewEquation(f, a, b)
	f.Double(&h.twoB, &h.eq.B)
	return h
}

// limbsOf returns the limbs of 0 <= x < 2^256.
func limbsOf(x *big.Int) [fp.Limbs]uint64 {
	var l [fp.Limbs]uint64
	for i, w := range x.Bits() {
		if bits.UintSize == 64 {
			l[i] = uint64(w)
		} else {
			l[i/2] |= uint64(w) << (32 * (i % 2))
		}
	}
	return l
}

// crtToField sets z to the field form (internal/fp's Montgomery form) of
// X·M^{-1} mod p, X the value whose B residues are r (len n): the plain value
// of an RNS Montgomery output. X is computed exactly as Params.FromRNS does,
// for any words: X = Σ r_j·λ_j − β·M with the same float64 β (same
// operations in the same order), so
//
//	X·M^{-1}·R² ≡ S = Σ r_j·(λ_j·M^{-1}·R² mod p) + β·(−R² mod p)   (mod p)
//
// and one Montgomery reduction of S gives X·M^{-1}·R mod p. Each term is a
// word (r_j < 2^32, β < n·2^32 + 1) times four limbs below p, and
// S < (2n+1)·2^32·p < 2^300 for every n that Verify admits: the five limbs
// that fp.Reduce5 takes hold every partial sum, so the top limb takes the
// carries without overflowing. No channel is reduced on the way.
func (h *hostField) crtToField(z *fp.Element, r []uint32) { h.crtStrided(z, r, 1) }

// crtStrided is crtToField for residues r_j = rows[j·stride], read in
// place from the kernel's output array: fp.Field.CRT, the sum and β as
// above.
func (h *hostField) crtStrided(z *fp.Element, rows []uint32, stride int) {
	h.f.CRT(z, rows, stride, h.crt, &h.negM)
}

// montInput returns x·M mod p as canonical limbs: the value whose RNS form
// the kernel takes. One Montgomery product by M·R mod p does it for any
// 0 <= x < 2^256 (fp.Field.Mul is exact for a first factor below 2^256);
// other x take math/big.
func (h *hostField) montInput(par *rns.Params, x *big.Int) [fp.Limbs]uint64 {
	if x.Sign() < 0 || x.BitLen() > 64*fp.Limbs {
		return limbsOf(par.ToMont(x))
	}
	v := fp.Element(limbsOf(x))
	h.f.Mul(&v, &v, &h.toMont)
	return v
}

// residues writes the RNS form of v < 2^256 into out (len 2n+1) in the
// kernel's element order: n stored residues in B, n values ξ̃ in B̃, then
// v mod m_e. Per channel the 32-bit words of v are weighted by 2^(32k) mod m
// times the stored form's factor: eight products below 2^48 sum below 2^51,
// reduced once.
// For wide channels (m < 2^30) the products are below 2^62: the first four
// are reduced, then added to the last four, below 2^64 − 2^33, and reduced.
func (h *hostField) residues(out []uint32, v *[fp.Limbs]uint64) {
	out = out[:len(h.in)+1]
	w0, w1 := v[0]&0xffffffff, v[0]>>32
	w2, w3 := v[1]&0xffffffff, v[1]>>32
	w4, w5 := v[2]&0xffffffff, v[2]>>32
	w6, w7 := v[3]&0xffffffff, v[3]>>32
	for j := range h.in {
		ch := &h.in[j]
		s := w0*ch.w[0] + w1*ch.w[1] + w2*ch.w[2] + w3*ch.w[3]
		if h.wide {
			s = barrett(s, ch.m, ch.recip)
		}
		s += w4*ch.w[4] + w5*ch.w[5] + w6*ch.w[6] + w7*ch.w[7]
		out[j] = uint32(barrett(s, ch.m, ch.recip))
	}
	out[len(h.in)] = uint32(v[0] & h.meMask)
}
