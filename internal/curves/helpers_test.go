package curves_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// randBelow returns a uniformly distributed (up to negligible bias) integer
// in [0, max).
func randBelow(rng *rand.Rand, max *big.Int) *big.Int {
	b := make([]byte, (max.BitLen()+7)/8+16)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b), max)
}

// randScalar returns a scalar in [1, N-1].
func randScalar(rng *rand.Rand, c *curves.Curve) *big.Int {
	k := randBelow(rng, new(big.Int).Sub(c.N(), big.NewInt(1)))
	return k.Add(k, big.NewInt(1))
}

// randPoint returns k·G for a random k, computed by the reference.
func randPoint(t *testing.T, rng *rand.Rand, c *curves.Curve) *curves.Point {
	t.Helper()
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), randScalar(rng, c))
	require.NoError(t, err)
	require.True(t, ok)
	return &curves.Point{X: x, Y: y}
}

// result packs a scalar multiplication result as a *Point (nil: infinity).
func result(t *testing.T, x, y *big.Int, ok bool, err error) *curves.Point {
	t.Helper()
	require.NoError(t, err)
	if !ok {
		require.Nil(t, x)
		require.Nil(t, y)
		return nil
	}
	return &curves.Point{X: x, Y: y}
}

func refMul(t *testing.T, c *curves.Curve, p *curves.Point, k *big.Int) *curves.Point {
	t.Helper()
	x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
	return result(t, x, y, ok, err)
}

func gnarkMul(t *testing.T, c *curves.Curve, p *curves.Point, k *big.Int) *curves.Point {
	t.Helper()
	x, y, ok, err := c.GnarkScalarMult(p.X, p.Y, k)
	return result(t, x, y, ok, err)
}
