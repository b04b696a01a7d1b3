package basext

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
)

// pairLimits returns the left sides of the pair bounds of par, by name,
// each holding.
func pairLimits(t *testing.T, par *rns.Params) map[string]*big.Int {
	lim := map[string]*big.Int{}
	for _, b := range par.Bounds() {
		if strings.HasPrefix(b.Name, "pair ") {
			require.True(t, b.Holds(), b.Name)
			lim[b.Name] = b.Left
		}
	}
	require.Len(t, lim, 8)
	return lim
}

// checkPair recomputes the byte sums and words of one case in unbounded
// arithmetic (math/big) from the words v and the pre-shifted constants ep,
// and requires the model's values equal to them (nothing wrapped) and
// within the bounds rns.Params proves.
func checkPair(t *testing.T, lim map[string]*big.Int, v []uint32, ep [][4]uint32, name string) {
	p := pairSumsOf(v, ep)
	var d [4]*big.Int
	for g := range 4 {
		d[g] = new(big.Int)
		for k := range v {
			for h := range 4 {
				d[g].Add(d[g], new(big.Int).SetUint64(uint64(byteOf(v[k], h))*uint64(byteOf(ep[k][h], g))))
			}
		}
		require.Equal(t, d[g].Int64(), int64(p.d[g]), "%s: D_%d", name, g)
		require.LessOrEqual(t, d[g].Cmp(lim["pair byte sums exact"]), 0, "%s: D_%d", name, g)
	}
	word := func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, new(big.Int).Lsh(b, 8)) }
	lo, hi := word(d[0], d[1]), word(d[2], d[3])
	require.Equal(t, lo.Uint64(), uint64(p.lo), "%s: lo", name)
	require.Equal(t, hi.Uint64(), uint64(p.hi), "%s: hi", name)
	require.LessOrEqual(t, lo.Cmp(lim["pair lo and hi fit 32 bits"]), 0, "%s: lo", name)
	require.LessOrEqual(t, hi.Cmp(lim["pair lo and hi fit 32 bits"]), 0, "%s: hi", name)
	high := new(big.Int).Add(hi, new(big.Int).Rsh(lo, 16))
	require.LessOrEqual(t, high.Cmp(lim["pair high word"]), 0, "%s: high word", name)
	s := new(big.Int).Add(lo, new(big.Int).Lsh(hi, 16))
	require.Equal(t, uint32(s.Uint64()), p.low, "%s: s mod 2^32", name)
	require.Equal(t, s.Rsh(s, 30).Uint64(), uint64(p.top), "%s: s >> 30", name)
}

// wantPT is (Σ_k v_k·e_k + pt·tj) mod m in math/big.
func wantPT(c fragmentCase, pt uint64, tj, m uint32) uint32 {
	s := new(big.Int).Mul(new(big.Int).SetUint64(pt), big.NewInt(int64(tj)))
	for k := range c.v {
		s.Add(s, new(big.Int).Mul(big.NewInt(int64(c.v[k])), big.NewInt(int64(c.e[k]))))
	}
	return uint32(s.Mod(s, big.NewInt(int64(m))).Uint64())
}

// TestPairSumMatchesBig checks the pair mapping's first extension against
// math/big for every curve on 30-bit channels, onto every modulus of both
// bases, on the extension's own constants, random ones and the edge inputs
// of fragmentCases, with P̃_j the case's extra term times T_j = 1, and the
// largest P̃_j, 2^64 − 1 (a product of lazy residues is below it), times
// T_j = m − 1 and a random T_j. On every case the byte sums, lo, hi and
// the two words of the sum must equal their unbounded values and stay
// within the proved bounds.
func TestPairSumMatchesBig(t *testing.T) {
	limits := map[*rns.Params]map[string]*big.Int{}
	rng := rand.New(rand.NewPCG(10, 10))
	forExtensionCases(t, 31, 9, func(par *rns.Params, m *rns.Modulus, fc fragmentCase, name string) {
		if m == nil { // the pair mapping keeps no m_e
			return
		}
		if limits[par] == nil {
			limits[par] = pairLimits(t, par)
		}
		for _, pt := range []struct {
			p  uint64
			tj uint32
		}{{fc.extra, 1}, {1<<64 - 1, m.M - 1}, {rng.Uint64(), rng.Uint32N(m.M)}} {
			require.Equal(t, wantPT(fc, pt.p, pt.tj, m.M), PairSum(fc.v, fc.e, pt.p, pt.tj, *m), "%s, P̃ %d, T %d", name, pt.p, pt.tj)
			checkPair(t, limits[par], withPT(fc.v, pt.p), pairShiftedMod(withT(fc.e, pt.tj, pow32Mod(pt.tj, *m)), *m), name)
		}
	})
}

