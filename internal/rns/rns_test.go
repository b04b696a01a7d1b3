package rns_test

import (
	"crypto/elliptic"
	"fmt"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/rns"
)

func p224() *big.Int { return elliptic.P224().Params().P }

func primes() map[string]*big.Int {
	k1, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", 16)
	return map[string]*big.Int{"P224": p224(), "P256": elliptic.P256().Params().P, "secp256k1": k1}
}

func TestP224Moduli(t *testing.T) {
	par, err := rns.NewParams(p224())
	require.NoError(t, err)
	require.Equal(t, 15, par.N, "P-224 needs n = 15 channels per base")
	want := []uint32{1, 3, 5, 9, 15, 17, 27, 33, 39, 45, 47, 57, 59, 63, 77, 87, 89, 99,
		105, 113, 117, 123, 125, 129, 143, 153, 155, 165, 167, 173}
	var gotB, gotBT []uint32
	for i, c := range want {
		if i%2 == 0 {
			gotB = append(gotB, c)
		} else {
			gotBT = append(gotBT, c)
		}
	}
	require.Equal(t, gotB, par.B.Cs(), "B takes the even positions")
	require.Equal(t, gotBT, par.BT.Cs(), "B̃ takes the odd positions")
	require.Equal(t, uint32(16), par.Me(), "m_e is the smallest power of two >= n")
	require.Equal(t, 2, par.B.MaxFolds())
	require.Equal(t, 2, par.BT.MaxFolds())
}

// TestNIsSmallest checks that n − 1 channels per base would break the Type II bound.
func TestNIsSmallest(t *testing.T) {
	for name, p := range primes() {
		t.Run(name, func(t *testing.T) {
			par, err := rns.NewParams(p)
			require.NoError(t, err)
			require.NoError(t, par.Verify())
			n := par.N - 1
			cands, err := rns.CandidateModuli(2 * n)
			require.NoError(t, err)
			m, mt := big.NewInt(1), big.NewInt(1)
			for i, c := range cands {
				if i%2 == 0 {
					m.Mul(m, big.NewInt(int64(c.M)))
				} else {
					mt.Mul(mt, big.NewInt(int64(c.M)))
				}
			}
			need := big.NewInt(int64(9 * (n + 2)))
			need.Mul(need, need).Mul(need, p)
			require.True(t, m.Cmp(need) <= 0 || mt.Cmp(need) <= 0, "n-1 = %d would also satisfy the bound", n)
		})
	}
}

func TestCandidatesCoprime(t *testing.T) {
	mods, err := rns.CandidateModuli(60)
	require.NoError(t, err)
	for i, a := range mods {
		for _, b := range mods[:i] {
			require.Equal(t, int64(1), new(big.Int).GCD(nil, nil, big.NewInt(int64(a.M)), big.NewInt(int64(b.M))).Int64())
		}
	}
	// 2^16 − 7 = 65529 = 3·21843 shares 3 with 2^16 − 1; it must not be kept.
	for _, m := range mods {
		require.NotEqual(t, uint32(7), m.C)
		require.NotEqual(t, uint32(11), m.C)
	}
}

func TestVerifyNamesFailingBound(t *testing.T) {
	par, err := rns.NewParams(p224())
	require.NoError(t, err)
	broken := *par
	broken.Phi = 1 // below ⌈2^16·Δ⌉
	require.ErrorContains(t, broken.Verify(), "Kawamura: Φ covers Δ")
	broken = *par
	broken.MeBits = 3 // m_e = 8 < n
	require.ErrorContains(t, broken.Verify(), "Shenoy: m_e covers α")
	broken = *par
	broken.B.Moduli = append([]rns.Modulus{}, par.B.Moduli...)
	broken.B.Moduli[1] = broken.B.Moduli[0]
	require.ErrorContains(t, broken.Verify(), "not coprime")
	for _, b := range par.Bounds() {
		require.True(t, b.Holds(), b.Name)
	}
}

