package engine

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/ladder"
)

// UseGPUDriver makes the gpu backend of engines opened from now on use d
// and image, until restore is called: for tests on a fake driver.
func UseGPUDriver(d gpu.Driver, image []byte) (restore func()) {
	saved := gpuSource
	gpuSource = func() (gpu.Driver, []byte, error) { return d, image, nil }
	return func() { gpuSource = saved }
}

// ItemKernelsFrom makes batches of at least n items take the gpu
// backend's prepare and finish kernels, until restore is called: for tests.
func ItemKernelsFrom(n int) (restore func()) {
	saved := gpuItemsMinBatch
	gpuItemsMinBatch = n
	return func() { gpuItemsMinBatch = saved }
}

// gpuRunner returns e's gpu backend, ok false for the other backends and
// for a nil Engine.
func (e *Engine) gpuRunner() (r *gpuRunner, ok bool) {
	if e == nil {
		return nil, false
	}
	r, ok = e.run.(*gpuRunner)
	return r, ok
}

// GPUs returns how many GPUs share each of e's batches: 0 for the other
// backends and for a nil Engine.
func (e *Engine) GPUs() int {
	r, ok := e.gpuRunner()
	if !ok {
		return 0
	}
	return len(r.eng.Devices())
}

// KernelOf returns the kernel configuration of e's gpu backend; ok is
// false for the other backends.
func (e *Engine) KernelOf() (Kernel, bool) {
	r, ok := e.gpuRunner()
	if !ok {
		return Kernel{}, false
	}
	return r.kernel, true
}

// BaseKernelOf is KernelOf for k·G batches: the comb's, or the ladder's
// where the kernel has no comb for the configuration.
func (e *Engine) BaseKernelOf() (Kernel, bool) {
	r, ok := e.gpuRunner()
	if !ok {
		return Kernel{}, false
	}
	if cr := r.combRunner(ladder.Comb); cr != nil {
		return cr.kernel, true
	}
	return r.kernel, true
}

// LastBatch says where the time of the engine's last gpu batch went,
// device by device, with the fault of any device that failed during it;
// ok is false for the other backends.
func (e *Engine) LastBatch() (st gpu.Stats, ok bool) {
	r, ok := e.gpuRunner()
	if !ok {
		return gpu.Stats{}, false
	}
	return r.lastStats(), true
}

// ChunkItems returns the items of the first launch of a batch of count
// items on the gpu backend, so that a kernel-only timing can launch the
// same; ok is false for the other backends and after Close.
func (e *Engine) ChunkItems(count int) (items int, ok bool) {
	if e.usable() != nil {
		return 0, false
	}
	r, ok := e.gpuRunner()
	if !ok {
		return 0, false
	}
	return r.eng.ChunkFor(count), true
}

// KernelTimes times the kernel alone on valid points and scalars, at most
// one chunk of them, reps times launches launches on each GPU
// (gpu.Pool.KernelTimes).
func (e *Engine) KernelTimes(points []*Point, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	return e.kernelTimes(points, scalars, launches, reps)
}

// BaseKernelTimes is KernelTimes for k·G: the comb kernel alone (varTime:
// the variable-time comb).
func (e *Engine) BaseKernelTimes(varTime bool, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	return e.baseKernelTimes(varTime, scalars, launches, reps)
}
