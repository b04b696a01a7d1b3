package curves_test

import (
	"bytes"
	"crypto/elliptic"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

func TestSEC1RoundTrip(t *testing.T) {
	nist := map[string]elliptic.Curve{"P-224": elliptic.P224(), "P-256": elliptic.P256()}
	for i, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(100 + i))
			points := []*curves.Point{c.Generator(), {X: c.Gx(), Y: new(big.Int).Sub(c.P(), c.Gy())}}
			for range 100 {
				points = append(points, randPoint(t, rng, c))
			}
			for _, p := range points {
				u := c.EncodeSEC1(p, false)
				require.Len(t, u, 1+2*c.ByteLen())
				require.Equal(t, byte(0x04), u[0])
				cp := c.EncodeSEC1(p, true)
				require.Len(t, cp, 1+c.ByteLen())
				require.Equal(t, byte(0x02+p.Y.Bit(0)), cp[0])
				require.Equal(t, u[1:1+c.ByteLen()], cp[1:])

				for _, enc := range [][]byte{u, cp} {
					q, err := c.DecodeSEC1(enc)
					require.NoError(t, err)
					require.True(t, p.Equal(q), "%x", enc)
				}

				if std, ok := nist[c.Name()]; ok {
					require.Equal(t, elliptic.Marshal(std, p.X, p.Y), u)
					require.Equal(t, elliptic.MarshalCompressed(std, p.X, p.Y), cp)
				}
			}
		})
	}
}

func TestSEC1KnownEncoding(t *testing.T) {
	g := "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
	c := curves.P256()
	require.Equal(t, g, hex.EncodeToString(c.EncodeSEC1(c.Generator(), false)))
	require.Equal(t, "03"+g[2:66], hex.EncodeToString(c.EncodeSEC1(c.Generator(), true)))
	require.Equal(t, []byte{0}, c.EncodeSEC1(nil, true))
	require.Equal(t, []byte{0}, c.EncodeSEC1(nil, false))
	require.Panics(t, func() { c.EncodeSEC1(&curves.Point{X: c.P(), Y: c.Gy()}, false) })
	require.Panics(t, func() { c.EncodeSEC1(&curves.Point{X: big.NewInt(-1), Y: c.Gy()}, true) })
}

// noSqrtX returns the smallest x >= start such that x³ + ax + b is not a
// square mod p, so no point has this x coordinate.
func noSqrtX(c *curves.Curve, start int64) *big.Int {
	for x := big.NewInt(start); ; x.Add(x, big.NewInt(1)) {
		rhs := new(big.Int).Exp(x, big.NewInt(3), c.P())
		rhs.Add(rhs, new(big.Int).Mul(big.NewInt(c.A()), x))
		rhs.Add(rhs, c.B()).Mod(rhs, c.P())
		if big.Jacobi(rhs, c.P()) == -1 {
			return x
		}
	}
}

func TestSEC1Malformed(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			n := c.ByteLen()
			g := c.EncodeSEC1(c.Generator(), false)
			gc := c.EncodeSEC1(c.Generator(), true)
			pBytes := c.P().FillBytes(make([]byte, n))
			ff := bytes.Repeat([]byte{0xff}, n)
			gx, gy := g[1:1+n], g[1+n:]
			cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
			offCurveY := new(big.Int).Add(c.Gy(), big.NewInt(1))
			offCurveY.Mod(offCurveY, c.P())

			bad := noSqrtX(c, 1)
			_, err := c.RecoverY(bad, false)
			require.ErrorIs(t, err, curves.ErrNotOnCurve)

			tests := []struct {
				name string
				enc  []byte
				want error
				msg  string
			}{
				{"nil", nil, curves.ErrEncoding, "empty SEC1 encoding"},
				{"empty", []byte{}, curves.ErrEncoding, "empty SEC1 encoding"},
				{"infinity 0x00", []byte{0}, curves.ErrInfinity, "point at infinity"},
				{"0x00 with data", cat([]byte{0}, gx), curves.ErrEncoding, "prefix 0x00"},
				{"prefix only 04", []byte{4}, curves.ErrEncoding, "uncompressed SEC1 encoding is 1 bytes"},
				{"prefix only 02", []byte{2}, curves.ErrEncoding, "compressed SEC1 encoding is 1 bytes"},
				{"uncompressed short", g[:len(g)-1], curves.ErrEncoding, "want"},
				{"uncompressed long", cat(g, []byte{0}), curves.ErrEncoding, "want"},
				{"compressed short", gc[:len(gc)-1], curves.ErrEncoding, "want"},
				{"compressed long", cat(gc, []byte{0}), curves.ErrEncoding, "want"},
				{"compressed prefix, uncompressed length", cat([]byte{2}, gx, gy), curves.ErrEncoding, "compressed SEC1 encoding"},
				{"uncompressed prefix, compressed length", cat([]byte{4}, gx), curves.ErrEncoding, "uncompressed SEC1 encoding"},
				{"prefix 01", cat([]byte{1}, gx, gy), curves.ErrEncoding, "unknown SEC1 prefix 0x01"},
				{"prefix 05", cat([]byte{5}, gx, gy), curves.ErrEncoding, "unknown SEC1 prefix 0x05"},
				{"prefix ff", cat([]byte{0xff}, gx), curves.ErrEncoding, "unknown SEC1 prefix 0xff"},
				{"hybrid 06", cat([]byte{6}, gx, gy), curves.ErrEncoding, "hybrid"},
				{"hybrid 07", cat([]byte{7}, gx, gy), curves.ErrEncoding, "hybrid"},
				{"x = p", cat([]byte{4}, pBytes, gy), curves.ErrCoordinateRange, "x coordinate is not below p"},
				{"y = p", cat([]byte{4}, gx, pBytes), curves.ErrCoordinateRange, "y coordinate is not below p"},
				{"x = 2^8n-1", cat([]byte{4}, ff, gy), curves.ErrCoordinateRange, "x coordinate is not below p"},
				{"y = 2^8n-1", cat([]byte{4}, gx, ff), curves.ErrCoordinateRange, "y coordinate is not below p"},
				{"compressed x = p", cat([]byte{2}, pBytes), curves.ErrCoordinateRange, "x coordinate is not below p"},
				{"compressed x = 2^8n-1", cat([]byte{3}, ff), curves.ErrCoordinateRange, "x coordinate is not below p"},
				{"off curve", cat([]byte{4}, gx, offCurveY.FillBytes(make([]byte, n))), curves.ErrNotOnCurve, "point is not on the curve"},
				{"(0,0)", cat([]byte{4}, make([]byte, 2*n)), curves.ErrInfinity, "(0, 0)"},
				{"compressed x without root, even", cat([]byte{2}, bad.FillBytes(make([]byte, n))), curves.ErrNotOnCurve, "not a square mod p"},
				{"compressed x without root, odd", cat([]byte{3}, bad.FillBytes(make([]byte, n))), curves.ErrNotOnCurve, "not a square mod p"},
			}
			for _, tc := range tests {
				p, err := c.DecodeSEC1(tc.enc)
				require.Nil(t, p, tc.name)
				require.ErrorIs(t, err, tc.want, tc.name)
				require.ErrorContains(t, err, tc.msg, tc.name)
				require.ErrorContains(t, err, c.Name()+": ", tc.name)
			}
		})
	}
}

