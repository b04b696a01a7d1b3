package basext_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
)

// TestByteSplitSumMatchesBig checks the tile mapping's arithmetic against
// math/big, for every modulus of every curve, n = len of both bases, on
// random residues and on the largest ones (every byte 255, the bound of
// rns.Params).
func TestByteSplitSumMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	for _, c := range curves.All() {
		par, err := rns.NewParams(c.P())
		require.NoError(t, err)
		n := par.N
		for _, m := range append(append([]rns.Modulus{}, par.B.Moduli...), par.BT.Moduli...) {
			for trial := range 50 {
				v, e := make([]uint32, n), make([]uint32, n)
				want := new(big.Int)
				for k := range n {
					v[k], e[k] = uint32(rng.Intn(1<<16)), uint32(rng.Intn(1<<16))
					if trial == 0 {
						v[k], e[k] = 0xffff, 0xffff
					}
					want.Add(want, new(big.Int).Mul(big.NewInt(int64(v[k])), big.NewInt(int64(e[k]))))
				}
				mod := new(big.Int).Mod(want, big.NewInt(int64(m.M)))
				require.Equal(t, mod.Uint64(), uint64(basext.ByteSplitSum(v, e, m)), "%s m = %d", c.Name(), m.M)
				low := new(big.Int).And(want, big.NewInt(1<<32-1))
				require.Equal(t, low.Uint64(), uint64(basext.ByteSplitSumPow2(v, e)))
			}
		}
	}
}
