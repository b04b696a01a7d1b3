package fp

import (
	"bytes"
	"math/big"
	"math/rand"
	"testing"
)

// TestBytes checks the byte conversions against math/big on random and
// edge values of every width up to 32 bytes, and SetBytes' range check
// against p on the values around it.
func TestBytes(t *testing.T) {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 224), new(big.Int).Lsh(big.NewInt(1), 96))
	p.Add(p, big.NewInt(1))
	f, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	for width := 1; width <= 32; width++ {
		for trial := range 50 {
			b := make([]byte, width)
			rng.Read(b)
			if trial == 0 {
				for i := range b {
					b[i] = 0xff
				}
			}
			v := new(big.Int).SetBytes(b)
			l := LimbsFromBytes(b)
			if toBig(l).Cmp(v) != 0 {
				t.Fatalf("LimbsFromBytes(%x) = %v", b, l)
			}
			out := make([]byte, width)
			PutLimbs(out, l)
			if !bytes.Equal(out, b) {
				t.Fatalf("PutLimbs round trip: %x, want %x", out, b)
			}
			var z Element
			below := f.SetBytes(&z, b)
			if below != (v.Cmp(p) < 0) {
				t.Fatalf("SetBytes(%x) says below p: %v", b, below)
			}
			if below {
				if width >= 28 {
					f.PutBytes(out[width-28:], &z)
					if new(big.Int).SetBytes(out).Cmp(v) != 0 {
						t.Fatalf("PutBytes(SetBytes(%x)) = %x", b, out)
					}
				}
				if f.Big(&z).Cmp(v) != 0 {
					t.Fatalf("SetBytes(%x) stands for %v", b, f.Big(&z))
				}
			}
		}
	}
	for _, d := range []int64{-2, -1, 0, 1, 2} {
		v := new(big.Int).Add(p, big.NewInt(d))
		b := v.FillBytes(make([]byte, 28))
		var z Element
		if got := f.SetBytes(&z, b); got != (d < 0) {
			t.Errorf("SetBytes(p%+d) below p: %v", d, got)
		}
		if got := Less(LimbsFromBytes(b), f.Modulus()); got != (d < 0) {
			t.Errorf("Less(p%+d, p) = %v", d, got)
		}
	}
}

func toBig(l [Limbs]uint64) *big.Int {
	v := new(big.Int)
	for i := Limbs - 1; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

// TestSetWideBytes: values of every length up to 64 bytes, the largest
// included, reduce to math/big's value mod p, for the primes p and orders n
// of P-224 and P-256; a longer one is refused.
func TestSetWideBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(64))
	for _, h := range []string{
		"ffffffffffffffffffffffffffffffff000000000000000000000001",
		"ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d",
		"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
		"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
	} {
		m, _ := new(big.Int).SetString(h, 16)
		f, err := New(m)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= MaxWideBytes; n++ {
			r := make([]byte, n)
			rng.Read(r)
			for _, b := range [][]byte{bytes.Repeat([]byte{0xff}, n), r} {
				var z Element
				if !f.SetWideBytes(&z, b) {
					t.Fatalf("%d bytes refused", n)
				}
				want := new(big.Int).Mod(new(big.Int).SetBytes(b), m).FillBytes(make([]byte, 32))
				got := make([]byte, 32)
				f.PutBytes(got, &z)
				if !bytes.Equal(got, want) {
					t.Fatalf("%x mod %s: got %x, want %x", b, h, got, want)
				}
			}
		}
		var z Element
		if f.SetWideBytes(&z, make([]byte, MaxWideBytes+1)) {
			t.Fatal("65 bytes accepted")
		}
	}
}

// TestAllZero: AllZero is true for the empty slice and all-zero ones, and
// false where any one byte of any width up to 65 is not zero.
func TestAllZero(t *testing.T) {
	if !AllZero(nil) || !AllZero(make([]byte, 65)) {
		t.Fatal("AllZero of zero bytes is false")
	}
	for n := 1; n <= 65; n++ {
		for i := range n {
			b := make([]byte, n)
			b[i] = byte(1 << (i % 8))
			if AllZero(b) {
				t.Fatalf("AllZero of %d bytes with byte %d set is true", n, i)
			}
		}
	}
}
