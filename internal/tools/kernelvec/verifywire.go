package main

import (
	"fmt"
	"math/big"
	"math/rand"
	"slices"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// Verify unpack vectors (-verifyunpack), for the unpack kernel of a verify
// batch (ecm_verifyunpack_*, verify.cuh), have the unpack's format
// (unpack.go) with the magic 0x57434345, on the co-Z ladder: the input rows
// R are VerifyInputRows (the verify rows after the finish rows), and the
// wire input of the I items is VerifyWireInBytes each: the I scalars, the
// I points, then (ladder's verifywire.go) the I u1·G of 2B bytes, the I r
// and the I r + n of B bytes and the I flag bytes, so that a batch of any
// count can be tiled from them. The rows after the unpack are
// UnpackVerifyOnHost's.
const verifyUnpackMagic = 0x57434345

// Verify pack vectors (-verifypack), for the pack kernel of a verify batch
// (ecm_verifypack_*), hold, little-endian uint32 words: magic 0x4f434345,
// version 1, n, output rows Q, items I, the kernel's block size
// (kernels.FinishThreads), constant words C; then the C finish constants,
// Q·I words of the output buffer after the verify kernel (its outcomes in
// row 0, then the ladder's outputs that it leaves, which the pack must not
// read; row r of item i at r·I + i), and ⌈I/4⌉ words of the wire output of
// the I items before the pack (random bytes) and as many after it
// (PackVerifyOnHost): item i's outcome at byte i, zero bytes padding the
// last word.
const (
	verifyPackMagic   = 0x4f434345
	verifyPackVersion = 1
	verifyPackRows    = 2 // the outcomes and one row of the ladder's outputs
)

// verifyR is the kind of r of a verify unpack file's item, by what r + n
// is to p.
type verifyR int

const (
	verifyRRandom verifyR = iota // random below n
	verifyRZero                  // 0: r + n = n, below p
	verifyRBelowP                // p − n − 1: r + n = p − 1, the largest below p
	verifyRIsP                   // p − n: r + n = p, not below p
	verifyRHigh                  // n − 1: r + n above p
	verifyRTop                   // the largest of ByteLen bytes: r + n carries out of them
	verifyRKinds                 // how many kinds
)

// value returns an r of kind k, drawing from rng either way.
func (k verifyR) value(c *curves.Curve, rng *rand.Rand) *big.Int {
	n, p := c.N(), c.P()
	r := new(big.Int).Rand(rng, n)
	switch k {
	case verifyRZero:
		r.SetInt64(0)
	case verifyRBelowP:
		r.Sub(p, n).Sub(r, big.NewInt(1))
	case verifyRIsP:
		r.Sub(p, n)
	case verifyRHigh:
		r.Sub(n, big.NewInt(1))
	case verifyRTop:
		r = topScalar(n)
	}
	return r
}

// verifyItem is what the host knows of a verify batch's item after the
// ladder's wire input: u1·G (nil: the point at infinity) and r.
type verifyItem struct {
	u1G *curves.Point
	r   *big.Int
}

// makeVerifyUnpack builds a verify unpack file's parts for items items
// drawn from rng: the unpack file's scalars and keys (unpackEdges, then
// random ones), then per item a random u1·G, the point at infinity every
// fifth, and an r of each verifyR in turn, written by VerifyWire; random
// input and scalar rows, and the host's twin of the kernel on copies of
// them. It checks the twin's rows: the ladder's and the finish's as
// makeUnpack does, the verify rows those PackVerify writes of the values
// put.
func makeVerifyUnpack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*unpackVectors, error) {
	if su.Schedule.Kind != ladder.CoZ {
		return nil, fmt.Errorf("a verify batch runs on the co-Z ladder, not %s", su.Schedule.Kind)
	}
	I, B, W := items, c.ByteLen(), su.ScalarWords()
	cases := unpackCases(I)
	scalars, points, err := unpackWire(c, cases, false, rng)
	if err != nil {
		return nil, err
	}
	wire := make([]byte, I*su.VerifyWireInBytes())
	copy(wire, scalars)
	copy(wire[I*B:], points)
	put, err := putVerifyItems(su, c, wire, I, rng)
	if err != nil {
		return nil, err
	}
	v := &unpackVectors{consts: su.PrepareConstants(), wire: wordsOf(wire), in: randomWords(su.VerifyInputRows()*I, rng),
		sc: randomWords(W*I, rng)}
	v.inWant, v.scWant = slices.Clone(v.in), slices.Clone(v.sc)
	su.UnpackVerifyOnHost(wire, v.inWant, v.scWant, I, I)
	if err := checkUnpack(su, cases, scalars, points, v); err != nil {
		return nil, err
	}
	if err := checkVerifyRows(su, wire, put, v); err != nil {
		return nil, err
	}
	return v, nil
}

