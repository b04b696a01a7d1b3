package ladder

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/rnsec/ecmul/internal/fp"
)

// Affine is a result point: (X, Y), or the point at infinity.
type Affine struct {
	X, Y     *big.Int
	Infinity bool
}

// ErrResultCheck reports a result that failed the on-curve check made
// before it is returned: a fault, never expected.
var ErrResultCheck = errors.New("internal fault: the computed point is not on the curve")

// Finish turns the kernel's outputs for a batch into affine results in
// four-limb field arithmetic: each value goes from its B residues straight
// to GF(p) (no integer CRT), one field inversion serves the whole batch,
// and the only allocations are per call (the results' big.Int coordinates
// share one backing array per call, so a retained result keeps its batch's
// array alive). Every point is checked to be on the curve before it is
// returned; a failed check, or a base with y ≡ 0 (mod p), which no point of
// these prime-order curves has, gives that item ErrResultCheck.
func (su *Setup) Finish(jobs []Job, outs []Channels) ([]Affine, []error) {
	if len(outs) != len(jobs) {
		panic(fmt.Sprintf("ladder: Finish with %d jobs and %d outputs", len(jobs), len(outs)))
	}
	h := su.host
	no := su.OutputCount()
	scr := h.scratch(len(jobs) * no)
	defer h.scratchPool.Put(scr)
	for i := range outs {
		for v := range outs[i] {
			h.crtToField(&scr.pr[no*i+v], outs[i][v])
		}
	}
	a := newAffineOut(h, len(jobs))
	su.affine(h, len(jobs), jobBases{h.f, jobs}, scr, a)
	return a.out, a.errs
}

// gatherOutputs reads the outputs of len(pr)/OutputCount() items from the
// kernel's output array, item k in column cols[k] (or k when cols is nil),
// into field elements, each value's residues read in place.
func (su *Setup) gatherOutputs(h *hostField, pr []fp.Element, out []uint32, stride int, cols []int) {
	n, no := su.Params.N, su.OutputCount()
	for k := range len(pr) / no {
		i := k
		if cols != nil {
			i = cols[k]
		}
		for v := range no {
			h.crtStrided(&pr[no*k+v], out[v*n*stride+i:], stride)
		}
	}
}

// Outcome is what the finish of an Item gave.
type Outcome uint8

const (
	OutPoint    Outcome = iota // an affine point
	OutInfinity                // the point at infinity
	OutFailed                  // the result failed its check (ErrResultCheck)
	OutOffCurve                // the base is not on the curve (FixedOffCurve: found by the prepare kernel)
	// a point the unpack kernel rejected (FixedRejected)
	OutBadEncoding   // not an uncompressed SEC1 prefix
	OutBadCoordinate // a coordinate is not below p
	OutInfinityInput // (0, 0)
	// the verify kernel's judgements (VerifyRowsOnHost)
	OutValid   // the signature verifies
	OutInvalid // it does not
	// the sign pack kernel's (PackSignWireItem)
	OutRefused // the nonce is outside [1, n − 1]: RFC 6979's refused candidate
)

// FinishItems turns the kernel's outputs for Items into results:
// items[k]'s outputs are column cols[k] (or k) of a batch of stride items,
// and its result goes to emit(k, outcome, xy), xy the affine point x‖y
// big-endian, ByteLen bytes each, when outcome is OutPoint (xy is valid
// only during the call; for OutInfinity it holds bytes of the same length
// that mean nothing, so that the caller can select without a branch; for
// OutFailed it is nil). Nothing is allocated per item, and every item
// takes the same steps whatever its outcome, a failed check apart.
func (su *Setup) FinishItems(items []Item, out []uint32, stride int, cols []int, emit func(k int, o Outcome, xy []byte)) {
	h := su.host
	scr := h.scratch(len(items) * su.OutputCount())
	defer h.scratchPool.Put(scr)
	su.gatherOutputs(h, scr.pr, out, stride, cols)
	su.affine(h, len(items), itemBases(items), scr, &bytesOut{f: h.f, size: su.Curve.ByteLen(), emit: emit})
}

// finishScratch is the working memory of one finish call: the outputs as
// field elements, item after item, and the state between the passes of the
// batched inversion.
// hostField pools it, so that a batch's chunks reuse it.
type finishScratch struct {
	pr    []fp.Element // the outputs of each item, item after item
	coZ   []coZScratch
	paper []affineScratch

	blockTot, blockInv []fp.Element // ChunkFinish: per block, its product of denominators, then its inverse
}

