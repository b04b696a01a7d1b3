package basext_test

import (
	"crypto/elliptic"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/rns"
)

func primes() map[string]*big.Int {
	k1, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", 16)
	return map[string]*big.Int{"P224": elliptic.P224().Params().P, "P256": elliptic.P256().Params().P, "secp256k1": k1}
}

// TestTablesFromDefinitions recomputes a sample of every table from its
// definition and checks the merged constants do what they are for, on both
// channel widths: wide systems are twisted, their NegR all ones (the wide
// kernels take x̂_j·ŷ_j as q_j and stop on any other table).
func TestTablesFromDefinitions(t *testing.T) {
	for _, bits := range rns.Widths {
		t.Run(fmt.Sprint(bits), func(t *testing.T) { testTablesFromDefinitions(t, bits) })
	}
}

func testTablesFromDefinitions(t *testing.T, bits int) {
	par, err := rns.NewParamsBits(elliptic.P224().Params().P, bits)
	require.NoError(t, err)
	tb := basext.NewTables(par)
	n := par.N
	for j := range n {
		m := big.NewInt(int64(par.B.Moduli[j].M))
		mt := big.NewInt(int64(par.BT.Moduli[j].M))
		Mj := new(big.Int).Quo(par.B.M, m)
		Mtj := new(big.Int).Quo(par.BT.M, mt)
		sigma := big.NewInt(int64(par.Twist[j]))
		if par.Twisted() {
			require.Equal(t, uint32(1), tb.NegR[j], "NegR_%d of a twisted system", j)
		} else {
			require.Equal(t, int64(1), sigma.Int64())
		}
		// NegR_j·σ_j²·p·M_j ≡ −1 (mod m_j)
		v := new(big.Int).Mul(big.NewInt(int64(tb.NegR[j])), new(big.Int).Mul(par.P, Mj))
		v.Mul(v, new(big.Int).Mul(sigma, sigma))
		require.Equal(t, new(big.Int).Sub(m, big.NewInt(1)).Int64(), v.Mod(v, m).Int64())
		// S_j·M̃_j^2 ≡ p (mod m̃_j)
		v = new(big.Int).Mul(big.NewInt(int64(tb.S[j])), new(big.Int).Mul(Mtj, Mtj))
		require.Equal(t, new(big.Int).Mod(par.P, mt).Int64(), v.Mod(v, mt).Int64())
		// T_j·M ≡ M̃_j (mod m̃_j)
		v = new(big.Int).Mul(big.NewInt(int64(tb.T[j])), par.B.M)
		require.Equal(t, new(big.Int).Mod(Mtj, mt).Int64(), v.Mod(v, mt).Int64())
		// NegMtB_j + M̃·σ_j ≡ 0 (mod m_j)
		v = new(big.Int).Add(big.NewInt(int64(tb.NegMtB[j])), new(big.Int).Mul(par.BT.M, sigma))
		require.Zero(t, v.Mod(v, m).Sign())
		for k := range n {
			Mk := new(big.Int).Quo(par.B.M, big.NewInt(int64(par.B.Moduli[k].M)))
			Mtk := new(big.Int).Quo(par.BT.M, big.NewInt(int64(par.BT.Moduli[k].M)))
			require.Equal(t, new(big.Int).Mod(Mk, mt).Uint64(), uint64(tb.Ext1[j*n+k]))
			require.Equal(t, new(big.Int).Mod(Mtk.Mul(Mtk, sigma), m).Uint64(), uint64(tb.Ext2[j*n+k]))
		}
	}
	me := big.NewInt(int64(par.Me()))
	v := new(big.Int).Mul(big.NewInt(int64(tb.MInvE)), par.B.M)
	require.Equal(t, int64(1), v.Mod(v, me).Int64())
	if par.Wide() { // B̃ ends with 2^30: M̃ is even, and α is not Shenoy's
		require.Equal(t, uint32(1<<30), par.BT.Moduli[n-1].M)
		require.Zero(t, tb.MtInvE)
	} else {
		v = new(big.Int).Mul(big.NewInt(int64(tb.MtInvE)), par.BT.M)
		require.Equal(t, int64(1), v.Mod(v, me).Int64())
	}

	words := tb.Words()
	l := basext.LayoutFor(n)
	require.Len(t, words, l.Size)
	require.Equal(t, par.B.Moduli[3].M, words[l.ModB+3])
	require.Equal(t, tb.Ext2[n*n-1], words[l.Ext2+n*n-1])
	require.Equal(t, par.Phi, words[l.Phi])
	require.Equal(t, tb.NegR[n-1], words[l.NegR+n-1])
}

