package rns_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/rns"
)

// crtDigits returns ξ̃_k = |X·M̃_k^{-1}|_{m̃_k} of X on B̃ and the exact α of
// their CRT sum, (Σ_k ξ̃_k·M̃_k − X)/M̃, both from math/big.
func crtDigits(par *rns.Params, x *big.Int) ([]uint32, uint32) {
	xi := make([]uint32, par.N)
	sum := new(big.Int)
	for k, mod := range par.BT.Moduli {
		m := big.NewInt(int64(mod.M))
		part := new(big.Int).Quo(par.BT.M, m)
		d := new(big.Int).Mul(x, new(big.Int).ModInverse(part, m))
		xi[k] = uint32(d.Mod(d, m).Uint64())
		sum.Add(sum, part.Mul(part, big.NewInt(int64(xi[k]))))
	}
	alpha := sum.Sub(sum, x).Quo(sum, par.BT.M)
	return xi, uint32(alpha.Uint64())
}

// TestPairAlpha: the pair mapping's α from truncated lane sums equals the
// exact α of the CRT for outputs X below u (random, and 0, 1, u − 1), on
// both item halves of a group; with Φ = 0 it is wrong for most of them.
func TestPairAlpha(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 43))
	for name, p := range primes() {
		par, err := rns.NewParamsBits(p, rns.WideChannelBits)
		require.NoError(t, err)
		xs := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(par.U, big.NewInt(1))}
		buf := make([]byte, (par.U.BitLen()+7)/8+8)
		for range 2000 {
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			xs = append(xs, new(big.Int).Mod(new(big.Int).SetBytes(buf), par.U))
		}
		unbiased := *par
		unbiased.Phi = 0
		wrongWithoutPhi := 0
		for _, x := range xs {
			xi, alpha := crtDigits(par, x)
			for half := range 2 {
				require.Equal(t, alpha, par.PairAlpha(xi, half), "%s: X = %v, half %d", name, x, half)
			}
			if unbiased.PairAlpha(xi, 0) != alpha {
				wrongWithoutPhi++
			}
		}
		require.Greater(t, wrongWithoutPhi, len(xs)/2, "%s: Φ = 0 should misjudge α", name)
	}
}

// TestPairAlphaBoundsCatchWrongPhi: a Φ below ⌈2^6·Δ⌉ fails "Φ covers Δ",
// one so large that X/M̃ + Φ/2^6 may reach 1 fails "pair α exact".
func TestPairAlphaBoundsCatchWrongPhi(t *testing.T) {
	par, err := rns.NewParamsBits(p224(), rns.WideChannelBits)
	require.NoError(t, err)
	require.NoError(t, par.Verify())
	low := *par
	low.Phi--
	require.ErrorContains(t, low.Verify(), "pair α: Φ covers Δ")
	high := *par
	high.Phi = 64
	require.ErrorContains(t, high.Verify(), "pair α exact")
}