// scratch returns working memory for the given number of outputs from h's
// pool (the inversion's state grows in affine, for the schedule that needs it).
func (h *hostField) scratch(outputs int) *finishScratch {
	s, _ := h.scratchPool.Get().(*finishScratch)
	if s == nil {
		s = new(finishScratch)
	}
	s.pr = slices.Grow(s.pr[:0], outputs)[:outputs]
	return s
}

// itemBases reads the bases of Items.
type itemBases []Item

func (b itemBases) base(i int) (xg, yg fp.Element) { return b[i].X, b[i].Y }
func (b itemBases) fixed(i int) Fixed              { return b[i].Fixed }

// bytesOut hands results to an emit function as bytes.
type bytesOut struct {
	f    *fp.Field
	size int
	buf  [64]byte
	emit func(k int, o Outcome, xy []byte)
}

// result writes the point's bytes whether or not it stands for the point
// at infinity, and picks the outcome by a mask.
func (b *bytesOut) result(i int, x, y fp.Element, inf uint64) {
	xy := b.buf[:2*b.size]
	fp.PutLimbs(xy[:b.size], b.f.Canonical(&x))
	fp.PutLimbs(xy[b.size:], b.f.Canonical(&y))
	b.emit(i, Outcome(inf&uint64(OutInfinity)), xy)
}

func (b *bytesOut) fail(i int, _ error) { b.emit(i, OutFailed, nil) }

// affineBases supplies the affine conversion with item i's base, in
// Montgomery form, and its fixed result.
type affineBases interface {
	base(i int) (xg, yg fp.Element)
	fixed(i int) Fixed
}

// affineSink receives each item's result: a point already checked to be on
// the curve, standing for itself or, where the mask inf is all ones, for
// the point at infinity; or an error.
type affineSink interface {
	result(i int, x, y fp.Element, inf uint64)
	fail(i int, err error)
}

// emit checks that (x, y) is on the curve and not (0, 0), as
// Curve.Validate does, and hands it to out, or ErrResultCheck. An item
// whose result is the point at infinity (inf all ones) comes with the base
// in (x, y), so that it takes the same steps as any other.
func emit(h *hostField, out affineSink, i int, x, y *fp.Element, inf uint64) {
	if !h.eq.Holds(x, y) || zeroMask(x)&zeroMask(y) != 0 { // a fault
		out.fail(i, ErrResultCheck)
		return
	}
	out.result(i, *x, *y, inf)
}

// affine turns the outputs into affine points: pr holds the outputs of each
// of count items in Montgomery form, item after item.
func (su *Setup) affine(h *hostField, count int, in affineBases, scr *finishScratch, out affineSink) {
	if su.Schedule.Kind != Paper {
		scr.coZ = slices.Grow(scr.coZ[:0], count)[:count]
		su.affineCoZ(h, count, in, scr.pr, scr.coZ, out)
		return
	}
	scr.paper = slices.Grow(scr.paper[:0], count)[:count]
	su.affinePaper(h, count, in, scr.pr, scr.paper, out)
}

// The co-Z ladder's outputs, in the order of its Schedule.Out (NewSchedule)
// as its Final forms them.
const (
	coZDen     = iota // the denominator D·YG
	coZXNum           // x_Q's numerator
	coZYNum           // y_Q/y_G's numerator
	coZOutputs        // how many
)

// coZScratch is one item's state between the two passes of the batched
// inversion of affineCoZ.
type coZScratch struct {
	den fp.Element // the denominator, or one where it is replaced
	pre fp.Element // product of the den of the items before this one
}

// affineCoZ finishes the co-Z ladder, whose outputs are a denominator and
// two numerators (see the schedule's Final): x = xn/den, y = y_G·yn/den;
// it also finishes the comb, whose outputs are the same with y = yn/den.
// den ≠ 0 needs x_G ≠ 0 (Prepare sees to it) and a point on the curve; a
// zero den (never for valid input) gives a point that fails the check.
//
// Montgomery's trick does the inversions, and the on-curve check is done in
// the field. Every item runs the same field operations whatever its outputs:
// a zero denominator is replaced by one for the shared inversion and its
// item fails the check.
func (su *Setup) affineCoZ(h *hostField, count int, in affineBases, pr []fp.Element, sc []coZScratch, out affineSink) {
	var tot, inv fp.Element
	coZGather(h, in, pr, sc, 0, count, &tot)
	h.f.Inverse(&inv, &tot)
	coZEmit(h, in, pr, sc, 0, count, inv, out)
}