// checkProduct verifies z = Mul(x, y): z ≡ x·y·M^{-1} (mod p), z < u, and
// z's B̃ and m_e residues agree with its B residues.
func checkProduct(t *testing.T, par *rns.Params, x, y *big.Int, z *rns.Element, mInv *big.Int) {
	t.Helper()
	got := crtref.Exact(par, z.B)
	want := new(big.Int).Mul(x, y)
	want.Mul(want, mInv).Mod(want, par.P)
	if new(big.Int).Mod(got, par.P).Cmp(want) != 0 {
		t.Fatalf("x=%x y=%x: result %x is not x·y·M^-1 mod p", x, y, got)
	}
	if got.Cmp(par.U) >= 0 {
		t.Fatalf("x=%x y=%x: result %x is not below u", x, y, got)
	}
	ref := par.NewElement()
	require.NoError(t, par.ToRNS(&ref, got))
	if !ref.Equal(z) {
		t.Fatalf("x=%x y=%x: B̃ or m_e residues disagree with B", x, y)
	}
}

func TestMontMul(t *testing.T) {
	pairs := 100000
	if testing.Short() {
		pairs = 10000
	}
	for name, p := range primes() {
		for _, bits := range rns.Widths {
			par, err := rns.NewParamsBits(p, bits)
			require.NoError(t, err)
			tb := basext.NewTables(par)
			mInv := new(big.Int).ModInverse(par.B.M, p)
			bound := par.AddBound
			edges := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p, big.NewInt(1)), new(big.Int).Set(p),
				new(big.Int).Sub(par.U, big.NewInt(1)), new(big.Int).Sub(bound, big.NewInt(1))}
			for _, v := range basext.VariantsFor(par) {
				t.Run(fmt.Sprintf("%s/%d/%v", name, bits, v), func(t *testing.T) {
					mu := tb.NewMultiplier(v)
					rng := rand.New(rand.NewSource(int64(v) + 7))
					x, y, z := par.NewElement(), par.NewElement(), par.NewElement()
					run := func(a, b *big.Int) {
						require.NoError(t, par.ToRNS(&x, a))
						require.NoError(t, par.ToRNS(&y, b))
						mu.Mul(&z, &x, &y)
						checkProduct(t, par, a, b, &z, mInv)
					}
					for _, a := range edges {
						for _, b := range edges {
							run(a, b)
						}
					}
					for range pairs {
						run(new(big.Int).Rand(rng, bound), new(big.Int).Rand(rng, bound))
					}
					// aliasing: z = x·x in place
					a := new(big.Int).Sub(bound, big.NewInt(1))
					require.NoError(t, par.ToRNS(&x, a))
					mu.Mul(&x, &x, &x)
					checkProduct(t, par, a, a, &x, mInv)
				})
			}
		}
	}
}

// TestVariantsAgree: both extensions recover the same α, so their outputs are identical.
func TestVariantsAgree(t *testing.T) {
	par, err := rns.NewParams(elliptic.P224().Params().P)
	require.NoError(t, err)
	tb := basext.NewTables(par)
	sh, kw := tb.NewMultiplier(basext.Shenoy), tb.NewMultiplier(basext.Kawamura)
	rng := rand.New(rand.NewSource(11))
	x, y, z1, z2 := par.NewElement(), par.NewElement(), par.NewElement(), par.NewElement()
	for range 20000 {
		require.NoError(t, par.ToRNS(&x, new(big.Int).Rand(rng, par.AddBound)))
		require.NoError(t, par.ToRNS(&y, new(big.Int).Rand(rng, par.AddBound)))
		sh.Mul(&z1, &x, &y)
		kw.Mul(&z2, &x, &y)
		require.True(t, z1.Equal(&z2))
	}
}

func TestParseVariant(t *testing.T) {
	for _, v := range basext.Variants {
		got, err := basext.ParseVariant(v.String())
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
	_, err := basext.ParseVariant("montgomery")
	require.ErrorContains(t, err, "shenoy or kawamura")
}

func BenchmarkMontMul(b *testing.B) {
	par, err := rns.NewParams(elliptic.P224().Params().P)
	require.NoError(b, err)
	tb := basext.NewTables(par)
	rng := rand.New(rand.NewSource(1))
	x, y := par.NewElement(), par.NewElement()
	require.NoError(b, par.ToRNS(&x, new(big.Int).Rand(rng, par.AddBound)))
	require.NoError(b, par.ToRNS(&y, new(big.Int).Rand(rng, par.AddBound)))
	for _, v := range basext.Variants {
		b.Run("ext="+v.String(), func(b *testing.B) {
			mu := tb.NewMultiplier(v)
			z := par.NewElement()
			b.ReportAllocs()
			for b.Loop() {
				mu.Mul(&z, &x, &y)
			}
		})
	}
}
