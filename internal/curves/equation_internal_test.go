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
		t.Run(c.name, func(t *testing.T) {
			slow := *c
			slow.eq = nil
			check := func(x, y *big.Int) {
				t.Helper()
				if got, want := c.satisfiesEquation(x, y), slow.satisfiesEquation(x, y); got != want {
					t.Fatalf("x=%x y=%x: fast %v, math/big %v", x, y, got, want)
				}
			}
			pm1 := new(big.Int).Sub(c.p, big.NewInt(1))
			edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), pm1, new(big.Int).Rsh(c.p, 1), c.gx, c.gy}
			for _, x := range edges {
				for _, y := range edges {
					check(x, y)
				}
			}
			onCurve := 0
			x, y := c.gx, c.gy
			for i := range 2000 {
				check(x, y)
				check(x, new(big.Int).Sub(c.p, y))                                  // −P
				check(x, new(big.Int).Mod(new(big.Int).Add(y, big.NewInt(1)), c.p)) // off by one
				check(new(big.Int).Rand(rng, c.p), new(big.Int).Rand(rng, c.p))
				if c.satisfiesEquation(x, y) {
					onCurve++
				}
				// the next point: a random multiple of G
				k := new(big.Int).SetUint64(rng.Uint64() | 1)
				nx, ny, _, err := c.ReferenceScalarMult(c.gx, c.gy, k.Add(k, big.NewInt(int64(i))))
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

// FuzzCurveEquation compares the fast curve equation with math/big, for
// each curve, on arbitrary coordinates below p and (top bit of which) on
// points of the curve, as they are or negated or with y moved a little.
func FuzzCurveEquation(f *testing.F) {
	for _, c := range []*Curve{curveP224, curveP256, curveK256} {
		f.Add(uint8(0), c.gx.Bytes(), c.gy.Bytes())
		f.Add(uint8(1), c.gx.Bytes(), new(big.Int).Sub(c.p, c.gy).Bytes())
		f.Add(uint8(2), []byte{}, []byte{1})
		f.Add(uint8(2), new(big.Int).Sub(c.p, big.NewInt(1)).Bytes(), c.gy.Bytes())
	}
	f.Add(uint8(0x80), []byte{7}, []byte{})
	f.Add(uint8(0x81), []byte{0xff, 0x13}, []byte{1})
	f.Add(uint8(0x82), []byte{3}, []byte{4})
	curves := []*Curve{curveP224, curveP256, curveK256}
	f.Fuzz(func(t *testing.T, which uint8, xb, yb []byte) {
		c := curves[int(which&0x7f)%len(curves)]
		x := new(big.Int).Mod(new(big.Int).SetBytes(xb), c.p)
		y := new(big.Int).Mod(new(big.Int).SetBytes(yb), c.p)
		if which&0x80 != 0 {
			// a point of the curve, k·G for k from xb, negated or moved
			// by the low byte of yb
			px, py, ok, err := c.ReferenceScalarMult(c.gx, c.gy, new(big.Int).SetBytes(xb))
			if err != nil || !ok {
				return
			}
			x, y = px, py
			if len(yb) > 0 {
				y.Add(y, big.NewInt(int64(yb[0]>>1)))
				if yb[0]&1 != 0 {
					y.Sub(c.p, y)
				}
				y.Mod(y, c.p)
			}
		}
		slow := *c
		slow.eq = nil
		if got, want := c.satisfiesEquation(x, y), slow.satisfiesEquation(x, y); got != want {
			t.Fatalf("%s x=%x y=%x: fast %v, math/big %v", c.name, x, y, got, want)
		}
	})
}
