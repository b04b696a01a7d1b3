package rns

import (
	"crypto/elliptic"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var mmaNames = []string{"mma byte sums exact", "mma lo fits 32 bits", "mma mid fits 32 bits", "mma hi fits 32 bits", "mma 64-bit sum"}

// TestMMABounds: wide params carry the mma mapping's five bounds, once each
// and holding, with the left sides of P-256 (n = 9, m_max = 2^30, B̃'s
// last modulus, m_e = 16) worked out by hand: 2n·255² = 1,170,450,
// lo = hi = 1,170,450·257 = 300,805,650, mid = 601,611,300 and
// s = hi·2^32 + lo + 2^16·mid + (2^32 − 1)·(2^30 − 1) + ⌊(2^30 − 1)²/2^32⌋·(2^30 − 1)
// (the first extension's P̃_j·T_j, P̃_j unreduced); 16-bit params have none.
func TestMMABounds(t *testing.T) {
	par, err := NewParamsBits(elliptic.P256().Params().P, WideChannelBits)
	require.NoError(t, err)
	require.Equal(t, 9, par.N)
	require.Equal(t, uint32(1<<30), par.maxModulus())
	require.Equal(t, uint32(16), par.Me())
	s, _ := new(big.Int).SetString("6191906244569198100", 10)
	want := map[string]*big.Int{
		"mma byte sums exact":  big.NewInt(1170450),
		"mma lo fits 32 bits":  big.NewInt(300805650),
		"mma mid fits 32 bits": big.NewInt(601611300),
		"mma hi fits 32 bits":  big.NewInt(300805650),
		"mma 64-bit sum":       s,
	}
	requireBounds(t, par, "mma ", want)
	require.NoError(t, par.Verify())
}

// requireBounds requires the bounds of wide P-256 params whose names start
// with prefix to be want's, once each, holding, explained, with want's left
// sides; and 16-bit P-256 params to have none of them.
func requireBounds(t *testing.T, par *Params, prefix string, want map[string]*big.Int) {
	t.Helper()
	got := map[string]*big.Int{}
	for _, b := range par.Bounds() {
		if strings.HasPrefix(b.Name, prefix) {
			require.NotContains(t, got, b.Name, "bound listed twice")
			require.True(t, b.Holds(), b.Name)
			require.NotEmpty(t, b.Why, b.Name)
			got[b.Name] = b.Left
		}
	}
	require.Len(t, got, len(want))
	for name, w := range want {
		require.Equal(t, 0, w.Cmp(got[name]), "%s: left side %s, want %s", name, got[name], w)
	}
	narrow, err := NewParams(elliptic.P256().Params().P)
	require.NoError(t, err)
	for _, b := range narrow.Bounds() {
		require.False(t, strings.HasPrefix(b.Name, prefix), b.Name)
	}
}

// TestMMABoundsLimits: each mma bound fails exactly where its inequality
// says, n channels being the only thing that grows: the byte sums at
// 2n·255² >= 2^31 (n = 16,513), lo and hi at n = 129, mid at n = 65 (the
// one that binds first), the 64-bit sum with m_max = 2^30 − 1 at n = 95;
// and the unreduced P̃_j·T_j, not α·|−M̃|, is the larger extra term even for
// the largest m_e.
func TestMMABoundsLimits(t *testing.T) {
	requireLimits(t, func(n int) []Bound { return mmaBounds(n, 1<<30-1, 16) }, len(mmaNames), map[string]int{
		"mma byte sums exact":  16512,
		"mma lo fits 32 bits":  128,
		"mma hi fits 32 bits":  128,
		"mma mid fits 32 bits": 64,
		"mma 64-bit sum":       94,
	})
	sum := func(me uint32) *big.Int {
		for _, b := range mmaBounds(9, 1<<30-1, me) {
			if b.Name == "mma 64-bit sum" {
				return b.Left
			}
		}
		t.Fatal("no mma 64-bit sum")
		return nil
	}
	// (2^32 − 1)·(2^30 − 2) + ⌊(2^30 − 2)²/2^32⌋·(2^30 − 2) > (2^30 − 2)·(2^32 − 2)
	require.Equal(t, 0, sum(16).Cmp(sum(1<<32-1)), "the split P̃_j·T_j binds for every m_e")
}

var pairNames = []string{"pair byte sums exact", "pair lo and hi fit 32 bits", "pair high word"}

// TestPairBounds: wide params carry the pair mapping's bounds, once each and
// holding, with the left sides of P-256 (n = 9) worked out by hand:
// (4n + 8)·255² = 2,861,100 (the first extension's 36 bytes of q and P̃_j's
// eight), lo = hi = 2,861,100·257 = 735,302,700, the high word's sum
// 735,302,700 + ⌊735,302,700/2^16⌋ = 735,313,919; both extensions' fold
// c_max·(⌊s_max/2^30⌋ + 2), c_max of B and B̃, with s_max = 735,302,700·
// (1 + 2^16), ⌊s_max/2^30⌋ = 44,879; and α's: three ξ̃ on a lane, Φ = 5
// (2^6·Δ is 4·(1 − 2^-24) plus 2^6·Σ_k c_k/2^30, above 2^-22), 2^6·u, and
// ⌊Σ_k (m̃_k − 1)/2^24⌋ + 5; 16-bit params have none.
func TestPairBounds(t *testing.T) {
	par, err := NewParamsBits(elliptic.P256().Params().P, WideChannelBits)
	require.NoError(t, err)
	cMax, mtMax, mtSum := uint32(0), uint32(0), uint64(0)
	for _, m := range par.B.Moduli {
		cMax = max(cMax, m.C)
	}
	for _, m := range par.BT.Moduli {
		cMax, mtMax, mtSum = max(cMax, m.C), max(mtMax, m.M), mtSum+uint64(m.M)-1
	}
	want := map[string]*big.Int{
		"pair byte sums exact":         big.NewInt(2861100),
		"pair lo and hi fit 32 bits":   big.NewInt(735302700),
		"pair high word":               big.NewInt(735313919),
		"pair extensions in 32 bits":   big.NewInt(int64(cMax) * (44879 + 2)),
		"pair α lane sums fit 32 bits": big.NewInt(3 * (int64(mtMax) - 1)),
		"pair α: Φ covers Δ":           big.NewInt(5),
		"pair α exact":                 new(big.Int).Mul(big.NewInt(64*11), par.P),
		"pair α in a byte":             big.NewInt(int64(mtSum>>24) + 5),
	}
	requireBounds(t, par, "pair ", want)
}

// TestPairBoundsLimits: each pair bound fails exactly where its inequality
// says as n grows: the byte sums at (4n + 8)·255² >= 2^31 (n = 8,255), lo and
// hi at (4n + 8)·255²·257 >= 2^32 (n = 63), the high word's sum at n = 63 too.
func TestPairBoundsLimits(t *testing.T) {
	requireLimits(t, pairBounds, len(pairNames), map[string]int{
		"pair byte sums exact":       8254,
		"pair lo and hi fit 32 bits": 62,
		"pair high word":             62,
	})
}

// TestPairFoldBoundLimits: both extensions' fold holds up to the c for which
// c·(44,879 + 2) <= 2^30 (P-256's n = 9), in B or in B̃ alike.
func TestPairFoldBoundLimits(t *testing.T) {
	par, err := NewParamsBits(elliptic.P256().Params().P, WideChannelBits)
	require.NoError(t, err)
	limit := uint32(1<<30) / (44879 + 2)
	for _, base := range []string{"B", "B̃"} {
		for _, c := range []uint32{limit, limit + 1} {
			q := *par
			m := Modulus{M: 1<<30 - c, C: c, Bits: WideChannelBits, Folds: 1}
			if base == "B" {
				q.B = newBasis(append(par.B.Moduli[:1:1], m))
			} else {
				q.BT = newBasis(append(par.BT.Moduli[:1:1], m))
			}
			require.Equal(t, c == limit, q.pairFoldBound().Holds(), "%s, c = %d", base, c)
		}
	}
}

// holdsAt returns whether each of the count bounds of bounds(n) holds, by name.
func holdsAt(t *testing.T, bounds func(n int) []Bound, count, n int) map[string]bool {
	t.Helper()
	h := map[string]bool{}
	for _, b := range bounds(n) {
		h[b.Name] = b.Holds()
	}
	require.Len(t, h, count)
	return h
}

// requireLimits requires each bound named in last to hold at n = last[name]
// and to fail at n = last[name] + 1.
func requireLimits(t *testing.T, bounds func(n int) []Bound, count int, last map[string]int) {
	t.Helper()
	for name, n := range last {
		require.True(t, holdsAt(t, bounds, count, n)[name], "%s at n = %d", name, n)
		require.False(t, holdsAt(t, bounds, count, n+1)[name], "%s at n = %d", name, n+1)
	}
}

// TestWideFoldBoundLimits: the 32-bit fold lo32(z) − (z >> 30)·m is exact up
// to c = 14,187 and not at the next odd c. Worked out by hand for the largest
// input z = (2^32 − 1)·(4c + 1): at c = 14,187, z >> 30 = 226,995 and the
// largest fold, c·226,994 + 2^30 − 1 = 4,294,105,701, is below 2^32; at
// c = 14,189 it is 4,295,013,737. The supported curves' moduli have c below
// a thousand.
func TestWideFoldBoundLimits(t *testing.T) {
	holds := func(c uint32) bool {
		m := Modulus{M: 1<<30 - c, C: c, Bits: WideChannelBits, Folds: 1}
		b := newBasis([]Modulus{m})
		return (&Params{Bits: WideChannelBits, N: 1, B: b, BT: b}).wideFoldBound().Holds()
	}
	require.True(t, holds(14187))
	require.False(t, holds(14189))
	for _, p := range []*big.Int{elliptic.P224().Params().P, elliptic.P256().Params().P} {
		par, err := NewParamsBits(p, WideChannelBits)
		require.NoError(t, err)
		require.True(t, par.wideFoldBound().Holds())
	}
}

// TestPairAlphaMostTerms: the sums S_l of PairAlpha's grouping take at most
// ⌈n/4⌉ of the ξ̃ while channels 8 and up are one (n <= 9), and all of
// them from 8 up beside channels 0 and 4 after that.
func TestPairAlphaMostTerms(t *testing.T) {
	for n, want := range map[int]int{1: 1, 4: 1, 5: 2, 8: 2, 9: 3, 10: 4, 12: 6} {
		require.Equal(t, want, pairAlphaMostTerms(n), "n = %d", n)
	}
}
