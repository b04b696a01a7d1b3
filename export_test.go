package ecmul

import (
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu"
)

// UseGPUDriver makes the gpu backend of engines created from now on use d and
// image, until restore is called.
func UseGPUDriver(d gpu.Driver, image []byte) (restore func()) { return engine.UseGPUDriver(d, image) }

// GPUItemsFrom makes batches of at least n items take the gpu backend's
// prepare and finish kernels, until restore is called.
func GPUItemsFrom(n int) (restore func()) { return engine.ItemKernelsFrom(n) }

// The causes of invalid items, for tests that tell them apart.
var (
	ErrNilPoint       = engine.ErrNilPoint
	ErrNilScalar      = engine.ErrNilScalar
	ErrScalarNegative = engine.ErrScalarNegative
	ErrScalarTooLarge = engine.ErrScalarTooLarge
)

// MaxScalarBits is the largest scalar accepted.
const MaxScalarBits = engine.MaxScalarBits
