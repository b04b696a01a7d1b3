package curves_test

import (
	"crypto/elliptic"
	"errors"
	"math/big"
	"strings"
	"testing"

	k1 "github.com/consensys/gnark-crypto/ecc/secp256k1"
	k1fp "github.com/consensys/gnark-crypto/ecc/secp256k1/fp"
	k1fr "github.com/consensys/gnark-crypto/ecc/secp256k1/fr"
	r1 "github.com/consensys/gnark-crypto/ecc/secp256r1"
	r1fp "github.com/consensys/gnark-crypto/ecc/secp256r1/fp"
	r1fr "github.com/consensys/gnark-crypto/ecc/secp256r1/fr"
	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/textbook"
)

// TestReadOnly: what a caller does with the parameters it reads cannot
// change a shared curve.
func TestReadOnly(t *testing.T) {
	for _, c := range curves.All() {
		want := []*big.Int{c.P(), c.N(), c.B(), c.Gx(), c.Gy()}
		for _, v := range []*big.Int{c.P(), c.N(), c.B(), c.Gx(), c.Gy()} {
			v.SetInt64(5)
		}
		g := c.Generator()
		g.X.SetInt64(5)
		got := []*big.Int{c.P(), c.N(), c.B(), c.Gx(), c.Gy()}
		for i := range want {
			require.Equal(t, 0, want[i].Cmp(got[i]), "%s: parameter %d changed", c.Name(), i)
		}
		require.NoError(t, c.Validate(c.Gx(), c.Gy()))
	}
	var zero curves.Curve
	require.Nil(t, zero.P())
	require.Empty(t, zero.Name())
}

func TestConstants(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			require.True(t, c.P().ProbablyPrime(32), "p is not prime")
			require.True(t, c.N().ProbablyPrime(32), "n is not prime")
			require.Equal(t, (c.P().BitLen()+7)/8, c.ByteLen())
			require.NoError(t, c.Validate(c.Gx(), c.Gy()), "G is not on the curve")
			require.True(t, c.IsOnCurve(c.Gx(), c.Gy()))

			// Cofactor 1: by Hasse, #E = n must lie within p+1 ± 2√p.
			tr := new(big.Int).Add(c.P(), big.NewInt(1))
			tr.Sub(tr, c.N()).Abs(tr)
			tr.Mul(tr, tr)
			require.LessOrEqual(t, tr.Cmp(new(big.Int).Lsh(c.P(), 2)), 0, "n outside the Hasse interval")

			// N·G = infinity, (N-1)·G = -G.
			x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), c.N())
			require.Nil(t, result(t, x, y, ok, err))
			x, y, ok, err = c.ReferenceScalarMult(c.Gx(), c.Gy(), new(big.Int).Sub(c.N(), big.NewInt(1)))
			require.True(t, result(t, x, y, ok, err).Equal(&curves.Point{X: c.Gx(), Y: new(big.Int).Sub(c.P(), c.Gy())}))
			require.Nil(t, textbook.Mul(c, c.Generator(), c.N()))

			// Generator returns a copy.
			g := c.Generator()
			g.X.SetInt64(1)
			require.NotEqual(t, 0, c.Gx().Cmp(big.NewInt(1)))
		})
	}

	nist := map[string]elliptic.Curve{"P-224": elliptic.P224(), "P-256": elliptic.P256()}
	for _, c := range []*curves.Curve{curves.P224(), curves.P256()} {
		t.Run(c.Name()+"/crypto-elliptic", func(t *testing.T) {
			p := nist[c.Name()].Params()
			require.Equal(t, p.Name, c.Name())
			require.Equal(t, 0, p.P.Cmp(c.P()))
			require.Equal(t, 0, p.N.Cmp(c.N()))
			require.Equal(t, 0, p.B.Cmp(c.B()))
			require.Equal(t, 0, p.Gx.Cmp(c.Gx()))
			require.Equal(t, 0, p.Gy.Cmp(c.Gy()))
			require.Equal(t, p.BitSize, 8*c.ByteLen())
			require.Equal(t, int64(-3), c.A()) // crypto/elliptic's curves all have a = -3
		})
	}

	t.Run("P-256/gnark", func(t *testing.T) {
		c := curves.P256()
		require.Equal(t, 0, r1fp.Modulus().Cmp(c.P()))
		require.Equal(t, 0, r1fr.Modulus().Cmp(c.N()))
		a, b := r1.CurveCoefficients()
		wantA := new(big.Int).Add(c.P(), big.NewInt(c.A()))
		require.Equal(t, 0, a.BigInt(new(big.Int)).Cmp(wantA))
		require.Equal(t, 0, b.BigInt(new(big.Int)).Cmp(c.B()))
		_, g := r1.Generators()
		require.Equal(t, 0, g.X.BigInt(new(big.Int)).Cmp(c.Gx()))
		require.Equal(t, 0, g.Y.BigInt(new(big.Int)).Cmp(c.Gy()))
	})
	t.Run("secp256k1/gnark", func(t *testing.T) {
		c := curves.Secp256k1()
		require.Equal(t, 0, k1fp.Modulus().Cmp(c.P()))
		require.Equal(t, 0, k1fr.Modulus().Cmp(c.N()))
		a, b := k1.CurveCoefficients()
		require.True(t, a.IsZero())
		require.Equal(t, int64(0), c.A())
		require.Equal(t, 0, b.BigInt(new(big.Int)).Cmp(c.B()))
		_, g := k1.Generators()
		require.Equal(t, 0, g.X.BigInt(new(big.Int)).Cmp(c.Gx()))
		require.Equal(t, 0, g.Y.BigInt(new(big.Int)).Cmp(c.Gy()))
	})

	// P-224 is the curve whose square roots need more than one exponentiation.
	four := big.NewInt(4)
	require.Equal(t, int64(1), new(big.Int).Mod(curves.P224().P(), four).Int64())
	require.Equal(t, int64(3), new(big.Int).Mod(curves.P256().P(), four).Int64())
	require.Equal(t, int64(3), new(big.Int).Mod(curves.Secp256k1().P(), four).Int64())
}

