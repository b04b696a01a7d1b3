package curves

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/hexcode"
)

// SEC1 prefix bytes (SEC 1 v2, section 2.3.3).
const (
	sec1Infinity     = 0x00
	sec1CompressedY0 = 0x02 // compressed, y even
	sec1CompressedY1 = 0x03 // compressed, y odd
	sec1Uncompressed = 0x04
	sec1HybridY0     = 0x06
	sec1HybridY1     = 0x07
)

// RecoverY returns the y coordinate with the requested parity (odd or even)
// of the point with the given x coordinate. It fails with ErrCoordinateRange
// when x is nil, negative or not below p, and with ErrNotOnCurve when
// x³ + a·x + b has no square root mod p (no point has this x) or when the
// only root is 0 and odd parity was requested.
func (c *Curve) RecoverY(x *big.Int, odd bool) (*big.Int, error) {
	if x == nil {
		return nil, c.errorf(ErrCoordinateRange, "x coordinate is nil")
	}
	if err := c.checkCoordinate("x", x); err != nil {
		return nil, err
	}
	y := c.sqrtRHS(x)
	if y == nil {
		return nil, c.errorf(ErrNotOnCurve, "point is not on the curve: x³ + a·x + b is not a square mod p for this x coordinate")
	}
	if (y.Bit(0) == 1) != odd {
		if y.Sign() == 0 {
			return nil, c.errorf(ErrNotOnCurve, "point is not on the curve: the only y for this x is 0, which is not odd")
		}
		y.Sub(c.p, y)
	}
	return y, nil
}

// sqrtRHS returns a square root of x³ + a·x + b mod p, or nil when there is
// none: in four-limb field arithmetic (internal/fp: one exponentiation for
// p ≡ 3 mod 4, Tonelli–Shanks for P-224), or math/big's ModSqrt when the
// field has no fast form.
func (c *Curve) sqrtRHS(x *big.Int) *big.Int {
	if c.eq == nil {
		return new(big.Int).ModSqrt(c.rhs(x), c.p)
	}
	f := c.eq.F
	var xm, v fp.Element
	f.SetBig(&xm, x)
	c.eq.RHS(&v, &xm)
	if !f.Sqrt(&v, &v) {
		return nil
	}
	return f.Big(&v)
}

// DecodeSEC1 decodes and validates a SEC1 point encoding: 0x04‖x‖y
// (uncompressed) or 0x02/0x03‖x (compressed, the prefix giving the parity of
// y). Coordinates are big-endian, exactly ByteLen bytes each.
//
// Errors are *PointError values wrapping ErrEncoding (empty input, wrong
// length, unknown or hybrid prefix), ErrInfinity (the one-byte encoding 0x00
// of the point at infinity, or (0, 0)), ErrCoordinateRange (a coordinate not
// below p) or ErrNotOnCurve. DecodeSEC1 does not panic on any input.
func (c *Curve) DecodeSEC1(b []byte) (*Point, error) {
	if len(b) == 0 {
		return nil, c.errorf(ErrEncoding, "empty SEC1 encoding")
	}
	n := c.byteLen
	switch prefix := b[0]; prefix {
	case sec1Infinity:
		if len(b) == 1 {
			return nil, c.errorf(ErrInfinity, "SEC1 encoding 0x00 is the point at infinity, which is not an affine point")
		}
		return nil, c.errorf(ErrEncoding, "SEC1 prefix 0x00 (point at infinity) followed by %d more bytes", len(b)-1)
	case sec1Uncompressed:
		if len(b) != 1+2*n {
			return nil, c.errorf(ErrEncoding, "uncompressed SEC1 encoding is %d bytes, want %d", len(b), 1+2*n)
		}
		x := new(big.Int).SetBytes(b[1 : 1+n])
		y := new(big.Int).SetBytes(b[1+n:])
		if err := c.Validate(x, y); err != nil {
			return nil, err
		}
		return &Point{X: x, Y: y}, nil
	case sec1CompressedY0, sec1CompressedY1:
		if len(b) != 1+n {
			return nil, c.errorf(ErrEncoding, "compressed SEC1 encoding is %d bytes, want %d", len(b), 1+n)
		}
		x := new(big.Int).SetBytes(b[1:])
		y, err := c.RecoverY(x, prefix == sec1CompressedY1)
		if err != nil {
			return nil, err
		}
		if err := c.Validate(x, y); err != nil {
			return nil, err
		}
		return &Point{X: x, Y: y}, nil
	case sec1HybridY0, sec1HybridY1:
		return nil, c.errorf(ErrEncoding, "hybrid SEC1 encoding (prefix 0x%02x) is not supported", prefix)
	default:
		return nil, c.errorf(ErrEncoding, "unknown SEC1 prefix 0x%02x (want 0x02, 0x03 or 0x04)", prefix)
	}
}

