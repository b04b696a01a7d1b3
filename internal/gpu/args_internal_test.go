package gpu

import (
	"testing"
	"unsafe"

	"github.com/rnsec/ecmul/internal/kernels"
)

// TestKernelArgsFollowTheDeclaration: every argument kernels.Args declares
// gets its value, in the declared order.
func TestKernelArgsFollowTheDeclaration(t *testing.T) {
	var consts, in, sc, out DevicePtr
	var count, stride uint32
	args := kernelArgs(&consts, &in, &sc, &out, &count, &stride)
	want := map[string]unsafe.Pointer{
		"consts": unsafe.Pointer(&consts), "in": unsafe.Pointer(&in), "scalars": unsafe.Pointer(&sc),
		"out": unsafe.Pointer(&out), "count": unsafe.Pointer(&count), "stride": unsafe.Pointer(&stride),
	}
	if len(args) != len(kernels.Args) {
		t.Fatalf("%d arguments, kernels.Args declares %d", len(args), len(kernels.Args))
	}
	for i, a := range kernels.Args {
		if args[i] != want[a.Name] {
			t.Errorf("argument %d (%s) points elsewhere", i, a.Name)
		}
	}
}
