package ecdsa

import (
	"context"
	"fmt"
	"math/bits"
	"sync"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/par"
)

// batch is one call of Verify: its inputs, and the engine's buffers laid
// out as 2·count items, the u1·G items first and the u2·Q items after them.
type batch struct {
	c        *curves.Curve
	ar       *arith
	L, count int
	verdicts []Verdict
	digests  [][]byte
	sigs     []byte
	keys     []byte
	keySize  int
	gpu      *engine.Engine // the engine's verify kernel judges the signatures, where it has one (Verify)
}

// arith is a curve's arithmetic mod n (prepare) and mod p (finish) in
// four-limb Montgomery form: no math/big and no allocation per item.
type arith struct {
	n, p     *fp.Field
	nl, pl   [fp.Limbs]uint64 // the moduli's limbs
	nBits    int              // bitlen(n): how much of a digest counts
	a, three fp.Element       // a and 3 mod p, Montgomery form
}

// ariths holds the arithmetic of every curve, built once, by name.
var ariths = sync.OnceValue(func() map[string]*arith {
	m := make(map[string]*arith)
	for _, c := range curves.All() {
		n, err := fp.New(c.N())
		if err != nil {
			panic("ecdsa: " + c.Name() + ": the order: " + err.Error())
		}
		p, err := fp.New(c.P())
		if err != nil {
			panic("ecdsa: " + c.Name() + ": the field: " + err.Error())
		}
		a := &arith{n: n, p: p, nl: n.Modulus(), pl: p.Modulus(), nBits: c.N().BitLen()}
		p.SetInt64(&a.a, c.A())
		p.SetUint64(&a.three, 3)
		m[c.Name()] = a
	}
	return m
})

// newBatch checks the buffers' lengths against one another.
func newBatch(c *curves.Curve, verdicts []Verdict, digests [][]byte, sigs, keys []byte) (*batch, error) {
	L, n := c.ByteLen(), len(digests)
	ar, ok := ariths()[c.Name()]
	if !ok {
		return nil, fmt.Errorf("ecdsa: no arithmetic for curve %s", c.Name())
	}
	b := &batch{c: c, ar: ar, L: L, count: n, verdicts: verdicts, digests: digests, sigs: sigs, keys: keys}
	if len(sigs) != n*2*L {
		return nil, fmt.Errorf("%w: %d digests take %d bytes of signatures r‖s (%d each), not %d",
			ecmul.ErrBatchLayout, n, n*2*L, 2*L, len(sigs))
	}
	switch len(keys) {
	case n * (1 + 2*L):
		b.keySize = 1 + 2*L
	case n * (1 + L):
		b.keySize = 1 + L
	default:
		return nil, fmt.Errorf("%w: %d digests take %d bytes of uncompressed or %d of compressed keys, not %d",
			ecmul.ErrBatchLayout, n, n*(1+2*L), n*(1+L), len(keys))
	}
	if len(verdicts) != n {
		return nil, fmt.Errorf("%w: %d digests take %d verdicts, not %d", ecmul.ErrBatchLayout, n, n, len(verdicts))
	}
	return b, nil
}

// chunk is the number of items that share one inversion mod n (Montgomery's
// trick) in prepare: an inversion costs a few microseconds,
// against three multiplications per item for the trick.
const chunk = 512

// scratch is one worker's working memory for a chunk of prepare: v the
// values inverted together, acc their running products, r each item's r
// as read in the first pass, todo whether the item goes on.
type scratch struct {
	v, acc, r [chunk]fp.Element
	todo      [chunk]bool
}

// forChunks runs do on the chunks of the items st on hostWorkers workers,
// a chunk a range of par.Spread, claimed as each worker comes free: the
// workers that start first take the chunks of those the OS wakes late,
// and no worker is left with a part of several chunks at a step's end.
// It looks at the context before each chunk, and returns its cause where
// it ended.
func (b *batch) forChunks(ctx context.Context, st span, do func(lo, hi int)) error {
	par.Spread(st.hi-st.lo, hostWorkers(), chunk, func(lo, hi int) {
		if ctx.Err() == nil {
			do(st.lo+lo, st.lo+hi)
		}
	})
	return context.Cause(ctx)
}

