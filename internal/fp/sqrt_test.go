package fp_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestSqrtMatchesBig checks Sqrt against math/big on every curve's prime
// (p ≡ 3 mod 4 for P-256 and secp256k1, Tonelli–Shanks with 2^96 | p − 1
// for P-224): squares get a root whose square is x, non-squares are refused
// exactly when big.Jacobi says so, and 0, 1, p − 1 and small values too.
func TestSqrtMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	n := ops() / 20
	for _, c := range curves.All() {
		checkSqrt(t, rng, c.Name(), c.P(), n)
	}
	// Primes p ≡ 1 (mod 4) with 2^s ‖ p − 1 for s = 2, 3, 5, not a multiple of
	// 8: they take Tonelli–Shanks itself rather than the byte-wise log.
	for _, s := range []uint{2, 3, 5} {
		p := new(big.Int).Lsh(big.NewInt(1), 200)
		p.Add(p, new(big.Int).Lsh(big.NewInt(1), s)).Add(p, big.NewInt(1)) // ≡ 1 + 2^s (mod 2^(s+1))
		for !p.ProbablyPrime(20) {
			p.Add(p, new(big.Int).Lsh(big.NewInt(1), s+1))
		}
		checkSqrt(t, rng, fmt.Sprintf("p ≡ 1 + 2^%d (mod 2^%d)", s, s+1), p, n)
	}
}

// checkSqrt compares Sqrt with math/big on n random values and their squares.
func checkSqrt(t *testing.T, rng *rand.Rand, name string, p *big.Int, n int) {
	t.Helper()
	r := newRef(t, p)
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(4), new(big.Int).Sub(p, big.NewInt(1))}
	for range n {
		v := new(big.Int).Rand(rng, p)
		vals = append(vals, v, new(big.Int).Mod(new(big.Int).Mul(v, v), p))
	}
	squares := 0
	for _, v := range vals {
		x := r.elem(v)
		var z = x
		ok := r.f.Sqrt(&z, &x)
		want := v.Sign() == 0 || big.Jacobi(v, p) == 1
		if ok != want {
			t.Fatalf("%s: Sqrt(%x) reports %v, Jacobi says %v", name, v, ok, want)
		}
		root := r.value(&z)
		if !ok {
			if root.Sign() != 0 {
				t.Fatalf("%s: Sqrt(%x) refused but left %x", name, v, root)
			}
			continue
		}
		squares++
		if sq := new(big.Int).Mod(new(big.Int).Mul(root, root), p); sq.Cmp(v) != 0 {
			t.Fatalf("%s: Sqrt(%x) = %x, whose square is %x", name, v, root, sq)
		}
	}
	if squares < n || squares == len(vals) {
		t.Fatalf("%s: %d squares among %d values", name, squares, len(vals))
	}
}

func BenchmarkSqrt(b *testing.B) {
	for _, c := range curves.All() {
		r := newRef(b, c.P())
		v := new(big.Int).Rand(rand.New(rand.NewSource(62)), c.P())
		x := r.elem(new(big.Int).Mod(new(big.Int).Mul(v, v), c.P()))
		b.Run("curve="+c.Name()+"/fp", func(b *testing.B) {
			var z = x
			for b.Loop() {
				r.f.Sqrt(&z, &x)
			}
		})
		b.Run("curve="+c.Name()+"/big", func(b *testing.B) {
			w := new(big.Int).Mod(new(big.Int).Mul(v, v), c.P())
			for b.Loop() {
				new(big.Int).ModSqrt(w, c.P())
			}
		})
	}
}
