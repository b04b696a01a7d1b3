package main

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"runtime"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// Finish vectors (-finish) hold, little-endian uint32 words: magic
// 0x46434345, version 1, n, outputs per item V, input rows R
// (ladder.Setup.GPUInputRows), result rows Q (ResultRows), items I, the
// kernel's block size (kernels.FinishThreads) and most items per thread
// (kernels.FinishItemsMax), constant words C; then the C finish
// constants (ladder.Setup.FinishConstants), R·I inputs (the ladder's input
// rows, then the finish rows of PackFinish), V·n·I ladder outputs (the
// finish kernel's input) and V·n·I words of the output buffer after the
// finish (FinishRowsOnHost: Q rows of results, the ladder's outputs below
// them untouched), row r of item i at r·I + i.
const (
	finishMagic   = 0x46434345
	finishVersion = 1
)

// finishEdit is what an item's ladder outputs go through before the finish:
// nothing, or a fault the finish must report.
type finishEdit int

const (
	editNone     finishEdit = iota
	editZeroDen             // the denominator's residues zeroed
	editBreakX              // x's numerator off by one in channel 0: not on the curve
	editBreakY              // y's numerator off by one in channel 0
	editOffCurve            // FixedOffCurve set in the Fixed word, as the prepare kernel sets it
	// a rejected point's Outcome in FixedRejected, as the unpack kernel sets it
	editBadEncoding
	editBadCoordinate
	editInfinityInput
)

// rejected returns the Outcome an edit puts in the Fixed word's
// FixedRejected, OutPoint (zero) for none.
func (e finishEdit) rejected() ladder.Outcome {
	switch e {
	case editBadEncoding:
		return ladder.OutBadEncoding
	case editBadCoordinate:
		return ladder.OutBadCoordinate
	case editInfinityInput:
		return ladder.OutInfinityInput
	}
	return ladder.OutPoint
}

// finishCase is one item of a finish file: its scalar (nil: random) and edit.
type finishCase struct {
	k    func(n *big.Int) *big.Int
	edit finishEdit
}

// finishEdges are the first items of a finish file: the edge scalars 0, 1,
// n−1 and n (0 and n are the point at infinity, n−1 is −G on the co-Z
// ladder), faults, bases flagged off the curve, and points the unpack
// kernel rejected (whose outcome wins over a fixed result), among random
// items; items after them are random.
var finishEdges = []finishCase{
	{nil, editNone},
	{scalarOf(0, 0), editNone},
	{scalarOf(1, -1), editNone},
	{nil, editZeroDen},
	{nil, editBreakX},
	{scalarOf(0, 1), editNone},
	{scalarOf(1, 0), editNone},
	{nil, editBreakY},
	{scalarOf(0, 0), editZeroDen},
	{scalarOf(1, -1), editZeroDen},
	{nil, editNone},
	{scalarOf(0, 1), editZeroDen},
	{nil, editOffCurve},
	{scalarOf(0, 0), editOffCurve},
	{scalarOf(0, 1), editOffCurve}, // on the comb, a point that passes the check
	{nil, editBadEncoding},
	{scalarOf(0, 0), editBadCoordinate},
	{scalarOf(1, -1), editInfinityInput},
	{scalarOf(0, 1), editBadEncoding}, // on the comb, a point that passes the check
}

// scalarOf returns the scalar m·n + d.
func scalarOf(m, d int64) func(n *big.Int) *big.Int {
	return func(n *big.Int) *big.Int {
		k := new(big.Int).Mul(n, big.NewInt(m))
		return k.Add(k, big.NewInt(d))
	}
}

// caseScalar returns a case's scalar and its bytes: k(n), or a random one
// below n where k is nil. It draws from rng either way, so that the items
// after it are the same whatever k is.
func caseScalar(c *curves.Curve, k func(n *big.Int) *big.Int, rng *rand.Rand) (*big.Int, []byte) {
	s := new(big.Int).Rand(rng, c.N())
	if k != nil {
		s = k(c.N())
	}
	return s, s.FillBytes(make([]byte, c.ByteLen()))
}

