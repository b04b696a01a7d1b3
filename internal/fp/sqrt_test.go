package fp_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/curves"
)

// TestSqrtMatchesBig checks Sqrt against math/big on every curve's prime
// (p ≡ 3 mod 4 for P-256 and secp256k1, Tonelli–Shanks with 2^96 | p − 1
// for P-224): squares get a root whose square is x, non-squares are refused
// exactly when big.Jacobi says so, and 0, 1, p − 1 and small values too.
func TestSqrtMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	n := ops() / 20
	for _, c := range curves.All() {
		r := newRef(t, c.P)
		vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(4), new(big.Int).Sub(c.P, big.NewInt(1))}
		for range n {
			v := new(big.Int).Rand(rng, c.P)
			vals = append(vals, v, new(big.Int).Mod(new(big.Int).Mul(v, v), c.P))
		}
		squares := 0
		for _, v := range vals {
			x := r.elem(v)
			var z = x
			ok := r.f.Sqrt(&z, &x)
			want := v.Sign() == 0 || big.Jacobi(v, c.P) == 1
			if ok != want {
				t.Fatalf("%s: Sqrt(%x) reports %v, Jacobi says %v", c.Name, v, ok, want)
			}
			root := r.value(&z)
			if !ok {
				if root.Sign() != 0 {
					t.Fatalf("%s: Sqrt(%x) refused but left %x", c.Name, v, root)
				}
				continue
			}
			squares++
			if sq := new(big.Int).Mod(new(big.Int).Mul(root, root), c.P); sq.Cmp(v) != 0 {
				t.Fatalf("%s: Sqrt(%x) = %x, whose square is %x", c.Name, v, root, sq)
			}
		}
		if squares < n || squares == len(vals) {
			t.Fatalf("%s: %d squares among %d values", c.Name, squares, len(vals))
		}
	}
}

func BenchmarkSqrt(b *testing.B) {
	for _, c := range curves.All() {
		r := newRef(b, c.P)
		v := new(big.Int).Rand(rand.New(rand.NewSource(62)), c.P)
		x := r.elem(new(big.Int).Mod(new(big.Int).Mul(v, v), c.P))
		b.Run("curve="+c.Name+"/fp", func(b *testing.B) {
			var z = x
			for b.Loop() {
				r.f.Sqrt(&z, &x)
			}
		})
		b.Run("curve="+c.Name+"/big", func(b *testing.B) {
			w := new(big.Int).Mod(new(big.Int).Mul(v, v), c.P)
			for b.Loop() {
				new(big.Int).ModSqrt(w, c.P)
			}
		})
	}
}
