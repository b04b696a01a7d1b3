// Package curves defines the short Weierstrass curves used by this module
// (P-224, P-256 and secp256k1), SEC1 point encoding and decoding, point
// validation, and reference scalar multiplications that serve as the truth
// when testing the module's own implementations.
//
// All three curves have the form y² = x³ + a·x + b over a prime field and
// cofactor 1, so every affine point that satisfies the curve equation is in
// the prime-order group.
package curves

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/hexcode"
)

// Curve holds the domain parameters of a short Weierstrass curve
// y² = x³ + A·x + B over GF(P) with a generator (Gx, Gy) of prime order N and
// cofactor 1. It is read-only: the curves of P224, P256, Secp256k1, ByName
// and All are shared by every caller, so their parameters are read through
// methods that return copies. The zero Curve is no curve: the constructors
// above are the only source of usable ones.
type Curve struct {
	name    string   // "P-224", "P-256" or "secp256k1"
	p, n    *big.Int // field prime and group order
	a       int64    // curve coefficient a: -3 for the NIST curves, 0 for secp256k1
	b       *big.Int // curve coefficient b
	gx, gy  *big.Int // generator
	byteLen int      // length of a field element in bytes (28 or 32)

	eq    *fp.Equation // the curve equation in fast field arithmetic; nil: use math/big
	order *fp.Field    // arithmetic mod n: ReduceScalar
}

// Name returns the curve's name: "P-224", "P-256" or "secp256k1".
func (c *Curve) Name() string { return c.name }

// P returns a copy of the field prime p.
func (c *Curve) P() *big.Int { return clone(c.p) }

// N returns a copy of the group order n.
func (c *Curve) N() *big.Int { return clone(c.n) }

// A returns the coefficient a: −3 for the NIST curves, 0 for secp256k1.
func (c *Curve) A() int64 { return c.a }

// B returns a copy of the coefficient b.
func (c *Curve) B() *big.Int { return clone(c.b) }

// Gx returns a copy of the generator's x coordinate.
func (c *Curve) Gx() *big.Int { return clone(c.gx) }

// Gy returns a copy of the generator's y coordinate.
func (c *Curve) Gy() *big.Int { return clone(c.gy) }

// clone returns a copy of x, or nil for nil (the zero Curve's parameters).
func clone(x *big.Int) *big.Int {
	if x == nil {
		return nil
	}
	return new(big.Int).Set(x)
}

// ByteLen returns the length of a field element, and of a scalar, in bytes:
// 28 for P-224, 32 for the 256-bit curves.
func (c *Curve) ByteLen() int { return c.byteLen }

// MaxByteLen is the longest ByteLen of the supported curves (All).
const MaxByteLen = 32

// The curve equation in fast field arithmetic: Validate runs on every item
// of every batch, and this way costs a few hundred nanoseconds and no
// allocation.
func init() {
	for _, c := range []*Curve{curveP224, curveP256, curveK256} {
		f, err := fp.New(c.p)
		if err != nil {
			panic("curves: " + c.name + ": " + err.Error())
		}
		c.eq = fp.NewEquation(f, c.a, c.b)
		if c.order, err = fp.New(c.n); err != nil {
			panic("curves: " + c.name + ": " + err.Error())
		}
	}
}

// MaxScalarBytes is the longest scalar ReduceScalar takes: 512 bits.
const MaxScalarBytes = fp.MaxWideBytes

// ReduceScalar writes k mod n into dst, big-endian, ByteLen bytes, for a
// big-endian k of at most MaxScalarBytes bytes, in time that depends on
// len(k) only: no branch on k's value and no address that depends on it.
// It returns an error, and writes nothing, for other lengths.
func (c *Curve) ReduceScalar(dst, k []byte) error {
	switch {
	case c.order == nil:
		return c.errorf(ErrUnsupported, "no scalar arithmetic for this curve")
	case len(dst) != c.byteLen:
		return c.errorf(ErrScalar, "the reduced scalar takes %d bytes, not %d", c.byteLen, len(dst))
	case len(k) > MaxScalarBytes:
		return c.errorf(ErrScalar, "scalar of %d bytes, more than %d", len(k), MaxScalarBytes)
	}
	var z fp.Element
	c.order.SetWideBytes(&z, k)
	c.order.PutBytes(dst, &z)
	return nil
}

// Point is an affine point. The point at infinity has no affine coordinates
// and is not a Point; APIs represent it by a nil *Point or by an explicit
// flag.
type Point struct {
	X, Y *big.Int
}

