package fp

import (
	"math/big"
	"math/rand"
	"testing"
)

// chainPrimes are the primes of the curves and one more of another shape.
var chainPrimes = []string{
	"26959946667150639794667015087019630673557916260026308143510066298881",           // P-224
	"115792089210356248762697446949407573530086143415290314195533631308867097853951", // P-256
	"115792089237316195423570985008687907853269984665640564039457584007908834671663", // secp256k1
	"57896044618658097711785492504343953926634992332820282019728792003956564819949",  // 2^255 − 19
}

// TestPowChainAgainstBig: pow by the chain of an exponent equals x^e in
// math/big for p − 2 of each prime, exponents of one or a few runs, and
// random ones, on random and edge x.
func TestPowChainAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, ps := range chainPrimes {
		p, _ := new(big.Int).SetString(ps, 10)
		if !p.ProbablyPrime(20) {
			t.Fatalf("%v is not prime", p)
		}
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		exps := []*big.Int{new(big.Int).Sub(p, big.NewInt(2)), new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(1)), 2)}
		for _, v := range []int64{1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 0b1011_0111} {
			exps = append(exps, big.NewInt(v))
		}
		for _, bits := range []uint{63, 64, 65, 127, 200} { // 2^bits − 1 and 2^bits
			one := new(big.Int).Lsh(big.NewInt(1), bits)
			exps = append(exps, one, new(big.Int).Sub(one, big.NewInt(1)))
		}
		for range 20 {
			exps = append(exps, new(big.Int).Add(new(big.Int).Rand(rng, p), big.NewInt(1)))
		}
		xs := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Sub(p, big.NewInt(1))}
		for range 3 {
			xs = append(xs, new(big.Int).Rand(rng, p))
		}
		for _, e := range exps {
			c := newPowChain(e)
			for _, xv := range xs {
				var x, z Element
				f.SetBig(&x, xv)
				f.pow(&z, &x, &c)
				if want := new(big.Int).Exp(xv, e, p); f.Big(&z).Cmp(want) != 0 {
					t.Fatalf("p %v: %v^%v = %v, want %v", p, xv, e, f.Big(&z), want)
				}
			}
		}
	}
}

// TestPowChainCost: the chain of P-224's p − 2 takes 223 squarings and 15
// multiplications (the first run of 127 ones in 126 squarings and 12
// multiplications, then a zero and a run of 96 = 63 + 31 + 2).
func TestPowChainCost(t *testing.T) {
	p, _ := new(big.Int).SetString(chainPrimes[0], 10)
	c := newPowChain(new(big.Int).Sub(p, big.NewInt(2)))
	sq, mul := 0, 0
	for _, s := range c.steps {
		sq += s.squarings
		if s.mul >= 0 {
			mul++
		}
	}
	if sq != 223 || mul != 15 {
		t.Fatalf("P-224's p − 2: %d squarings and %d multiplications, want 223 and 15", sq, mul)
	}
}
