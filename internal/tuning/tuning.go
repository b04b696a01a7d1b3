// Package tuning carries the gpu backend's settings and measurements
// between the root package ecmul, which owns the Engine, and package diag,
// which offers them to benchmarks and troubleshooting, so that neither
// appears on the root package's surface. The root package sets the hooks
// in its init; package diag, which imports it, calls them.
package tuning

import (
	"errors"
	"math/big"

	"github.com/rnsec/ecmul/internal/gpu"
)

// GPU is the gpu backend's settings; zero values pick the defaults.
type GPU struct {
	Devices       []int  // CUDA device ordinals; nil means every visible device
	ItemsPerBlock int    // items per thread block; 0 picks the mapping's default
	Mapping       string // "" (the library's choice), warp, block, tile, spread, mma or pair
	Chunk         int    // most items per launch; 0 means 1<<17
	NoSpin        bool   // small batches' host work on fresh goroutines, not a spinning team
	HostFinish    bool   // finish items on the host (CRT, inversion, bytes) rather than in the GPU's finish kernel
}

// Kernel is the kernel configuration an engine of the gpu backend chose.
type Kernel struct {
	Entry         string // the entry point of the kernel image
	Mapping       string // how threads take items: warp, block, tile, spread or mma
	ItemsPerBlock int
	ChannelBits   int
	// SmallEntry is the entry point small chunks run on (the spread
	// mapping), "" when none; SmallItemsPerSM is the largest chunk, per
	// multiprocessor, it takes.
	SmallEntry      string
	SmallItemsPerSM int
	// FinishEntry is the kernel that finishes items on the GPU (CRT,
	// inversion, bytes), "" when the host finishes them.
	FinishEntry string
}

// The hooks the root package sets; e is an *ecmul.Engine, points a
// []*ecmul.Point.
var (
	NewEngine  func(curve, opts any, g GPU) (e any, err error)
	LastBatch  func(e any) (gpu.Stats, bool)
	ChunkItems func(e any, count int) (int, bool)
	KernelOf   func(e any) (Kernel, bool)
	// BaseKernelOf is KernelOf for k·G batches: the comb's, or the ladder's
	// where the kernel has no comb for the configuration.
	BaseKernelOf func(e any) (Kernel, bool)
	KernelTimes  func(e any, points any, scalars []*big.Int, reps int) ([][]float64, error)
	// BaseKernelTimes is KernelTimes for k·G: the comb kernel alone
	// (varTime: the variable-time comb).
	BaseKernelTimes func(e any, varTime bool, scalars []*big.Int, reps int) ([][]float64, error)
	// UseGPUDriver makes the gpu backend of engines opened from now on use
	// d and the kernel image, until restore is called: for tests above the
	// root package (the ecmul command's) on a fake driver.
	UseGPUDriver func(d gpu.Driver, image []byte) (restore func())
)

// ErrNotGPU is returned by the gpu backend's diagnostics on engines of
// other backends.
var ErrNotGPU = errors.New("ecmul: the engine does not use the gpu backend")

// ErrNoComb is returned by BaseKernelTimes where the engine's k·G batches
// run on the ladder: its kernel has no comb for the configuration.
var ErrNoComb = errors.New("ecmul: the engine's kernel has no comb for k·G in this configuration")
