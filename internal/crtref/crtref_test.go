package crtref_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/rns"
)

// TestExactInvertsResidues: the value of random stored residues'
// reconstruction has those stored residues (x·σ_j mod m_j), and every x below
// M comes back from its own.
func TestExactInvertsResidues(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			par, err := rns.NewParamsBits(c.P(), bits)
			require.NoError(t, err)
			b := make([]uint32, par.N)
			for range 200 {
				for j, mod := range par.B.Moduli {
					b[j] = uint32(rng.Int63n(int64(mod.M)))
				}
				x := crtref.Exact(par, b)
				require.True(t, x.Sign() >= 0 && x.Cmp(par.B.M) < 0)
				for j, mod := range par.B.Moduli {
					stored := new(big.Int).Mul(x, big.NewInt(int64(par.Twist[j])))
					require.Equal(t, uint64(b[j]), stored.Mod(stored, big.NewInt(int64(mod.M))).Uint64())
				}
			}
		}
	}
}
