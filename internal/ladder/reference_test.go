package ladder

import (
	"fmt"
	"math/big"
)

// The math/big references of the ladder, for the tests: an executor of
// the schedule on integers mod p (Oracle) and the affine conversion of its
// outputs (ToAffine), against which the RNS executor and the four-limb
// finish are checked; and FinishOutput, the four-limb finish of Jobs read
// from a kernel output array, the reference of FinishItems.

// Outputs are the ladder's output registers (Schedule.Out) as integers
// mod p, out of the Montgomery domain:
//
//	Paper: X_P, Z_P, X_Q, Z_Q with P = k·G = (X_P : Z_P), Q = P + G
//	CoZ:   den, xn, yn with k·G = (xn/den, y_G·yn/den) (see coZ)
type Outputs []*big.Int

// Outputs converts channels to integers (CRT, then out of the Montgomery
// domain, mod p).
func (su *Setup) Outputs(ch Channels) Outputs {
	v := make(Outputs, len(ch))
	for i := range ch {
		v[i] = su.Params.FromMont(su.Params.FromRNS(ch[i]))
	}
	return v
}

// Oracle runs the schedule on big integers reduced mod p, outside the
// Montgomery domain: an executor that shares nothing with the RNS but the
// schedule itself.
type Oracle struct {
	su   *Setup
	regs [NumRegs]*big.Int
	tmp  [NumRegs]*big.Int
	// the comb's rows it has read, d·2^(wi)·G from the curve's reference
	// scalar multiplication (not from the Setup's table), by (i, d)
	combRows map[[2]uint][2]*big.Int
}

// NewOracle returns a big-integer executor for su.
func (su *Setup) NewOracle() *Oracle {
	o := &Oracle{su: su}
	for i := range o.regs {
		o.regs[i], o.tmp[i] = new(big.Int), new(big.Int)
	}
	return o
}

// Reg returns register r (mod p, plain domain).
func (o *Oracle) Reg(r Reg) *big.Int { return o.regs[r] }

// Run computes the ladder for base x-coordinate xg and ladder scalar k of t+1
// bits (see LadderScalar) and returns the schedule's outputs.
func (o *Oracle) Run(xg, k *big.Int, t int, obs Observer) Outputs {
	p := o.su.Curve.P()
	o.regs[XG].Mod(xg, p)
	o.regs[KB].Mod(o.su.Curve.B(), p)
	run(o, o.su.Schedule, k, t, obs)
	out := make(Outputs, len(o.su.Schedule.Out))
	for i, r := range o.su.Schedule.Out {
		out[i] = new(big.Int).Set(o.regs[r])
	}
	return out
}

func (o *Oracle) mulSet(ops []MulOp) {
	p := o.su.Curve.P()
	for i, op := range ops {
		o.tmp[i].Mul(o.regs[op.X], o.regs[op.Y]).Mod(o.tmp[i], p)
	}
	for i, op := range ops {
		o.regs[op.Dst].Set(o.tmp[i])
	}
}

func (o *Oracle) addSet(ops []AddOp) {
	p := o.su.Curve.P()
	c := new(big.Int)
	for i, op := range ops {
		z := o.tmp[i].Set(o.su.Consts.AddPlain[op.Const])
		for _, tm := range op.Terms {
			z.Add(z, c.Mul(big.NewInt(int64(tm.Coef)), o.regs[tm.Src]))
		}
		z.Mod(z, p)
	}
	for i, op := range ops {
		o.regs[op.Dst].Set(o.tmp[i])
	}
}

func (o *Oracle) swap(pairs [][2]Reg, mask uint) {
	if mask == 1 {
		for _, sw := range pairs {
			o.regs[sw[0]], o.regs[sw[1]] = o.regs[sw[1]], o.regs[sw[0]]
		}
	}
}

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
// inversion for the whole batch; every point is checked to be on the curve
// before it is returned.
func (su *Setup) ToAffine(jobs []Job, outs []Outputs) ([]Affine, []error) {
	var out []Affine
	if su.Schedule.Kind == CoZ {
		out = su.coZToAffine(jobs, outs)
	} else {
		out = su.paperToAffine(jobs, outs)
	}
	errs := make([]error, len(jobs))
	for i := range out {
		if !out[i].Infinity && !su.Curve.IsOnCurve(out[i].X, out[i].Y) {
			out[i], errs[i] = Affine{}, ErrResultCheck
		}
	}
	return out, errs
}

// coZToAffine is affineCoZ in math/big.
func (su *Setup) coZToAffine(jobs []Job, outs []Outputs) []Affine {
	p := su.Curve.P()
	out := make([]Affine, len(jobs))
	dens := make([]*big.Int, 0, len(jobs))
	idx := make([]int, 0, len(jobs))
	for i, o := range outs {
		switch jobs[i].Fixed {
		case FixedInfinity:
			out[i].Infinity = true
			continue
		case FixedNegBase:
			out[i] = Affine{X: new(big.Int).Set(jobs[i].X), Y: new(big.Int).Sub(p, jobs[i].Y)}
			continue
		}
		d := new(big.Int).Mod(o[0], p)
		if d.Sign() == 0 {
			out[i] = Affine{X: big.NewInt(0), Y: big.NewInt(0)}
			continue
		}
		dens = append(dens, d)
		idx = append(idx, i)
	}
	batchInvert(dens, p)
	for n, i := range idx {
		o, j, inv := outs[i], jobs[i], dens[n]
		x := new(big.Int).Mul(o[1], inv)
		x.Mod(x, p)
		y := new(big.Int).Mul(o[2], inv)
		y.Mod(y, p).Mul(y, j.Y).Mod(y, p)
		out[i] = Affine{X: x, Y: y}
	}
	return out
}