// Equal reports whether p and q are the same point; nil stands for the point
// at infinity.
func (p *Point) Equal(q *Point) bool {
	if p == nil || q == nil {
		return p == nil && q == nil
	}
	return p.X.Cmp(q.X) == 0 && p.Y.Cmp(q.Y) == 0
}

// String formats the point as (x, y) in hexadecimal, or "infinity" for nil.
func (p *Point) String() string {
	if p == nil {
		return "infinity"
	}
	return fmt.Sprintf("(%#x, %#x)", p.X, p.Y)
}

// mustHex reads a constant of the curves, by package hexcode as every hex
// field is read.
func mustHex(s string) *big.Int {
	b := make([]byte, (len(s)+1)/2)
	if !hexcode.DecodeInto(b, []byte(s)) {
		panic("curves: bad constant " + s)
	}
	return new(big.Int).SetBytes(b)
}

var (
	curveP224 = &Curve{
		name:    "P-224",
		p:       mustHex("ffffffffffffffffffffffffffffffff000000000000000000000001"),
		n:       mustHex("ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d"),
		a:       -3,
		b:       mustHex("b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4"),
		gx:      mustHex("b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21"),
		gy:      mustHex("bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34"),
		byteLen: 28,
	}
	curveP256 = &Curve{
		name:    "P-256",
		p:       mustHex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
		n:       mustHex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
		a:       -3,
		b:       mustHex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
		gx:      mustHex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
		gy:      mustHex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
		byteLen: 32,
	}
	curveK256 = &Curve{
		name:    "secp256k1",
		p:       mustHex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"),
		n:       mustHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"),
		a:       0,
		b:       big.NewInt(7),
		gx:      mustHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
		gy:      mustHex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
		byteLen: 32,
	}
)

// P224 returns NIST P-224 (secp224r1).
func P224() *Curve { return curveP224 }

// P256 returns NIST P-256 (secp256r1, prime256v1).
func P256() *Curve { return curveP256 }

// Secp256k1 returns the SEC 2 curve secp256k1.
func Secp256k1() *Curve { return curveK256 }

// All returns every supported curve, in the order P-224, P-256, secp256k1.
// The slice is new on each call; the curves are shared.
func All() []*Curve { return []*Curve{curveP224, curveP256, curveK256} }

// curveNames maps lower-case accepted names to curves, in the order they are
// listed in error messages.
var curveNames = []struct {
	name  string
	curve *Curve
}{
	{"p-224", curveP224}, {"p224", curveP224}, {"secp224r1", curveP224},
	{"p-256", curveP256}, {"p256", curveP256}, {"secp256r1", curveP256}, {"prime256v1", curveP256},
	{"secp256k1", curveK256},
}

// ErrUnknownCurve is returned (wrapped) by ByName for a name it does not know.
var ErrUnknownCurve = errors.New("unknown curve")

// ByName returns the curve with the given name, compared case-insensitively.
// Accepted names are P-224, P224, secp224r1, P-256, P256, secp256r1,
// prime256v1 and secp256k1.
func ByName(name string) (*Curve, error) {
	lower := strings.ToLower(name)
	names := make([]string, 0, len(curveNames))
	for _, e := range curveNames {
		if e.name == lower {
			return e.curve, nil
		}
		names = append(names, e.name)
	}
	return nil, fmt.Errorf("curves: %w %q (valid names, case-insensitive: %s)",
		ErrUnknownCurve, name, strings.Join(names, ", "))
}

// canonical returns the shared curve whose parameters c has, or nil if c
// matches none of them.
func (c *Curve) canonical() *Curve {
	for _, s := range All() {
		if c == s {
			return s
		}
	}
	for _, s := range All() {
		if c.name == s.name && c.a == s.a && c.byteLen == s.byteLen &&
			eq(c.p, s.p) && eq(c.n, s.n) && eq(c.b, s.b) && eq(c.gx, s.gx) && eq(c.gy, s.gy) {
			return s
		}
	}
	return nil
}

func eq(a, b *big.Int) bool { return a != nil && b != nil && a.Cmp(b) == 0 }

// String returns the curve's name.
func (c *Curve) String() string { return c.name }

// Generator returns a fresh copy of the curve's generator.
func (c *Curve) Generator() *Point {
	return &Point{X: new(big.Int).Set(c.gx), Y: new(big.Int).Set(c.gy)}
}

