package fp

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestCRTSumMatchesGeneric: the assembly sum gives the Go sum's five limbs,
// β included, for random and extreme residues and weights, strides and
// term counts; CRT reduces it as Redc does.
func TestCRTSumMatchesGeneric(t *testing.T) {
	if !useCRTAsm {
		t.Skip("no assembly CRT on this machine")
	}
	rng := rand.New(rand.NewSource(13))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	f, err := New(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(189)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		terms := make([]CRTTerm, 1+rng.Intn(40))
		stride := 1 + rng.Intn(9)
		rows := make([]uint32, (len(terms)-1)*stride+1)
		for j := range terms {
			for l := range terms[j].W {
				terms[j].W[l] = rng.Uint64()
				if i%5 == 0 {
					terms[j].W[l] = math.MaxUint64
				}
			}
			terms[j].Frac = rng.Float64()
			rows[j*stride] = rng.Uint32()
			if i%5 == 0 {
				rows[j*stride] = math.MaxUint32
			}
			if i%3 == 0 {
				rows[j*stride] >>= 2 // 30-bit residues
			}
		}
		var beta [Limbs]uint64
		for l := range beta {
			beta[l] = rng.Uint64()
		}
		var want, got [5]uint64
		crtSumGeneric(&want, rows, stride, terms, &beta)
		crtSumADX(&got, &rows[0], uintptr(4*stride), &terms[0], &terms[len(terms)-1], &beta)
		if got != want {
			t.Fatalf("case %d: %d terms, stride %d: %x, want %x", i, len(terms), stride, got, want)
		}
		var z, zw Element
		f.CRT(&z, rows, stride, terms, &beta)
		f.Reduce5(&zw, &want)
		if z != zw {
			t.Fatalf("case %d: CRT %x, want %x", i, z, zw)
		}
	}
}

func BenchmarkCRT(b *testing.B) {
	f, _ := New(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(189)))
	rng := rand.New(rand.NewSource(14))
	terms := make([]CRTTerm, 9)
	rows := make([]uint32, len(terms))
	for j := range terms {
		terms[j] = CRTTerm{Frac: rng.Float64() / 4, W: [Limbs]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 1}}
		rows[j] = rng.Uint32() >> 2
	}
	var beta [Limbs]uint64
	var z Element
	for b.Loop() {
		f.CRT(&z, rows, 1, terms, &beta)
	}
}
