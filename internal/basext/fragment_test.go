package basext

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
)

// fragmentCase is one input of the mma mapping's extension sum: residues v,
// constants e, the extra term, and a name for failures.
type fragmentCase struct {
	name  string
	v, e  []uint32
	extra uint64
}

// fill returns n copies of x.
func fill(n int, x uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = x
	}
	return s
}

// fragmentCases returns the inputs tried for one output: the extension's
// real constants row, random residues below the input moduli and random
// constants below out (out = 0: any 32-bit constant, the m_e form), and the
// edge inputs: every residue m_k − 1 or 2^30 − 1, every constant out − 1
// (0xffffffff for m_e), zeros, a single non-zero term, each with extra 0
// and extraMax.
func fragmentCases(rng *rand.Rand, in []rns.Modulus, row []uint32, out uint32, extraMax uint64) []fragmentCase {
	n := len(in)
	constant := func() uint32 {
		if out == 0 {
			return rng.Uint32()
		}
		return rng.Uint32N(out)
	}
	top := out - 1 // 0xffffffff for m_e (out = 0)
	inTop := make([]uint32, n)
	for k, m := range in {
		inTop[k] = m.M - 1
	}
	var cs []fragmentCase
	for _, extra := range []uint64{0, extraMax} {
		x := fmt.Sprintf(", extra %d", extra)
		cs = append(cs,
			fragmentCase{"residues m_k − 1, constants max" + x, inTop, fill(n, top), extra},
			fragmentCase{"residues 2^30 − 1, constants max" + x, fill(n, 1<<30-1), fill(n, top), extra},
			fragmentCase{"residues 2^30 − 1, the extension's constants" + x, fill(n, 1<<30-1), row, extra},
			fragmentCase{"zero residues" + x, fill(n, 0), fill(n, top), extra},
			fragmentCase{"zero constants" + x, fill(n, 1<<30-1), fill(n, 0), extra},
		)
		for j := range n {
			v, e := fill(n, 0), fill(n, 0)
			v[j], e[j] = 1<<30-1, top
			cs = append(cs, fragmentCase{fmt.Sprintf("single term %d%s", j, x), v, e, extra})
		}
	}
	for trial := range 40 {
		v, e, ev := make([]uint32, n), make([]uint32, n), make([]uint32, n)
		for k, m := range in {
			v[k], e[k], ev[k] = rng.Uint32N(m.M), constant(), rng.Uint32N(1<<30)
		}
		extra := rng.Uint64N(extraMax + 1)
		cs = append(cs,
			fragmentCase{fmt.Sprintf("random %d", trial), v, e, extra},
			fragmentCase{fmt.Sprintf("random %d, the extension's constants", trial), v, row, extra},
			fragmentCase{fmt.Sprintf("random %d, residues below 2^30", trial), ev, e, extra},
		)
	}
	return cs
}

// want returns (Σ v_k·e_k + extra) mod m with math/big; m = 0 means 2^32.
func want(c fragmentCase, m uint32) uint32 {
	s := new(big.Int).SetUint64(c.extra)
	for k := range c.v {
		s.Add(s, new(big.Int).Mul(big.NewInt(int64(c.v[k])), big.NewInt(int64(c.e[k]))))
	}
	mod := new(big.Int).Lsh(big.NewInt(1), 32)
	if m != 0 {
		mod.SetUint64(uint64(m))
	}
	return uint32(s.Mod(s, mod).Uint64())
}

// mmaLimits returns the left sides of the mma bounds of par, by name.
func mmaLimits(t *testing.T, par *rns.Params) map[string]*big.Int {
	lim := map[string]*big.Int{}
	for _, b := range par.Bounds() {
		lim[b.Name] = b.Left
		if len(b.Name) > 4 && b.Name[:4] == "mma " {
			require.True(t, b.Holds(), b.Name)
		}
	}
	for _, name := range []string{"mma byte sums exact", "mma lo fits 32 bits", "mma mid fits 32 bits", "mma hi fits 32 bits", "mma 64-bit sum"} {
		require.Contains(t, lim, name)
	}
	return lim
}