// Sentinel errors wrapped by the validation and decoding functions; test for
// them with errors.Is.
var (
	// ErrCoordinateRange: a coordinate is negative or not below p.
	ErrCoordinateRange = errors.New("coordinate out of range")
	// ErrNotOnCurve: the coordinates do not satisfy the curve equation, or a
	// compressed x coordinate has no matching y.
	ErrNotOnCurve = errors.New("point is not on the curve")
	// ErrInfinity: the input is, or encodes, the point at infinity, which
	// has no affine form: (0, 0), nil coordinates, or the SEC1 byte 0x00.
	ErrInfinity = errors.New("point at infinity")
	// ErrEncoding: malformed SEC1 or hexadecimal input.
	ErrEncoding = errors.New("invalid encoding")
	// ErrScalar: a scalar that the operation does not accept (nil or
	// negative).
	ErrScalar = errors.New("invalid scalar")
	// ErrUnsupported: the operation is not available for this curve.
	ErrUnsupported = errors.New("unsupported curve")
)

// PointError describes why a point, an encoding or a scalar was rejected.
// Err is one of the sentinel errors above; Msg says precisely what is wrong.
type PointError struct {
	Curve string // curve name
	Msg   string // what is wrong, e.g. "x coordinate is not below p"
	Err   error  // sentinel: ErrCoordinateRange, ErrNotOnCurve, ...
}

// Error names the curve and says what is wrong, with no package prefix:
// it is read inside the messages of the packages above (an item's error,
// a line's).
func (e *PointError) Error() string {
	return e.Curve + ": " + e.Msg
}

// Unwrap returns the sentinel error, so errors.Is works.
func (e *PointError) Unwrap() error { return e.Err }

func (c *Curve) errorf(sentinel error, format string, args ...any) error {
	return &PointError{Curve: c.name, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// rhs returns x³ + a·x + b mod p for 0 <= x < p.
func (c *Curve) rhs(x *big.Int) *big.Int {
	r := new(big.Int).Mul(x, x)
	r.Mul(r, x)
	if c.a != 0 {
		ax := new(big.Int).Mul(big.NewInt(c.a), x)
		r.Add(r, ax)
	}
	r.Add(r, c.b)
	return r.Mod(r, c.p)
}

// checkCoordinate reports a nil, negative or too large coordinate.
func (c *Curve) checkCoordinate(name string, v *big.Int) error {
	switch {
	case v == nil:
		return c.errorf(ErrInfinity, "%s coordinate is nil (the point at infinity has no affine coordinates)", name)
	case v.Sign() < 0:
		return c.errorf(ErrCoordinateRange, "%s coordinate is negative", name)
	case v.Cmp(c.p) >= 0:
		return c.errorf(ErrCoordinateRange, "%s coordinate is not below p", name)
	}
	return nil
}

// Validate checks that (x, y) is an affine point of the curve: both
// coordinates non-nil and in [0, p), not (0, 0), and satisfying the curve
// equation. Since the cofactor is 1, such a point is in the prime-order
// group. The error is a *PointError wrapping ErrInfinity,
// ErrCoordinateRange or ErrNotOnCurve.
func (c *Curve) Validate(x, y *big.Int) error {
	if err := c.ValidateCoordinates(x, y); err != nil {
		return err
	}
	if !c.satisfiesEquation(x, y) {
		return c.errorf(ErrNotOnCurve, "point is not on the curve")
	}
	return nil
}

// ValidateCoordinates is Validate without the curve's equation: the
// coordinates present and in [0, p), and not (0, 0).
func (c *Curve) ValidateCoordinates(x, y *big.Int) error {
	if err := c.checkCoordinate("x", x); err != nil {
		return err
	}
	if err := c.checkCoordinate("y", y); err != nil {
		return err
	}
	if x.Sign() == 0 && y.Sign() == 0 {
		return c.errorf(ErrInfinity, "(0, 0) is not an affine point (it is a common encoding of the point at infinity)")
	}
	return nil
}

// satisfiesEquation reports whether y² = x³ + a·x + b mod p, for
// coordinates already checked to be in [0, p).
func (c *Curve) satisfiesEquation(x, y *big.Int) bool {
	if c.eq != nil {
		var xm, ym fp.Element
		c.eq.F.SetBig(&xm, x)
		c.eq.F.SetBig(&ym, y)
		return c.eq.Holds(&xm, &ym)
	}
	lhs := new(big.Int).Mul(y, y)
	lhs.Mod(lhs, c.p)
	return lhs.Cmp(c.rhs(x)) == 0
}

// IsOnCurve reports whether Validate accepts (x, y).
func (c *Curve) IsOnCurve(x, y *big.Int) bool {
	return c.Validate(x, y) == nil
}
