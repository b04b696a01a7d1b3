package ladder

import (
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
)

// Finish turns the kernel's outputs for a batch into affine results, the
// work of Projective on every item followed by ToAffine, with the same
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
		proj := make([]Projective, len(outs))
		for i := range outs {
			proj[i] = su.Projective(outs[i])
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

// affine is ToAffine over field elements: pr holds X_P, Z_P, X_Q, Z_Q of
// each job in Montgomery form. It follows ToAffine step for step (see
// there for the formulas), with Montgomery's trick for the inversions and
// the on-curve check y² = x(x² + a) + b, (x, y) ≠ (0, 0), done in the field.
func (su *Setup) affine(h *hostField, jobs []Job, pr []fp.Element) ([]Affine, []error) {
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
	ints := make([]big.Int, 2*len(idx))
	words := make([]big.Word, 2*len(idx)*fp.WordsPerElement)
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
		// on the curve, and not (0, 0), as Curve.Validate
		if !h.eq.Holds(&xp, &yp) || xp.IsZero() && yp.IsZero() {
			out[i], errs[i] = Affine{}, ErrResultCheck
			continue
		}
		wx := words[2*k*fp.WordsPerElement:]
		wy := wx[fp.WordsPerElement:]
		out[i] = Affine{X: f.SetBigInt(&ints[2*k], &xp, wx), Y: f.SetBigInt(&ints[2*k+1], &yp, wy)}
	}
	return out, errs
}