func TestByName(t *testing.T) {
	for name, want := range map[string]*curves.Curve{
		"p224": curves.P224(), "P-224": curves.P224(), "p-224": curves.P224(), "P224": curves.P224(),
		"secp224r1": curves.P224(),
		"p256":      curves.P256(), "P-256": curves.P256(), "secp256r1": curves.P256(), "SECP256R1": curves.P256(),
		"prime256v1": curves.P256(),
		"secp256k1":  curves.Secp256k1(), "SECP256K1": curves.Secp256k1(),
	} {
		got, err := curves.ByName(name)
		require.NoError(t, err, name)
		require.Same(t, want, got, name)
	}
	for _, name := range []string{"", "P-384", "p 256", "secp256", " p256"} {
		_, err := curves.ByName(name)
		require.ErrorIs(t, err, curves.ErrUnknownCurve, name)
		require.ErrorContains(t, err, "p-256")
		require.ErrorContains(t, err, "secp256k1")
	}

	all := curves.All()
	require.Len(t, all, 3)
	all[0] = nil
	require.NotNil(t, curves.All()[0], "All must return a fresh slice")
	require.Same(t, curves.P224(), curves.P224())
}

func TestValidate(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			gy1 := new(big.Int).Add(c.Gy(), big.NewInt(1))
			pPlusGx := new(big.Int).Add(c.P(), c.Gx())
			negGy := new(big.Int).Sub(c.P(), c.Gy())
			tests := []struct {
				name    string
				x, y    *big.Int
				want    error
				message string
			}{
				{"origin", big.NewInt(0), big.NewInt(0), curves.ErrInfinity, "(0, 0) is not an affine point"},
				{"nil x", nil, c.Gy(), curves.ErrInfinity, "x coordinate is nil"},
				{"nil y", c.Gx(), nil, curves.ErrInfinity, "y coordinate is nil"},
				{"x=p", c.P(), c.Gy(), curves.ErrCoordinateRange, c.Name() + ": x coordinate is not below p"},
				{"y=p", c.Gx(), c.P(), curves.ErrCoordinateRange, c.Name() + ": y coordinate is not below p"},
				{"x=p+Gx", pPlusGx, c.Gy(), curves.ErrCoordinateRange, "x coordinate is not below p"},
				{"x<0", big.NewInt(-1), c.Gy(), curves.ErrCoordinateRange, "x coordinate is negative"},
				{"y<0", c.Gx(), new(big.Int).Neg(c.Gy()), curves.ErrCoordinateRange, "y coordinate is negative"},
				{"off curve", c.Gx(), gy1, curves.ErrNotOnCurve, "point is not on the curve"},
				{"(0,1)", big.NewInt(0), big.NewInt(1), curves.ErrNotOnCurve, "point is not on the curve"},
				{"-G", c.Gx(), negGy, nil, ""},
			}
			for _, tc := range tests {
				err := c.Validate(tc.x, tc.y)
				if tc.want == nil {
					require.NoError(t, err, tc.name)
					require.True(t, c.IsOnCurve(tc.x, tc.y))
					continue
				}
				require.ErrorIs(t, err, tc.want, tc.name)
				require.ErrorContains(t, err, tc.message, tc.name)
				require.True(t, strings.HasPrefix(err.Error(), c.Name()+": "), err.Error())
				var pe *curves.PointError
				require.True(t, errors.As(err, &pe))
				require.Equal(t, c.Name(), pe.Curve)
				require.False(t, c.IsOnCurve(tc.x, tc.y), tc.name)
			}
		})
	}
}

