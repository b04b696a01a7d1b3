package rns_test

import (
	"crypto/elliptic"
	"math/big"
	"sync"
	"testing"

	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/rns"
)

// fuzzParams are the systems of the three curves' primes, built once.
var fuzzParams = sync.OnceValue(func() []*rns.Params {
	k1, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", 16)
	var ps []*rns.Params
	for _, p := range []*big.Int{elliptic.P224().Params().P, elliptic.P256().Params().P, k1} {
		par, err := rns.NewParams(p)
		if err != nil {
			panic(err)
		}
		ps = append(ps, par)
	}
	return ps
})

// convBases are the points around which FuzzRNSConversion picks its values:
// the edges of every range the conversions are documented for.
func convBases(par *rns.Params) []*big.Int {
	one := big.NewInt(1)
	m4 := new(big.Int).Rsh(par.B.M, 2)
	lim := par.B.M
	if par.BT.M.Cmp(lim) < 0 {
		lim = par.BT.M
	}
	bases := []*big.Int{
		big.NewInt(0), one, par.P, par.U, par.AddBound, m4, lim, par.B.M, par.BT.M,
		new(big.Int).Mul(par.B.M, par.BT.M),
	}
	for _, k := range []uint{16, 32, 64, 128, uint(par.P.BitLen()), uint(lim.BitLen() - 1), uint(lim.BitLen())} {
		bases = append(bases, new(big.Int).Lsh(one, k))
	}
	return bases
}

// residueOK reports whether b are canonical residues of the basis.
func residueOK(b []uint32, basis rns.Basis) bool {
	for j, m := range basis.Moduli {
		if b[j] >= m.M {
			return false
		}
	}
	return true
}

