package main

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand"
	"slices"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Unpack vectors (-unpack) hold, little-endian uint32 words: magic
// 0x55434345, version 1, n, input rows R (ladder.Setup.GPUInputRows), the
// ladder's input rows L (InputRows: 2n + 1 on the co-Z ladder, 0 on the
// comb; the finish rows follow them), scalar words W (ScalarWords), the
// bytes B of a scalar and of a coordinate (Curve.ByteLen), items I, the
// kernel's block size (kernels.FinishThreads), constant words C; then the
// C prepare constants (ladder.Setup.PrepareConstants), ⌈I·S/4⌉ words of
// the wire input of a chunk of the I items (S = WireInBytes: the I scalars
// of B bytes, then, on the co-Z ladder, the I points of 1 + 2B bytes; zero
// bytes pad the last word), R·I words of the input buffer before the
// unpack (random, the ladder's rows included), W·I scalar words before it
// (random), and the R·I and W·I words after it (UnpackOnHost: the finish
// rows and the scalar rows written, the ladder's rows kept), row r of item
// i at r·I + i. Item i's scalar is at byte i·B of the wire input and its
// point at I·B + i·(1 + 2B), so that a batch of any count can be tiled
// from them.
const (
	unpackMagic   = 0x55434345
	unpackVersion = 1
)

// wirePoint is the kind of point of an unpack file's item on the co-Z
// ladder: how its 1 + 2·ByteLen bytes are made, and so the Outcome the
// unpack kernel must find for it.
type wirePoint int

const (
	wireRandom   wirePoint = iota // a random point
	wireOffCurve                  // (x, y + 1) of a random point: accepted, the prepare kernel flags it
	wireXZero                     // (0, √b) where the curve has one (accepted, rewritten on the host); else random
	wireTop                       // (p − 1, p − 1): the largest coordinates below p, off the curve
	wirePrefix00                  // a random point's bytes with the prefix 0x00
	wirePrefix02                  // … 0x02
	wirePrefix03                  // … 0x03
	wirePrefix05                  // … 0x05
	wireZeros                     // 1 + 2·ByteLen zero bytes: the prefix is found before (0, 0)
	wireXIsP                      // (p, G_y)
	wireYIsP                      // (G_x, p)
	wireXMax                      // (2^(8·ByteLen) − 1, G_y)
	wireOrigin                    // (0, 0)
)

// outcome returns the Outcome the unpack kernel must find for a point of
// kind p: OutPoint for one it accepts.
func (p wirePoint) outcome() ladder.Outcome {
	switch p {
	case wirePrefix00, wirePrefix02, wirePrefix03, wirePrefix05, wireZeros:
		return ladder.OutBadEncoding
	case wireXIsP, wireYIsP, wireXMax:
		return ladder.OutBadCoordinate
	case wireOrigin:
		return ladder.OutInfinityInput
	}
	return ladder.OutPoint
}

// unpackCase is one item of an unpack file: its scalar (nil: random below
// n) and point (the comb ignores it).
type unpackCase struct {
	k     func(n *big.Int) *big.Int
	point wirePoint
}

// unpackEdges are the first items of an unpack file: the edge scalars of
// the reduction mod n and of the ladder's multiple (0, 1, n − 1, n, n + 1,
// n − ladder.CoZHigh − 1 up to n − 2, and the largest scalar of ByteLen bytes) on
// random points, then points of every kind the kernel accepts or rejects,
// some with edge scalars that a rejected point must override; items after
// them are random.
var unpackEdges = []unpackCase{
	{scalarOf(0, 0), wireRandom},
	{scalarOf(0, 1), wireRandom},
	{scalarOf(1, -1), wireRandom},
	{scalarOf(1, 0), wireRandom},
	{scalarOf(1, 1), wireRandom},
	{scalarOf(1, -ladder.CoZHigh-1), wireRandom},
	{scalarOf(1, -ladder.CoZHigh), wireRandom},
	{scalarOf(1, -ladder.CoZHigh+1), wireRandom},
	{scalarOf(1, -ladder.CoZHigh+2), wireRandom},
	{topScalar, wireRandom},
	{nil, wireOffCurve},
	{scalarOf(1, -1), wireXZero},
	{nil, wireTop},
	{nil, wirePrefix00},
	{scalarOf(0, 0), wirePrefix02},
	{nil, wirePrefix03},
	{nil, wirePrefix05},
	{scalarOf(1, -1), wireZeros},
	{nil, wireXIsP},
	{topScalar, wireYIsP},
	{nil, wireXMax},
	{scalarOf(0, 0), wireOrigin},
	{nil, wireOrigin},
}