// coZGather is the first pass of affineCoZ's batched inversion over items
// [lo, hi): each item's denominator (one where it is replaced) and the
// product of those before it from lo; tot gets the product of them all.
func coZGather(h *hostField, in affineBases, pr []fp.Element, sc []coZScratch, lo, hi int, tot *fp.Element) {
	f := h.f
	acc := f.One()
	for i := lo; i < hi; i++ {
		s := &sc[i]
		s.den = pr[coZOutputs*i+coZDen]
		// a zero denominator, or an item whose result is fixed, takes part
		// in the shared inversion as one: chosen by a mask, not a branch
		replace := zeroMask(&s.den) | fixedMask(in.fixed(i))
		one := f.One()
		for l := range s.den {
			s.den[l] = one[l]&replace | s.den[l]&^replace
		}
		s.pre = acc
		f.Mul(&acc, &acc, &s.den)
	}
	*tot = acc
}

// coZEmit is the second pass over items [lo, hi), given inv, the inverse of
// their product (coZGather's tot): each item's affine point to out.
func coZEmit(h *hostField, in affineBases, pr []fp.Element, sc []coZScratch, lo, hi int, inv fp.Element, out affineSink) {
	f := h.f
	for i := hi - 1; i >= lo; i-- {
		o, s := pr[coZOutputs*i:coZOutputs*(i+1)], &sc[i]
		var invDen, x, y fp.Element
		f.Mul(&invDen, &inv, &s.pre)
		f.Mul(&inv, &inv, &s.den)
		xg, yg := in.base(i)
		f.Mul(&x, &o[coZXNum], &invDen)
		f.Mul(&y, &o[coZYNum], &invDen)
		if !h.unitY {
			f.Mul(&y, &y, &yg)
		}
		// −G for k ≡ −1, and the base for k ≡ 0 (whose result is the
		// point at infinity), selected by masks
		var negY fp.Element
		f.Neg(&negY, &yg)
		neg := fixedMask(in.fixed(i)^FixedNegBase) ^ ^uint64(0)  // all ones for FixedNegBase
		inf := fixedMask(in.fixed(i)^FixedInfinity) ^ ^uint64(0) // all ones for FixedInfinity
		sel := neg | inf
		for l := range x {
			x[l] = xg[l]&sel | x[l]&^sel
			y[l] = negY[l]&neg | yg[l]&inf | y[l]&^sel
		}
		emit(h, out, i, &x, &y, inf)
	}
}

// zeroMask returns all ones when z is zero, else zero, without a branch.
func zeroMask(z *fp.Element) uint64 {
	d := z[0] | z[1] | z[2] | z[3]
	return ((d | -d) >> 63) - 1
}

// fixedMask returns all ones for an item whose result is fixed, else zero.
func fixedMask(f Fixed) uint64 {
	d := uint64(f)
	return -((d | -d) >> 63)
}

// affineScratch is one item's state between the two passes of the batched
// inversion of affinePaper.
type affineScratch struct {
	xg, yg   fp.Element // the base, Montgomery form
	w        fp.Element // Z_P·Z_Q
	d        fp.Element // 2·y_G·Z_P·Z_Q, the value inverted, or one where that is zero
	pre      fp.Element // product of the d of the items before this one
	inf, neg uint64     // all ones where Z_P = 0 (the point at infinity), where Z_Q = 0 and Z_P ≠ 0 (−G)
}

