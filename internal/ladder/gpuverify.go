package ladder

import (
	"github.com/rnsec/ecmul/internal/ctec"
	"github.com/rnsec/ecmul/internal/fp"
)

// The verify kernel (internal/kernels/verify.cuh) ends an ECDSA
// verification where the co-Z ladder has computed u2·Q: it adds u1·G, which
// the host gives with r, to the ladder's result in projective form, with the
// complete formulas of Renes, Costello and Batina (as internal/ctec), and
// compares x(R) with r mod n without an inversion: X_R = r·Z_R, or X_R =
// (r + n)·Z_R where r + n is below p. One thread verifies one item.
//
// It takes the finish's constants (FinishConstants) and rows (x_Q, y_Q in
// Montgomery form and the item's Fixed, as PackFinish or the prepare kernel
// write them), then VerifyRows rows from VerifyRowAt, all 32-bit
// little-endian words:
//
//	x1, y1  u1·G, plain values below p, eight words each (anything where
//	        it is the point at infinity)
//	r, rn   r and r + n, plain, eight words each (rn anything where r + n
//	        is not below p)
//	flags   VerifyFlags
//
// and replaces each item's outputs by one row: its Outcome, OutValid or
// OutInvalid for a signature it judged, OutFailed where u2·Q failed its
// check (a fault), and the outcome of a key the prepare or unpack kernel
// refused. Each thread reads its own column whole before it writes it.

// VerifyFlags says what the host knows of an item's u1·G and r.
type VerifyFlags uint32

const (
	VerifyU1Infinity VerifyFlags = 1 << iota // u1·G is the point at infinity
	VerifyRN                                 // r + n is below p: x(R) = r + n also verifies
)

// The verify rows of an item, from VerifyRowAt: four field elements, then
// the flags.
const (
	VerifyRowX1    = 0
	VerifyRowY1    = VerifyRowX1 + finishElementWords
	VerifyRowR     = VerifyRowY1 + finishElementWords
	VerifyRowRN    = VerifyRowR + finishElementWords
	VerifyRowFlags = VerifyRowRN + finishElementWords
	VerifyRows     = VerifyRowFlags + 1 // how many rows
)

// VerifyRowAt returns the input row where the verify rows start: after the
// ladder's and the finish's.
func (su *Setup) VerifyRowAt() int { return su.GPUInputRows() }

// VerifyInputRows returns the input rows per item of a verify batch: the
// ladder's, the finish's, then the verify rows.
func (su *Setup) VerifyInputRows() int { return su.VerifyRowAt() + VerifyRows }

// PackVerify writes item i's verify rows into its column of the input rows
// of a batch of stride items. It allocates nothing.
func (su *Setup) PackVerify(in []uint32, stride, i int, x1, y1, r, rn [fp.Limbs]uint64, flags VerifyFlags) {
	at := su.VerifyRowAt()
	for k, v := range [4][fp.Limbs]uint64{x1, y1, r, rn} {
		putFinishLimbsAt(in, at+k*finishElementWords, stride, i, v)
	}
	in[(at+VerifyRowFlags)*stride+i] = uint32(flags)
}