// unpackVectors holds the parts of an unpack file, and of a sign unpack
// file its wire input after the unpack (wireWant).
type unpackVectors struct {
	consts, wire, in, sc, inWant, scWant []uint32
	wireWant                             []uint32
}

// makeUnpack builds an unpack file's parts for items items drawn from rng:
// the wire input of their scalars and points, random input and scalar
// rows, and the host's twin of the kernel on copies of them. It checks the
// twin against the host's own preparation: every item's rows must be those
// that PrepareRaw (PrepareRawBase on the comb) and PackRaw write, but for
// a point with x = 0, which the host rewrites before the copy, and for a
// rejected point, whose Fixed word also holds its Outcome in
// FixedRejected, and whose PrepareRaw fails.
func makeUnpack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*unpackVectors, error) {
	if !su.FinishOnGPU() {
		return nil, fmt.Errorf("%s %s unpacks on the host", c.Name(), su.Schedule.Kind)
	}
	I, R, W := items, su.GPUInputRows(), su.ScalarWords()
	cases := unpackCases(I)
	scalars, points, err := unpackWire(c, cases, su.InputRows() == 0, rng)
	if err != nil {
		return nil, err
	}
	wire := append(scalars, points...)
	if len(wire) != I*su.WireInBytes() {
		return nil, fmt.Errorf("%d bytes of wire input, want %d", len(wire), I*su.WireInBytes())
	}
	v := &unpackVectors{consts: su.PrepareConstants(), wire: wordsOf(wire), in: randomWords(R*I, rng), sc: randomWords(W*I, rng)}
	v.inWant, v.scWant = slices.Clone(v.in), slices.Clone(v.sc)
	su.UnpackOnHost(wire, v.inWant, v.scWant, I, I)
	if err := checkUnpack(su, cases, scalars, points, v); err != nil {
		return nil, err
	}
	return v, nil
}

// unpackCases returns the cases of an unpack file of items items:
// unpackEdges, then random ones.
func unpackCases(items int) []unpackCase {
	cases := make([]unpackCase, items)
	copy(cases, unpackEdges)
	return cases
}

// unpackWire returns the wire input's scalars and points (none on the
// comb) of cases, drawn from rng.
func unpackWire(c *curves.Curve, cases []unpackCase, comb bool, rng *rand.Rand) (scalars, points []byte, err error) {
	B := c.ByteLen()
	scalars = make([]byte, len(cases)*B)
	if !comb {
		points = make([]byte, len(cases)*(1+2*B))
	}
	for i, cs := range cases {
		_, s := caseScalar(c, cs.k, rng)
		copy(scalars[i*B:], s)
		if comb {
			continue
		}
		p, err := wirePointBytes(c, cs.point, rng)
		if err != nil {
			return nil, nil, fmt.Errorf("item %d: %w", i, err)
		}
		copy(points[i*(1+2*B):], p)
	}
	return scalars, points, nil
}

