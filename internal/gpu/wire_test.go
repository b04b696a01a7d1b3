package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/gpu"
)

// TestWireBatchChecked: Run refuses a wire batch on an engine without the
// unpack and pack kernels, or whose bytes per item do not fit the buffers
// they pass through, before it takes a chunk.
func TestWireBatchChecked(t *testing.T) {
	f := newFixture(t, 4)
	e, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer e.Close()
	filled := false
	wire := &gpu.Wire{InBytes: 4, OutBytes: 4,
		Fill:  func(lo, hi int, in []byte) { filled = true },
		Drain: func(lo, hi int, out []byte) error { return nil },
	}
	_, err = e.Run(context.Background(), gpu.Batch{Count: 4, Wire: wire})
	require.ErrorContains(t, err, "unpack, prepare, finish and pack kernels")
	require.False(t, filled)
}