// TestPairSumAgreesWithFragmentSum: on the first extension's real constants
// and T_j, the pair mapping's model gives the mma mapping's values, whose
// P̃_j·T_j is one more 64-bit term.
func TestPairSumAgreesWithFragmentSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range curves.All() {
		par, err := rns.NewParamsBits(c.P(), rns.WideChannelBits)
		require.NoError(t, err)
		tab := NewTables(par)
		n := par.N
		for range 100 {
			q := make([]uint32, n)
			for k, m := range par.B.Moduli {
				q[k] = rng.Uint32N(m.M)
			}
			for j, m := range par.BT.Moduli {
				row, x, y := tab.Ext1[j*n:(j+1)*n], rng.Uint32N(m.M), rng.Uint32N(m.M)
				pt, tj := uint64(x)*uint64(y), tab.T[j]
				extra := m.Reduce64(uint64(uint32(pt>>32))*uint64(pow32Mod(tj, m))) + m.Reduce64(uint64(uint32(pt))*uint64(tj))
				require.Equal(t, FragmentSum(q, row, m, uint64(extra)), PairSum(q, row, pt, tj, m), c.Name())
			}
		}
	}
}

// TestPairSumWrongRecombinationFails: the checks of TestPairSumMatchesBig
// catch a recombination that weighs a word or a byte wrongly, or P̃_j's
// high word with T_j instead of 2^32·T_j, so they can fail.
func TestPairSumWrongRecombinationFails(t *testing.T) {
	mismatches := mismatchCounter(t, 3, 4)
	right := func(v, e []uint32, m rns.Modulus, extra uint64) uint32 { return PairSum(v, e, extra, 1, m) }
	require.Zero(t, mismatches(right))
	for name, wrong := range map[string]sumFunc{
		"hi weighted 2^8": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			p := pairSumsOf(withPT(v, extra), pairShiftedMod(withT(e, 1, pow32Mod(1, m)), m))
			return m.Reduce64(uint64(p.lo) + uint64(p.hi)<<8)
		},
		"s >> 32 folded as s >> 30": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			p := pairSumsOf(withPT(v, extra), pairShiftedMod(withT(e, 1, pow32Mod(1, m)), m))
			p.top = (p.hi + p.lo>>16) >> 16
			return p.fold(m)
		},
		"constants shifted by 2^8 only": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			ep := pairShiftedMod(withT(e, 1, pow32Mod(1, m)), m)
			for k := range ep {
				ep[k][2], ep[k][3] = ep[k][1], ep[k][1]
			}
			return pairSumsOf(withPT(v, extra), ep).fold(m)
		},
		"P̃'s high word times T_j": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			return pairSumsOf(withPT(v, extra), pairShiftedMod(withT(e, 1, 1), m)).fold(m)
		},
	} {
		require.Positive(t, mismatches(wrong), name)
	}
}

// TestPairSecondSumMatchesBig: the pair mapping's second extension, α inside
// the byte sums and the sum folded from two 32-bit words, equals
// (Σ_k v_k·Ext2[j][k] + α·NegMtB_j) mod m_j computed in math/big, for every
// curve and output j, on random residues below 2^30, the largest ones, and
// α from 0 to 255 (the pair α bounds keep it far lower).
func TestPairSecondSumMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range curves.All() {
		par, err := rns.NewParamsBits(c.P(), rns.WideChannelBits)
		require.NoError(t, err)
		tab := NewTables(par)
		n := par.N
		for i := range 300 {
			v := make([]uint32, n)
			for k := range v {
				v[k] = rng.Uint32N(1 << 30)
				if i%3 == 0 {
					v[k] = 1<<30 - 1
				}
			}
			alpha := uint32(i % 256)
			for j, m := range par.B.Moduli {
				row := tab.Ext2[j*n : (j+1)*n]
				want := new(big.Int).Mul(big.NewInt(int64(alpha)), big.NewInt(int64(tab.NegMtB[j])))
				for k := range v {
					want.Add(want, new(big.Int).Mul(big.NewInt(int64(v[k])), big.NewInt(int64(row[k]))))
				}
				want.Mod(want, big.NewInt(int64(m.M)))
				require.Equal(t, uint32(want.Uint64()), PairSecondSum(v, row, alpha, tab.NegMtB[j], m), "%s: output %d", c.Name(), j)
			}
		}
	}
}