// finishVectors holds the parts of a finish file.
type finishVectors struct {
	consts, in, outs, want []uint32
}

// makeFinish builds a finish file's parts for items items drawn from rng:
// finishEdges, then random items (makeFinishCases).
func makeFinish(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*finishVectors, error) {
	cases := make([]finishCase, items)
	copy(cases, finishEdges)
	return makeFinishCases(su, c, cases, rng)
}

// makeFinishCases builds a finish file's parts for cases, drawn from rng:
// bytes-path Items, their ladder outputs from the CPU twin, the edits, and
// the host's finish. It checks each result against the reference scalar
// multiplication (a point or the point at infinity), and each edit's
// outcome.
func makeFinishCases(su *ladder.Setup, c *curves.Curve, cases []finishCase, rng *rand.Rand) (*finishVectors, error) {
	if !su.FinishOnGPU() {
		return nil, fmt.Errorf("%s %s finishes on the host", c.Name(), su.Schedule.Kind)
	}
	I := len(cases)
	its, ks, bases, err := finishItems(su, c, cases, rng)
	if err != nil {
		return nil, err
	}
	v := &finishVectors{consts: su.FinishConstants(), in: make([]uint32, su.GPUInputRows()*I)}
	sc := make([]uint32, su.ScalarWords()*I)
	for i := range its {
		su.PackItem(v.in, sc, I, i, &its[i])
		it := its[i]
		if cases[i].edit == editOffCurve {
			it.Fixed |= ladder.FixedOffCurve
		}
		it.Fixed |= ladder.Fixed(cases[i].edit.rejected()) << ladder.FixedRejectedShift
		su.PackFinish(v.in, I, i, &it)
	}
	v.outs = ladderOutputs(su, its, v.in)
	for i, cs := range cases {
		editOutputs(su, v.outs, I, i, cs.edit)
	}
	v.want = append([]uint32(nil), v.outs...)
	su.FinishRowsOnHost(v.in, v.want, I, I)

	xy := make([]byte, 2*c.ByteLen())
	for i := range its {
		o := su.ReadResult(v.want, I, i, xy)
		if err := checkResult(c, bases[i], ks[i], cases[i].edit, its[i].Fixed, o, xy); err != nil {
			return nil, fmt.Errorf("item %d (k = %#x, edit %d): %w", i, ks[i], cases[i].edit, err)
		}
	}
	return v, nil
}