func TestParseHexCoordinate(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			gxHex := c.Gx().Text(16)
			for _, s := range []string{
				gxHex, strings.ToUpper(gxHex), "0x" + gxHex, "0X" + strings.ToUpper(gxHex),
				"0000" + gxHex, strings.Repeat("0", 4*c.ByteLen()-len(gxHex)) + gxHex,
			} {
				v, err := c.ParseHexCoordinate(s)
				require.NoError(t, err, s)
				require.Equal(t, 0, v.Cmp(c.Gx()), s)
			}
			v, err := c.ParseHexCoordinate("0")
			require.NoError(t, err)
			require.Equal(t, 0, v.Sign())
			pMinus1 := new(big.Int).Sub(c.P(), big.NewInt(1))
			v, err = c.ParseHexCoordinate(pMinus1.Text(16))
			require.NoError(t, err)
			require.Equal(t, 0, v.Cmp(pMinus1))

			for s, msg := range map[string]string{
				"":                                   "no digits",
				"0x":                                 "no digits",
				"12g4":                               "invalid character 'g' at offset 2",
				"0x12 ":                              "invalid character ' ' at offset 4",
				"-1":                                 "invalid character '-'",
				"+1":                                 "invalid character '+'",
				"1_0":                                "invalid character '_'",
				"0x0x1":                              "invalid character 'x'",
				"é":                                  "invalid character 0xc3 at offset 0",
				"12\xff":                             "invalid character 0xff at offset 2",
				"1\x00":                              "invalid character 0x00 at offset 1",
				strings.Repeat("0", 4*c.ByteLen()+1): "characters long, more than the limit",
				strings.Repeat("f", 1<<20):           "characters long, more than the limit",
			} {
				_, err := c.ParseHexCoordinate(s)
				require.ErrorIs(t, err, curves.ErrEncoding, "%.40q", s)
				require.ErrorContains(t, err, msg, "%.40q", s)
				require.NotContains(t, err.Error(), "ÿ", "a byte is shown as 0xff, not as the rune of its value")
			}
			for _, s := range []string{c.P().Text(16), "0x" + strings.Repeat("f", 2*c.ByteLen())} {
				_, err := c.ParseHexCoordinate(s)
				require.ErrorIs(t, err, curves.ErrCoordinateRange, s)
				require.ErrorContains(t, err, "is not below p")
			}
		})
	}
}

// TestReduceScalar: k mod n for scalars of every length up to 64 bytes, on
// every curve; wrong lengths are errors, not panics.
func TestReduceScalar(t *testing.T) {
	rng := newRNG(64)
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			L := c.ByteLen()
			for n := 0; n <= curves.MaxScalarBytes; n++ {
				top := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
				for _, k := range []*big.Int{new(big.Int).Sub(top, big.NewInt(1)), randBelow(rng, top), new(big.Int).Mod(c.N(), top)} {
					dst := make([]byte, L)
					require.NoError(t, c.ReduceScalar(dst, k.FillBytes(make([]byte, n))))
					require.Equal(t, new(big.Int).Mod(k, c.N()).FillBytes(make([]byte, L)), dst, "k = %x", k)
				}
			}
			require.ErrorIs(t, c.ReduceScalar(make([]byte, L-1), []byte{1}), curves.ErrScalar)
			require.ErrorIs(t, c.ReduceScalar(make([]byte, L), make([]byte, curves.MaxScalarBytes+1)), curves.ErrScalar)
			require.ErrorIs(t, new(curves.Curve).ReduceScalar(make([]byte, 0), nil), curves.ErrUnsupported)
		})
	}
}

// TestMaxByteLen: no supported curve's field elements are longer.
func TestMaxByteLen(t *testing.T) {
	longest := 0
	for _, c := range curves.All() {
		longest = max(longest, c.ByteLen())
	}
	if longest != curves.MaxByteLen {
		t.Errorf("the longest field element takes %d bytes, MaxByteLen is %d", longest, curves.MaxByteLen)
	}
}
