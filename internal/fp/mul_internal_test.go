package fp

import (
	"math/big"
	"math/rand"
	"testing"
)

// montMulImpls are the implementations of Mul this machine can run.
func montMulImpls() map[string]func(z, x, y *Element, p *[Limbs]uint64, pInv uint64) {
	impls := map[string]func(z, x, y *Element, p *[Limbs]uint64, pInv uint64){"generic": montMulGeneric}
	if asm, ok := asmMontMul(); ok {
		impls["asm"] = asm
	}
	return impls
}

// TestMontMulImplsAgainstBig checks every implementation of Mul against
// math/big over its whole contract, x any 256-bit value and y below p,
// on the curves' primes and on primes at the ends of the range (where the
// carry words are fullest), with the edge values of both operands.
func TestMontMulImplsAgainstBig(t *testing.T) {
	one := big.NewInt(1)
	pow := func(e uint) *big.Int { return new(big.Int).Lsh(one, e) }
	hex := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	mods := []*big.Int{
		new(big.Int).Sub(pow(256), big.NewInt(189)),                             // the largest 256-bit prime
		new(big.Int).Sub(pow(127), one),                                         // a Mersenne prime, two limbs
		hex("ffffffffffffffffffffffffffffffff000000000000000000000001"),         // P-224
		hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"), // P-256
		hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"), // secp256k1
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewSource(11))
	rInvs := map[*big.Int]*big.Int{}
	for _, p := range mods {
		rInvs[p] = new(big.Int).ModInverse(pow(256), p)
	}
	for name, mul := range montMulImpls() {
		for _, p := range mods {
			f, err := New(p)
			if err != nil {
				t.Fatalf("%v: %v", p, err)
			}
			xs := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(pow(256), one), new(big.Int).Sub(p, one), p, pow(255)}
			ys := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(p, one), new(big.Int).Rsh(p, 1)}
			for i := range n {
				x, y := new(big.Int).Rand(rng, pow(256)), new(big.Int).Rand(rng, p)
				if i < len(xs)*len(ys) {
					x, y = xs[i%len(xs)], ys[i/len(xs)]
				}
				xl, yl := Element(toLimbs(x)), Element(toLimbs(y))
				var z Element
				mul(&z, &xl, &yl, &f.p, f.pInv)
				want := new(big.Int).Mul(x, y)
				want.Mul(want, rInvs[p]).Mod(want, p)
				got := new(big.Int)
				for l := Limbs - 1; l >= 0; l-- {
					got.Lsh(got, 64).Or(got, new(big.Int).SetUint64(z[l]))
				}
				if got.Cmp(want) != 0 {
					t.Fatalf("%s mod %x: %x·%x gave %x, want %x", name, p, x, y, got, want)
				}
			}
		}
	}
}
