package ecmul

import (
	"math/big"

	"github.com/rnsec/ecmul/gpu"
)

// Diagnostics reads what the gpu backend measures: where the time of the
// last batch went, device by device, and the kernel's time alone. It
// serves benchmarks and troubleshooting; computing needs none of it.
type Diagnostics struct{ e *Engine }

// Diagnostics returns e's diagnostics. On an Engine of another backend (or
// not made by New) their methods answer ok false or an error.
func (e *Engine) Diagnostics() Diagnostics { return Diagnostics{e} }

// LastBatch says where the time of the engine's last gpu batch went,
// device by device in st.Devices, with the fault of any device that failed
// during it; ok is false for the other backends and for an Engine not made
// by New.
func (d Diagnostics) LastBatch() (st gpu.Stats, ok bool) {
	if d.e == nil {
		return gpu.Stats{}, false
	}
	r, ok := d.e.run.(*gpuRunner)
	if !ok {
		return gpu.Stats{}, false
	}
	return r.lastStats(), true
}

// KernelTimes times the kernel alone (no conversions, no transfers) on
// valid points and scalars, at most one chunk of them, launched reps times
// on data resident on each GPU the engine uses, all GPUs at once. It returns
// each launch's milliseconds, one list per GPU (in the order of the
// engine's devices; nil for a GPU left out after a fault), or ErrNotGPU on
// the other backends.
func (d Diagnostics) KernelTimes(points []*Point, scalars []*big.Int, reps int) ([][]float64, error) {
	return d.e.kernelTimes(points, scalars, reps)
}

// ChunkItems returns the items of the first launch of a batch of count
// items on the gpu backend (a batch of several waves of the GPU runs in
// chunks of whole waves, GPUOptions.Chunk at most; a smaller one in three
// launches side by side, or one when it is tiny), so that a kernel-only
// timing can launch the same; ok is false for the other backends.
func (d Diagnostics) ChunkItems(count int) (items int, ok bool) {
	if d.e == nil || d.e.usable() != nil {
		return 0, false
	}
	r, ok := d.e.run.(*gpuRunner)
	if !ok {
		return 0, false
	}
	return r.eng.ChunkFor(count), true
}
