package main

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

// Prepare vectors (-prepare) hold, little-endian uint32 words: magic
// 0x50434345, version 1, n, input rows R (ladder.Setup.GPUInputRows), the
// ladder's input rows L (InputRows: 2n + 1 on the co-Z ladder, 0 on the
// comb; the finish rows follow them), items I, the kernel's block size
// (kernels.FinishThreads), constant words C; then the C prepare constants
// (ladder.Setup.PrepareConstants), R·I words of the input buffer before the
// prepare (the finish rows as PackRaw writes them, the ladder's rows random
// words the kernel must overwrite) and R·I words after it
// (PrepareRowsOnHost), row r of item i at r·I + i.
const (
	prepareMagic   = 0x50434345
	prepareVersion = 1
)

// preparePoint is the kind of point of a prepare file's item.
type preparePoint int

const (
	pointRandom          preparePoint = iota // a random point, uncompressed
	pointCompressed                          // a random point, compressed
	pointXZero                               // the point (0, √b), uncompressed, where the curve has one; else random
	pointXZeroCompressed                     // the same, compressed
	pointOffCurve                            // (x, y + 1) of a random point: below p, not on the curve
	pointOffGenerator                        // (G_x, G_y + 1)
	pointBadEncoding                         // x = p: rejected, the item is the generator times one
	pointBigInput                            // a point whose ladder input x·M mod p has every word near 2^32
	pointChannelZero                         // a point whose ladder input is 0 mod many channels
)

// offCurve reports whether the point kind is off the curve: the kernel must
// flag it. On the comb, whose base is G, its item's y is G_y + 1.
func (p preparePoint) offCurve() bool { return p == pointOffCurve || p == pointOffGenerator }

// prepareCase is one item of a prepare file: its scalar (nil: random below
// n) and point.
type prepareCase struct {
	k     func(n *big.Int) *big.Int
	point preparePoint
}

// prepareEdges are the first items of a prepare file: the edge scalars 0,
// 1, n−1 and n (whose Fixed words the kernel must keep) on points of every
// form, the bases with x = 0, points off the curve (one with the point at
// infinity's Fixed, one with −G's), a rejected encoding, and points whose
// ladder input takes the residues' reductions to their edges (sums of
// products past 2^64 without the first reduction on 30-bit channels, and
// residues 0, where Barrett's quotient is one short); items after them are
// random points, every other one compressed.
var prepareEdges = []prepareCase{
	{nil, pointRandom},
	{scalarOf(0, 0), pointRandom},
	{scalarOf(0, 1), pointCompressed},
	{scalarOf(1, -1), pointRandom},
	{scalarOf(1, 0), pointCompressed},
	{nil, pointOffGenerator},
	{scalarOf(0, 0), pointXZero},
	{scalarOf(0, 1), pointXZero},
	{scalarOf(1, -1), pointXZeroCompressed},
	{scalarOf(1, 0), pointXZero},
	{nil, pointXZeroCompressed},
	{scalarOf(0, 0), pointOffCurve},
	{scalarOf(1, -1), pointOffCurve},
	{nil, pointOffCurve},
	{nil, pointBadEncoding},
	{topScalar, pointRandom},
	{nil, pointBigInput},
	{nil, pointChannelZero},
	{nil, pointCompressed},
}

// topScalar returns 2^(8·ByteLen) − 1 for the n of a curve: the largest
// scalar of its bytes.
func topScalar(n *big.Int) *big.Int {
	bytes := (n.BitLen() + 7) / 8
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*bytes)), big.NewInt(1))
}

// prepareVectors holds the parts of a prepare file.
type prepareVectors struct {
	consts, raw, want []uint32
}

