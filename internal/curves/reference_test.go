package curves_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/textbook"
)

// TestReferenceVsGnark cross-checks the two oracles on P-256 (crypto/elliptic
// against gnark-crypto) with random points and scalars, and on secp256k1
// checks gnark against the textbook implementation.
func TestReferenceVsGnark(t *testing.T) {
	for i, c := range []*curves.Curve{curves.P256(), curves.Secp256k1()} {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(300 + i))
			n := 200
			if testing.Short() {
				n = 40
			}
			for j := range n {
				p := randPoint(t, rng, c)
				var k *big.Int
				switch j % 4 {
				case 0:
					k = randScalar(rng, c)
				case 1: // scalars beyond N are reduced
					k = randBelow(rng, new(big.Int).Lsh(big.NewInt(1), 512))
				case 2: // short scalars
					k = randBelow(rng, big.NewInt(1<<20))
				case 3: // near N
					k = new(big.Int).Sub(c.N(), randBelow(rng, big.NewInt(1<<16)))
				}
				ref := refMul(t, c, p, k)
				gn := gnarkMul(t, c, p, k)
				require.True(t, ref.Equal(gn), "k=%x P=%v: reference %v, gnark %v", k, p, ref, gn)
				if ref != nil {
					require.NoError(t, c.Validate(ref.X, ref.Y))
				}
				if j%10 == 0 {
					require.True(t, ref.Equal(textbook.Mul(c, p, k)), "k=%x", k)
				}
			}
		})
	}
}

// TestReferenceVsNaive checks every reference against the textbook
// implementation on random inputs (the only independent check for P-224).
func TestReferenceVsNaive(t *testing.T) {
	for i, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(400 + i))
			for range 20 {
				p := randPoint(t, rng, c)
				k := randScalar(rng, c)
				ref := refMul(t, c, p, k)
				require.True(t, ref.Equal(textbook.Mul(c, p, k)), "k=%x", k)
			}
		})
	}
}

func edgeScalars(c *curves.Curve) map[string]*big.Int {
	one := big.NewInt(1)
	m := map[string]*big.Int{
		"0":        big.NewInt(0),
		"1":        big.NewInt(1),
		"2":        big.NewInt(2),
		"3":        big.NewInt(3),
		"N-2":      new(big.Int).Sub(c.N(), big.NewInt(2)),
		"N-1":      new(big.Int).Sub(c.N(), one),
		"N":        new(big.Int).Set(c.N()),
		"N+1":      new(big.Int).Add(c.N(), one),
		"2N":       new(big.Int).Lsh(c.N(), 1),
		"2N+1":     new(big.Int).Add(new(big.Int).Lsh(c.N(), 1), one),
		"(N-1)/2":  new(big.Int).Rsh(c.N(), 1),
		"2^512-1":  new(big.Int).Sub(new(big.Int).Lsh(one, 512), one),
		"2^256":    new(big.Int).Lsh(one, 256),
		"p":        new(big.Int).Set(c.P()),
		"all ones": new(big.Int).Sub(new(big.Int).Lsh(one, uint(c.N().BitLen())), one),
	}
	for _, i := range []uint{1, 2, 7, 31, 63, 64, 127, 128, 200, 223, 255} {
		m["1<<"+big.NewInt(int64(i)).String()] = new(big.Int).Lsh(one, i)
	}
	return m
}

func TestReferenceEdgeScalars(t *testing.T) {
	for i, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(500 + i))
			g := c.Generator()
			negG := &curves.Point{X: c.Gx(), Y: new(big.Int).Sub(c.P(), c.Gy())}
			for _, base := range []*curves.Point{g, negG, randPoint(t, rng, c)} {
				for name, k := range edgeScalars(c) {
					kCopy := new(big.Int).Set(k)
					ref := refMul(t, c, base, k)
					require.Equal(t, 0, k.Cmp(kCopy), "%s: scalar modified", name)
					require.True(t, ref.Equal(textbook.Mul(c, base, k)), "%s", name)
					if c != curves.P224() {
						gn := gnarkMul(t, c, base, k)
						require.True(t, ref.Equal(gn), "%s: reference %v, gnark %v", name, ref, gn)
					}
					kmod := new(big.Int).Mod(k, c.N())
					switch {
					case kmod.Sign() == 0:
						require.Nil(t, ref, name)
					case kmod.Cmp(big.NewInt(1)) == 0:
						require.True(t, ref.Equal(base), name)
					case kmod.Cmp(new(big.Int).Sub(c.N(), big.NewInt(1))) == 0:
						require.Equal(t, 0, ref.X.Cmp(base.X), name)
						require.Equal(t, 0, new(big.Int).Add(ref.Y, base.Y).Cmp(c.P()), name)
					}
				}
			}
		})
	}
}