// TestSEC1Compressed checks decompression against x coordinates that do and
// do not have points, including the P-224 case p ≡ 1 mod 4.
func TestSEC1Compressed(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			found, missing := 0, 0
			for x := int64(0); x < 200; x++ {
				xb := big.NewInt(x)
				enc := append([]byte{2}, xb.FillBytes(make([]byte, c.ByteLen()))...)
				even, errEven := c.DecodeSEC1(enc)
				enc[0] = 3
				odd, errOdd := c.DecodeSEC1(enc)
				if errEven != nil {
					require.ErrorIs(t, errEven, curves.ErrNotOnCurve)
					require.ErrorIs(t, errOdd, curves.ErrNotOnCurve)
					missing++
					continue
				}
				require.NoError(t, errOdd)
				found++
				require.Equal(t, uint(0), even.Y.Bit(0))
				require.Equal(t, uint(1), odd.Y.Bit(0))
				sum := new(big.Int).Add(even.Y, odd.Y)
				require.Equal(t, 0, sum.Cmp(c.P()), "the two roots must be negatives")
				require.NoError(t, c.Validate(even.X, even.Y))
			}
			require.Positive(t, found)
			require.Positive(t, missing)
		})
	}
}

// TestSEC1NoPanic feeds random and mutated encodings; anything accepted must
// be a valid point that re-encodes to the same bytes.
func TestSEC1NoPanic(t *testing.T) {
	for i, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(200 + i))
			g := c.EncodeSEC1(c.Generator(), false)
			gc := c.EncodeSEC1(c.Generator(), true)
			iterations := 6000
			if testing.Short() {
				iterations = 1000
			}
			accepted := 0
			for j := range iterations {
				var b []byte
				switch j % 3 {
				case 0:
					b = make([]byte, rng.IntN(2*len(g)))
					for k := range b {
						b[k] = byte(rng.Uint32())
					}
					if len(b) > 0 && rng.IntN(2) == 0 {
						b[0] = byte(2 + rng.IntN(3))
					}
				case 1:
					b = bytes.Clone(g)
					b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
				case 2:
					b = bytes.Clone(gc)
					b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
				}
				p, err := c.DecodeSEC1(b)
				if err != nil {
					require.Nil(t, p)
					continue
				}
				accepted++
				require.NoError(t, c.Validate(p.X, p.Y))
				require.Equal(t, b, c.EncodeSEC1(p, b[0] != 4))
			}
			require.Positive(t, accepted)
		})
	}
}

func FuzzDecodeSEC1(f *testing.F) {
	for _, c := range curves.All() {
		f.Add(c.EncodeSEC1(c.Generator(), false))
		f.Add(c.EncodeSEC1(c.Generator(), true))
	}
	f.Add([]byte{0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range curves.All() {
			p, err := c.DecodeSEC1(b)
			if err != nil {
				continue
			}
			if err := c.Validate(p.X, p.Y); err != nil {
				t.Fatalf("%s: decoded invalid point %v: %v", c.Name(), p, err)
			}
			if !bytes.Equal(b, c.EncodeSEC1(p, b[0] != 4)) {
				t.Fatalf("%s: %x does not re-encode to itself", c.Name(), b)
			}
		}
	})
}
