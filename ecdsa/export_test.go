package ecdsa

// SetSubBatch sets the most items of one step of Verify's pipeline and
// returns a function that restores it; tests that use it do not run in
// parallel.
func SetSubBatch(n int) (restore func()) {
	old := subBatch
	subBatch = n
	return func() { subBatch = old }
}

// SetHostWorkers sets the workers of the host's prepare and finish (0 for
// hostWorkers' choice) and returns a function that restores it.
func SetHostWorkers(n int) (restore func()) {
	old := hostWorkerCount
	hostWorkerCount = n
	return func() { hostWorkerCount = old }
}

// SetOverlapSteps sets whether a step's engine calls are marked as
// followed by the next steps' and returns a function that restores it.
func SetOverlapSteps(on bool) (restore func()) {
	old := overlapSteps
	overlapSteps = on
	return func() { overlapSteps = old }
}

// SetGPUVerify sets whether Verify takes the engine's verify kernel where
// it has one and returns a function that restores it.
func SetGPUVerify(on bool) (restore func()) {
	old := gpuVerify
	gpuVerify = on
	return func() { gpuVerify = old }
}

// SetGPUSign sets whether Sign signs on the GPU, nonces included, where
// the engine can and returns a function that restores it.
func SetGPUSign(on bool) (restore func()) {
	old := gpuSign
	gpuSign = on
	return func() { gpuSign = old }
}

// SetGPUWithBase sets whether Verify has u1·G computed in the verify
// kernel's chunks where the engine can and returns a function that
// restores it.
func SetGPUWithBase(on bool) (restore func()) {
	old := gpuWithBase
	gpuWithBase = on
	return func() { gpuWithBase = old }
}
