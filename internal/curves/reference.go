package curves

import (
	"crypto/elliptic"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/secp256k1"
	k1fp "github.com/consensys/gnark-crypto/ecc/secp256k1/fp"
	"github.com/consensys/gnark-crypto/ecc/secp256r1"
	r1fp "github.com/consensys/gnark-crypto/ecc/secp256r1/fp"
)

// prepareScalarMult validates the inputs shared by the reference scalar
// multiplications and returns k mod N.
func (c *Curve) prepareScalarMult(x, y, k *big.Int) (*big.Int, error) {
	if err := c.Validate(x, y); err != nil {
		return nil, err
	}
	if k == nil {
		return nil, c.errorf(ErrScalar, "scalar is nil")
	}
	if k.Sign() < 0 {
		return nil, c.errorf(ErrScalar, "scalar is negative")
	}
	return new(big.Int).Mod(k, c.n), nil
}

// ReferenceScalarMult returns k·(x, y), computed by an implementation
// independent of this module: Go's crypto/elliptic (nistec) for P-224 and
// P-256, gnark-crypto for secp256k1. k may be any non-negative integer; it
// is reduced mod N first. ok is false when the result is the point at
// infinity (k ≡ 0 mod N). The point is validated first, and an invalid point
// or a nil or negative k gives an error instead of a panic.
func (c *Curve) ReferenceScalarMult(x, y, k *big.Int) (rx, ry *big.Int, ok bool, err error) {
	if c.canonical() == nil {
		return nil, nil, false, c.errorf(ErrUnsupported, "no reference scalar multiplication for this curve")
	}
	km, err := c.prepareScalarMult(x, y, k)
	if err != nil {
		return nil, nil, false, err
	}
	return c.referenceScalarMult(x, y, km)
}

// ReferenceScalarMultValid is ReferenceScalarMult for a point its caller
// has validated already (Validate, or DecodeSEC1) and a non-negative k: it
// does not check the point again. A nil or negative k gives an error; an
// invalid point gives an error or a wrong result, never a panic.
func (c *Curve) ReferenceScalarMultValid(x, y, k *big.Int) (rx, ry *big.Int, ok bool, err error) {
	switch {
	case c.canonical() == nil:
		return nil, nil, false, c.errorf(ErrUnsupported, "no reference scalar multiplication for this curve")
	case x == nil || y == nil || x.Sign() < 0 || y.Sign() < 0 || x.Cmp(c.p) >= 0 || y.Cmp(c.p) >= 0:
		return c.ReferenceScalarMult(x, y, k) // the checks' own errors
	case k == nil:
		return nil, nil, false, c.errorf(ErrScalar, "scalar is nil")
	case k.Sign() < 0:
		return nil, nil, false, c.errorf(ErrScalar, "scalar is negative")
	}
	return c.referenceScalarMult(x, y, new(big.Int).Mod(k, c.n))
}

// referenceScalarMult is ReferenceScalarMult for a valid point and 0 <= k < N.
func (c *Curve) referenceScalarMult(x, y, km *big.Int) (rx, ry *big.Int, ok bool, err error) {
	if km.Sign() == 0 {
		return nil, nil, false, nil
	}
	var std elliptic.Curve
	switch c.canonical() {
	case curveP224:
		std = elliptic.P224()
	case curveP256:
		std = elliptic.P256()
	default:
		return gnarkK1ScalarMult(x, y, km)
	}
	defer func() {
		// crypto/elliptic panics on a point off the curve, which only
		// ReferenceScalarMultValid's caller can give it
		if recover() != nil {
			rx, ry, ok, err = nil, nil, false, c.errorf(ErrNotOnCurve, "point is not on the curve")
		}
	}()
	scalar := km.FillBytes(make([]byte, (c.n.BitLen()+7)/8))
	//lint:ignore SA1019 crypto/elliptic is used on purpose as an independent oracle.
	rx, ry = std.ScalarMult(x, y, scalar)
	// crypto/elliptic returns (0, 0) for the point at infinity.
	if rx.Sign() == 0 && ry.Sign() == 0 {
		return nil, nil, false, nil
	}
	return rx, ry, true, nil
}

// GnarkScalarMult returns k·(x, y) computed by gnark-crypto (ecc/secp256r1
// for P-256, ecc/secp256k1 for secp256k1), with the same conventions as
// ReferenceScalarMult. gnark-crypto has no P-224, for which it returns an
// error wrapping ErrUnsupported.
func (c *Curve) GnarkScalarMult(x, y, k *big.Int) (rx, ry *big.Int, ok bool, err error) {
	cc := c.canonical()
	if cc != curveP256 && cc != curveK256 {
		return nil, nil, false, c.errorf(ErrUnsupported, "gnark-crypto does not implement this curve")
	}
	km, err := c.prepareScalarMult(x, y, k)
	if err != nil {
		return nil, nil, false, err
	}
	if km.Sign() == 0 {
		return nil, nil, false, nil
	}
	if cc == curveP256 {
		return gnarkR1ScalarMult(x, y, km)
	}
	return gnarkK1ScalarMult(x, y, km)
}

// The gnark helpers take a validated point (so never (0, 0), which gnark
// reads as infinity, and coordinates already below p) and 0 < k < N.

func gnarkR1ScalarMult(x, y, k *big.Int) (*big.Int, *big.Int, bool, error) {
	var buf [r1fp.Bytes]byte
	var a secp256r1.G1Affine
	if err := a.X.SetBytesCanonical(x.FillBytes(buf[:])); err != nil {
		return nil, nil, false, curveP256.errorf(ErrCoordinateRange, "gnark-crypto rejected x: %v", err)
	}
	if err := a.Y.SetBytesCanonical(y.FillBytes(buf[:])); err != nil {
		return nil, nil, false, curveP256.errorf(ErrCoordinateRange, "gnark-crypto rejected y: %v", err)
	}
	var j secp256r1.G1Jac
	j.FromAffine(&a)
	j.ScalarMultiplication(&j, k)
	var r secp256r1.G1Affine
	r.FromJacobian(&j)
	if r.IsInfinity() {
		return nil, nil, false, nil
	}
	return r.X.BigInt(new(big.Int)), r.Y.BigInt(new(big.Int)), true, nil
}

func gnarkK1ScalarMult(x, y, k *big.Int) (*big.Int, *big.Int, bool, error) {
	var buf [k1fp.Bytes]byte
	var a secp256k1.G1Affine
	if err := a.X.SetBytesCanonical(x.FillBytes(buf[:])); err != nil {
		return nil, nil, false, curveK256.errorf(ErrCoordinateRange, "gnark-crypto rejected x: %v", err)
	}
	if err := a.Y.SetBytesCanonical(y.FillBytes(buf[:])); err != nil {
		return nil, nil, false, curveK256.errorf(ErrCoordinateRange, "gnark-crypto rejected y: %v", err)
	}
	var j secp256k1.G1Jac
	j.FromAffine(&a)
	j.ScalarMultiplication(&j, k)
	var r secp256k1.G1Affine
	r.FromJacobian(&j)
	if r.IsInfinity() {
		return nil, nil, false, nil
	}
	return r.X.BigInt(new(big.Int)), r.Y.BigInt(new(big.Int)), true, nil
}
