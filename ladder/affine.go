package ladder

import (
	"errors"
	"math/big"
)

// Affine is a result point: (X, Y), or the point at infinity.
type Affine struct {
	X, Y     *big.Int
	Infinity bool
}

// ErrResultCheck reports a result that failed the on-curve check made
// before it is returned: a fault, never expected.
var ErrResultCheck = errors.New("internal fault: the computed point is not on the curve")

// batchInvert replaces every element of xs (all nonzero mod p) by its
// inverse with one modular inversion (Montgomery's trick).
func batchInvert(xs []*big.Int, p *big.Int) {
	if len(xs) == 0 {
		return
	}
	prefix := make([]*big.Int, len(xs))
	acc := big.NewInt(1)
	for i, x := range xs {
		prefix[i] = new(big.Int).Set(acc)
		acc.Mul(acc, x).Mod(acc, p)
	}
	inv := acc.ModInverse(acc, p)
	t := new(big.Int)
	for i := len(xs) - 1; i >= 0; i-- {
		t.Mul(inv, prefix[i]).Mod(t, p) // 1/x_i
		inv.Mul(inv, xs[i]).Mod(inv, p) // 1/(x_0 … x_{i−1})
		xs[i].Set(t)
	}
}

// ToAffine turns the ladder's outputs into affine results with one batched
// inversion for the whole batch, recovering y from x_P, x_Q and the base
// (Okeya–Sakurai):
//
//	y_P = ((x_P·x_G + a)(x_P + x_G) + 2b − (x_P − x_G)²·x_Q) / (2·y_G).
//
// Z_P = 0 is the point at infinity; Z_Q = 0 means P = −G. Every point is
// checked to be on the curve before it is returned.
func (su *Setup) ToAffine(jobs []Job, proj []Projective) ([]Affine, []error) {
	c := su.Curve
	p := c.P
	out := make([]Affine, len(jobs))
	errs := make([]error, len(jobs))
	dens := make([]*big.Int, 0, len(jobs))
	idx := make([]int, 0, len(jobs))
	for i, pr := range proj {
		switch {
		case pr.ZP.Sign() == 0:
			out[i].Infinity = true
		case pr.ZQ.Sign() == 0:
			out[i] = Affine{X: new(big.Int).Set(jobs[i].X), Y: new(big.Int).Sub(p, jobs[i].Y)}
		default:
			d := new(big.Int).Mul(pr.ZP, pr.ZQ)
			d.Mod(d, p).Mul(d, jobs[i].Y).Lsh(d, 1).Mod(d, p)
			dens = append(dens, d)
			idx = append(idx, i)
		}
	}
	batchInvert(dens, p)
	a := big.NewInt(c.A)
	t, u := new(big.Int), new(big.Int)
	for n, i := range idx {
		pr, j, inv := proj[i], jobs[i], dens[n]
		// 1/Z_P = Z_Q·2y_G/D, 1/Z_Q = Z_P·2y_G/D, 1/(2y_G) = Z_P·Z_Q/D
		twoY := new(big.Int).Lsh(j.Y, 1)
		xp := t.Mul(pr.ZQ, twoY).Mod(t, p)
		xp = new(big.Int).Mul(xp, inv)
		xp.Mul(xp.Mod(xp, p), pr.XP).Mod(xp, p)
		xq := u.Mul(pr.ZP, twoY).Mod(u, p)
		xq = new(big.Int).Mul(xq, inv)
		xq.Mul(xq.Mod(xq, p), pr.XQ).Mod(xq, p)
		invTwoY := new(big.Int).Mul(pr.ZP, pr.ZQ)
		invTwoY.Mod(invTwoY, p).Mul(invTwoY, inv).Mod(invTwoY, p)

		num := new(big.Int).Mul(xp, j.X)
		num.Add(num, a)
		num.Mul(num, t.Add(xp, j.X)).Mod(num, p)
		num.Add(num, t.Lsh(c.B, 1))
		diff := t.Sub(xp, j.X)
		diff.Mul(diff, diff).Mod(diff, p).Mul(diff, xq)
		num.Sub(num, diff).Mod(num, p)
		yp := num.Mul(num, invTwoY).Mod(num, p)
		out[i] = Affine{X: xp, Y: yp}
	}
	for i := range out {
		if !out[i].Infinity && !c.IsOnCurve(out[i].X, out[i].Y) {
			out[i], errs[i] = Affine{}, ErrResultCheck
		}
	}
	return out, errs
}
