package curves

import (
	"errors"
	"math/big"
	"math/rand"
	"testing"
)

// TestRecoverYMatchesBig compares RecoverY in field arithmetic with the same
// curve on math/big's ModSqrt, on random x (with and without a point), both
// parities, and x = 0.
func TestRecoverYMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(63))
	for _, c := range All() {
		slow := *c
		slow.eq = nil
		points, none := 0, 0
		for i := range 400 {
			x := new(big.Int).Rand(rng, c.p)
			if i == 0 {
				x.SetInt64(0)
			}
			for _, odd := range []bool{false, true} {
				want, wantErr := slow.RecoverY(x, odd)
				got, gotErr := c.RecoverY(x, odd)
				if (wantErr == nil) != (gotErr == nil) || wantErr != nil && !errors.Is(gotErr, ErrNotOnCurve) {
					t.Fatalf("%s x = %x odd = %v: error %v, math/big %v", c.name, x, odd, gotErr, wantErr)
				}
				if wantErr != nil {
					none++
					continue
				}
				points++
				if got.Cmp(want) != 0 {
					t.Fatalf("%s x = %x odd = %v: y = %x, math/big %x", c.name, x, odd, got, want)
				}
				if !c.IsOnCurve(x, got) || got.Bit(0) == 1 != odd {
					t.Fatalf("%s x = %x: y = %x is not the point asked for", c.name, x, got)
				}
			}
		}
		if points == 0 || none == 0 {
			t.Fatalf("%s: %d points and %d x without one", c.name, points, none)
		}
	}
}