func TestReferenceErrors(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			mults := map[string]func(x, y, k *big.Int) (*big.Int, *big.Int, bool, error){
				"reference": c.ReferenceScalarMult,
			}
			if c != curves.P224() {
				mults["gnark"] = c.GnarkScalarMult
			}
			offY := new(big.Int).Add(c.Gy(), big.NewInt(1))
			for name, mult := range mults {
				cases := []struct {
					x, y, k *big.Int
					want    error
				}{
					{big.NewInt(0), big.NewInt(0), big.NewInt(5), curves.ErrInfinity},
					{nil, nil, big.NewInt(5), curves.ErrInfinity},
					{c.Gx(), offY, big.NewInt(5), curves.ErrNotOnCurve},
					{c.Gx(), offY, big.NewInt(0), curves.ErrNotOnCurve},
					{new(big.Int).Add(c.Gx(), c.P()), c.Gy(), big.NewInt(5), curves.ErrCoordinateRange},
					{c.Gx(), new(big.Int).Sub(c.Gy(), c.P()), big.NewInt(5), curves.ErrCoordinateRange},
					{c.Gx(), c.Gy(), big.NewInt(-1), curves.ErrScalar},
					{c.Gx(), c.Gy(), new(big.Int).Neg(c.N()), curves.ErrScalar},
					{c.Gx(), c.Gy(), nil, curves.ErrScalar},
				}
				for _, tc := range cases {
					var err error
					require.NotPanics(t, func() {
						var x, y *big.Int
						var ok bool
						x, y, ok, err = mult(tc.x, tc.y, tc.k)
						require.False(t, ok)
						require.Nil(t, x)
						require.Nil(t, y)
					})
					require.ErrorIs(t, err, tc.want, "%s (%v, %v) k=%v", name, tc.x, tc.y, tc.k)
				}
			}
		})
	}

	c := curves.P224()
	_, _, ok, err := c.GnarkScalarMult(c.Gx(), c.Gy(), big.NewInt(1))
	require.False(t, ok)
	require.ErrorIs(t, err, curves.ErrUnsupported)
	require.ErrorContains(t, err, "P-224")

	// A copy of a shared curve still reaches its references.
	cp := *curves.P256()
	x, y, ok, err := cp.ReferenceScalarMult(cp.Gx(), cp.Gy(), big.NewInt(1))
	require.True(t, result(t, x, y, ok, err).Equal(cp.Generator()))
	x, y, ok, err = cp.GnarkScalarMult(cp.Gx(), cp.Gy(), big.NewInt(1))
	require.True(t, result(t, x, y, ok, err).Equal(cp.Generator()))

	// The zero Curve has no reference, and says so rather than panicking.
	var zero curves.Curve
	g := curves.P256().Generator()
	_, _, _, err = zero.ReferenceScalarMult(g.X, g.Y, big.NewInt(1))
	require.ErrorIs(t, err, curves.ErrUnsupported)
	_, _, _, err = zero.GnarkScalarMult(g.X, g.Y, big.NewInt(1))
	require.ErrorIs(t, err, curves.ErrUnsupported)
}

// TestReferenceScalarMultValid: for valid points it gives what
// ReferenceScalarMult gives, edge scalars included; a point off the curve,
// which its caller must not give it, gives an error or a wrong result
// (secp256k1's gnark-crypto) but never a panic, and bad scalars and
// coordinates give the same errors as ReferenceScalarMult.
func TestReferenceScalarMultValid(t *testing.T) {
	for i, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			rng := newRNG(uint64(700 + i))
			ks := []*big.Int{big.NewInt(0), big.NewInt(1), c.N(), new(big.Int).Sub(c.N(), big.NewInt(1)), new(big.Int).Lsh(big.NewInt(1), 511)}
			for range 20 {
				ks = append(ks, randBelow(rng, c.N()))
			}
			g := c.Generator()
			for _, k := range ks {
				x, y, ok, err := c.ReferenceScalarMult(g.X, g.Y, k)
				require.NoError(t, err)
				vx, vy, vok, err := c.ReferenceScalarMultValid(g.X, g.Y, k)
				require.NoError(t, err)
				require.Equal(t, ok, vok, "k = %v", k)
				if ok {
					require.Zero(t, x.Cmp(vx), "k = %v", k)
					require.Zero(t, y.Cmp(vy), "k = %v", k)
				}
			}
			off := new(big.Int).Add(g.Y, big.NewInt(1))
			require.NotPanics(t, func() { _, _, _, _ = c.ReferenceScalarMultValid(g.X, off, big.NewInt(5)) })
			if c != curves.Secp256k1() {
				_, _, _, err := c.ReferenceScalarMultValid(g.X, off, big.NewInt(5))
				require.ErrorIs(t, err, curves.ErrNotOnCurve)
			}
			_, _, _, err := c.ReferenceScalarMultValid(g.X, g.Y, big.NewInt(-1))
			require.ErrorIs(t, err, curves.ErrScalar)
			_, _, _, err = c.ReferenceScalarMultValid(g.X, g.Y, nil)
			require.ErrorIs(t, err, curves.ErrScalar)
			_, _, _, err = c.ReferenceScalarMultValid(c.P(), g.Y, big.NewInt(1))
			require.ErrorIs(t, err, curves.ErrCoordinateRange)
		})
	}
}