// checkFragment recomputes the byte sums and words of one case in
// unbounded arithmetic (math/big), from the pre-shifted constants ep, and
// requires the model's 32-bit values equal to them (nothing wrapped) and
// every one within the proved bound of rns.Params.
func checkFragment(t *testing.T, lim map[string]*big.Int, f fragment, v []uint32, ep [][2]uint32, extra uint64, name string) {
	var d [2][4]*big.Int
	for r := range 2 {
		for g := range 4 {
			d[r][g] = new(big.Int)
			for k := range v {
				for h := range 2 {
					p := uint64(v[k]>>(8*(h+2*r))&0xff) * uint64(ep[k][h]>>(8*g)&0xff)
					d[r][g].Add(d[r][g], new(big.Int).SetUint64(p))
				}
			}
			require.Equal(t, d[r][g].Int64(), int64(f.d[r][g]), "%s: D_%d[%d]", name, r, g)
			require.LessOrEqual(t, d[r][g].Cmp(lim["mma byte sums exact"]), 0, "%s: D_%d[%d]", name, r, g)
		}
	}
	word := func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, new(big.Int).Lsh(b, 8)) }
	lo := word(d[0][0], d[0][1])
	mid := word(new(big.Int).Add(d[0][2], d[1][0]), new(big.Int).Add(d[0][3], d[1][1]))
	hi := word(d[1][2], d[1][3])
	for _, w := range []struct {
		name string
		got  uint32
		big  *big.Int
	}{{"lo", f.lo, lo}, {"mid", f.mid, mid}, {"hi", f.hi, hi}} {
		require.Equal(t, w.big.Uint64(), uint64(w.got), "%s: %s", name, w.name)
		require.LessOrEqual(t, w.big.Cmp(lim["mma "+w.name+" fits 32 bits"]), 0, "%s: %s", name, w.name)
	}
	s := new(big.Int).Lsh(hi, 32)
	s.Add(s, lo).Add(s, new(big.Int).Lsh(mid, 16)).Add(s, new(big.Int).SetUint64(extra))
	require.Equal(t, s.Uint64(), f.sum64(extra), "%s: s", name)
	require.LessOrEqual(t, s.Cmp(lim["mma 64-bit sum"]), 0, "%s: s", name)
}

// TestFragmentSumMatchesBig checks the mma mapping's arithmetic against
// math/big for P-224, P-256 and secp256k1 on 30-bit channels: both
// extensions (residues of B onto every modulus of B̃, of B̃ onto every
// modulus of B) and both onto m_e, on the extension's own constants, random
// ones and edge inputs, with extra 0 and its largest value
// ((m − 1)² for a channel, as P̃_j·T_j can be). On every case the byte sums,
// lo, mid, hi and the 64-bit sum must equal their unbounded values and stay
// within the bounds rns.Params proves.
func TestFragmentSumMatchesBig(t *testing.T) {
	limits := map[*rns.Params]map[string]*big.Int{}
	forExtensionCases(t, 30, 8, func(par *rns.Params, m *rns.Modulus, fc fragmentCase, name string) {
		if limits[par] == nil {
			limits[par] = mmaLimits(t, par)
		}
		lim := limits[par]
		if m == nil {
			require.Equal(t, want(fc, 0), FragmentSumPow2(fc.v, fc.e, fc.extra), name)
			// the m_e value is the low MeBits bits
			require.Equal(t, want(fc, 0)&(par.Me()-1), FragmentSumPow2(fc.v, fc.e, fc.extra)&(par.Me()-1), name)
			checkFragment(t, lim, fragmentForPow2(fc.v, fc.e), fc.v, shiftedPow2(fc.e), fc.extra, name)
			return
		}
		require.Equal(t, want(fc, m.M), FragmentSum(fc.v, fc.e, *m, fc.extra), name)
		checkFragment(t, lim, fragmentFor(fc.v, fc.e, *m), fc.v, shiftedMod(fc.e, *m), fc.extra, name)
	})
}

// forExtensionCases calls check on every case of fragmentCases for every
// curve on 30-bit channels: both extensions (residues of B onto every
// modulus of B̃, of B̃ onto every modulus of B) with extra up to (m − 1)²,
// and both onto m_e (m nil) with extra up to (m_max − 1)·max(m_max, m_e)
// − 1; name says which. The cases come from a generator seeded with seed1
// and seed2.
func forExtensionCases(t *testing.T, seed1, seed2 uint64, check func(par *rns.Params, m *rns.Modulus, fc fragmentCase, name string)) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for _, c := range curves.All() {
		par, err := rns.NewParamsBits(c.P(), rns.WideChannelBits)
		require.NoError(t, err)
		tab := NewTables(par)
		n := par.N
		var mMax uint32
		for _, m := range append(append([]rns.Modulus{}, par.B.Moduli...), par.BT.Moduli...) {
			mMax = max(mMax, m.M)
		}
		for _, ext := range []struct {
			name    string
			in, out []rns.Modulus
			rows    []uint32 // n×n, the output channel as row
			rowE    []uint32 // the m_e row
		}{
			{"B → B̃", par.B.Moduli, par.BT.Moduli, tab.Ext1, tab.Ext1E},
			{"B̃ → B", par.BT.Moduli, par.B.Moduli, tab.Ext2, tab.Ext2E},
		} {
			for j := range ext.out {
				m := &ext.out[j]
				row := ext.rows[j*n : (j+1)*n]
				for _, fc := range fragmentCases(rng, ext.in, row, m.M, uint64(m.M-1)*uint64(m.M-1)) {
					check(par, m, fc, fmt.Sprintf("%s %s onto m = %d: %s", c.Name(), ext.name, m.M, fc.name))
				}
			}
			extraMax := uint64(mMax-1) * uint64(max(mMax, par.Me())-1)
			for _, fc := range fragmentCases(rng, ext.in, ext.rowE, 0, extraMax) {
				check(par, nil, fc, fmt.Sprintf("%s %s onto m_e: %s", c.Name(), ext.name, fc.name))
			}
		}
	}
}