func TestKawamuraBeta(t *testing.T) {
	par, err := rns.NewParams(p224())
	require.NoError(t, err)
	beta, delta := par.KawamuraBeta()
	require.True(t, beta.Cmp(delta) >= 0, "β >= Δ")
	require.True(t, beta.Cmp(big.NewRat(1, 1)) < 0)
	// Δ recomputed with rationals: within a block of equal trunc(ξ) the error
	// grows with ξ, so each channel's worst is at a block top or at m̃ − 1.
	mask := rns.KawamuraMask()
	block := int64(1) << (16 - rns.KawamuraBits)
	want := new(big.Rat)
	for _, mod := range par.BT.Moduli {
		worst := new(big.Rat)
		for xi := block - 1; ; xi += block {
			xi = min(xi, int64(mod.M-1))
			e := new(big.Rat).Sub(big.NewRat(xi, int64(mod.M)), big.NewRat(int64(uint32(xi)&mask), 1<<16))
			if e.Cmp(worst) > 0 {
				worst = e
			}
			if xi == int64(mod.M-1) {
				break
			}
		}
		want.Add(want, worst)
	}
	require.Equal(t, 0, want.Cmp(delta), "Δ = %s, recomputed %s", delta.FloatString(6), want.FloatString(6))
}

// TestFoldReduction checks Reduce against % at the worst inputs of every
// modulus: all 32-bit values that stay largest after each fold, products
// (m−1)·y for every y, and random words.
func TestFoldReduction(t *testing.T) {
	mods, err := rns.CandidateModuli(40)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range mods {
		check := func(z uint32) {
			if got, want := m.Reduce(z), z%m.M; got != want {
				t.Fatalf("m = %d: Reduce(%d) = %d, want %d", m.M, z, got, want)
			}
		}
		for y := uint32(0); y < m.M; y++ {
			check((m.M - 1) * y)
		}
		for lo := uint32(0); lo <= 0xffff; lo++ {
			check(0xffff<<16 | lo)           // largest high half
			check((0xffff-1)<<16 | lo)       // next high half
			check(uint32(m.C+1)<<16 | lo)    // values whose first fold is largest among small ones
			check((m.M-1)*(m.M-1) - lo%1000) // just below the largest product
		}
		for range 100000 {
			check(rng.Uint32())
		}
	}
}

func TestFoldsForIsTight(t *testing.T) {
	for _, c := range []uint32{1, 173, 1253, 4095} {
		m, err := rns.NewModulus(c)
		require.NoError(t, err)
		folds, ok := m.FoldsFor(1<<32 - 1)
		require.True(t, ok)
		// one fold fewer must leave some 32-bit input at or above 2m
		if folds > 0 {
			v := uint64(1<<32 - 1)
			exceeded := false
			for range folds - 1 {
				v = uint64(m.C)*(v>>16) + 0xffff
			}
			if v >= 2*uint64(m.M) {
				exceeded = true
			}
			require.True(t, exceeded, "c = %d: %d folds claimed, fewer would do", c, folds)
		}
	}
	m, _ := rns.NewModulus(1253)
	require.Greater(t, m.Folds, 2, "a large c needs more folds")
}

func TestChannelAddSub(t *testing.T) {
	m, err := rns.NewModulus(173)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	edges := []uint32{0, 1, m.M / 2, m.M - 2, m.M - 1}
	vals := append([]uint32{}, edges...)
	for range 2000 {
		vals = append(vals, rng.Uint32N(m.M))
	}
	for _, a := range vals {
		for _, b := range edges {
			require.Equal(t, (a+b)%m.M, m.Add(a, b))
			require.Equal(t, (a+m.M-b)%m.M, m.Sub(a, b))
			require.Equal(t, (b+m.M-a)%m.M, m.Sub(b, a))
			require.Equal(t, uint32(uint64(a)*uint64(b)%uint64(m.M)), m.Mul(a, b))
		}
	}
}

func TestConversions(t *testing.T) {
	for name, p := range primes() {
		for _, bits := range rns.Widths {
			t.Run(fmt.Sprintf("%s/%d", name, bits), func(t *testing.T) { testConversions(t, p, bits) })
		}
	}
}

