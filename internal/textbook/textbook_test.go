package textbook

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestMulMatchesReferences checks the textbook oracle against the curves'
// reference implementations on random and edge scalars, and its group
// laws: G + (−G) is infinity, n·G is infinity, (n−1)·G is −G.
func TestMulMatchesReferences(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range curves.All() {
		g := c.Generator()
		scalars := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N(),
			new(big.Int).Add(c.N(), big.NewInt(1)), new(big.Int).Lsh(big.NewInt(1), 511)}
		for range 12 {
			scalars = append(scalars, new(big.Int).Rand(rng, c.N()))
		}
		for _, k := range scalars {
			got := Mul(c, g, k)
			x, y, ok, err := c.ReferenceScalarMult(g.X, g.Y, k)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !ok && got != nil:
				t.Errorf("%s: %v·G = %v, want infinity", c.Name(), k, got)
			case ok && (got == nil || got.X.Cmp(x) != 0 || got.Y.Cmp(y) != 0):
				t.Errorf("%s: %v·G = %v, want (%x, %x)", c.Name(), k, got, x, y)
			}
		}
		neg := &curves.Point{X: g.X, Y: new(big.Int).Sub(c.P(), g.Y)}
		if Add(c, g, neg) != nil {
			t.Errorf("%s: G + (−G) is not infinity", c.Name())
		}
		if !Mul(c, g, new(big.Int).Sub(c.N(), big.NewInt(1))).Equal(neg) {
			t.Errorf("%s: (n−1)·G is not −G", c.Name())
		}
	}
}

// TestNoPointX: RecoverY refuses NoPointX and accepts one of the smaller x.
func TestNoPointX(t *testing.T) {
	for _, c := range curves.All() {
		x := NoPointX(c)
		if _, err := c.RecoverY(x, false); err == nil {
			t.Errorf("%s: x = %v has a point", c.Name(), x)
		}
		found := false
		for v := int64(1); v < x.Int64(); v++ {
			if _, err := c.RecoverY(big.NewInt(v), false); err == nil {
				found = true
			}
		}
		if x.Int64() > 1 && !found {
			t.Errorf("%s: no x below %v has a point", c.Name(), x)
		}
	}
}
