package ladder

import (
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
)

// Finish turns the kernel's outputs for a batch into affine results, the
// work of Outputs on every item followed by ToAffine, with the same
// results and errors, in four-limb field arithmetic instead of math/big:
// each value goes from its B residues straight to GF(p) (no integer CRT),
// one field inversion serves the whole batch, and the only allocations are
// per call (the results' big.Int coordinates share one backing array per
// call, so a retained result keeps its batch's array alive).
//
// The one input on which the two differ is a base with y ≡ 0 (mod p), which
// no point of these prime-order curves has: ToAffine panics there, Finish
// reports ErrResultCheck for that item.
func (su *Setup) Finish(jobs []Job, outs []Channels) ([]Affine, []error) {
	if len(outs) != len(jobs) {
		panic(fmt.Sprintf("ladder: Finish with %d jobs and %d outputs", len(jobs), len(outs)))
	}
	h := su.host
	if h == nil {
		proj := make([]Outputs, len(outs))
		for i := range outs {
			proj[i] = su.Outputs(outs[i])
		}
		return su.ToAffine(jobs, proj)
	}
	pr := make([]fp.Element, 4*len(jobs))
	for i := range outs {
		for v := range outs[i] {
			h.crtToField(&pr[4*i+v], outs[i][v])
		}
	}
	return su.affine(h, jobs, pr)
}

// FinishOutput is Finish reading the outputs straight from the kernel's
// output array (see UnpackOutput): jobs[k]'s outputs are column cols[k] of
// a batch of stride items, or column k when cols is nil.
func (su *Setup) FinishOutput(jobs []Job, out []uint32, stride int, cols []int) ([]Affine, []error) {
	if cols != nil && len(cols) != len(jobs) {
		panic(fmt.Sprintf("ladder: FinishOutput with %d jobs and %d columns", len(jobs), len(cols)))
	}
	col := func(k int) int {
		if cols == nil {
			return k
		}
		return cols[k]
	}
	h := su.host
	if h == nil {
		outs := make([]Channels, len(jobs))
		for k := range jobs {
			outs[k] = su.UnpackOutput(out, stride, col(k))
		}
		return su.Finish(jobs, outs)
	}
	n := su.Params.N
	pr := make([]fp.Element, 4*len(jobs))
	r := make([]uint32, n)
	for k := range jobs {
		i := col(k)
		for v := range 4 {
			rows := out[v*n*stride+i:]
			for j := range r {
				r[j] = rows[j*stride]
			}
			h.crtToField(&pr[4*k+v], r)
		}
	}
	return su.affine(h, jobs, pr)
}

// affineScratch is one item's state between the two passes of the batched
// inversion.
type affineScratch struct {
	xg, yg fp.Element // the base, Montgomery form
	w      fp.Element // Z_P·Z_Q
	d      fp.Element // 2·y_G·Z_P·Z_Q, the value inverted
	pre    fp.Element // product of the d of the items before this one
}

// affine is ToAffine over field elements: pr holds the four outputs of each
// job in Montgomery form.
func (su *Setup) affine(h *hostField, jobs []Job, pr []fp.Element) ([]Affine, []error) {
	if su.Schedule.Kind == CoZ {
		return su.affineCoZ(h, jobs, pr)
	}
	return su.affinePaper(h, jobs, pr)
}

// coZScratch is one item's state between the two passes of the batched
// inversion of affineCoZ.
type coZScratch struct {
	d   fp.Element // LM² − XQG − XRG
	den fp.Element // d·YG, the value inverted
	pre fp.Element // product of the den of the items before this one
}

// affineCoZ is coZToAffine over field elements, with Montgomery's trick for
// the inversions and the on-curve check done in the field. Every item runs
// the same field operations whatever its outputs: a zero denominator is
// replaced by one for the shared inversion and its item fails the check.
func (su *Setup) affineCoZ(h *hostField, jobs []Job, pr []fp.Element) ([]Affine, []error) {
	f := h.f
	out := make([]Affine, len(jobs))
	errs := make([]error, len(jobs))
	sc := make([]coZScratch, len(jobs))
	acc := f.One()
	for i := range jobs {
		o, s := pr[4*i:4*i+4], &sc[i]
		var m2 fp.Element
		f.Square(&m2, &o[3])
		f.Sub(&s.d, &m2, &o[0])
		f.Sub(&s.d, &s.d, &o[1])
		f.Mul(&s.den, &s.d, &o[2])
		if s.den.IsZero() || jobs[i].Fixed != FixedNone {
			s.den = f.One()
		}
		s.pre = acc
		f.Mul(&acc, &acc, &s.den)
	}
	var inv fp.Element
	f.Inverse(&inv, &acc)
	res := newResults(len(jobs))
	for i := len(jobs) - 1; i >= 0; i-- {
		o, s, j := pr[4*i:4*i+4], &sc[i], jobs[i]
		var invDen, x, y, t, xg, yg fp.Element
		f.Mul(&invDen, &inv, &s.pre)
		f.Mul(&inv, &inv, &s.den)
		f.SetBig(&xg, j.X)
		f.SetBig(&yg, j.Y)
		// x = x_G·(LM² + 2·XQG − XRG)·YG/(D·YG)
		f.Add(&x, &s.d, &o[0])
		f.Add(&x, &x, &o[0])
		f.Add(&x, &x, &o[0])
		f.Mul(&x, &x, &o[2])
		f.Mul(&x, &x, &invDen)
		f.Mul(&x, &x, &xg)
		// y = y_G·(YG + 2·LM·XQG)·D/(D·YG)
		f.Mul(&t, &o[3], &o[0])
		f.Double(&t, &t)
		f.Add(&y, &t, &o[2])
		f.Mul(&y, &y, &s.d)
		f.Mul(&y, &y, &invDen)
		f.Mul(&y, &y, &yg)
		switch j.Fixed {
		case FixedInfinity:
			out[i].Infinity = true
			continue
		case FixedNegBase:
			x = xg
			f.Neg(&y, &yg)
		}
		out[i], errs[i] = res.affine(h, i, &x, &y)
	}
	return out, errs
}