// EncodeSEC1 returns the SEC1 encoding of p: 0x04‖x‖y, or 0x02/0x03‖x when
// compressed is true. A nil p (the point at infinity) encodes as the single
// byte 0x00, which DecodeSEC1 rejects. EncodeSEC1 does not check that p is on
// the curve, but it panics if a coordinate is nil, negative or not below p,
// since such a value has no ByteLen-byte encoding.
func (c *Curve) EncodeSEC1(p *Point, compressed bool) []byte {
	if p == nil {
		return []byte{sec1Infinity}
	}
	if err := c.checkCoordinate("x", p.X); err != nil {
		panic(err.Error())
	}
	if err := c.checkCoordinate("y", p.Y); err != nil {
		panic(err.Error())
	}
	n := c.byteLen
	if compressed {
		out := make([]byte, 1+n)
		out[0] = sec1CompressedY0 | byte(p.Y.Bit(0))
		p.X.FillBytes(out[1:])
		return out
	}
	out := make([]byte, 1+2*n)
	out[0] = sec1Uncompressed
	p.X.FillBytes(out[1 : 1+n])
	p.Y.FillBytes(out[1+n:])
	return out
}

// ParseHexCoordinate parses a field element written in hexadecimal: digits
// in either case, an optional 0x or 0X prefix, leading zeros allowed, and
// nothing else (no sign, no blanks). The value must be below p. Inputs
// longer than 4·ByteLen characters are rejected before any conversion, so a
// huge input is never processed in full. The digits are decoded by package
// hexcode, as every hex field of the command's input is. Errors wrap
// ErrEncoding (empty, too long or non-hex input) or ErrCoordinateRange
// (value not below p).
func (c *Curve) ParseHexCoordinate(s string) (*big.Int, error) {
	if limit := 4 * c.byteLen; len(s) > limit {
		return nil, c.errorf(ErrEncoding, "hex coordinate is %d characters long, more than the limit of %d", len(s), limit)
	}
	digits := hexcode.TrimPrefix([]byte(s))
	if len(digits) == 0 {
		return nil, c.errorf(ErrEncoding, "hex coordinate %q has no digits", s)
	}
	var buf [MaxScalarBytes]byte
	b := buf[:c.byteLen]
	if !hexcode.DecodePadded(b, digits, len(digits)) {
		if i := hexcode.IndexNonHex(digits); i >= 0 {
			return nil, c.errorf(ErrEncoding, "hex coordinate %q has invalid character %s at offset %d", s, hexcode.QuoteByte(digits[i]), len(s)-len(digits)+i)
		}
		return nil, c.errorf(ErrCoordinateRange, "hex coordinate %s is not below p", s) // 2^(8·ByteLen) or more
	}
	v := new(big.Int).SetBytes(b)
	if v.Cmp(c.p) >= 0 {
		return nil, c.errorf(ErrCoordinateRange, "hex coordinate %s is not below p", s)
	}
	return v, nil
}
