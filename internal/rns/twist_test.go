package rns_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/rns"
)

// negRBig returns −(p·M_j)^{-1} mod m_j of base b with math/big.
func negRBig(p *big.Int, b rns.Basis, j int) *big.Int {
	m := big.NewInt(int64(b.Moduli[j].M))
	part := new(big.Int).Quo(b.M, m)
	r := new(big.Int).ModInverse(part.Mul(part, p), m)
	return r.Mod(r.Neg(r), m)
}

// TestTwist: on wide systems every modulus of B is prime and its σ_j, the
// smaller root, squares to −(p·M_j)^{-1} mod m_j (NegR); 16-bit systems are
// not twisted (σ_j = 1).
func TestTwist(t *testing.T) {
	for name, p := range primes() {
		par, err := rns.NewParamsBits(p, rns.WideChannelBits)
		require.NoError(t, err)
		require.True(t, par.Twisted())
		require.Len(t, par.Twist, par.N)
		for j, mod := range par.B.Moduli {
			m := big.NewInt(int64(mod.M))
			require.True(t, m.ProbablyPrime(20), "%s: m_%d = %d", name, j, mod.M)
			s := big.NewInt(int64(par.Twist[j]))
			require.True(t, 2*par.Twist[j] < mod.M, "%s: σ_%d is the smaller root", name, j)
			want := negRBig(p, par.B, j)
			require.Equal(t, want.Uint64(), uint64(par.NegR(j)), "%s: NegR_%d", name, j)
			require.Equal(t, 0, s.Mul(s, s).Mod(s, m).Cmp(want), "%s: σ_%d² ≢ NegR_%d", name, j, j)
		}
		narrow, err := rns.NewParams(p)
		require.NoError(t, err)
		require.False(t, narrow.Twisted())
		for _, s := range narrow.Twist {
			require.Equal(t, uint32(1), s)
		}
	}
}

// TestTwistedBasesFirst: B is the first n-subset of the prime candidates, in
// lexicographic order of positions, whose NegR_j are all squares (found
// here by trying every earlier subset with math/big's ModSqrt), and B̃ the
// first n candidates left.
func TestTwistedBasesFirst(t *testing.T) {
	cands, err := rns.CandidateModuliBits(rns.WideChannelBits, 128)
	require.NoError(t, err)
	var primeAt []int
	for i, c := range cands {
		if big.NewInt(int64(c.M)).ProbablyPrime(20) {
			primeAt = append(primeAt, i)
		}
	}
	for name, p := range primes() {
		par, err := rns.NewParamsBits(p, rns.WideChannelBits)
		require.NoError(t, err)
		n := par.N
		qualifies := func(pick []int) bool {
			var mods []rns.Modulus
			for _, a := range pick {
				mods = append(mods, cands[primeAt[a]])
			}
			b := rns.Basis{Moduli: mods, M: big.NewInt(1)}
			for _, m := range mods {
				b.M.Mul(b.M, big.NewInt(int64(m.M)))
			}
			for j := range mods {
				if new(big.Int).ModSqrt(negRBig(p, b, j), big.NewInt(int64(mods[j].M))) == nil {
					return false
				}
			}
			return true
		}
		pick := make([]int, n)
		for i := range pick {
			pick[i] = i
		}
		for !qualifies(pick) {
			require.True(t, nextSubset(pick, len(primeAt)), "%s: no subset qualifies", name)
		}
		inB := map[uint32]bool{}
		for i, a := range pick {
			require.Equal(t, cands[primeAt[a]].M, par.B.Moduli[i].M, "%s: B[%d]", name, i)
			inB[cands[primeAt[a]].M] = true
		}
		var bt []uint32
		for _, c := range cands {
			if len(bt) < n-1 && !inB[c.M] {
				bt = append(bt, c.M)
			}
		}
		bt = append(bt, 1<<30) // B̃ ends with 2^30
		for i, m := range par.BT.Moduli {
			require.Equal(t, bt[i], m.M, "%s: B̃[%d]", name, i)
		}
	}
}

// nextSubset steps pick, ascending positions below k, to the next subset
// of its size in lexicographic order; false after the last.
func nextSubset(pick []int, k int) bool {
	n := len(pick)
	for i := n - 1; i >= 0; i-- {
		if pick[i] < k-(n-i) {
			pick[i]++
			for j := i + 1; j < n; j++ {
				pick[j] = pick[j-1] + 1
			}
			return true
		}
	}
	return false
}

// TestTwistBoundCatchesWrongSigma: Verify fails, naming the bound, when one
// σ_j is off by one, or when a twist is missing.
func TestTwistBoundCatchesWrongSigma(t *testing.T) {
	par, err := rns.NewParamsBits(p224(), rns.WideChannelBits)
	require.NoError(t, err)
	for j := range par.N {
		bad := *par
		bad.Twist = append([]uint32{}, par.Twist...)
		bad.Twist[j]++
		require.ErrorContains(t, bad.Verify(), "twist squares NegR", "σ_%d + 1", j)
	}
	bad := *par
	bad.Twist = nil
	require.ErrorContains(t, bad.Verify(), "twist squares NegR")
}