// testConversions: ToRNS stores x·σ_j mod m_j in B (σ_j = 1 on 16-bit
// channels), FromRNS and crtref.Exact invert it, and the Montgomery domain
// round-trips.
func testConversions(t *testing.T, p *big.Int, bits int) {
	par, err := rns.NewParamsBits(p, bits)
	require.NoError(t, err)
	rng := mrand.New(mrand.NewSource(5))
	lim := par.AddBound
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p, big.NewInt(1)), p,
		new(big.Int).Sub(lim, big.NewInt(1))}
	for range 2000 {
		vals = append(vals, new(big.Int).Rand(rng, lim))
	}
	e := par.NewElement()
	for _, x := range vals {
		require.NoError(t, par.ToRNS(&e, x))
		for j, mod := range par.B.Moduli {
			stored := new(big.Int).Mul(x, big.NewInt(int64(par.Twist[j])))
			require.Equal(t, stored.Mod(stored, big.NewInt(int64(mod.M))).Uint64(), uint64(e.B[j]))
		}
		require.Equal(t, new(big.Int).Mod(x, big.NewInt(int64(par.Me()))).Uint64(), uint64(e.E))
		require.Equal(t, 0, x.Cmp(par.FromRNS(e.B)), "FromRNS(%x)", x)
		require.Equal(t, 0, x.Cmp(crtref.Exact(par, e.B)))
	}
	// The exact CRT covers the whole range of B.
	top := new(big.Int).Sub(par.B.M, big.NewInt(1))
	require.Error(t, par.ToRNS(&e, par.B.M))
	require.Error(t, par.ToRNS(&e, big.NewInt(-1)))
	if top.Cmp(par.BT.M) < 0 {
		require.NoError(t, par.ToRNS(&e, top))
		require.Equal(t, 0, top.Cmp(crtref.Exact(par, e.B)))
	}
	// Montgomery domain round trip.
	for _, x := range vals[:200] {
		xm := new(big.Int).Mod(x, p)
		require.Equal(t, 0, xm.Cmp(par.FromMont(par.ToMont(x))))
	}
	one := par.ToMont(big.NewInt(1))
	require.Equal(t, 0, one.Cmp(new(big.Int).Mod(par.B.M, p)), "the Montgomery form of 1 is M mod p")
}

func TestBadPrimes(t *testing.T) {
	for _, p := range []*big.Int{nil, big.NewInt(-7), big.NewInt(0), big.NewInt(65521), big.NewInt(1 << 40), new(big.Int).Lsh(big.NewInt(1), 100)} {
		_, err := rns.NewParams(p)
		require.Error(t, err)
	}
}

