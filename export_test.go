package ecmul

import "github.com/rnsec/ecmul/gpu"

// UseGPUDriver makes the gpu backend of engines created from now on use d and
// image, until restore is called.
func UseGPUDriver(d gpu.Driver, image []byte) (restore func()) {
	saved := gpuSource
	gpuSource = func() (gpu.Driver, []byte, error) { return d, image, nil }
	return func() { gpuSource = saved }
}
