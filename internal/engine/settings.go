package engine

import (
	"errors"
	"sync"

	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/gpu"
)

// GPUConfig is the gpu backend's settings; zero values pick the defaults.
type GPUConfig struct {
	ItemsPerBlock int    // items per thread block; 0 picks the mapping's default
	Mapping       string // "" (the library's choice), warp, block, tile, spread, mma or pair
	Chunk         int    // most items per launch; 0 means 1<<17, and for signing ecdsasign.StepItems (chunk)
	NoSpin        bool   // small batches' host work on fresh goroutines, not a spinning team
	HostFinish    bool   // finish items on the host (CRT, inversion, bytes) rather than in the GPU's finish kernel
	FinishItems   int    // items per thread of the GPU's finish kernel; 0 picks kernels.FinishItemsPerThread

	verify bool          // the verify kernel in the finish's place (gpuRunner.verifyRunner)
	pre    *gpu.PreChain // and u1·G's comb before it (gpuRunner.verifyPre)
	sign   bool          // the signing batch's wire kernels around the comb (gpuRunner.signRunner)
}

// DefaultChunk is the most items per launch where GPUConfig.Chunk is 0,
// but for signing.
const DefaultChunk = 1 << 17

// chunk is the most items per launch: Chunk where given; for the signing
// batch's runner one step of ecdsasign's pipeline, whose calls are
// overlapped and so one chunk each (gpu.Batch.Overlapped), so that a
// step keeps one slot while its finish and pack run and the next steps'
// combs take the others; DefaultChunk otherwise.
func (g GPUConfig) chunk() int {
	switch {
	case g.Chunk > 0:
		return g.Chunk
	case g.sign:
		return ecdsasign.StepItems
	}
	return DefaultChunk
}

// Kernel is the kernel configuration an engine of the gpu backend chose.
type Kernel struct {
	Entry         string // the entry point of the kernel image
	Mapping       string // how threads take items: warp, block, tile, spread, mma or pair
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

// ErrNotGPU is returned by the gpu backend's diagnostics on engines of
// other backends.
var ErrNotGPU = errors.New("ecmul: the engine does not use the gpu backend")

// ErrNoComb is returned by BaseKernelTimes where the engine's k·G batches
// run on the ladder: its kernel has no comb for the configuration.
var ErrNoComb = errors.New("ecmul: the engine's kernel has no comb for k·G in this configuration")

// The public Engine's link to this package's, the one hook between the
// root package and package diag: the root package registers how to wrap
// an *Engine into its own Engine and how to unwrap it (SetPublic); package
// diag, which builds on the public type, wraps and unwraps through it
// (Wrap, Unwrap), each call typed by the public type.
var public struct {
	once         sync.Once
	wrap, unwrap any // func(*Engine) P and func(P) *Engine, P the public Engine
}

// SetPublic registers the root package's wrapping of an *Engine into its
// public type P and back; the root package calls it once, in its init.
func SetPublic[P any](wrap func(*Engine) P, unwrap func(P) *Engine) {
	public.once.Do(func() { public.wrap, public.unwrap = wrap, unwrap })
}

// Wrap returns e as the public type P that SetPublic registered.
func Wrap[P any](e *Engine) P { return public.wrap.(func(*Engine) P)(e) }

// Unwrap returns the *Engine behind p, nil for an Engine not made by New.
func Unwrap[P any](p P) *Engine { return public.unwrap.(func(P) *Engine)(p) }
