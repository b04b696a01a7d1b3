package ecdsa

import (
	"context"
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/par"
)

// batch is one call of Verify: its inputs, and the engine's buffers laid
// out as 2·count items, the u1·G items first and the u2·Q items after them.
type batch struct {
	c        *curves.Curve
	n, p     *big.Int
	L, count int
	verdicts []Verdict
	digests  [][]byte
	sigs     []byte
	keys     []byte
	keySize  int
	scalars  []byte // u1 of every item, then u2 of every item; zero for an item already Invalid
	r        []*big.Int
}

// newBatch checks the buffers' lengths against one another.
func newBatch(c *curves.Curve, verdicts []Verdict, digests [][]byte, sigs, keys []byte) (*batch, error) {
	L, n := c.ByteLen(), len(digests)
	b := &batch{c: c, n: c.N(), p: c.P(), L: L, count: n, verdicts: verdicts, digests: digests, sigs: sigs, keys: keys}
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

// prepare computes u1 and u2 of every item into scalars and marks the
// items whose r or s is out of range Invalid.
func (b *batch) prepare(ctx context.Context) error {
	L, n := b.L, b.count
	b.scalars = make([]byte, 2*n*L)
	b.r = make([]*big.Int, n)
	par.DoAllCores(n, func(_, lo, hi int) {
		var s, w, e, u big.Int
		for i := lo; i < hi; i++ {
			if i%256 == 0 && ctx.Err() != nil {
				return
			}
			rs := b.sigs[i*2*L : (i+1)*2*L]
			r := new(big.Int).SetBytes(rs[:L])
			s.SetBytes(rs[L:])
			if r.Sign() == 0 || r.Cmp(b.n) >= 0 || s.Sign() == 0 || s.Cmp(b.n) >= 0 {
				b.verdicts[i] = Invalid // its scalars stay 0
				continue
			}
			b.r[i] = r
			w.ModInverse(&s, b.n)
			hashToInt(&e, b.digests[i], b.n)
			u.Mul(&e, &w).Mod(&u, b.n).FillBytes(b.scalars[i*L : (i+1)*L])
			u.Mul(r, &w).Mod(&u, b.n).FillBytes(b.scalars[(n+i)*L : (n+i+1)*L])
		}
	})
	return ctx.Err()
}

// finish gives every item its verdict from the engine's results: out holds
// 2·count uncompressed points, status their statuses.
func (b *batch) finish(ctx context.Context, out []byte, status []ecmul.Status) error {
	L, n, size := b.L, b.count, 1+2*b.L
	a := big.NewInt(b.c.A())
	par.DoAllCores(n, func(_, lo, hi int) {
		var sum adder
		for i := lo; i < hi; i++ {
			if i%256 == 0 && ctx.Err() != nil {
				return
			}
			if v := verdictOf(status[n+i]); v != Valid {
				b.verdicts[i] = v // a bad key, whatever the signature
				continue
			}
			if status[i] == ecmul.StatusResultCheck {
				b.verdicts[i] = Fault
				continue
			}
			if b.verdicts[i] == Invalid {
				continue
			}
			p1 := affine(out[i*size:(i+1)*size], L, status[i])
			p2 := affine(out[(n+i)*size:(n+i+1)*size], L, status[n+i])
			x, ok := sum.x(b.p, a, p1, p2)
			if ok && x.Mod(x, b.n).Cmp(b.r[i]) == 0 {
				b.verdicts[i] = Valid
			} else {
				b.verdicts[i] = Invalid
			}
		}
	})
	return ctx.Err()
}

// point is an affine point, or the point at infinity when inf is set.
type point struct {
	x, y big.Int
	inf  bool
}

// affine reads the engine's result: an uncompressed SEC1 point for
// StatusPoint, the point at infinity for StatusInfinity.
func affine(enc []byte, L int, s ecmul.Status) *point {
	p := new(point)
	if s != ecmul.StatusPoint {
		p.inf = true
		return p
	}
	p.x.SetBytes(enc[1 : 1+L])
	p.y.SetBytes(enc[1+L:])
	return p
}

// adder holds the temporaries of affine additions.
type adder struct{ num, den, l, t big.Int }

// x returns the x coordinate of p1 + p2 on y² = x³ + a·x + b over GF(p),
// and ok false when the sum is the point at infinity: p1 = −p2, or both at
// infinity. Doubling (p1 = p2) takes the tangent.
func (s *adder) x(p, a *big.Int, p1, p2 *point) (x *big.Int, ok bool) {
	switch {
	case p1.inf && p2.inf:
		return nil, false
	case p1.inf:
		return new(big.Int).Set(&p2.x), true
	case p2.inf:
		return new(big.Int).Set(&p1.x), true
	}
	if p1.x.Cmp(&p2.x) == 0 {
		if s.t.Add(&p1.y, &p2.y).Mod(&s.t, p).Sign() == 0 {
			return nil, false // p2 = −p1 (a y of 0 included)
		}
		// p1 = p2: λ = (3x² + a) / 2y
		s.num.Mul(&p1.x, &p1.x).Mul(&s.num, big.NewInt(3)).Add(&s.num, a)
		s.den.Lsh(&p1.y, 1)
	} else {
		// λ = (y2 − y1) / (x2 − x1)
		s.num.Sub(&p2.y, &p1.y)
		s.den.Sub(&p2.x, &p1.x)
	}
	s.den.Mod(&s.den, p).ModInverse(&s.den, p)
	s.l.Mul(&s.num, &s.den).Mod(&s.l, p)
	x = new(big.Int).Mul(&s.l, &s.l)
	x.Sub(x, &p1.x).Sub(x, &p2.x).Mod(x, p)
	return x, true
}

// hashToInt sets e to the leftmost bitlen(n) bits of digest (SEC 1 v2,
// §4.1.3 step 5, as crypto/ecdsa takes them) and returns it.
func hashToInt(e *big.Int, digest []byte, n *big.Int) *big.Int {
	bits := n.BitLen()
	if size := (bits + 7) / 8; len(digest) > size {
		digest = digest[:size]
	}
	e.SetBytes(digest)
	if excess := len(digest)*8 - bits; excess > 0 {
		e.Rsh(e, uint(excess))
	}
	return e
}