// affinePaper is paperToAffine over field elements: pr holds X_P, Z_P, X_Q,
// Z_Q of each job in Montgomery form. It follows paperToAffine step for step
// (see there for the formulas), with Montgomery's trick for the inversions
// and the on-curve check y² = x(x² + a) + b, (x, y) ≠ (0, 0), done in the field.
func (su *Setup) affinePaper(h *hostField, jobs []Job, pr []fp.Element) ([]Affine, []error) {
	f, c := h.f, su.Curve
	out := make([]Affine, len(jobs))
	errs := make([]error, len(jobs))
	sc := make([]affineScratch, 0, len(jobs))
	idx := make([]int, 0, len(jobs))
	acc := f.One()
	for i := range jobs {
		zp, zq := &pr[4*i+1], &pr[4*i+3]
		switch {
		case zp.IsZero():
			out[i].Infinity = true
		case zq.IsZero():
			// P = −G: rare, and done as ToAffine does it
			out[i] = Affine{X: new(big.Int).Set(jobs[i].X), Y: new(big.Int).Sub(c.P, jobs[i].Y)}
			if !c.IsOnCurve(out[i].X, out[i].Y) {
				out[i], errs[i] = Affine{}, ErrResultCheck
			}
		default:
			sc = append(sc, affineScratch{})
			s := &sc[len(sc)-1]
			f.SetBig(&s.xg, jobs[i].X)
			f.SetBig(&s.yg, jobs[i].Y)
			f.Mul(&s.w, zp, zq)
			f.Double(&s.d, &s.yg)
			f.Mul(&s.d, &s.d, &s.w)
			if s.d.IsZero() { // y_G ≡ 0: nothing to invert
				sc = sc[:len(sc)-1]
				out[i], errs[i] = Affine{}, ErrResultCheck
				continue
			}
			s.pre = acc
			f.Mul(&acc, &acc, &s.d)
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return out, errs
	}
	var inv fp.Element
	f.Inverse(&inv, &acc) // 1/(d_0 … d_{m−1})
	res := newResults(len(idx))
	for k := len(idx) - 1; k >= 0; k-- {
		i, s := idx[k], &sc[k]
		var invD, u, xp, xq, yp, t, num, df fp.Element
		f.Mul(&invD, &inv, &s.pre) // 1/d_k
		f.Mul(&inv, &inv, &s.d)    // 1/(d_0 … d_{k−1})
		// 1/(Z_P·Z_Q) = 2y_G/d; x_P = X_P·Z_Q/(Z_P·Z_Q), x_Q = X_Q·Z_P/(Z_P·Z_Q)
		f.Double(&t, &s.yg)
		f.Mul(&u, &t, &invD)
		f.Mul(&xp, &pr[4*i+3], &u)
		f.Mul(&xp, &xp, &pr[4*i])
		f.Mul(&xq, &pr[4*i+1], &u)
		f.Mul(&xq, &xq, &pr[4*i+2])
		f.Mul(&t, &s.w, &invD) // 1/(2y_G)
		// y_P = ((x_P·x_G + a)(x_P + x_G) + 2b − (x_P − x_G)²·x_Q) / (2y_G)
		f.Mul(&num, &xp, &s.xg)
		f.Add(&num, &num, &h.eq.A)
		f.Add(&u, &xp, &s.xg)
		f.Mul(&num, &num, &u)
		f.Add(&num, &num, &h.twoB)
		f.Sub(&df, &xp, &s.xg)
		f.Square(&df, &df)
		f.Mul(&df, &df, &xq)
		f.Sub(&num, &num, &df)
		f.Mul(&yp, &num, &t)
		out[i], errs[i] = res.affine(h, k, &xp, &yp)
	}
	return out, errs
}

// results is the big.Int storage of a batch's affine results: one backing
// array per call, two coordinates per slot.
type results struct {
	ints  []big.Int
	words []big.Word
}

func newResults(slots int) results {
	return results{make([]big.Int, 2*slots), make([]big.Word, 2*slots*fp.WordsPerElement)}
}

// affine checks that (x, y) is on the curve and not (0, 0), as
// Curve.Validate does, and returns it as big.Ints in slot k.
func (r results) affine(h *hostField, k int, x, y *fp.Element) (Affine, error) {
	if !h.eq.Holds(x, y) || x.IsZero() && y.IsZero() {
		return Affine{}, ErrResultCheck
	}
	wx := r.words[2*k*fp.WordsPerElement:]
	wy := wx[fp.WordsPerElement:]
	return Affine{X: h.f.SetBigInt(&r.ints[2*k], x, wx), Y: h.f.SetBigInt(&r.ints[2*k+1], y, wy)}, nil
}