// affinePaper finishes the x-only ladder, recovering y from x_P, x_Q and
// the base (Okeya–Sakurai):
//
//	y_P = ((x_P·x_G + a)(x_P + x_G) + 2b − (x_P − x_G)²·x_Q) / (2·y_G).
//
// Z_P = 0 is the point at infinity (k ≡ 0); Z_Q = 0 means P = −G (k ≡ −1).
//
// pr holds X_P, Z_P, X_Q, Z_Q of each item in Montgomery form; Montgomery's
// trick does the inversions, and the on-curve check y² = x(x² + a) + b,
// (x, y) ≠ (0, 0), is done in the field. Every item runs the same field
// operations whatever its outputs: a zero Z_P or Z_Q makes its denominator
// one for the shared inversion, and its result, the base or −G, is selected
// by masks. A base with y ≡ 0, which no point of these prime-order curves
// has, fails the check.
func (su *Setup) affinePaper(h *hostField, count int, in affineBases, pr []fp.Element, sc []affineScratch, out affineSink) {
	f := h.f
	acc := f.One()
	one := f.One()
	for i := range count {
		s := &sc[i]
		zp, zq := &pr[4*i+1], &pr[4*i+3]
		s.xg, s.yg = in.base(i)
		s.inf = zeroMask(zp)
		s.neg = zeroMask(zq) &^ s.inf
		f.Mul(&s.w, zp, zq)
		f.Double(&s.d, &s.yg)
		f.Mul(&s.d, &s.d, &s.w)
		replace := zeroMask(&s.d)
		for l := range s.d {
			s.d[l] = one[l]&replace | s.d[l]&^replace
		}
		s.pre = acc
		f.Mul(&acc, &acc, &s.d)
	}
	var inv fp.Element
	f.Inverse(&inv, &acc) // 1/(d_0 … d_{count−1})
	for i := count - 1; i >= 0; i-- {
		s := &sc[i]
		var invD, negY fp.Element
		f.Mul(&invD, &inv, &s.pre) // 1/d_i
		f.Mul(&inv, &inv, &s.d)    // 1/(d_0 … d_{i−1})
		xp, yp := h.paperPoint(pr[4*i:4*i+4], s, &invD)
		// −G for k ≡ −1, and the base for k ≡ 0 (whose result is the
		// point at infinity), selected by masks
		f.Neg(&negY, &s.yg)
		sel := s.inf | s.neg
		for l := range xp {
			xp[l] = s.xg[l]&sel | xp[l]&^sel
			yp[l] = s.yg[l]&s.inf | negY[l]&s.neg | yp[l]&^sel
		}
		if s.yg.IsZero() { // the base, public: never for a valid point
			out.fail(i, ErrResultCheck)
			continue
		}
		emit(h, out, i, &xp, &yp, s.inf)
	}
}

// paperPoint recovers the affine P of the paper ladder's outputs
// X_P, Z_P, X_Q, Z_Q (xz) from 1/d, d = 2y_G·Z_P·Z_Q (invD), and the item's
// base and w = Z_P·Z_Q (s).
func (h *hostField) paperPoint(xz []fp.Element, s *affineScratch, invD *fp.Element) (xp, yp fp.Element) {
	f := h.f
	var u, xq, t, num, df fp.Element
	// 1/(Z_P·Z_Q) = 2y_G/d; x_P = X_P·Z_Q/(Z_P·Z_Q), x_Q = X_Q·Z_P/(Z_P·Z_Q)
	f.Double(&t, &s.yg)
	f.Mul(&u, &t, invD)
	f.Mul(&xp, &xz[3], &u)
	f.Mul(&xp, &xp, &xz[0])
	f.Mul(&xq, &xz[1], &u)
	f.Mul(&xq, &xq, &xz[2])
	f.Mul(&t, &s.w, invD) // 1/(2y_G)
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
	return xp, yp
}

// jobBases reads the bases of Jobs.
type jobBases struct {
	f    *fp.Field
	jobs []Job
}

func (b jobBases) base(i int) (xg, yg fp.Element) {
	b.f.SetBig(&xg, b.jobs[i].X)
	b.f.SetBig(&yg, b.jobs[i].Y)
	return xg, yg
}
func (b jobBases) fixed(i int) Fixed { return b.jobs[i].Fixed }

// affineOut collects results as Affine values, their big.Int coordinates
// sharing one backing array per call.
type affineOut struct {
	h    *hostField
	out  []Affine
	errs []error
	res  results
}

func newAffineOut(h *hostField, count int) *affineOut {
	return &affineOut{h: h, out: make([]Affine, count), errs: make([]error, count), res: newResults(count)}
}

// result stores the point, or marks the point at infinity: the *big.Int
// results are not constant time anyway.
func (a *affineOut) result(i int, x, y fp.Element, inf uint64) {
	if inf != 0 {
		a.out[i].Infinity = true
		return
	}
	f, r := a.h.f, a.res
	wx := r.words[2*i*fp.WordsPerElement:]
	wy := wx[fp.WordsPerElement:]
	a.out[i] = Affine{X: f.SetBigInt(&r.ints[2*i], &x, wx), Y: f.SetBigInt(&r.ints[2*i+1], &y, wy)}
}
func (a *affineOut) fail(i int, err error) { a.errs[i] = err }

// results is the big.Int storage of a batch's affine results: one backing
// array per call, two coordinates per slot.
type results struct {
	ints  []big.Int
	words []big.Word
}

func newResults(slots int) results {
	return results{make([]big.Int, 2*slots), make([]big.Word, 2*slots*fp.WordsPerElement)}
}