// makePrepare builds a prepare file's parts for items items drawn from rng:
// the raw items of PrepareRaw (PrepareRawBase on the comb) packed by
// PackRaw, and the host's twin of the kernel on a copy. It checks the twin
// against the host's own preparation: every item on the curve must have
// the words PrepareBytes (PrepareBaseBytes), PackItem and PackFinish give
// it, with the same error, and every item off it FixedOffCurve, which no
// other item has.
func makePrepare(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*prepareVectors, error) {
	if !su.FinishOnGPU() {
		return nil, fmt.Errorf("%s %s prepares on the host", c.Name(), su.Schedule.Kind)
	}
	I, R, L := items, su.GPUInputRows(), su.InputRows()
	cases := make([]prepareCase, I)
	copy(cases, prepareEdges)
	for i := len(prepareEdges); i < I; i++ {
		cases[i].point = pointRandom + preparePoint(i%2)
	}
	v := &prepareVectors{consts: su.PrepareConstants(), raw: make([]uint32, R*I)}
	for i := range v.raw[:L*I] {
		v.raw[i] = rng.Uint32()
	}
	ref := make([]uint32, R*I)
	sc, refSc := make([]uint32, su.ScalarWords()*I), make([]uint32, su.ScalarWords()*I)
	for i, cs := range cases {
		_, scalar := caseScalar(c, cs.k, rng)
		var raw ladder.RawItem
		var it ladder.Item
		var errRaw, errItem error
		if su.Schedule.Kind.IsComb() {
			errRaw, errItem = su.PrepareRawBase(&raw, scalar), su.PrepareBaseBytes(&it, scalar)
			if cs.point.offCurve() {
				raw.Y = addOne(c, raw.Y)
			}
		} else {
			point, err := preparePointBytes(su, c, cs.point, rng)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			errRaw, errItem = su.PrepareRaw(&raw, scalar, point), su.PrepareBytes(&it, scalar, point)
			if cs.point.offCurve() && !errors.Is(errItem, curves.ErrNotOnCurve) {
				return nil, fmt.Errorf("item %d: the point off the curve gives %v", i, errItem)
			}
		}
		if (cs.point == pointBadEncoding && !su.Schedule.Kind.IsComb()) != (errRaw != nil) {
			return nil, fmt.Errorf("item %d (point %d): PrepareRaw gives %v", i, cs.point, errRaw)
		}
		if !cs.point.offCurve() && !errors.Is(errRaw, errItem) {
			return nil, fmt.Errorf("item %d: PrepareRaw gives %v, PrepareBytes %v", i, errRaw, errItem)
		}
		su.PackRaw(v.raw, sc, I, i, &raw)
		su.PackItem(ref, refSc, I, i, &it)
		su.PackFinish(ref, I, i, &it)
	}
	v.want = append([]uint32(nil), v.raw...)
	su.PrepareRowsOnHost(v.want, I, I)

	fixedRow := su.FinishRowAt() + su.FinishRows() - 1
	for i, cs := range cases {
		off := ladder.Fixed(v.want[fixedRow*I+i])&ladder.FixedOffCurve != 0
		if off != cs.point.offCurve() {
			return nil, fmt.Errorf("item %d (point %d): FixedOffCurve %v", i, cs.point, off)
		}
		if off {
			continue
		}
		for r := range R {
			if w, want := v.want[r*I+i], ref[r*I+i]; w != want {
				return nil, fmt.Errorf("item %d (point %d): row %d is %#x, PrepareBytes packs %#x", i, cs.point, r, w, want)
			}
		}
	}
	return v, nil
}

// preparePointBytes returns the SEC1 encoding of a point of kind p.
func preparePointBytes(su *ladder.Setup, c *curves.Curve, p preparePoint, rng *rand.Rand) ([]byte, error) {
	enc := func(x, y *big.Int, compressed bool) []byte {
		return c.EncodeSEC1(&curves.Point{X: x, Y: y}, compressed)
	}
	switch p {
	case pointBigInput, pointChannelZero:
		return inputPoint(su, c, p)
	case pointOffGenerator:
		return offCurve(c, c.Gx(), c.Gy())
	case pointBadEncoding:
		L := c.ByteLen()
		b := append([]byte{4}, c.P().FillBytes(make([]byte, L))...)
		return append(b, c.Gy().FillBytes(make([]byte, L))...), nil
	case pointXZero, pointXZeroCompressed:
		if y := new(big.Int).ModSqrt(c.B(), c.P()); y != nil {
			return enc(big.NewInt(0), y, p == pointXZeroCompressed), nil
		}
	}
	x, y, err := randomPoint(c, rng)
	if err != nil {
		return nil, err
	}
	if p == pointOffCurve {
		return offCurve(c, x, y)
	}
	return enc(x, y, p == pointCompressed || p == pointXZeroCompressed), nil
}

