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
	require.Len(t, lim, 9)
	return lim
}

// checkPair recomputes the byte sums and words of one case in unbounded
// arithmetic (math/big) from the pre-shifted constants ep, and requires the
// model's values equal to them (nothing wrapped) and within the bounds
// rns.Params proves.
func checkPair(t *testing.T, lim map[string]*big.Int, p pairSums, v []uint32, ep [][4]uint32, extra uint64, name string) {
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
	require.Equal(t, s.Uint64(), uint64(p.upper)<<32|uint64(p.low), "%s: the two words", name)
	s.Add(s, new(big.Int).SetUint64(extra))
	require.Equal(t, s.Uint64(), p.sum64(extra), "%s: s", name)
	require.LessOrEqual(t, s.Cmp(lim["pair 64-bit sum"]), 0, "%s: s", name)
}

// TestPairSumMatchesBig checks the pair mapping's arithmetic against
// math/big for every curve on 30-bit channels: both extensions onto every
// modulus and onto m_e, on the extension's own constants, random ones and
// the edge inputs of fragmentCases, with extra 0 and its largest value. On
// every case the byte sums, lo, hi, the two words of the sum and the 64-bit
// sum must equal their unbounded values and stay within the proved bounds.
func TestPairSumMatchesBig(t *testing.T) {
	limits := map[*rns.Params]map[string]*big.Int{}
	forExtensionCases(t, 31, 9, func(par *rns.Params, m *rns.Modulus, fc fragmentCase, name string) {
		if limits[par] == nil {
			limits[par] = pairLimits(t, par)
		}
		lim := limits[par]
		if m == nil {
			require.Equal(t, want(fc, 0), PairSumPow2(fc.v, fc.e, fc.extra), name)
			ep := pairShiftedPow2(fc.e)
			checkPair(t, lim, pairSumsOf(fc.v, ep), fc.v, ep, fc.extra, name)
			return
		}
		require.Equal(t, want(fc, m.M), PairSum(fc.v, fc.e, *m, fc.extra), name)
		ep := pairShiftedMod(fc.e, *m)
		checkPair(t, lim, pairSumsOf(fc.v, ep), fc.v, ep, fc.extra, name)
	})
}

// TestPairSumAgreesWithFragmentSum: on the extensions' real constants and
// extra terms, the pair mapping's model gives the mma mapping's values.
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
				row, extra := tab.Ext1[j*n:(j+1)*n], rng.Uint64N(uint64(m.M-1)*uint64(m.M-1)+1)
				require.Equal(t, FragmentSum(q, row, m, extra), PairSum(q, row, m, extra), c.Name())
			}
			require.Equal(t, FragmentSumPow2(q, tab.Ext1E, 0), PairSumPow2(q, tab.Ext1E, 0), c.Name())
		}
	}
}

// TestPairSumWrongRecombinationFails: the checks of TestPairSumMatchesBig
// catch a recombination that weighs a word or a byte wrongly, so they can
// fail.
func TestPairSumWrongRecombinationFails(t *testing.T) {
	mismatches := mismatchCounter(t, 3, 4)
	require.Zero(t, mismatches(PairSum))
	for name, wrong := range map[string]sumFunc{
		"hi weighted 2^8": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			p := pairSumsOf(v, pairShiftedMod(e, m))
			return m.Reduce64(uint64(p.lo) + uint64(p.hi)<<8 + extra)
		},
		"the high word without lo's carry": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			p := pairSumsOf(v, pairShiftedMod(e, m))
			return m.Reduce64((uint64(p.hi>>16)<<32 | uint64(p.low)) + extra)
		},
		"constants shifted by 2^8 only": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			ep := pairShiftedMod(e, m)
			for k := range ep {
				ep[k][2], ep[k][3] = ep[k][1], ep[k][1]
			}
			return m.Reduce64(pairSumsOf(v, ep).sum64(extra))
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
