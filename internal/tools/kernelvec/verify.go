package main

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/textbook"
)

// Verify vectors (-verify) have the finish's format (finish.go): the finish
// constants, the inputs (the ladder's rows, the finish rows, then
// ladder.VerifyRows verify rows per item), the co-Z ladder's outputs and
// the output buffer after the verify (one result row, the outcome, over
// the outputs' first row), with 1 as the most items per thread.

// verifyVectors holds the parts of a verify file.
type verifyVectors = finishVectors

// makeVerify builds a verify file's parts for items items drawn from rng:
// the finish file's items, edits and ladder outputs (u2·Q), and per item a
// u1·G and an r that make the sum R = u1·G + u2·Q a random point (r its x
// mod n, or that plus one: invalid), the point at infinity, 2·u2·Q, a
// point whose x is n or more (r = x − n) or u2·Q itself (u1·G at
// infinity), in turn; then the host's verify. It
// checks each outcome against the textbook's sum and the edits.
func makeVerify(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*verifyVectors, error) {
	if su.Schedule.Kind != ladder.CoZ {
		return nil, fmt.Errorf("the verify kernel follows the co-Z ladder, not %s", su.Schedule.Kind)
	}
	I := items
	cases := make([]finishCase, I)
	copy(cases, finishEdges)
	its, ks, bases, err := finishItems(su, c, cases, rng)
	if err != nil {
		return nil, err
	}
	v := &verifyVectors{consts: su.FinishConstants(), in: make([]uint32, su.VerifyInputRows()*I)}
	sc := make([]uint32, su.ScalarWords()*I)
	valid := make([]bool, I)
	for i := range its {
		su.PackItem(v.in, sc, I, i, &its[i])
		it := its[i]
		if cases[i].edit == editOffCurve {
			it.Fixed |= ladder.FixedOffCurve
		}
		it.Fixed |= ladder.Fixed(cases[i].edit.rejected()) << ladder.FixedRejectedShift
		su.PackFinish(v.in, I, i, &it)
		valid[i] = packVerifyCase(su, c, v.in, I, i, textbook.Mul(c, &curves.Point{X: bases[i][0], Y: bases[i][1]}, ks[i]), rng)
	}
	v.outs = ladderOutputs(su, its, v.in)
	for i, cs := range cases {
		editOutputs(su, v.outs, I, i, cs.edit)
	}
	v.want = append([]uint32(nil), v.outs...)
	su.VerifyRowsOnHost(v.in, v.want, I, I)
	for i := range its {
		if err := checkVerdict(cases[i].edit, its[i].Fixed, valid[i], ladder.Outcome(v.want[i])); err != nil {
			return nil, fmt.Errorf("item %d (k = %#x, edit %d): %w", i, ks[i], cases[i].edit, err)
		}
	}
	return v, nil
}

// packVerifyCase writes item i's verify rows for the i mod 6th kind of
// sum with q = u2·Q (nil: the point at infinity) and reports whether the
// signature they make is valid.
func packVerifyCase(su *ladder.Setup, c *curves.Curve, in []uint32, I, i int, q *curves.Point, rng *rand.Rand) bool {
	n := c.N()
	var u1G *curves.Point // nil: the point at infinity (case 3)
	switch i % 6 {
	case 0, 4:
		u1G = textbook.Mul(c, &curves.Point{X: c.Gx(), Y: c.Gy()}, new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(n, big.NewInt(1))), big.NewInt(1)))
	case 1:
		u1G = neg(c, q)
	case 2:
		u1G = q
	case 5: // R of x ≥ n: r = x − n verifies through r + n alone
		u1G = textbook.Add(c, highX(c), neg(c, q))
	}
	sum := textbook.Add(c, u1G, q)
	r := big.NewInt(1)
	if sum != nil {
		r.Mod(sum.X, n)
	}
	if i%6 == 4 {
		r.Add(r, big.NewInt(1)).Mod(r, n) // a wrong r
	}
	var x1, y1 [fp.Limbs]uint64
	flags := ladder.VerifyFlags(0)
	if u1G == nil {
		flags |= ladder.VerifyU1Infinity
		x1, y1 = limbs(new(big.Int).Rand(rng, c.P())), limbs(new(big.Int).Rand(rng, c.P())) // read, not used
	} else {
		x1, y1 = limbs(u1G.X), limbs(u1G.Y)
	}
	rn := new(big.Int).Add(r, n)
	if rn.Cmp(c.P()) < 0 {
		flags |= ladder.VerifyRN
	} else {
		rn.Rand(rng, c.P()) // read, not used
	}
	su.PackVerify(in, I, i, x1, y1, limbs(r), limbs(rn), flags)
	return sum != nil && (sum.X.Cmp(r) == 0 || sum.X.Cmp(new(big.Int).Add(r, n)) == 0)
}

// highX returns the point of c of the least x at or above n (below p on
// these curves), the even y.
func highX(c *curves.Curve) *curves.Point {
	p := c.P()
	for x := new(big.Int).Set(c.N()); x.Cmp(p) < 0; x.Add(x, big.NewInt(1)) {
		rhs := new(big.Int).Mul(x, x)
		rhs.Add(rhs, big.NewInt(c.A())).Mul(rhs, x).Add(rhs, c.B()).Mod(rhs, p)
		if y := new(big.Int).ModSqrt(rhs, p); y != nil {
			if y.Bit(0) == 1 {
				y.Sub(p, y)
			}
			return &curves.Point{X: new(big.Int).Set(x), Y: y}
		}
	}
	panic("kernelvec: no point of x in [n, p)")
}

// neg returns −q (nil, the point at infinity, for nil).
func neg(c *curves.Curve, q *curves.Point) *curves.Point {
	if q == nil {
		return nil
	}
	return &curves.Point{X: q.X, Y: new(big.Int).Mod(new(big.Int).Neg(q.Y), c.P())}
}

// limbs returns 0 <= x < 2^256 as four 64-bit limbs.
func limbs(x *big.Int) (l [fp.Limbs]uint64) {
	b := x.FillBytes(make([]byte, 8*fp.Limbs))
	for i := range l {
		l[i] = binary.BigEndian.Uint64(b[len(b)-8*(i+1):])
	}
	return l
}

// checkVerdict checks an item's outcome against what it must be: a rejected
// point's outcome is its edit's, a flagged base's OutOffCurve; a broken
// numerator's is OutFailed, and so is a zeroed denominator's where u2·Q is
// computed (no fixed result); anything else is the signature's verdict.
func checkVerdict(e finishEdit, fixed ladder.Fixed, valid bool, o ladder.Outcome) error {
	want := ladder.OutInvalid
	switch {
	case e.rejected() != ladder.OutPoint:
		want = e.rejected()
	case e == editOffCurve:
		want = ladder.OutOffCurve
	case e == editBreakX || e == editBreakY || e == editZeroDen && fixed == ladder.FixedNone:
		want = ladder.OutFailed
	case valid:
		want = ladder.OutValid
	}
	if o != want {
		return fmt.Errorf("outcome %d, want %d", o, want)
	}
	return nil
}

// verifyWords returns a verify file's words: the finish's header, with one
// item a thread and one result row, and its parts.
func verifyWords(su *ladder.Setup, items int, v *verifyVectors) [][]uint32 {
	hdr := []uint32{finishMagic, finishVersion, uint32(su.Params.N), uint32(su.OutputCount()), uint32(su.VerifyInputRows()),
		1, uint32(items), kernels.FinishThreads, 1, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.in, v.outs, v.want}
}
