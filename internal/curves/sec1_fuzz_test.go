package curves_test

import (
	"bytes"
	"crypto/elliptic"
	"errors"
	"math/big"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
)

// onCurve is the curve equation y² = x³ + a·x + b checked from the
// definition, independently of the package.
func onCurve(c *curves.Curve, x, y *big.Int) bool {
	if x.Sign() < 0 || y.Sign() < 0 || x.Cmp(c.P()) >= 0 || y.Cmp(c.P()) >= 0 {
		return false
	}
	l := new(big.Int).Exp(y, big.NewInt(2), c.P())
	r := new(big.Int).Exp(x, big.NewInt(3), nil)
	r.Add(r, new(big.Int).Mul(big.NewInt(c.A()), x)).Add(r, c.B()).Mod(r, c.P())
	return l.Cmp(r) == 0
}

// stdCurve is crypto/elliptic's implementation of c, or nil.
func stdCurve(c *curves.Curve) elliptic.Curve {
	switch c {
	case curves.P224():
		return elliptic.P224()
	case curves.P256():
		return elliptic.P256()
	}
	return nil
}

var sentinels = []error{curves.ErrEncoding, curves.ErrInfinity, curves.ErrCoordinateRange, curves.ErrNotOnCurve}

// FuzzSEC1 decodes arbitrary bytes on every curve. Whatever DecodeSEC1
// accepts is a point of the curve (checked from the equation), not (0, 0),
// with the parity its prefix names, and re-encodes to the same bytes; for
// P-224 and P-256 it accepts exactly what crypto/elliptic's Unmarshal or
// UnmarshalCompressed accepts, with the same coordinates. Whatever it rejects
// gets a nil point and a *PointError wrapping exactly one sentinel, and
// ErrEncoding whenever the prefix or the length is wrong.
func FuzzSEC1(f *testing.F) {
	for _, c := range curves.All() {
		f.Add(c.EncodeSEC1(c.Generator(), false))
		f.Add(c.EncodeSEC1(c.Generator(), true))
	}
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range curves.All() {
			p, err := c.DecodeSEC1(b)
			n := c.ByteLen()
			wellFormed := len(b) > 0 && (b[0] == 4 && len(b) == 1+2*n || (b[0] == 2 || b[0] == 3) && len(b) == 1+n)
			if err != nil {
				if p != nil {
					t.Fatalf("%s: %x: error %v with a non-nil point", c.Name(), b, err)
				}
				var pe *curves.PointError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %x: error %T %v is not a *PointError", c.Name(), b, err, err)
				}
				matched := 0
				for _, s := range sentinels {
					if errors.Is(err, s) {
						matched++
					}
				}
				if matched != 1 {
					t.Fatalf("%s: %x: error %v matches %d sentinels", c.Name(), b, err, matched)
				}
				if !wellFormed && !errors.Is(err, curves.ErrEncoding) && !(len(b) == 1 && b[0] == 0 && errors.Is(err, curves.ErrInfinity)) {
					t.Fatalf("%s: %x: malformed encoding rejected with %v, want ErrEncoding", c.Name(), b, err)
				}
			} else {
				if !wellFormed {
					t.Fatalf("%s: accepted malformed encoding %x", c.Name(), b)
				}
				if !onCurve(c, p.X, p.Y) {
					t.Fatalf("%s: %x decodes to %v, not on the curve", c.Name(), b, p)
				}
				if p.X.Sign() == 0 && p.Y.Sign() == 0 {
					t.Fatalf("%s: %x decodes to (0, 0)", c.Name(), b)
				}
				if b[0] != 4 && p.Y.Bit(0) != uint(b[0]&1) {
					t.Fatalf("%s: %x decodes to y = %x of the wrong parity", c.Name(), b, p.Y)
				}
				if !bytes.Equal(b, c.EncodeSEC1(p, b[0] != 4)) {
					t.Fatalf("%s: %x does not re-encode to itself", c.Name(), b)
				}
			}
			std := stdCurve(c)
			if std == nil || len(b) == 0 {
				continue
			}
			var sx, sy *big.Int
			switch b[0] {
			case 4:
				//lint:ignore SA1019 crypto/elliptic is the independent oracle here.
				sx, sy = elliptic.Unmarshal(std, b)
			case 2, 3:
				sx, sy = elliptic.UnmarshalCompressed(std, b)
			}
			if (sx != nil) != (err == nil) {
				t.Fatalf("%s: %x: DecodeSEC1 error %v, crypto/elliptic accepts: %v", c.Name(), b, err, sx != nil)
			}
			if sx != nil && (sx.Cmp(p.X) != 0 || sy.Cmp(p.Y) != 0) {
				t.Fatalf("%s: %x: DecodeSEC1 gives %v, crypto/elliptic (%x, %x)", c.Name(), b, p, sx, sy)
			}
		}
	})
}
