package gpu

import (
	"errors"
	"fmt"
	"os"

	"github.com/rnsec/ecmul/internal/kernels"
)

// KernelImageEnv names a file whose contents replace the embedded fatbin:
// a development aid for trying a freshly built kernel without rebuilding Go.
const KernelImageEnv = "ECMUL_FATBIN"

// KernelImage returns the kernels' image: the fatbin embedded at build time,
// or the file named by $ECMUL_FATBIN when that is set.
func KernelImage() ([]byte, error) {
	if path := os.Getenv(KernelImageEnv); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("gpu: %s: %w", KernelImageEnv, err)
		}
		return b, nil
	}
	if len(kernels.Fatbin) == 0 {
		return nil, errors.New("gpu: no kernel image was embedded in this build")
	}
	return kernels.Fatbin, nil
}