// FuzzRNSConversion checks binary ↔ RNS conversion on the whole input
// space: a value near one of the range edges (base ± data), or, with the
// top bit of mode set, arbitrary residues.
//
//   - ToRNS accepts exactly 0 <= x < min(M, M̃), leaves its output untouched
//     otherwise, and writes canonical residues: x mod m_j in B,
//     ξ̃_j with ξ̃_j·M̃_j ≡ x (mod m̃_j) in B̃, x mod m_e;
//   - crtref.Exact inverts it on the whole range, FromRNS below M/4 (every
//     value the ladder converts is below 9u, which Verify puts below M/4);
//   - on arbitrary canonical residues, crtref.Exact returns the value below
//     M with those residues, and FromRNS a value congruent to it mod M,
//     equal to it when it is below M/4;
//   - the Montgomery domain round trip holds for every x.
func FuzzRNSConversion(f *testing.F) {
	f.Add(uint8(0), []byte{}, false)
	f.Add(uint8(4), []byte{1}, true)
	f.Add(uint8(0x80), []byte{0xff, 0xff}, false)
	f.Fuzz(func(t *testing.T, mode uint8, data []byte, below bool) {
		if len(data) > 200 {
			data = data[:200]
		}
		params := fuzzParams()
		par := params[int(mode>>5&3)%len(params)]
		if mode&0x80 != 0 {
			fuzzResidues(t, par, data)
			return
		}
		bases := convBases(par)
		x := new(big.Int).Set(bases[int(mode&0x1f)%len(bases)])
		d := new(big.Int).SetBytes(data)
		if below {
			x.Sub(x, d)
		} else {
			x.Add(x, d)
		}

		lim := par.B.M
		if par.BT.M.Cmp(lim) < 0 {
			lim = par.BT.M
		}
		inRange := x.Sign() >= 0 && x.Cmp(lim) < 0

		z := par.NewElement()
		const poison = 0xdead
		for j := range z.B {
			z.B[j], z.BT[j] = poison, poison
		}
		z.E = poison
		err := par.ToRNS(&z, x)
		if !inRange {
			if err == nil {
				t.Fatalf("ToRNS accepted %x, outside [0, min(M, M̃))", x)
			}
			for j := range z.B {
				if z.B[j] != poison || z.BT[j] != poison {
					t.Fatalf("ToRNS rejected %x but wrote channel %d", x, j)
				}
			}
			if z.E != poison {
				t.Fatalf("ToRNS rejected %x but wrote m_e", x)
			}
			return
		}
		if err != nil {
			t.Fatalf("ToRNS rejected %x, inside [0, min(M, M̃)): %v", x, err)
		}
		r := new(big.Int)
		for j, m := range par.B.Moduli {
			if want := r.Mod(r.Mul(x, big.NewInt(int64(par.Twist[j]))), big.NewInt(int64(m.M))).Uint64(); uint64(z.B[j]) != want {
				t.Fatalf("x=%x: B channel %d is %d, want %d", x, j, z.B[j], want)
			}
		}
		for j, m := range par.BT.Moduli {
			mj := big.NewInt(int64(m.M))
			if z.BT[j] >= m.M {
				t.Fatalf("x=%x: B̃ channel %d is %d, not below %d", x, j, z.BT[j], m.M)
			}
			part := new(big.Int).Quo(par.BT.M, mj)
			got := r.Mul(big.NewInt(int64(z.BT[j])), part)
			if got.Mod(got, mj).Cmp(new(big.Int).Mod(x, mj)) != 0 {
				t.Fatalf("x=%x: B̃ channel %d: ξ̃·M̃_j is not x mod m̃_j", x, j)
			}
		}
		if want := r.Mod(x, big.NewInt(int64(par.Me()))).Uint64(); uint64(z.E) != want {
			t.Fatalf("x=%x: m_e channel is %d, want %d", x, z.E, want)
		}
		if got := crtref.Exact(par, z.B); got.Cmp(x) != 0 {
			t.Fatalf("crtref.Exact(ToRNS(%x)) = %x", x, got)
		}
		if x.Cmp(new(big.Int).Rsh(par.B.M, 2)) < 0 {
			if got := par.FromRNS(z.B); got.Cmp(x) != 0 {
				t.Fatalf("FromRNS(ToRNS(%x)) = %x, below M/4", x, got)
			}
		}
		xm := new(big.Int).Mod(x, par.P)
		if got := par.FromMont(par.ToMont(x)); got.Cmp(xm) != 0 {
			t.Fatalf("FromMont(ToMont(%x)) = %x, want %x", x, got, xm)
		}
	})
}

// fuzzResidues reads two bytes per channel of B (reduced to canonical
// residues) and checks both CRTs on them.
func fuzzResidues(t *testing.T, par *rns.Params, data []byte) {
	b := make([]uint32, par.N)
	for j, m := range par.B.Moduli {
		var v uint32
		if 2*j+1 < len(data) {
			v = uint32(data[2*j])<<8 | uint32(data[2*j+1])
		}
		b[j] = v % m.M
	}
	if !residueOK(b, par.B) {
		t.Fatal("residues not canonical")
	}
	exact := crtref.Exact(par, b)
	if exact.Sign() < 0 || exact.Cmp(par.B.M) >= 0 {
		t.Fatalf("crtref.Exact(%v) = %x, outside [0, M)", b, exact)
	}
	r := new(big.Int)
	for j, m := range par.B.Moduli {
		if got := r.Mod(exact, big.NewInt(int64(m.M))).Uint64(); got != uint64(b[j]) {
			t.Fatalf("crtref.Exact(%v) = %x: channel %d is %d", b, exact, j, got)
		}
	}
	fast := par.FromRNS(b)
	if d := new(big.Int).Sub(fast, exact); d.Mod(d, par.B.M).Sign() != 0 {
		t.Fatalf("FromRNS(%v) = %x is not crtref.Exact = %x mod M", b, fast, exact)
	}
	if exact.Cmp(new(big.Int).Rsh(par.B.M, 2)) < 0 && fast.Cmp(exact) != 0 {
		t.Fatalf("FromRNS(%v) = %x, want %x (below M/4)", b, fast, exact)
	}
}
