package ecmul

import (
	"fmt"

	"github.com/rnsec/ecmul/gpu"
	"github.com/rnsec/ecmul/ladder"
)

// GPUOptions configure the gpu backend; zero values pick the defaults.
type GPUOptions struct {
	Device        int    // CUDA device ordinal
	ItemsPerBlock int    // items per thread block
	Mapping       string // "warp" (whole items in a warp) or "block" (the paper's block-wide mapping)
	Chunk         int    // items per launch; large batches are split into chunks on two streams
}

func newGPURunner(su *ladder.Setup, opts Options) (runner, error) {
	if _, err := gpu.DefaultDriver(); err != nil {
		return nil, fmt.Errorf("ecmul: gpu backend: %w", err)
	}
	return nil, fmt.Errorf("ecmul: gpu backend: %w", gpu.ErrNoDevice)
}
