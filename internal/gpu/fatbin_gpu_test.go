package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// TestFatbinHasEntryPoints loads the kernels' image on the first GPU and
// looks up every entry point the engine can name: each ladder of
// kernels.Entries and the prepare, finish, unpack and pack kernels of every
// curve and channel width. The embedded fatbin is compressed, so its names
// are read by the driver, not from its bytes. It skips without a GPU.
func TestFatbinHasEntryPoints(t *testing.T) {
	d := gpuDriver(t)
	image, err := gpu.KernelImage()
	require.NoError(t, err)
	m, err := d.ModuleLoadData(image)
	require.NoError(t, err)
	defer func() { require.NoError(t, d.ModuleUnload(m)) }()
	var names []string
	for _, k := range kernels.Entries() {
		names = append(names, k.Name())
	}
	for _, c := range kernels.Curves {
		for _, ch := range kernels.Channels {
			for _, name := range []func(string, string) (string, error){kernels.PrepareName, kernels.FinishName, kernels.VerifyName, kernels.UnpackName, kernels.PackName,
				kernels.VerifyUnpackName, kernels.VerifyPackName, kernels.SignUnpackName, kernels.SignPackName} {
				n, err := name(c.Curve, ch)
				require.NoError(t, err)
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		_, err := d.ModuleGetFunction(m, n)
		require.NoError(t, err, "fatbin has no entry point %s", n)
	}
	t.Logf("%d entry points found", len(names))
}
