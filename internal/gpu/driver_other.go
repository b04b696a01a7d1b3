//go:build !(linux && (amd64 || arm64))

package gpu

import (
	"fmt"
	"runtime"
)

// LoadDriver always fails on this platform: the CUDA driver is only loaded on
// linux/amd64 and linux/arm64.
func LoadDriver() (Driver, error) {
	return nil, fmt.Errorf("%w: CUDA is not supported on %s/%s", ErrNoDevice, runtime.GOOS, runtime.GOARCH)
}
