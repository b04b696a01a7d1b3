package gpu

import (
	"errors"
	"fmt"
	"os"

	"github.com/rnsec/ecmul/kernels"
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

// Mappings lists the kernel's thread mappings: "warp" keeps whole items
// inside a warp (16 or 32 lanes each); "block" is the paper's block-wide
// mapping, n+1 threads per item packed in the block.
var Mappings = []string{"warp", "block"}

// KernelEntry returns the name of the ladder kernel for a curve ("P-224",
// "P-256" or "secp256k1"), n channels per base, a base extension ("shenoy"
// or "kawamura") and a mapping, and the threads each item takes.
func KernelEntry(curve string, n int, ext, mapping string) (entry string, lanes int, err error) {
	tags := map[string]string{"P-224": "p224", "P-256": "p256", "secp256k1": "secp256k1"}
	tag, ok := tags[curve]
	if !ok {
		return "", 0, fmt.Errorf("gpu: no kernel for curve %q", curve)
	}
	if ext != "shenoy" && ext != "kawamura" {
		return "", 0, fmt.Errorf("gpu: unknown base extension %q", ext)
	}
	switch mapping {
	case "warp":
		lanes = 16
		if n+1 > 16 {
			lanes = 32
		}
	case "block":
		lanes = n + 1
	default:
		return "", 0, fmt.Errorf("gpu: unknown mapping %q (want warp or block)", mapping)
	}
	return fmt.Sprintf("ecm_ladder_%s_%s_%s", tag, ext, mapping), lanes, nil
}