// TestFragmentSumAgreesWithMultiplier: on the extensions' real constants
// and extra terms, FragmentSum gives the channel values Multiplier.Mul
// computes with one 64-bit multiply-add per term.
func TestFragmentSumAgreesWithMultiplier(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range curves.All() {
		par, err := rns.NewParamsBits(c.P(), rns.WideChannelBits)
		require.NoError(t, err)
		tab := NewTables(par)
		n := par.N
		for range 200 {
			xi, alpha := make([]uint32, n), rng.Uint32N(par.Me())
			for k, m := range par.BT.Moduli {
				xi[k] = rng.Uint32N(m.M)
			}
			for j, m := range par.B.Moduli {
				row := tab.Ext2[j*n : (j+1)*n]
				acc := uint64(alpha) * uint64(tab.NegMtB[j])
				for k := range xi {
					acc += uint64(xi[k]) * uint64(row[k])
				}
				require.Equal(t, m.Reduce64(acc), FragmentSum(xi, row, m, uint64(alpha)*uint64(tab.NegMtB[j])), c.Name())
			}
			var s uint32
			for k := range xi {
				s += xi[k] * tab.Ext2E[k]
			}
			require.Equal(t, s, FragmentSumPow2(xi, tab.Ext2E, 0), c.Name())
		}
	}
}

// sumFunc is a model of an extension's output: (Σ v_k·e_k + extra) mod m.
type sumFunc func(v, e []uint32, m rns.Modulus, extra uint64) uint32

// mismatchCounter returns a function that counts the cases of
// fragmentCases, over every output of P-256's B̃ → B extension on 30-bit
// channels, where a model differs from math/big; each count draws the same
// cases, from a generator seeded with seed1 and seed2.
func mismatchCounter(t *testing.T, seed1, seed2 uint64) func(sumFunc) int {
	par, err := rns.NewParamsBits(curves.P256().P(), rns.WideChannelBits)
	require.NoError(t, err)
	tab := NewTables(par)
	n := par.N
	return func(sum sumFunc) int {
		rng := rand.New(rand.NewPCG(seed1, seed2))
		bad := 0
		for j, m := range par.B.Moduli {
			for _, fc := range fragmentCases(rng, par.BT.Moduli, tab.Ext2[j*n:(j+1)*n], m.M, uint64(m.M-1)*uint64(m.M-1)) {
				if sum(fc.v, fc.e, m, fc.extra) != want(fc, m.M) {
					bad++
				}
			}
		}
		return bad
	}
}

// TestFragmentSumWrongRecombinationFails: the checks of
// TestFragmentSumMatchesBig catch a recombination that weighs a word or a
// byte wrongly, so they can fail.
func TestFragmentSumWrongRecombinationFails(t *testing.T) {
	mismatches := mismatchCounter(t, 1, 2)
	require.Zero(t, mismatches(FragmentSum))
	for name, wrong := range map[string]sumFunc{
		"mid weighted 2^8": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			f := fragmentFor(v, e, m)
			return m.Reduce64(uint64(f.hi)<<32 + uint64(f.lo) + uint64(f.mid)<<8 + extra)
		},
		"hi weighted 2^24": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			f := fragmentFor(v, e, m)
			return m.Reduce64(uint64(f.hi)<<24 + uint64(f.lo) + uint64(f.mid)<<16 + extra)
		},
		"constants not pre-shifted": func(v, e []uint32, m rns.Modulus, extra uint64) uint32 {
			ep := shiftedMod(e, m)
			for k := range ep {
				ep[k][1] = ep[k][0]
			}
			return m.Reduce64(fragmentSums(v, ep).sum64(extra))
		},
		"extra left out": func(v, e []uint32, m rns.Modulus, _ uint64) uint32 {
			return FragmentSum(v, e, m, 0)
		},
	} {
		require.Positive(t, mismatches(wrong), name)
	}
	// And the m_e form with mid weighted 2^8, on P-256's n = 9 channels.
	v, e := fill(9, 1<<30-1), fill(9, 0xffffffff)
	f := fragmentForPow2(v, e)
	require.NotEqual(t, want(fragmentCase{v: v, e: e}, 0), uint32(uint64(f.lo)+uint64(f.mid)<<8))
}
