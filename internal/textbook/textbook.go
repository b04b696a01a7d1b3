// Package textbook multiplies points in the plainest way: affine
// chord-and-tangent additions and double-and-add over math/big. It shares
// no code with the project's ladders, with the cpu backend's arithmetic
// (internal/ctec) or with the libraries they are checked against, so that
// every backend is compared with something other than itself. It is
// slow (about a millisecond per scalar multiplication) and not constant
// time: a test-grade oracle.
package textbook

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/curves"
)

// Add returns p + q on c; nil stands for the point at infinity.
func Add(c *curves.Curve, p, q *curves.Point) *curves.Point {
	if p == nil {
		return q
	}
	if q == nil {
		return p
	}
	var num, den big.Int
	prime := c.P()
	if p.X.Cmp(q.X) == 0 {
		if new(big.Int).Add(p.Y, q.Y).Cmp(prime) == 0 || p.Y.Sign() == 0 && q.Y.Sign() == 0 {
			return nil // q = −p
		}
		num.Mul(p.X, p.X) // tangent: (3x² + a) / 2y
		num.Mul(&num, big.NewInt(3))
		num.Add(&num, big.NewInt(c.A()))
		den.Lsh(p.Y, 1)
	} else {
		num.Sub(q.Y, p.Y) // chord: (y_q − y_p) / (x_q − x_p)
		den.Sub(q.X, p.X)
	}
	den.Mod(&den, prime)
	lambda := new(big.Int).Mul(&num, den.ModInverse(&den, prime))
	lambda.Mod(lambda, prime)
	x := new(big.Int).Mul(lambda, lambda)
	x.Sub(x, p.X).Sub(x, q.X).Mod(x, prime)
	y := new(big.Int).Sub(p.X, x)
	y.Mul(y, lambda).Sub(y, p.Y).Mod(y, prime)
	return &curves.Point{X: x, Y: y}
}

// Mul returns k·p on c by double-and-add over the bits of k mod n (nil:
// the point at infinity); p must be on the curve, k non-negative.
func Mul(c *curves.Curve, p *curves.Point, k *big.Int) *curves.Point {
	k = new(big.Int).Mod(k, c.N())
	var r *curves.Point
	for i := k.BitLen() - 1; i >= 0; i-- {
		r = Add(c, r, r)
		if k.Bit(i) == 1 {
			r = Add(c, r, p)
		}
	}
	return r
}

// NoPointX returns the least x > 0 that is the abscissa of no point of c:
// x³ + a·x + b is not a square mod p. Tests use it for compressed
// encodings that must be refused.
func NoPointX(c *curves.Curve) *big.Int {
	prime, b := c.P(), c.B()
	for x := big.NewInt(1); ; x.Add(x, big.NewInt(1)) {
		rhs := new(big.Int).Exp(x, big.NewInt(3), prime)
		rhs.Add(rhs, new(big.Int).Mul(big.NewInt(c.A()), x)).Add(rhs, b).Mod(rhs, prime)
		if new(big.Int).ModSqrt(rhs, prime) == nil {
			return x
		}
	}
}