// VerifyRowsOnHost is the CPU twin of the verify kernel: it verifies the
// first count items of a batch of stride items, reading the ladder's
// outputs from out and the finish and verify rows from in, and writes each
// item's Outcome into row 0 of its column of out, as the kernel does.
func (su *Setup) VerifyRowsOnHost(in, out []uint32, stride, count int) {
	h := su.host
	ec, err := ctec.For(su.Curve)
	if err != nil {
		panic("ladder: " + err.Error())
	}
	pr := make([]fp.Element, coZOutputs)
	at, vat := su.FinishRowAt(), su.VerifyRowAt()
	for i := range count {
		xq, yq := finishLimbs(in, at, stride, i), finishLimbs(in, at+finishElementWords, stride, i)
		fixed := Fixed(in[(at+2*finishElementWords)*stride+i])
		su.gatherOutputs(h, pr, out, stride, []int{i})
		u2Q, ok := su.projective(h, pr, xq, yq, fixed)
		var u1G ctec.Point
		flags := VerifyFlags(in[(vat+VerifyRowFlags)*stride+i])
		if flags&VerifyU1Infinity != 0 {
			ec.SetInfinity(&u1G)
		} else {
			h.f.SetLimbs(&u1G.X, finishLimbs(in, vat+VerifyRowX1, stride, i))
			h.f.SetLimbs(&u1G.Y, finishLimbs(in, vat+VerifyRowY1, stride, i))
			u1G.Z = h.f.One()
		}
		var sum ctec.Point
		ec.Add(&sum, &u1G, &u2Q)
		r, rn := finishLimbs(in, vat+VerifyRowR, stride, i), finishLimbs(in, vat+VerifyRowRN, stride, i)
		o := OutInvalid
		if xIs(h.f, &sum, r) || flags&VerifyRN != 0 && xIs(h.f, &sum, rn) {
			o = OutValid
		}
		switch {
		case fixed.rejected() != OutPoint:
			o = fixed.rejected()
		case fixed&FixedOffCurve != 0:
			o = OutOffCurve
		case !ok:
			o = OutFailed
		}
		out[i] = uint32(o)
	}
}

// projective returns u2·Q from the co-Z ladder's outputs pr (Montgomery
// form): (x_num : y_Q·y_num : den), the point at infinity for
// FixedInfinity and −Q for FixedNegBase; ok is false where a computed
// result is no point of the curve (a zero denominator included): a fault.
func (su *Setup) projective(h *hostField, pr []fp.Element, xq, yq fp.Element, fixed Fixed) (p ctec.Point, ok bool) {
	f := h.f
	switch fixed &^ (FixedOffCurve | FixedRejected) {
	case FixedInfinity:
		p.Y = f.One()
		return p, true
	case FixedNegBase:
		p.X, p.Z = xq, f.One()
		f.Neg(&p.Y, &yq)
		return p, true
	}
	p.X, p.Y, p.Z = pr[coZXNum], pr[coZYNum], pr[coZDen]
	if !h.unitY {
		f.Mul(&p.Y, &p.Y, &yq)
	}
	return p, zeroMask(&p.Z) == 0 && onCurveProjective(h, &p)
}

// onCurveProjective reports whether Y²·Z = X³ + a·X·Z² + b·Z³.
func onCurveProjective(h *hostField, p *ctec.Point) bool {
	f := h.f
	var lhs, rhs, z2, t fp.Element
	f.Square(&lhs, &p.Y)
	f.Mul(&lhs, &lhs, &p.Z) // Y²Z
	f.Square(&z2, &p.Z)
	f.Mul(&rhs, &h.eq.A, &z2) // a·Z²
	f.Square(&t, &p.X)
	f.Add(&rhs, &rhs, &t)
	f.Mul(&rhs, &rhs, &p.X) // X³ + a·X·Z²
	f.Mul(&t, &z2, &p.Z)
	f.Mul(&t, &t, &h.eq.B) // b·Z³
	f.Add(&rhs, &rhs, &t)
	return lhs.Equal(&rhs)
}

// xIs reports whether p is not the point at infinity and x(p) = v for a
// plain v below p: X = v·Z, the Montgomery product of the plain v and Z's
// Montgomery form being the plain v·Z, as X's plain value is.
func xIs(f *fp.Field, p *ctec.Point, v [fp.Limbs]uint64) bool {
	if zeroMask(&p.Z) != 0 {
		return false
	}
	var vz fp.Element
	pv := fp.Element(v)
	f.Mul(&vz, &pv, &p.Z)
	x := fp.Element(f.FromMont(&p.X))
	return vz.Equal(&x)
}