// TestWideParams: wide channels give n = 8 for P-224 and 9 for the 256-bit
// primes, moduli 2^30 − c with B̃ ending with 2^30 (c = 0, the only
// power of two), one fold after the first step of Reduce64, and every bound
// holding; n − 1 channels would break the Type II bound. 2^30 is a modulus
// of wide channels only.
func TestWideParams(t *testing.T) {
	wantN := map[string]int{"P224": 8, "P256": 9, "secp256k1": 9}
	for name, p := range primes() {
		par, err := rns.NewParamsBits(p, rns.WideChannelBits)
		require.NoError(t, err)
		require.Equal(t, wantN[name], par.N, name)
		require.True(t, par.Wide())
		require.False(t, par.Kawamura())
		require.NoError(t, par.Verify())
		all := append(append([]rns.Modulus{}, par.B.Moduli...), par.BT.Moduli...)
		for i, m := range all {
			require.Equal(t, uint32(1<<30), m.M+m.C)
			require.Equal(t, 1, m.Folds)
			require.Equal(t, i == len(all)-1, m.PowerOfTwo(), "%s: modulus %d", name, m.M)
		}
		require.Equal(t, rns.WideTop(), all[len(all)-1])
		cands, err := rns.CandidateModuliBits(rns.WideChannelBits, 2*(par.N-1))
		require.NoError(t, err)
		m := big.NewInt(1)
		for i, c := range cands {
			if i%2 == 0 {
				m.Mul(m, big.NewInt(int64(c.M)))
			}
		}
		need := big.NewInt(int64(9 * (par.N + 1)))
		need.Mul(need, need).Mul(need, p)
		require.True(t, m.Cmp(need) <= 0, "%s: n − 1 wide channels would do", name)
	}
	_, err := rns.NewParamsBits(p224(), 24)
	require.ErrorContains(t, err, "24-bit channels")
	top, err := rns.NewModulusBits(rns.WideChannelBits, 0)
	require.NoError(t, err)
	require.Equal(t, rns.Modulus{M: 1 << 30, Bits: rns.WideChannelBits, Folds: 1}, top)
	require.True(t, top.PowerOfTwo())
	// Verify holds B̃'s last to 2^30 and nothing else to a power of two
	par, err := rns.NewParamsBits(p224(), rns.WideChannelBits)
	require.NoError(t, err)
	n := par.N
	for _, tc := range []struct {
		at, c int // where (B then B̃) and which c
	}{{2*n - 1, 2}, {2*n - 1, 27}, {0, 0}, {n, 0}} {
		broken := *par
		broken.B.Moduli, broken.BT.Moduli = slices.Clone(par.B.Moduli), slices.Clone(par.BT.Moduli)
		mods := broken.B.Moduli
		if tc.at >= n {
			mods = broken.BT.Moduli
		}
		mods[tc.at%n] = rns.Modulus{M: 1<<30 - uint32(tc.c), C: uint32(tc.c), Bits: rns.WideChannelBits, Folds: 1}
		require.ErrorContains(t, broken.Verify(), "is not 2^30 − c", "modulus %d with c = %d", tc.at, tc.c)
	}
	_, err = rns.NewModulusBits(rns.ChannelBits, 0)
	require.ErrorContains(t, err, "want an odd c")
}

// TestWideReduce64 checks the wide channels' Reduce64 and Mul against %,
// 2^30 (WideTop) among them: around every power of two, the largest words,
// products of the largest residues, and random 64-bit values.
func TestWideReduce64(t *testing.T) {
	mods, err := rns.CandidateModuliBits(rns.WideChannelBits, 40)
	require.NoError(t, err)
	mods = append(mods, rns.WideTop())
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range mods {
		check := func(z uint64) {
			if got, want := m.Reduce64(z), uint32(z%uint64(m.M)); got != want {
				t.Fatalf("m = %d: Reduce64(%d) = %d, want %d", m.M, z, got, want)
			}
		}
		for s := range 64 {
			for d := uint64(0); d < 4; d++ {
				check(1<<s + d)
				check(1<<s - d)
			}
		}
		for d := range uint64(1 << 12) {
			check(^uint64(0) - d)
			check(uint64(m.M-1)*uint64(m.M-1) - d)
			check(uint64(2*m.M) - d)
			check(d<<32 | 0xffffffff)
		}
		for range 100000 {
			check(rng.Uint64())
			a, b := rng.Uint32N(m.M), rng.Uint32N(m.M)
			if got, want := m.Mul(a, b), uint32(uint64(a)*uint64(b)%uint64(m.M)); got != want {
				t.Fatalf("m = %d: Mul(%d, %d) = %d, want %d", m.M, a, b, got, want)
			}
		}
	}
}

// TestWideConversions: ToRNS and FromRNS round-trip on wide channels.
func TestWideConversions(t *testing.T) {
	for name, p := range primes() {
		par, err := rns.NewParamsBits(p, rns.WideChannelBits)
		require.NoError(t, err)
		rng := mrand.New(mrand.NewSource(9))
		el := par.NewElement()
		one := big.NewInt(1)
		xs := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(p, one), new(big.Int).Sub(par.AddBound, one)}
		for range 2000 {
			xs = append(xs, new(big.Int).Rand(rng, par.AddBound))
		}
		for _, x := range xs {
			require.NoError(t, par.ToRNS(&el, x))
			require.Equal(t, 0, x.Cmp(par.FromRNS(el.B)), "%s: %x", name, x)
			require.Equal(t, 0, x.Cmp(crtref.Exact(par, el.B)), "%s: %x", name, x)
		}
	}
}
