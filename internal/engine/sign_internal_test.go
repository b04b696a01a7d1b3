package engine

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// TestGPUSignConfig: a signing batch's kernels are the comb's prepare and
// finish with the sign unpack and pack around them, the pack on the
// finish's grid, kernels.SignFinishItemsPerThread items a thread unless
// the settings name another number.
func TestGPUSignConfig(t *testing.T) {
	for _, c := range curves.All() {
		su, err := ladder.NewSetupKind(c, ladder.Comb)
		require.NoError(t, err)
		for _, items := range []int{0, 5} {
			var cfg gpu.Config
			require.NoError(t, gpuSign(&cfg, su, GPUConfig{FinishItems: items}))
			require.NotNil(t, cfg.Finish, c.Name())
			want := items
			if items == 0 {
				want = kernels.SignFinishItemsPerThread
			}
			require.Equal(t, want, cfg.Finish.ItemsPerThread, "%s, FinishItems %d", c.Name(), items)
			require.True(t, cfg.Finish.PackShares, c.Name())
			unpack, err := kernels.SignUnpackName(c.Name(), kernels.ChannelTag(su.Params.Bits))
			require.NoError(t, err)
			pack, err := kernels.SignPackName(c.Name(), kernels.ChannelTag(su.Params.Bits))
			require.NoError(t, err)
			require.Equal(t, unpack, cfg.Prepare.Unpack)
			require.Equal(t, pack, cfg.Finish.Pack)
		}
	}
}

// TestGPUChunk: a launch holds GPUConfig.Chunk items where given, else
// 2^17, and on the signing batch's runner one step of ecdsasign's pipeline.
func TestGPUChunk(t *testing.T) {
	require.Equal(t, 1<<17, GPUConfig{}.chunk())
	require.Equal(t, 5000, GPUConfig{Chunk: 5000}.chunk())
	require.Equal(t, ecdsasign.StepItems, GPUConfig{sign: true}.chunk())
	require.Equal(t, 5000, GPUConfig{Chunk: 5000, sign: true}.chunk())
}
