package ecmul

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rnsec/ecmul/internal/curves"
)

// Curve is one of the curves an Engine computes on: P224(), P256() or
// Secp256k1(), or one named to ParseCurve. Curves are values and compare
// with ==; the zero Curve is none of them and New refuses it.
type Curve struct{ c *curves.Curve }

// P224 returns NIST P-224 (secp224r1).
func P224() Curve { return Curve{curves.P224()} }

// P256 returns NIST P-256 (secp256r1, prime256v1).
func P256() Curve { return Curve{curves.P256()} }

// Secp256k1 returns the SEC 2 curve secp256k1.
func Secp256k1() Curve { return Curve{curves.Secp256k1()} }

// ParseCurve returns the curve of that name, in any case: P-224, P224,
// secp224r1, P-256, P256, secp256r1, prime256v1 or secp256k1.
func ParseCurve(name string) (Curve, error) {
	c, err := curves.ByName(name)
	if err != nil {
		return Curve{}, fmt.Errorf("ecmul: %w", unprefixed(err, "curves: "))
	}
	return Curve{c}, nil
}

// String returns the curve's canonical name: "P-224", "P-256" or
// "secp256k1" ("" for the zero Curve).
func (c Curve) String() string {
	if c.c == nil {
		return ""
	}
	return c.c.Name()
}

// ByteLen returns the length in bytes of a field element and of a scalar:
// 28 for P-224, 32 for P-256 and secp256k1 (0 for the zero Curve). An
// uncompressed SEC1 point takes 1+2·ByteLen bytes, a compressed one
// 1+ByteLen.
func (c Curve) ByteLen() int {
	if c.c == nil {
		return 0
	}
	return c.c.ByteLen()
}

// Generator returns a fresh copy of the curve's base point G (nil for the
// zero Curve).
func (c Curve) Generator() *Point {
	if c.c == nil {
		return nil
	}
	g := c.c.Generator()
	return &Point{X: g.X, Y: g.Y}
}

// Order returns a fresh copy of n, the order of G; scalars are reduced
// mod n (nil for the zero Curve).
func (c Curve) Order() *big.Int {
	if c.c == nil {
		return nil
	}
	return c.c.N()
}

// unprefixed is err read without its package's prefix, still matching the
// errors err matches.
func unprefixed(err error, prefix string) error {
	return prefixedError{strings.TrimPrefix(err.Error(), prefix), err}
}

type prefixedError struct {
	msg string
	err error
}

func (e prefixedError) Error() string { return e.msg }
func (e prefixedError) Unwrap() error { return e.err }
