// Package ctec is constant-time scalar multiplication on P-224, P-256 and
// secp256k1 in four-limb Montgomery arithmetic (internal/fp): k·P with a
// four-bit fixed window over a table of P's first fifteen multiples, and
// k·G with a comb of the same windows over a precomputed table of G's,
// both in projective coordinates with the complete addition formulas of
// Renes, Costello and Batina ("Complete addition formulas for prime order
// elliptic curves", EUROCRYPT 2016; a = −3 for the NIST curves, a = 0 for
// secp256k1). It is the cpu backend's arithmetic.
//
// Nothing that depends on the scalar, or on the result, chooses a branch
// or an address: every window runs the same doublings and one addition,
// a table entry is read by a pass over the whole table that keeps the
// digit's entry with a mask, the complete formulas have no exceptional
// case (the point at infinity, P + P and P + (−P) included), and the
// conversion to affine coordinates inverts Z by fp's fixed-step safegcd
// and reports the point at infinity and the result's on-curve check as
// masks. The input point is public: how it was decoded and validated is
// the caller's business.
package ctec

import (
	"errors"
	"sync"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

// Curve is one curve's constant-time arithmetic. It is immutable once
// made, except for the table of k·G, built once on first use, and safe for
// concurrent use.
type Curve struct {
	curve *curves.Curve
	f     *fp.Field
	eq    *fp.Equation
	b, b3 fp.Element // b and 3b, Montgomery form
	aZero bool       // a = 0 (secp256k1); otherwise a = −3
	size  int        // bytes of a scalar and of a coordinate: ByteLen

	gen       Affine
	baseOnce  sync.Once
	baseTable []affineTable // baseTable[w][d−1] = d·16^w·G
}

// Point is a projective point (X : Y : Z), x = X/Z and y = Y/Z, its
// coordinates in Montgomery form; the point at infinity is (0 : 1 : 0)
// (any Z = 0 stands for it).
type Point struct {
	X, Y, Z fp.Element
}

// Affine is an affine point (x, y) in Montgomery form, never the point at
// infinity.
type Affine struct {
	X, Y fp.Element
}

var (
	all     map[*curves.Curve]*Curve
	allOnce sync.Once
)

// ErrCurve is returned by For for a curve other than the three of
// curves.All.
var ErrCurve = errors.New("ctec: not a supported curve")

// For returns c's arithmetic, for c one of curves.All.
func For(c *curves.Curve) (*Curve, error) {
	allOnce.Do(func() {
		all = map[*curves.Curve]*Curve{}
		for _, c := range curves.All() {
			all[c] = newCurve(c)
		}
	})
	if a, ok := all[c]; ok {
		return a, nil
	}
	return nil, ErrCurve
}

func newCurve(c *curves.Curve) *Curve {
	f, err := fp.New(c.P())
	if err != nil {
		panic("ctec: " + c.Name() + ": " + err.Error())
	}
	if c.A() != 0 && c.A() != -3 {
		panic("ctec: " + c.Name() + ": a is neither 0 nor −3")
	}
	a := &Curve{curve: c, f: f, eq: fp.NewEquation(f, c.A(), c.B()), aZero: c.A() == 0, size: c.ByteLen()}
	a.b = a.eq.B
	f.Add(&a.b3, &a.b, &a.b)
	f.Add(&a.b3, &a.b3, &a.b)
	f.SetBig(&a.gen.X, c.Gx())
	f.SetBig(&a.gen.Y, c.Gy())
	return a
}

// Field returns the curve's base field, for moving coordinates in and
// out of Montgomery form.
func (c *Curve) Field() *fp.Field { return c.f }

// ScalarBytes returns the length of the scalars that ScalarMult and
// ScalarBaseMult take, and of a coordinate: ByteLen.
func (c *Curve) ScalarBytes() int { return c.size }

// Generator returns the curve's generator G.
func (c *Curve) Generator() Affine { return c.gen }

// SetInfinity sets p to the point at infinity.
func (c *Curve) SetInfinity(p *Point) {
	*p = Point{Y: c.f.One()}
}

// FromAffine sets p to a.
func (c *Curve) FromAffine(p *Point, a *Affine) {
	p.X, p.Y, p.Z = a.X, a.Y, c.f.One()
}

// zeroMask returns all ones when the limbs of z are all zero, else zero.
func zeroMask(z *fp.Element) uint64 {
	d := z[0] | z[1] | z[2] | z[3]
	return ((d | -d) >> 63) - 1
}

// equalMask returns all ones when x = y, else zero.
func equalMask(x, y *fp.Element) uint64 {
	d := (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])
	return ((d | -d) >> 63) - 1
}

// byteMask returns all ones when a = b, else zero.
func byteMask(a, b uint64) uint64 {
	d := a ^ b
	return ((d | -d) >> 63) - 1
}

// selectElement sets z to x where mask is all ones and leaves it where
// mask is zero.
func selectElement(z, x *fp.Element, mask uint64) {
	z[0] ^= (z[0] ^ x[0]) & mask
	z[1] ^= (z[1] ^ x[1]) & mask
	z[2] ^= (z[2] ^ x[2]) & mask
	z[3] ^= (z[3] ^ x[3]) & mask
}

// Select sets p to q where mask is all ones and leaves it where mask is
// zero, without a branch.
func Select(p, q *Point, mask uint64) {
	selectElement(&p.X, &q.X, mask)
	selectElement(&p.Y, &q.Y, mask)
	selectElement(&p.Z, &q.Z, mask)
}

// Encode writes the affine coordinates of p, x‖y big-endian, into xy
// (2·ScalarBytes bytes), and returns two masks, all ones or zero:
// infinity, p is the point at infinity (xy is then zero); and onCurve, the
// coordinates satisfy the curve's equation (the check of a result: a
// fault breaks it; the point at infinity fails it). The inversion of Z is
// fp's fixed-step safegcd, and nothing branches on p.
func (c *Curve) Encode(xy []byte, p *Point) (infinity, onCurve uint64) {
	f := c.f
	var zi, x, y, lhs, rhs fp.Element
	f.Inverse(&zi, &p.Z) // 0 for Z = 0
	f.Mul(&x, &p.X, &zi)
	f.Mul(&y, &p.Y, &zi)
	infinity = zeroMask(&p.Z)
	f.Square(&lhs, &y)
	c.eq.RHS(&rhs, &x)
	onCurve = equalMask(&lhs, &rhs) &^ infinity
	f.PutBytes(xy[:c.size], &x)
	f.PutBytes(xy[c.size:2*c.size], &y)
	return infinity, onCurve
}

// OnCurve reports whether a satisfies the curve's equation (a public
// point's check).
func (c *Curve) OnCurve(a *Affine) bool { return c.eq.Holds(&a.X, &a.Y) }

// Equal returns all ones when p and q are the same point (projectively:
// X_p·Z_q = X_q·Z_p and Y_p·Z_q = Y_q·Z_p, both at infinity included),
// else zero.
func (c *Curve) Equal(p, q *Point) uint64 {
	f := c.f
	var a, b, d, e fp.Element
	f.Mul(&a, &p.X, &q.Z)
	f.Mul(&b, &q.X, &p.Z)
	f.Mul(&d, &p.Y, &q.Z)
	f.Mul(&e, &q.Y, &p.Z)
	return equalMask(&a, &b) & equalMask(&d, &e)
}