// hostWorkers returns the workers of forChunks: par.HostWorkers, every
// core but the one left to the engine's pipeline (its copies and launches).
func hostWorkers() int {
	if hostWorkerCount > 0 {
		return hostWorkerCount
	}
	return par.HostWorkers()
}

// hostWorkerCount, when above 0, replaces hostWorkers' choice.
var hostWorkerCount int

// scratches holds prepare's scratch memory between chunks.
var scratches = sync.Pool{New: func() any { return new(scratch) }}

// span is the items [lo, hi) of a batch.
type span struct{ lo, hi int }

// all is the whole batch.
func (b *batch) all() span { return span{0, b.count} }

// prepare computes u1 and u2 of the items st into scalars, laid out as
// compute reads them: the m = st.hi − st.lo scalars u1, then the m scalars
// u2, L bytes each (zero for an item already Invalid); and marks the items
// whose r or s is out of range Invalid (and every other one NotVerified).
// The s⁻¹ of a chunk take one inversion mod n.
func (b *batch) prepare(ctx context.Context, st span, scalars []byte) error {
	return b.forChunks(ctx, st, func(lo, hi int) {
		s := scratches.Get().(*scratch)
		b.prepareChunk(lo, hi, st, scalars, s)
		scratches.Put(s)
	})
}

func (b *batch) prepareChunk(lo, hi int, st span, scalars []byte, s *scratch) {
	L, m, ar := b.L, st.hi-st.lo, b.ar
	f := ar.n
	w := s.v[:hi-lo]
	for i := lo; i < hi; i++ {
		rs := b.sigs[i*2*L : (i+1)*2*L]
		r, sv := fp.LimbsFromBytes(rs[:L]), fp.LimbsFromBytes(rs[L:])
		k := i - lo
		if isZero(r) || !fp.Less(r, ar.nl) || isZero(sv) || !fp.Less(sv, ar.nl) {
			b.verdicts[i] = Invalid // its scalars are 0
			w[k] = fp.Element{1}    // a stand-in for the batched inversion
			s.todo[k] = false
			j := i - st.lo
			clear(scalars[j*L : (j+1)*L])
			clear(scalars[(m+j)*L : (m+j+1)*L])
			continue
		}
		b.verdicts[i] = NotVerified
		w[k], s.r[k] = fp.Element(sv), fp.Element(r)
		s.todo[k] = true
	}
	invertAll(f, w, s.acc[:len(w)]) // s⁻¹·R
	var u fp.Element
	for i := lo; i < hi; i++ {
		k := i - lo
		if !s.todo[k] {
			continue
		}
		// Mul of a plain value by a Montgomery form gives the plain product;
		// u1 goes to j, u2 to m + j
		j := i - st.lo
		e := ar.hashToLimbs(b.digests[i])
		f.Mul(&u, &e, &w[k]) // e·s⁻¹ mod n
		fp.PutLimbs(scalars[j*L:(j+1)*L], u)
		f.Mul(&u, &s.r[k], &w[k]) // r·s⁻¹ mod n
		fp.PutLimbs(scalars[(m+j)*L:(m+j+1)*L], u)
	}
}

// finish gives the items st their verdicts from the engine's results,
// laid out as compute writes them: out holds the m = st.hi − st.lo points
// u1·G, then the m points u2·Q, uncompressed, status their statuses. Each
// sum's x is compared with r without an inversion (sumVerdict).
func (b *batch) finish(ctx context.Context, out []byte, status []ecmul.Status, st span) error {
	return b.forChunks(ctx, st, func(lo, hi int) { b.finishChunk(lo, hi, st, out, status) })
}

