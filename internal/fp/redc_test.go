package fp

import (
	"math/big"
	"math/rand"
	"testing"
)

// TestRedcMatchesReduce5: Redc gives Reduce5's result on the curves'
// primes and the ends of the range, for random five-limb inputs and the
// edge values of every limb; Canonical gives FromMont's.
func TestRedcMatchesReduce5(t *testing.T) {
	one := big.NewInt(1)
	pow := func(e uint) *big.Int { return new(big.Int).Lsh(one, e) }
	hex := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 16); return v }
	mods := []*big.Int{
		new(big.Int).Sub(pow(256), big.NewInt(189)),
		new(big.Int).Sub(pow(127), one),
		hex("ffffffffffffffffffffffffffffffff000000000000000000000001"),
		hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
		hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"),
	}
	n := 50000
	if testing.Short() {
		n = 5000
	}
	rng := rand.New(rand.NewSource(12))
	edges := []uint64{0, 1, 1<<63 - 1, 1 << 63, ^uint64(0) - 1, ^uint64(0)}
	for _, p := range mods {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		pl := f.p
		for i := range n {
			var in [5]uint64
			for l := range in {
				switch {
				case i < 64:
					in[l] = edges[(i>>l)%len(edges)]
				case i%5 == 0:
					in[l] = edges[rng.Intn(len(edges))]
				default:
					in[l] = rng.Uint64()
				}
			}
			if i%7 == 0 { // values near multiples of p
				copy(in[:Limbs], pl[:])
				in[0] -= uint64(i % 3)
			}
			var want, got Element
			f.Reduce5(&want, &in)
			f.Redc(&got, &in)
			if got != want {
				t.Fatalf("mod %x: Redc(%x) = %x, want %x", p, in, got, want)
			}
			e := Element{in[0], in[1], in[2], in[3]}
			if f.Canonical(&e) != f.FromMont(&e) {
				t.Fatalf("mod %x: Canonical(%x) differs from FromMont", p, e)
			}
		}
	}
}

func BenchmarkRedc(b *testing.B) {
	f, _ := New(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(189)))
	t := [5]uint64{1, 2, 3, 4, 5}
	var z Element
	for b.Loop() {
		f.Redc(&z, &t)
		t[0] = z[0]
	}
}