// finishItems prepares an Item per case, by the bytes path: PrepareBytes
// of a random point (every other one compressed) and the case's scalar, or
// a random one; PrepareBaseBytes for the comb. It returns the Items, their
// scalars and their bases.
func finishItems(su *ladder.Setup, c *curves.Curve, cases []finishCase, rng *rand.Rand) ([]ladder.Item, []*big.Int, [][2]*big.Int, error) {
	its := make([]ladder.Item, len(cases))
	ks := make([]*big.Int, len(cases))
	bases := make([][2]*big.Int, len(cases))
	for i, cs := range cases {
		var scalar []byte
		ks[i], scalar = caseScalar(c, cs.k, rng)
		bases[i] = [2]*big.Int{c.Gx(), c.Gy()}
		if su.Schedule.Kind.IsComb() {
			if err := su.PrepareBaseBytes(&its[i], scalar); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		x, y, err := randomPoint(c, rng)
		if err != nil {
			return nil, nil, nil, err
		}
		bases[i] = [2]*big.Int{x, y}
		if err := su.PrepareBytes(&its[i], scalar, c.EncodeSEC1(&curves.Point{X: x, Y: y}, i%2 == 1)); err != nil {
			return nil, nil, nil, err
		}
	}
	return its, ks, bases, nil
}

// ladderOutputs runs each item through the CPU twin (Shenoy's extension;
// the ladder vectors check that every extension agrees) as the ladder
// kernel does, reading its input element from its packed rows: the output
// words, row r of item i at r·I + i.
func ladderOutputs(su *ladder.Setup, its []ladder.Item, in []uint32) []uint32 {
	I := len(its)
	outs := make([]uint32, su.OutputRows()*I)
	v := basext.VariantsFor(su.Params)[0]
	par.Do(I, runtime.NumCPU(), 1, func(_, lo, hi int) {
		e := su.NewRNSExecutor(v)
		for i := lo; i < hi; i++ {
			kernelemu.RunItem(su, e, in, outs, I, i, scalarInt(&its[i].Scalar))
		}
	})
	return outs
}

// scalarInt returns the ladder scalar's limbs as a big.Int.
func scalarInt(s *ladder.ScalarLimbs) *big.Int {
	k := new(big.Int)
	for l := len(s) - 1; l >= 0; l-- {
		k.Lsh(k, 64).Or(k, new(big.Int).SetUint64(s[l]))
	}
	return k
}

// editOutputs applies an edit to item i's outputs (the co-Z layout:
// denominator, x's numerator, y's numerator).
func editOutputs(su *ladder.Setup, outs []uint32, I, i int, e finishEdit) {
	n := su.Params.N
	switch e {
	case editZeroDen:
		for r := range n {
			outs[r*I+i] = 0
		}
	case editBreakX, editBreakY:
		row := n
		if e == editBreakY {
			row = 2 * n
		}
		m := su.Params.B.Moduli[0].M
		w := &outs[row*I+i]
		*w = uint32((uint64(*w) + 1) % uint64(m))
	}
}

// checkResult checks an item's result against what it must be: a rejected
// point's outcome is its edit's, a flagged base's OutOffCurve; a broken numerator's is OutFailed, and so
// is a zeroed denominator's unless the item has a fixed result or its
// denominator was one (the comb's k = 1, whose sum is G's row itself);
// anything else is k·base by the reference scalar multiplication.
func checkResult(c *curves.Curve, base [2]*big.Int, k *big.Int, e finishEdit, fixed ladder.Fixed, o ladder.Outcome, xy []byte) error {
	if r := e.rejected(); r != ladder.OutPoint {
		if o != r {
			return fmt.Errorf("outcome %d, want %d (rejected)", o, r)
		}
		return nil
	}
	if e == editOffCurve {
		if o != ladder.OutOffCurve {
			return fmt.Errorf("outcome %d, want %d (off the curve)", o, ladder.OutOffCurve)
		}
		return nil
	}
	if e == editBreakX || e == editBreakY || (e == editZeroDen && fixed == ladder.FixedNone && o != ladder.OutPoint) {
		if o != ladder.OutFailed {
			return fmt.Errorf("outcome %d, want %d (failed)", o, ladder.OutFailed)
		}
		return nil
	}
	rx, ry, ok, err := c.ReferenceScalarMult(base[0], base[1], k)
	if err != nil {
		return err
	}
	if !ok {
		if o != ladder.OutInfinity {
			return fmt.Errorf("outcome %d, want %d (infinity)", o, ladder.OutInfinity)
		}
		return nil
	}
	L := c.ByteLen()
	want := append(rx.FillBytes(make([]byte, L)), ry.FillBytes(make([]byte, L))...)
	if o != ladder.OutPoint || !bytes.Equal(xy, want) {
		return fmt.Errorf("outcome %d and %x, want %d and %x", o, xy, ladder.OutPoint, want)
	}
	return nil
}

// finishWords returns a finish file's words: its header and parts.
func finishWords(su *ladder.Setup, items int, v *finishVectors) [][]uint32 {
	hdr := []uint32{finishMagic, finishVersion, uint32(su.Params.N), uint32(su.OutputCount()), uint32(su.GPUInputRows()),
		uint32(su.ResultRows()), uint32(items), kernels.FinishThreads, kernels.FinishItemsMax, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.in, v.outs, v.want}
}