func (b *batch) finishChunk(lo, hi int, st span, out []byte, status []ecmul.Status) {
	L, m, size, ar := b.L, st.hi-st.lo, 1+2*b.L, b.ar
	f := ar.p
	for i := lo; i < hi; i++ {
		j := i - st.lo // the item's u1·G at j, its u2·Q at m + j
		if v := verdictOf(status[m+j]); v != Valid {
			b.verdicts[i] = v // a bad key, whatever the signature
			continue
		}
		if status[j] == ecmul.StatusResultCheck {
			b.verdicts[i] = Fault
			continue
		}
		if b.verdicts[i] == Invalid {
			continue
		}
		inf1, inf2 := status[j] != ecmul.StatusPoint, status[m+j] != ecmul.StatusPoint
		p1, p2 := out[j*size:(j+1)*size], out[(m+j)*size:(m+j+1)*size]
		switch {
		case inf1 && inf2:
			b.verdicts[i] = Invalid // R at infinity
			continue
		case inf1:
			b.verdicts[i] = ar.verdict(ar.coordinate(p2[1:1+L]), b.r(i))
			continue
		case inf2:
			b.verdicts[i] = ar.verdict(ar.coordinate(p1[1:1+L]), b.r(i))
			continue
		}
		// the coordinates as plain values below p: Sub and Add work on
		// them as on Montgomery forms
		x1, y1 := ar.coordinate(p1[1:1+L]), ar.coordinate(p1[1+L:])
		x2, y2 := ar.coordinate(p2[1:1+L]), ar.coordinate(p2[1+L:])
		var num, den, sum fp.Element
		if x1.Equal(&x2) {
			if f.Add(&sum, &y1, &y2); sum.IsZero() {
				b.verdicts[i] = Invalid // p2 = −p1 (a y of 0 included): R at infinity
				continue
			}
			// p1 = p2: λ = (3x² + a) / 2y
			f.SetLimbs(&num, x1) // x·R
			f.Square(&num, &num)
			f.Mul(&num, &num, &ar.three)
			f.Add(&num, &num, &ar.a)
			num = f.FromMont(&num)
			f.Double(&den, &y1)
		} else {
			// λ = (y2 − y1) / (x2 − x1)
			f.Sub(&num, &y2, &y1)
			f.Sub(&den, &x2, &x1)
		}
		f.Add(&sum, &x1, &x2)
		b.verdicts[i] = ar.sumVerdict(&num, &den, &sum, b.r(i))
	}
}

// sumVerdict is Valid when x(R) mod n = r for R = p1 + p2, whose x is λ² −
// x1 − x2 with λ = num/den (den ≠ 0), given num, den and sum = x1 + x2 as
// plain values below p; Invalid otherwise. x(R) is below p, so x(R) mod n
// = r means x(R) = r, or x(R) = r + n where that is below p; and x(R) = v
// means num² = (v + sum)·den² (mod p), checked without an inversion: the
// Montgomery products of plain values give num²·R⁻¹, reduced once more to
// num²·R⁻², against (v + sum)·den²·R⁻².
func (ar *arith) sumVerdict(num, den, sum *fp.Element, r [fp.Limbs]uint64) Verdict {
	f := ar.p
	var lhs, d2 fp.Element
	f.Square(&lhs, num)
	lhs = f.FromMont(&lhs) // num²·R⁻²
	f.Square(&d2, den)     // den²·R⁻¹
	if ar.sumIs(&lhs, &d2, sum, r) {
		return Valid
	}
	var c uint64
	var rn [fp.Limbs]uint64
	rn[0], c = bits.Add64(r[0], ar.nl[0], 0)
	rn[1], c = bits.Add64(r[1], ar.nl[1], c)
	rn[2], c = bits.Add64(r[2], ar.nl[2], c)
	rn[3], c = bits.Add64(r[3], ar.nl[3], c)
	if c == 0 && fp.Less(rn, ar.pl) && ar.sumIs(&lhs, &d2, sum, rn) {
		return Valid
	}
	return Invalid
}