// inputPoint returns the uncompressed encoding of a point of c whose
// ladder input v = x·M mod p is, for kind pointBigInput, just below
// 2^(32·W) − 2^(32·(W−1)) (W the words of p: every word near 2^32, so that
// the eight products of a 30-bit channel's residue sum past 2^64), or, for
// pointChannelZero, a small multiple of the product of the first channels
// (B's, then B̃'s) that stays below p/256: their residues are 0, the sums
// are not, and Barrett's first quotient of each is one short.
func inputPoint(su *ladder.Setup, c *curves.Curve, kind preparePoint) ([]byte, error) {
	p := c.P()
	mInv := new(big.Int).ModInverse(su.Params.B.M, p)
	var v, step *big.Int
	if kind == pointBigInput {
		words := uint(p.BitLen()+31) / 32
		v = new(big.Int).Lsh(big.NewInt(1), 32*words)
		v.Sub(v, big.NewInt(1)).Sub(v, new(big.Int).Lsh(big.NewInt(1), 32*(words-1)))
		step = big.NewInt(-1)
	} else {
		step = big.NewInt(1)
		limit := new(big.Int).Rsh(p, 8)
	channels:
		for _, moduli := range [][]rns.Modulus{su.Params.B.Moduli, su.Params.BT.Moduli} {
			for _, m := range moduli {
				next := new(big.Int).Mul(step, big.NewInt(int64(m.M)))
				if next.Cmp(limit) >= 0 {
					break channels
				}
				step = next
			}
		}
		v = new(big.Int).Set(step)
	}
	for range 256 { // half the x have a point
		x := new(big.Int).Mul(v, mInv)
		if y, err := c.RecoverY(x.Mod(x, p), false); err == nil {
			return c.EncodeSEC1(&curves.Point{X: x, Y: y}, false), nil
		}
		v.Add(v, step)
	}
	return nil, fmt.Errorf("no point of %s with a ladder input near %#x", c.Name(), v)
}

// offCurve returns the uncompressed encoding of (x, y + 1) for the point
// (x, y) of c: coordinates below p, off the curve.
func offCurve(c *curves.Curve, x, y *big.Int) ([]byte, error) {
	y = new(big.Int).Add(y, big.NewInt(1))
	if y.Cmp(c.P()) >= 0 || c.IsOnCurve(x, y) {
		return nil, fmt.Errorf("(%#x, %#x) is not a point off the curve with coordinates below p", x, y)
	}
	return c.EncodeSEC1(&curves.Point{X: x, Y: y}, false), nil
}

// addOne returns y + 1 mod p, of plain limbs.
func addOne(c *curves.Curve, y [fp.Limbs]uint64) [fp.Limbs]uint64 {
	v := new(big.Int)
	for l := len(y) - 1; l >= 0; l-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(y[l]))
	}
	v.Add(v, big.NewInt(1)).Mod(v, c.P())
	var out [fp.Limbs]uint64
	for l := range out {
		out[l] = new(big.Int).Rsh(v, uint(64*l)).Uint64()
	}
	return out
}

// prepareWords returns a prepare file's words: its header and parts.
func prepareWords(su *ladder.Setup, items int, v *prepareVectors) [][]uint32 {
	hdr := []uint32{prepareMagic, prepareVersion, uint32(su.Params.N), uint32(su.GPUInputRows()), uint32(su.InputRows()),
		uint32(items), kernels.FinishThreads, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.raw, v.want}
}
