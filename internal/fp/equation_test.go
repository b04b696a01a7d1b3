package fp_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/fp"
)

// TestEquationHolds checks Equation.Holds against math/big, for a = −3 and
// a = 0, on points of the curve (y from a square root), their neighbours
// y + 1, and random pairs.
func TestEquationHolds(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for name, p := range primes() {
		for _, a := range []int64{-3, 0} {
			r := newRef(t, p)
			b := new(big.Int).Rand(rng, p)
			eq := fp.NewEquation(r.f, a, b)
			rhs := func(x *big.Int) *big.Int {
				v := new(big.Int).Mul(x, x)
				v.Add(v, big.NewInt(a)).Mul(v, x).Add(v, b)
				return v.Mod(v, p)
			}
			holds := func(x, y *big.Int) bool {
				ex, ey := r.elem(x), r.elem(y)
				return eq.Holds(&ex, &ey)
			}
			points := 0
			for range 500 {
				x := new(big.Int).Rand(rng, p)
				if y := new(big.Int).ModSqrt(rhs(x), p); y != nil {
					points++
					if !holds(x, y) {
						t.Fatalf("%s a=%d: (%x, %x) is on the curve", name, a, x, y)
					}
					y1 := new(big.Int).Add(y, big.NewInt(1))
					if holds(x, y1.Mod(y1, p)) {
						t.Fatalf("%s a=%d: (%x, %x+1) is not on the curve", name, a, x, y)
					}
				}
				y := new(big.Int).Rand(rng, p)
				want := new(big.Int).Exp(y, big.NewInt(2), p).Cmp(rhs(x)) == 0
				if holds(x, y) != want {
					t.Fatalf("%s a=%d: (%x, %x): Holds %v, math/big %v", name, a, x, y, !want, want)
				}
			}
			if points == 0 {
				t.Fatalf("%s a=%d: no point found", name, a)
			}
		}
	}
}