// sumIs reports whether x(R) = v for v below p: lhs = num²·R⁻² against
// (v + sum)·d2·R⁻¹ with d2 = den²·R⁻¹.
func (ar *arith) sumIs(lhs, d2, sum *fp.Element, v [fp.Limbs]uint64) bool {
	rhs := fp.Element(v)
	ar.p.Add(&rhs, &rhs, sum)
	ar.p.Mul(&rhs, &rhs, d2)
	return rhs.Equal(lhs)
}

// r returns item i's r, checked in range by prepare.
func (b *batch) r(i int) [fp.Limbs]uint64 {
	return fp.LimbsFromBytes(b.sigs[i*2*b.L : i*2*b.L+b.L])
}

// coordinate reads a big-endian coordinate as a plain value below p; the
// engine writes them below p, and one that is not is reduced.
func (ar *arith) coordinate(enc []byte) fp.Element {
	l := fp.LimbsFromBytes(enc)
	if !fp.Less(l, ar.pl) {
		var z fp.Element
		ar.p.SetLimbs(&z, l)
		l = ar.p.FromMont(&z)
	}
	return fp.Element(l)
}

// verdict is Valid when x mod n = r, for a plain x below p, and Invalid
// otherwise.
func (ar *arith) verdict(x fp.Element, r [fp.Limbs]uint64) Verdict {
	l := [fp.Limbs]uint64(x)
	for !fp.Less(l, ar.nl) { // p < 2n on these curves: at most once
		l = sub(l, ar.nl)
	}
	if l == r {
		return Valid
	}
	return Invalid
}

// hashToLimbs returns the leftmost bitlen(n) bits of digest as an integer
// (SEC 1 v2, §4.1.3 step 5, as crypto/ecdsa takes them), not reduced mod
// n: below 2^bitlen(n) <= 2^256.
func (ar *arith) hashToLimbs(digest []byte) fp.Element {
	if size := (ar.nBits + 7) / 8; len(digest) > size {
		digest = digest[:size]
	}
	e := fp.LimbsFromBytes(digest)
	if excess := len(digest)*8 - ar.nBits; excess > 0 { // below 8
		e[0] = e[0]>>excess | e[1]<<(64-excess)
		e[1] = e[1]>>excess | e[2]<<(64-excess)
		e[2] = e[2]>>excess | e[3]<<(64-excess)
		e[3] >>= excess
	}
	return fp.Element(e)
}

// invertAll sets every x[i], a non-zero value below the modulus as it is
// (not in Montgomery form), to the Montgomery form of its inverse,
// x[i]⁻¹·R, with one inversion and three products an item (Montgomery's
// trick), acc as long as x for the running products. Taken as Montgomery
// forms, the x[i] are x[i]·R⁻¹, whose inverses x[i]⁻¹·R are off by R: the
// inverse of their product is divided by R once, and so every result.
func invertAll(f *fp.Field, x, acc []fp.Element) {
	if len(x) == 0 {
		return
	}
	acc[0] = x[0]
	for i := 1; i < len(x); i++ {
		f.Mul(&acc[i], &acc[i-1], &x[i])
	}
	var inv, t fp.Element
	one := fp.Element{1}
	f.Inverse(&inv, &acc[len(x)-1]) // (x0 ⋯ x_last)⁻¹, as Montgomery forms
	f.Mul(&inv, &inv, &one)         // divided by R
	for i := len(x) - 1; i > 0; i-- {
		f.Mul(&t, &inv, &acc[i-1]) // x_i⁻¹
		f.Mul(&inv, &inv, &x[i])   // (x0 ⋯ x_{i−1})⁻¹
		x[i] = t
	}
	x[0] = inv
}

func isZero(l [fp.Limbs]uint64) bool { return l[0]|l[1]|l[2]|l[3] == 0 }

// sub returns a − b for a >= b.
func sub(a, b [fp.Limbs]uint64) [fp.Limbs]uint64 {
	var c uint64
	a[0], c = bits.Sub64(a[0], b[0], 0)
	a[1], c = bits.Sub64(a[1], b[1], c)
	a[2], c = bits.Sub64(a[2], b[2], c)
	a[3], _ = bits.Sub64(a[3], b[3], c)
	return a
}