// paperToAffine is affinePaper in math/big.
func (su *Setup) paperToAffine(jobs []Job, outs []Outputs) []Affine {
	c := su.Curve
	p := c.P()
	out := make([]Affine, len(jobs))
	dens := make([]*big.Int, 0, len(jobs))
	idx := make([]int, 0, len(jobs))
	for i, pr := range outs {
		switch {
		case pr[1].Sign() == 0:
			out[i].Infinity = true
		case pr[3].Sign() == 0:
			out[i] = Affine{X: new(big.Int).Set(jobs[i].X), Y: new(big.Int).Sub(p, jobs[i].Y)}
		default:
			d := new(big.Int).Mul(pr[1], pr[3])
			d.Mod(d, p).Mul(d, jobs[i].Y).Lsh(d, 1).Mod(d, p)
			dens = append(dens, d)
			idx = append(idx, i)
		}
	}
	batchInvert(dens, p)
	a := big.NewInt(c.A())
	t, u := new(big.Int), new(big.Int)
	for n, i := range idx {
		pr, j, inv := outs[i], jobs[i], dens[n]
		xP, zP, xQ, zQ := pr[0], pr[1], pr[2], pr[3]
		// 1/Z_P = Z_Q·2y_G/D, 1/Z_Q = Z_P·2y_G/D, 1/(2y_G) = Z_P·Z_Q/D
		twoY := new(big.Int).Lsh(j.Y, 1)
		xp := t.Mul(zQ, twoY).Mod(t, p)
		xp = new(big.Int).Mul(xp, inv)
		xp.Mul(xp.Mod(xp, p), xP).Mod(xp, p)
		xq := u.Mul(zP, twoY).Mod(u, p)
		xq = new(big.Int).Mul(xq, inv)
		xq.Mul(xq.Mod(xq, p), xQ).Mod(xq, p)
		invTwoY := new(big.Int).Mul(zP, zQ)
		invTwoY.Mod(invTwoY, p).Mul(invTwoY, inv).Mod(invTwoY, p)

		num := new(big.Int).Mul(xp, j.X)
		num.Add(num, a)
		num.Mul(num, t.Add(xp, j.X)).Mod(num, p)
		num.Add(num, t.Lsh(c.B(), 1))
		diff := t.Sub(xp, j.X)
		diff.Mul(diff, diff).Mod(diff, p).Mul(diff, xq)
		num.Sub(num, diff).Mod(num, p)
		yp := num.Mul(num, invTwoY).Mod(num, p)
		out[i] = Affine{X: xp, Y: yp}
	}
	return out
}

// FinishOutput is Finish reading the outputs straight from the kernel's
// output array (see UnpackOutput): jobs[k]'s outputs are column cols[k] of
// a batch of stride items, or column k when cols is nil.
func (su *Setup) FinishOutput(jobs []Job, out []uint32, stride int, cols []int) ([]Affine, []error) {
	if cols != nil && len(cols) != len(jobs) {
		panic(fmt.Sprintf("ladder: FinishOutput with %d jobs and %d columns", len(jobs), len(cols)))
	}
	h := su.host
	scr := h.scratch(len(jobs) * su.OutputCount())
	defer h.scratchPool.Put(scr)
	su.gatherOutputs(h, scr.pr, out, stride, cols)
	a := newAffineOut(h, len(jobs))
	su.affine(h, len(jobs), jobBases{h.f, jobs}, scr, a)
	return a.out, a.errs
}

// RunComb computes k·G on the comb for k < n and returns its outputs.
func (o *Oracle) RunComb(k *big.Int, obs Observer) Outputs {
	p := o.su.Curve.P()
	o.regs[KB].Mod(o.su.Curve.B(), p)
	runComb(o, o.su.Schedule, k, o.su.Schedule.Kind.CombWindows(o.su.Curve.N()), obs)
	out := make(Outputs, len(o.su.Schedule.Out))
	for i, r := range o.su.Schedule.Out {
		out[i] = new(big.Int).Set(o.regs[r])
	}
	return out
}

func (o *Oracle) loadRow(i int, d, neg uint) {
	if d == 0 {
		o.regs[TX].SetInt64(0)
		o.regs[TY].SetInt64(0)
		return
	}
	pt := o.combRow(uint(i), d)
	o.regs[TX].Set(pt[0])
	o.regs[TY].Set(pt[1])
	if neg == 1 {
		o.regs[TY].Sub(o.su.Curve.P(), o.regs[TY])
	}
}

// combRow returns d·2^(wi)·G, w the comb's window, from the curve's
// reference scalar multiplication.
func (o *Oracle) combRow(i, d uint) [2]*big.Int {
	if pt, ok := o.combRows[[2]uint{i, d}]; ok {
		return pt
	}
	c := o.su.Curve
	k := new(big.Int).Lsh(new(big.Int).SetUint64(uint64(d)), i*uint(o.su.Schedule.Kind.CombWindow()))
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
	if err != nil || !ok {
		panic(fmt.Sprintf("ladder: the reference's %v·G on %s: %v", k, c.Name(), err))
	}
	if o.combRows == nil {
		o.combRows = make(map[[2]uint][2]*big.Int)
	}
	o.combRows[[2]uint{i, d}] = [2]*big.Int{x, y}
	return o.combRows[[2]uint{i, d}]
}

func (o *Oracle) commit(cs []Commit, keep, start uint) {
	for _, c := range cs {
		switch {
		case keep == 1:
		case start == 1:
			o.regs[c.Dst].Set(o.regs[c.Start])
		default:
			o.regs[c.Dst].Set(o.regs[c.Sum])
		}
	}
}
