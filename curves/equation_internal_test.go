package curves

import (
	"math/big"
	"math/rand"
	"testing"
)

// TestEquationMatchesBig checks the fast curve equation against math/big on
// points of the curve, their negations, near misses and random pairs,
// including coordinates 0, 1, p−1 and values above 2^(bits of p) − 1.
func TestEquationMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, c := range []*Curve{curveP224, curveP256, curveK256} {
		t.Run(c.Name, func(t *testing.T) {
			slow := *c
			slow.eq = nil
			check := func(x, y *big.Int) {
				t.Helper()
				if got, want := c.satisfiesEquation(x, y), slow.satisfiesEquation(x, y); got != want {
					t.Fatalf("x=%x y=%x: fast %v, math/big %v", x, y, got, want)
				}
			}
			pm1 := new(big.Int).Sub(c.P, big.NewInt(1))
			edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), pm1, new(big.Int).Rsh(c.P, 1), c.Gx, c.Gy}
			for _, x := range edges {
				for _, y := range edges {
					check(x, y)
				}
			}
			onCurve := 0
			x, y := c.Gx, c.Gy
			for i := range 2000 {
				check(x, y)
				check(x, new(big.Int).Sub(c.P, y))                                  // −P
				check(x, new(big.Int).Mod(new(big.Int).Add(y, big.NewInt(1)), c.P)) // off by one
				check(new(big.Int).Rand(rng, c.P), new(big.Int).Rand(rng, c.P))
				if c.satisfiesEquation(x, y) {
					onCurve++
				}
				// the next point: a random multiple of G
				k := new(big.Int).SetUint64(rng.Uint64() | 1)
				nx, ny, _, err := c.ReferenceScalarMult(c.Gx, c.Gy, k.Add(k, big.NewInt(int64(i))))
				if err != nil {
					t.Fatal(err)
				}
				x, y = nx, ny
			}
			if onCurve != 2000 {
				t.Fatalf("%d of 2000 curve points satisfy the fast equation", onCurve)
			}
		})
	}
}