// checkUnpack checks the twin's rows in v against PrepareRaw's (see
// makeUnpack).
func checkUnpack(su *ladder.Setup, cases []unpackCase, scalars, points []byte, v *unpackVectors) error {
	I, R, W, B := len(cases), su.GPUInputRows(), su.ScalarWords(), su.Curve.ByteLen()
	ref, refSc := slices.Clone(v.in), slices.Clone(v.sc)
	fixedRow := su.FinishRowAt() + su.FinishRows() - 1
	for i, cs := range cases {
		scalar := scalars[i*B : (i+1)*B]
		var raw ladder.RawItem
		want := ladder.OutPoint
		if su.InputRows() == 0 {
			if err := su.PrepareRawBase(&raw, scalar); err != nil {
				return fmt.Errorf("item %d: PrepareRawBase gives %v", i, err)
			}
		} else {
			point := points[i*(1+2*B) : (i+1)*(1+2*B)]
			want = cs.point.outcome()
			if err := su.PrepareRaw(&raw, scalar, point); (err != nil) != (want != ladder.OutPoint) {
				return fmt.Errorf("item %d (point %d): PrepareRaw gives %v, the kernel's outcome is %d", i, cs.point, err, want)
			}
			// x = 0: accepted, the host rewrites it (RewriteZeroX) before the copy
			if fixed := ladder.Fixed(v.inWant[fixedRow*I+i]); want == ladder.OutPoint && allZero(point[1:1+B]) {
				if fixed&ladder.FixedRejected != 0 {
					return fmt.Errorf("item %d: the point with x = 0 is rejected (Fixed %#x)", i, fixed)
				}
				continue
			}
			raw.Fixed |= ladder.Fixed(want) << ladder.FixedRejectedShift
		}
		su.PackRaw(ref, refSc, I, i, &raw)
		got := ladder.Fixed(v.inWant[fixedRow*I+i]) & ladder.FixedRejected >> ladder.FixedRejectedShift
		if ladder.Outcome(got) != want {
			return fmt.Errorf("item %d (point %d): Fixed holds the outcome %d, want %d", i, cs.point, got, want)
		}
		for r := range R {
			if w, want := v.inWant[r*I+i], ref[r*I+i]; w != want {
				return fmt.Errorf("item %d (point %d): row %d is %#x, PrepareRaw packs %#x", i, cs.point, r, w, want)
			}
		}
		for r := range W {
			if w, want := v.scWant[r*I+i], refSc[r*I+i]; w != want {
				return fmt.Errorf("item %d (point %d): scalar row %d is %#x, PrepareRaw packs %#x", i, cs.point, r, w, want)
			}
		}
	}
	return nil
}

// wirePointBytes returns the 1 + 2·ByteLen bytes of a point of kind p.
func wirePointBytes(c *curves.Curve, p wirePoint, rng *rand.Rand) ([]byte, error) {
	L := c.ByteLen()
	coords := func(x, y *big.Int) []byte {
		b := append([]byte{4}, x.FillBytes(make([]byte, L))...)
		return append(b, y.FillBytes(make([]byte, L))...)
	}
	pMinus1 := new(big.Int).Sub(c.P(), big.NewInt(1))
	switch p {
	case wireXZero:
		if y := new(big.Int).ModSqrt(c.B(), c.P()); y != nil {
			return coords(big.NewInt(0), y), nil
		}
	case wireTop:
		return coords(pMinus1, pMinus1), nil
	case wireZeros:
		return make([]byte, 1+2*L), nil
	case wireXIsP:
		return coords(c.P(), c.Gy()), nil
	case wireYIsP:
		return coords(c.Gx(), c.P()), nil
	case wireXMax:
		return coords(topScalar(c.P()), c.Gy()), nil
	case wireOrigin:
		return coords(big.NewInt(0), big.NewInt(0)), nil
	}
	x, y, err := randomPoint(c, rng)
	if err != nil {
		return nil, err
	}
	if p == wireOffCurve {
		return offCurve(c, x, y)
	}
	b := coords(x, y)
	if prefix, ok := wirePrefixes[p]; ok {
		b[0] = prefix
	}
	return b, nil
}

// wirePrefixes are the prefixes of the kinds of points that have a random
// point's coordinates under another prefix than 0x04.
var wirePrefixes = map[wirePoint]byte{wirePrefix00: 0, wirePrefix02: 2, wirePrefix03: 3, wirePrefix05: 5}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool { return !slices.ContainsFunc(b, func(v byte) bool { return v != 0 }) }

// wordsOf returns b as little-endian words, zero bytes padding the last.
func wordsOf(b []byte) []uint32 {
	padded := make([]byte, (len(b)+3)/4*4)
	copy(padded, b)
	w := make([]uint32, len(padded)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(padded[4*i:])
	}
	return w
}

// randomWords returns n words drawn from rng.
func randomWords(n int, rng *rand.Rand) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = rng.Uint32()
	}
	return w
}

// unpackWords returns an unpack file's words: its header and parts.
func unpackWords(su *ladder.Setup, items int, v *unpackVectors) [][]uint32 {
	return wireInWords(su, unpackMagic, su.GPUInputRows(), items, v)
}

// wireInWords returns the words of a file of the unpack's format, of the
// magic and input rows of its kind: its header and parts.
func wireInWords(su *ladder.Setup, magic uint32, rows, items int, v *unpackVectors) [][]uint32 {
	hdr := []uint32{magic, unpackVersion, uint32(su.Params.N), uint32(rows), uint32(su.InputRows()),
		uint32(su.ScalarWords()), uint32(su.Curve.ByteLen()), uint32(items), kernels.FinishThreads, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.wire, v.in, v.sc, v.inWant, v.scWant}
}