// putVerifyItems writes the u1·G, r, r + n and flags of each of the count
// items of wire (see makeVerifyUnpack) and returns them.
func putVerifyItems(su *ladder.Setup, c *curves.Curve, wire []byte, count int, rng *rand.Rand) ([]verifyItem, error) {
	w, L := su.VerifyWire(), c.ByteLen()
	put := make([]verifyItem, count)
	for i := range put {
		x, y, err := randomPoint(c, rng)
		if err != nil {
			return nil, err
		}
		if i%5 != 4 {
			put[i].u1G = &curves.Point{X: x, Y: y}
		}
		put[i].r = verifyR(i%int(verifyRKinds)).value(c, rng)
		u1G := append(x.FillBytes(make([]byte, L)), y.FillBytes(make([]byte, L))...)
		w.Put(wire, count, i, u1G, put[i].u1G == nil, put[i].r.FillBytes(make([]byte, L)))
	}
	return put, nil
}

// checkVerifyRows checks the twin's rows in v (see makeVerifyUnpack)
// against UnpackOnHost's and PackVerify's of the values put: u1·G's
// coordinates, zero at infinity, r, and r + n, zero where it is not below
// p, with the flags that say so.
func checkVerifyRows(su *ladder.Setup, wire []byte, put []verifyItem, v *unpackVectors) error {
	I, n, p := len(put), su.Curve.N(), su.Curve.P()
	ref, refSc := slices.Clone(v.in), slices.Clone(v.sc)
	su.UnpackOnHost(wire, ref, refSc, I, I)
	for i, it := range put {
		var x1, y1, rn [fp.Limbs]uint64
		flags := ladder.VerifyU1Infinity
		if it.u1G != nil {
			x1, y1, flags = limbs(it.u1G.X), limbs(it.u1G.Y), 0
		}
		if sum := new(big.Int).Add(it.r, n); sum.Cmp(p) < 0 {
			rn, flags = limbs(sum), flags|ladder.VerifyRN
		}
		su.PackVerify(ref, I, i, x1, y1, limbs(it.r), rn, flags)
	}
	for r := range su.VerifyInputRows() {
		for i := range I {
			if got, want := v.inWant[r*I+i], ref[r*I+i]; got != want {
				return fmt.Errorf("item %d: row %d is %#x, UnpackOnHost and PackVerify write %#x", i, r, got, want)
			}
		}
	}
	if !slices.Equal(v.scWant, refSc) {
		return fmt.Errorf("the scalar rows are not UnpackOnHost's")
	}
	return nil
}

// verifyUnpackWords returns a verify unpack file's words: its header and
// parts.
func verifyUnpackWords(su *ladder.Setup, items int, v *unpackVectors) [][]uint32 {
	return wireInWords(su, verifyUnpackMagic, su.VerifyInputRows(), items, v)
}

// makeVerifyPack builds a verify pack file's parts for items items drawn
// from rng: the first rows of a verify file's output buffer after the
// verify kernel (makeVerify: valid and invalid signatures, failures, bases
// off the curve and rejected keys) and the host's twin of the kernel on
// random wire bytes. It checks the twin's bytes: each item's outcome.
func makeVerifyPack(su *ladder.Setup, c *curves.Curve, items int, rng *rand.Rand) (*packVectors, error) {
	f, err := makeVerify(su, c, items, rng)
	if err != nil {
		return nil, err
	}
	I := items
	v := &packVectors{consts: su.FinishConstants(), results: slices.Clone(f.want[:verifyPackRows*I])}
	wire := make([]byte, I*ladder.VerifyWireOutBytes)
	rng.Read(wire)
	v.wire = wordsOf(wire)
	su.PackVerifyOnHost(v.results, I, wire)
	v.want = wordsOf(wire)
	for i, b := range wire {
		if o := ladder.Outcome(v.results[i]); ladder.Outcome(b) != o {
			return nil, fmt.Errorf("item %d: PackVerifyOnHost writes the outcome %d, want %d", i, b, o)
		}
	}
	return v, nil
}

// verifyPackWords returns a verify pack file's words: its header and parts.
func verifyPackWords(su *ladder.Setup, items int, v *packVectors) [][]uint32 {
	hdr := []uint32{verifyPackMagic, verifyPackVersion, uint32(su.Params.N), verifyPackRows, uint32(items),
		kernels.FinishThreads, uint32(len(v.consts))}
	return [][]uint32{hdr, v.consts, v.results, v.wire, v.want}
}
