package main

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand/v2"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/par"
)

// sampler draws the random items of gen, verify and bench from a seed. Each
// point and each run of scalars comes from its own PCG generator, keyed by
// the seed and an index tagged with what it is for, so any item can be
// drawn without the ones before it and the same seed gives the same items.
type sampler struct {
	c    *curves.Curve
	seed uint64
}

// Tags of the generators' streams, kept apart in the index's top bits.
const (
	streamGenPoint    = 1 << 62 // gen's pool of points
	streamVerifyPoint = 1 << 63 // verify's point of each group of items
	streamBenchPoint  = 3 << 62 // bench's pool of points
)

// rng returns the generator of index i of stream tag.
func (s sampler) rng(tag, i uint64) *rand.Rand { return rand.New(rand.NewPCG(s.seed, i|tag)) }

// point returns k·G for k uniform in [1, n), drawn by generator (tag, i).
func (s sampler) point(tag, i uint64) *curves.Point {
	x, y, _, err := s.c.ReferenceScalarMult(s.c.Gx(), s.c.Gy(), randNonZero(s.c, s.rng(tag, i)))
	if err != nil {
		panic(err) // k·G with 0 < k < n is always a point
	}
	return &curves.Point{X: x, Y: y}
}

// points returns points [lo, hi) of stream tag, computed on all cores.
func (s sampler) points(tag uint64, lo, hi int) []*curves.Point {
	out := make([]*curves.Point, hi-lo)
	par.DoAllCores(len(out), func(_, a, b int) {
		for j := a; j < b; j++ {
			out[j] = s.point(tag, uint64(lo+j))
		}
	})
	return out
}

// scalarSampler draws scalars uniformly from [1, n) as big-endian bytes.
type scalarSampler struct {
	n    []byte // n, big-endian
	mask byte   // for the top byte: the bits below n's bit length
	buf  []byte
}

func newScalarSampler(n *big.Int) *scalarSampler {
	nb := (n.BitLen() + 7) / 8
	s := &scalarSampler{n: n.FillBytes(make([]byte, nb)), buf: make([]byte, nb)}
	s.mask = byte(0xff >> (8*nb - n.BitLen()))
	return s
}

// next returns a scalar in [1, n), valid until the next call.
func (s *scalarSampler) next(rng *rand.Rand) []byte {
	s.nextInto(rng, s.buf)
	return s.buf
}

// nextInto draws a scalar in [1, n) into dst, of n's length.
func (s *scalarSampler) nextInto(rng *rand.Rand, dst []byte) {
	for {
		s.fill(rng, dst)
		if s.inRange(dst) {
			return
		}
	}
}

// fill draws b, eight bytes from each rng.Uint64, its low byte first, and
// clears the bits of b[0] above n's length (in the word, before it is
// stored, so that inRange reads it back at full speed).
func (s *scalarSampler) fill(rng *rand.Rand, b []byte) {
	keep := uint64(s.mask) | ^uint64(0xff) // b[0] is the first draw's low byte
	for ; len(b) >= 8; b = b[8:] {
		binary.LittleEndian.PutUint64(b, rng.Uint64()&keep)
		keep = ^uint64(0)
	}
	if len(b) > 0 {
		v := rng.Uint64() & keep
		if len(b) >= 4 {
			binary.LittleEndian.PutUint32(b, uint32(v))
			b, v = b[4:], v>>32
		}
		for j := range b {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

// inRange reports 0 < b < n, from the top eight bytes alone when they
// differ from n's, as they nearly always do.
func (s *scalarSampler) inRange(b []byte) bool {
	if len(b) >= 8 {
		top, nTop := binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(s.n)
		if top != nTop {
			return top < nTop && (top != 0 || !allZero(b))
		}
	}
	return bytes.Compare(b, s.n) < 0 && !allZero(b)
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}

func randNonZero(c *curves.Curve, rng *rand.Rand) *big.Int {
	return new(big.Int).SetBytes(newScalarSampler(c.N()).next(rng))
}
