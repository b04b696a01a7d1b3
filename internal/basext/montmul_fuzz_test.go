package basext_test

import (
	"math/big"
	"sync"
	"testing"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/rns"
)

type fuzzSystem struct {
	par  *rns.Params
	tb   *basext.Tables
	mInv *big.Int // M^{-1} mod p
}

var fuzzSystems = sync.OnceValue(func() []fuzzSystem {
	var out []fuzzSystem
	ps := primes()
	for _, name := range []string{"P224", "P256", "secp256k1"} {
		par, err := rns.NewParams(ps[name])
		if err != nil {
			panic(err)
		}
		out = append(out, fuzzSystem{par: par, tb: basext.NewTables(par), mInv: new(big.Int).ModInverse(par.B.M, par.P)})
	}
	return out
})

// operand maps a selector and bytes to a value in [0, 9u): an edge of the
// input range (0, 1, p − 1, p, u − 1, u, 9u − 1) moved by the bytes, or the
// bytes themselves, reduced mod 9u.
func operand(s fuzzSystem, sel uint8, data []byte) *big.Int {
	par := s.par
	one := big.NewInt(1)
	edges := []*big.Int{
		big.NewInt(0), one, new(big.Int).Sub(par.P, one), par.P, new(big.Int).Sub(par.U, one), par.U,
		new(big.Int).Sub(par.AddBound, one), new(big.Int).Lsh(par.P, 1), new(big.Int).Lsh(par.P, 3),
	}
	d := new(big.Int).SetBytes(data)
	x := new(big.Int)
	switch i := int(sel>>1) % (len(edges) + 1); {
	case i == len(edges):
		x.Set(d)
	case sel&1 == 1:
		x.Sub(edges[i], d)
	default:
		x.Add(edges[i], d)
	}
	return x.Mod(x, par.AddBound)
}

// FuzzMontMul checks RNS Montgomery multiplication against math/big for
// both base extensions on inputs below 9u, the documented input range:
// z ≡ x·y·M^{-1} (mod p), z < u, every residue of z canonical, z's B̃ and
// m_e residues those of the value its B residues hold, both variants
// identical, the inputs left as they were, and z = x·x computed in place
// identical to the out-of-place product.
func FuzzMontMul(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), []byte{}, []byte{})
	f.Add(uint8(1), uint8(13), uint8(13), []byte{}, []byte{})
	f.Add(uint8(2), uint8(18), uint8(18), []byte{0xff}, []byte{0x01, 0x00})
	f.Fuzz(func(t *testing.T, curve, xsel, ysel uint8, xb, yb []byte) {
		sys := fuzzSystems()
		s := sys[int(curve)%len(sys)]
		par := s.par
		x, y := operand(s, xsel, xb), operand(s, ysel, yb)
		ex, ey := par.NewElement(), par.NewElement()
		if err := par.ToRNS(&ex, x); err != nil {
			t.Fatalf("ToRNS(%x): %v", x, err)
		}
		if err := par.ToRNS(&ey, y); err != nil {
			t.Fatalf("ToRNS(%x): %v", y, err)
		}
		sx, sy := par.NewElement(), par.NewElement()
		sx.Set(&ex)
		sy.Set(&ey)

		want := new(big.Int).Mul(x, y)
		want.Mul(want, s.mInv).Mod(want, par.P)
		var outs []rns.Element
		for _, v := range basext.Variants {
			mu := s.tb.NewMultiplier(v)
			z := par.NewElement()
			mu.Mul(&z, &ex, &ey)
			if !ex.Equal(&sx) || !ey.Equal(&sy) {
				t.Fatalf("%v: Mul modified its inputs", v)
			}
			if !residueOK(z.B, par.B) || !residueOK(z.BT, par.BT) || z.E >= par.Me() {
				t.Fatalf("%v: x=%x y=%x: a residue of z is not canonical", v, x, y)
			}
			got := crtref.Exact(par, z.B)
			if got.Cmp(par.U) >= 0 {
				t.Fatalf("%v: x=%x y=%x: z = %x is not below u", v, x, y, got)
			}
			if m := new(big.Int).Mod(got, par.P); m.Cmp(want) != 0 {
				t.Fatalf("%v: x=%x y=%x: z = %x is not x·y·M^-1 mod p = %x", v, x, y, got, want)
			}
			ref := par.NewElement()
			if err := par.ToRNS(&ref, got); err != nil {
				t.Fatal(err)
			}
			if !ref.Equal(&z) {
				t.Fatalf("%v: x=%x y=%x: the B̃ or m_e residues of z disagree with its B residues", v, x, y)
			}
			// in place: z = x·x with z aliasing x
			sq := par.NewElement()
			mu.Mul(&sq, &ex, &ex)
			inPlace := par.NewElement()
			inPlace.Set(&ex)
			mu.Mul(&inPlace, &inPlace, &inPlace)
			if !inPlace.Equal(&sq) {
				t.Fatalf("%v: x=%x: x·x in place differs from out of place", v, x)
			}
			outs = append(outs, z)
		}
		if !outs[0].Equal(&outs[1]) {
			t.Fatalf("x=%x y=%x: Shenoy and Kawamura disagree", x, y)
		}
	})
}

func residueOK(b []uint32, basis rns.Basis) bool {
	for j, m := range basis.Moduli {
		if b[j] >= m.M {
			return false
		}
	}
	return true
}
