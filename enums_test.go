package ecmul_test

import (
	"strings"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/stretchr/testify/require"
)

// TestEnumsParseTheirNames: every value of each enum parses back from its
// String in lower, upper and mixed case; an unknown name is an error
// naming the accepted ones, and a value without a name prints as Type(n).
func TestEnumsParseTheirNames(t *testing.T) {
	cases := []struct {
		values []any
		parse  func(string) (any, error)
	}{
		{[]any{diag.CoZ, diag.Paper}, func(s string) (any, error) { return diag.ParseSchedule(s) }},
		{[]any{diag.Shenoy, diag.Kawamura}, func(s string) (any, error) { return diag.ParseExtension(s) }},
		{[]any{diag.MappingDefault, diag.MappingWarp, diag.MappingBlock, diag.MappingTile, diag.MappingSpread, diag.MappingMma},
			func(s string) (any, error) { return diag.ParseMapping(s) }},
	}
	for _, c := range cases {
		for _, v := range c.values {
			name := v.(interface{ String() string }).String()
			for _, s := range []string{name, strings.ToUpper(name), strings.ToUpper(name[:1]) + name[1:]} {
				got, err := c.parse(s)
				require.NoError(t, err, s)
				require.Equal(t, v, got, s)
			}
		}
		_, err := c.parse("x" + c.values[0].(interface{ String() string }).String())
		require.ErrorContains(t, err, "unknown")
	}
	require.Equal(t, "Backend(9)", ecmul.Backend(9).String())
	require.Equal(t, "Schedule(9)", diag.Schedule(9).String())
	require.Equal(t, "Extension(9)", diag.Extension(9).String())
	require.Equal(t, "Mapping(9)", diag.Mapping(9).String())
	s, err := diag.ParseSchedule("Default")
	require.NoError(t, err)
	require.Equal(t, diag.CoZ, s)
	for b, name := range []string{"auto", "gpu", "rns-cpu", "cpu"} {
		require.Equal(t, name, ecmul.Backend(b).String())
	}
}

// TestCurves: the curves are values that compare with ==, found by any
// of their names in any case, with the parameters of package curves.
func TestCurves(t *testing.T) {
	for _, c := range []ecmul.Curve{ecmul.P224(), ecmul.P256(), ecmul.Secp256k1()} {
		k, err := curves.ByName(c.String())
		require.NoError(t, err)
		for _, name := range []string{c.String(), strings.ToLower(c.String()), strings.ToUpper(c.String())} {
			got, err := ecmul.ParseCurve(name)
			require.NoError(t, err, name)
			require.Equal(t, c, got, name)
		}
		require.Equal(t, k.ByteLen(), c.ByteLen())
		require.Zero(t, k.N().Cmp(c.Order()))
		g := c.Generator()
		require.Zero(t, k.Gx().Cmp(g.X))
		require.Zero(t, k.Gy().Cmp(g.Y))
		g.X.SetInt64(1) // a fresh copy each time
		require.Zero(t, k.Gx().Cmp(c.Generator().X))
	}
	p256, _ := ecmul.ParseCurve("prime256v1")
	require.Equal(t, ecmul.P256(), p256)
	_, err := ecmul.ParseCurve("P-384")
	require.ErrorIs(t, err, curves.ErrUnknownCurve)
	require.ErrorContains(t, err, `ecmul: unknown curve "P-384"`)
	var zero ecmul.Curve
	require.Equal(t, "", zero.String())
	require.Zero(t, zero.ByteLen())
	require.Nil(t, zero.Generator())
	require.Nil(t, zero.Order())
}

// TestKernelOf: diag.KernelOf reports the configuration the gpu backend
// chose (over the fake driver): the pair mapping on 30-bit channels by
// default, with the spread mapping for small chunks, and what a GPU
// setting asked for; the other backends have none.
func TestKernelOf(t *testing.T) {
	c := curves.P224()
	devicesDriver(t, c, 1)
	e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU})
	k, ok := diag.KernelOf(e)
	require.True(t, ok)
	require.Equal(t, diag.MappingPair, k.Mapping)
	require.Equal(t, "ecm_ladder_p224_coz_shenoy_pair_c30", k.Entry)
	require.Equal(t, 30, k.ChannelBits)
	require.Positive(t, k.ItemsPerBlock)
	require.NotEmpty(t, k.Entry)
	require.NotEmpty(t, k.SmallEntry)
	require.Equal(t, diag.SmallChunkItemsPerSM, k.SmallItemsPerSM)

	w := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{ChannelBits: 16, Mapping: diag.MappingWarp, ItemsPerBlock: 4})
	k, ok = diag.KernelOf(w)
	require.True(t, ok)
	require.Equal(t, diag.MappingWarp, k.Mapping)
	require.Equal(t, 4, k.ItemsPerBlock)
	require.Equal(t, 16, k.ChannelBits)
	require.Empty(t, k.SmallEntry)

	_, ok = diag.KernelOf(newEngine(t, c, ecmul.Options{Backend: ecmul.CPU}))
	require.False(t, ok)
	_, ok = diag.KernelOf(nil)
	require.False(t, ok)
}

// TestBaseKernelOf: diag.BaseKernelOf reports what k·G runs on (over the
// fake driver): the comb on the mma mapping by default, while k·P runs on
// the pair mapping; the comb on the mapping asked for; the ladder's own
// configuration where the kernel has no comb (an explicit spread or pair
// mapping); none on the other backends.
func TestBaseKernelOf(t *testing.T) {
	c := curves.P224()
	devicesDriver(t, c, 1)
	e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU})
	k, ok := diag.BaseKernelOf(e)
	require.True(t, ok)
	require.Equal(t, diag.MappingPair, k.Mapping)
	require.Equal(t, "ecm_ladder_p224_comb_shenoy_pair_c30", k.Entry)
	l, _ := diag.KernelOf(e)
	require.Equal(t, "ecm_ladder_p224_coz_shenoy_pair_c30", l.Entry, "k·P keeps its own")

	w := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: diag.MappingWarp})
	k, ok = diag.BaseKernelOf(w)
	require.True(t, ok)
	require.Equal(t, "ecm_ladder_p224_comb_shenoy_warp_c30", k.Entry, "the comb on the mapping asked for")

	m := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: diag.MappingSpread})
	k, ok = diag.BaseKernelOf(m)
	require.True(t, ok)
	require.Equal(t, "ecm_ladder_p224_coz_shenoy_spread_c30", k.Entry, "no comb on the spread mapping: the ladder")

	mma := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: diag.MappingMma})
	k, ok = diag.BaseKernelOf(mma)
	require.True(t, ok)
	require.Equal(t, "ecm_ladder_p224_comb_shenoy_mma_c30", k.Entry, "the comb on the mma mapping asked for")

	_, ok = diag.BaseKernelOf(newEngine(t, c, ecmul.Options{Backend: ecmul.CPU}))
	require.False(t, ok)
	_, ok = diag.BaseKernelOf(nil)
	require.False(t, ok)
}
