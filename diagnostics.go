package ecmul

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/tuning"
)

// The gpu backend's settings and measurements reach package diag through
// package tuning's hooks, off this package's surface.
func init() {
	tuning.NewEngine = func(curve, opts any, g tuning.GPU) (any, error) {
		return newEngine(curve.(Curve), opts.(Options), g)
	}
	tuning.LastBatch = func(e any) (gpu.Stats, bool) { return e.(*Engine).lastBatch() }
	tuning.ChunkItems = func(e any, count int) (int, bool) { return e.(*Engine).chunkItems(count) }
	tuning.KernelOf = func(e any) (tuning.Kernel, bool) {
		r, ok := e.(*Engine).gpuRunner()
		if !ok {
			return tuning.Kernel{}, false
		}
		return r.kernel, true
	}
	tuning.BaseKernelOf = func(e any) (tuning.Kernel, bool) {
		r, ok := e.(*Engine).gpuRunner()
		if !ok {
			return tuning.Kernel{}, false
		}
		if cr := r.combRunner(ladder.Comb); cr != nil {
			return cr.kernel, true
		}
		return r.kernel, true
	}
	tuning.KernelTimes = func(e any, points any, scalars []*big.Int, reps int) ([][]float64, error) {
		return e.(*Engine).kernelTimes(points.([]*Point), scalars, reps)
	}
	tuning.BaseKernelTimes = func(e any, varTime bool, scalars []*big.Int, reps int) ([][]float64, error) {
		return e.(*Engine).baseKernelTimes(varTime, scalars, reps)
	}
	tuning.UseGPUDriver = useGPUDriver
}

// useGPUDriver makes the gpu backend of engines opened from now on use d
// and image, until restore is called.
func useGPUDriver(d gpu.Driver, image []byte) (restore func()) {
	saved := gpuSource
	gpuSource = func() (gpu.Driver, []byte, error) { return d, image, nil }
	return func() { gpuSource = saved }
}

// gpuRunner returns e's gpu backend, ok false for the other backends and
// for an Engine not made by New.
func (e *Engine) gpuRunner() (r *gpuRunner, ok bool) {
	if e == nil {
		return nil, false
	}
	r, ok = e.run.(*gpuRunner)
	return r, ok
}

// lastBatch says where the time of the engine's last gpu batch went,
// device by device, with the fault of any device that failed during it;
// ok is false for the other backends and for an Engine not made by New.
func (e *Engine) lastBatch() (st gpu.Stats, ok bool) {
	r, ok := e.gpuRunner()
	if !ok {
		return gpu.Stats{}, false
	}
	return r.lastStats(), true
}

// chunkItems returns the items of the first launch of a batch of count
// items on the gpu backend, so that a kernel-only timing can launch the
// same; ok is false for the other backends and after Close.
func (e *Engine) chunkItems(count int) (items int, ok bool) {
	if e.usable() != nil {
		return 0, false
	}
	r, ok := e.gpuRunner()
	if !ok {
		return 0, false
	}
	return r.eng.ChunkFor(count), true
}
