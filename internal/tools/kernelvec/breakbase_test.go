package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

// TestBreakBase: -break-base changes exactly one constant of P-256's 30-bit
// system, the one require_wide_base reads: B̃'s last modulus, 2^30, to
// 2^30 − 1 (top), or B's first NegR, 1, to 2 (twist); nothing for "", and
// any other name is an error.
func TestBreakBase(t *testing.T) {
	su, err := ladder.NewSetupBits(curves.P256(), ladder.CoZ, rns.WideChannelBits)
	require.NoError(t, err)
	n := su.Params.N
	l := basext.LayoutFor(n)
	for how, at := range map[string]int{"": -1, "top": l.ModBT + n - 1, "twist": l.NegR} {
		want, got := su.KernelConstants(), su.KernelConstants()
		require.NoError(t, breakBase(got, n, how), how)
		switch how {
		case "top":
			require.Equal(t, uint32(1<<30), want[at])
			want[at] = 1<<30 - 1
		case "twist":
			require.Equal(t, uint32(1), want[at])
			want[at] = 2
		}
		require.Equal(t, want, got, how)
	}
	require.Error(t, breakBase(su.KernelConstants(), n, "modulus"))
}
