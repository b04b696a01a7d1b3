package ecdsa

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	internalengine "github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

// TestSignOptionsDevices: on a gpu backend of two GPUs (a fake driver),
// Sign signs on the GPU in steps shared by both (ecdsasign.Options.Devices);
// on the cpu backend, on the host in steps not scaled.
func TestSignOptionsDevices(t *testing.T) {
	c := curves.P256()
	pc, err := ecmul.ParseCurve(c.Name())
	require.NoError(t, err)
	for _, n := range []int{2} {
		specs := make([]fakecuda.DeviceSpec, n)
		for i := range specs {
			specs[i] = fakecuda.H100()
		}
		restore := internalengine.UseGPUDriver(fakecuda.New(specs...), []byte("fatbin"))
		e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.GPU})
		require.NoError(t, err)
		opt := signOptions(e, c, SignOptions{})
		require.NotNil(t, opt.FirstSign, "%d GPUs", n)
		require.Equal(t, n, opt.Devices, "%d GPUs", n)
		require.NoError(t, e.Close())
		restore()
	}
	e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer e.Close()
	opt := signOptions(e, c, SignOptions{})
	require.Nil(t, opt.FirstSign)
	require.Zero(t, opt.Devices)
}
