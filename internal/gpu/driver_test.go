package gpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

func TestCUDAErrorFormat(t *testing.T) {
	cases := []struct {
		err  *gpu.CUDAError
		want string
	}{
		{&gpu.CUDAError{Call: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Message: "out of memory"},
			"cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"},
		{&gpu.CUDAError{Call: "cuLaunchKernel", Code: 719},
			"cuLaunchKernel: CUDA error (719)"},
		{&gpu.CUDAError{Call: "cuInit", Code: 100, Name: "CUDA_ERROR_NO_DEVICE"},
			"cuInit: CUDA_ERROR_NO_DEVICE (100)"},
		{gpu.NewCUDAError("cuMemAlloc_v2", gpu.CodeOutOfMemory),
			"cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestCUDAErrorIs(t *testing.T) {
	wrapped := fmt.Errorf("loading: %w", gpu.NewCUDAError("cuInit", gpu.CodeNoDevice))
	if !errors.Is(wrapped, gpu.ErrNoDevice) {
		t.Error("CUDA_ERROR_NO_DEVICE is not ErrNoDevice")
	}
	if !errors.Is(gpu.NewCUDAError("cuInit", gpu.CodeStubLibrary), gpu.ErrNoDevice) {
		t.Error("CUDA_ERROR_STUB_LIBRARY is not ErrNoDevice")
	}
	if errors.Is(gpu.NewCUDAError("cuMemAlloc_v2", gpu.CodeOutOfMemory), gpu.ErrNoDevice) {
		t.Error("out of memory counts as ErrNoDevice")
	}
	var ce *gpu.CUDAError
	if !errors.As(wrapped, &ce) || ce.Code != gpu.CodeNoDevice {
		t.Error("errors.As does not find the CUDAError")
	}
}

// TestLoadDriverNoGPU checks the machine-without-GPU path; where a GPU is
// present it checks the driver works instead.
func TestLoadDriverNoGPU(t *testing.T) {
	d, err := gpu.LoadDriver()
	if err == nil {
		infos, version, err := gpu.Devices(d)
		if err != nil {
			t.Fatalf("Devices: %v", err)
		}
		t.Logf("CUDA driver %s", gpu.FormatDriverVersion(version))
		for _, info := range infos {
			t.Logf("  %v", info)
		}
		if len(infos) == 0 || infos[0].SMs <= 0 || infos[0].TotalMem == 0 || infos[0].Name == "" {
			t.Fatalf("implausible devices %+v", infos)
		}
		return
	}
	if !errors.Is(err, gpu.ErrNoDevice) {
		t.Fatalf("LoadDriver: %v, which is not ErrNoDevice", err)
	}
	if !strings.HasPrefix(err.Error(), gpu.ErrNoDevice.Error()) {
		t.Errorf("message %q does not lead with ErrNoDevice", err)
	}
	t.Logf("as expected without a GPU: %v", err)

	d1, err1 := gpu.DefaultDriver()
	d2, err2 := gpu.DefaultDriver()
	if d1 != nil || d2 != nil || !errors.Is(err1, gpu.ErrNoDevice) || err1 != err2 {
		t.Fatalf("DefaultDriver: (%v, %v) then (%v, %v)", d1, err1, d2, err2)
	}
}

func TestDevices(t *testing.T) {
	small := fakecuda.H100()
	small.Name, small.SMs, small.ComputeMajor, small.ComputeMinor = "Tiny", 4, 8, 6
	small.TotalMem, small.ClockKHz = 2<<30, 1500000
	d := fakecuda.New(fakecuda.H100(), small)

	infos, version, err := gpu.Devices(d)
	if err != nil {
		t.Fatal(err)
	}
	if version != 12080 || gpu.FormatDriverVersion(version) != "12.8" {
		t.Errorf("version %d", version)
	}
	want := []gpu.DeviceInfo{
		{Ordinal: 0, Name: "NVIDIA H100 80GB HBM3", SMs: 132, ComputeMajor: 9, ComputeMinor: 0, TotalMem: 80 << 30, ClockKHz: 1980000},
		{Ordinal: 1, Name: "Tiny", SMs: 4, ComputeMajor: 8, ComputeMinor: 6, TotalMem: 2 << 30, ClockKHz: 1500000},
	}
	if len(infos) != len(want) {
		t.Fatalf("got %d devices", len(infos))
	}
	for i := range want {
		if infos[i] != want[i] {
			t.Errorf("device %d: got %+v, want %+v", i, infos[i], want[i])
		}
	}
	if s := infos[0].String(); s != "0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 80.0 GiB, 1980 MHz)" {
		t.Errorf("String() = %q", s)
	}
}

func TestDevicesFailures(t *testing.T) {
	boom := gpu.NewCUDAError("cuX", gpu.CodeUnknown)
	for _, c := range []struct {
		call string
		nth  int
	}{
		{"DriverVersion", 1}, {"DeviceCount", 1}, {"Device", 1}, {"Device", 2},
		{"DeviceName", 1}, {"DeviceAttribute", 1}, {"DeviceAttribute", 3}, {"DeviceTotalMem", 1},
	} {
		d := fakecuda.New(fakecuda.H100(), fakecuda.H100())
		d.FailAt(c.call, c.nth, boom)
		infos, _, err := gpu.Devices(d)
		if !errors.Is(err, boom) || infos != nil {
			t.Errorf("%s #%d: got %v, %v", c.call, c.nth, infos, err)
		}
	}

	// The clock is optional: its failure leaves ClockKHz at 0.
	d := fakecuda.New()
	d.FailAt("DeviceAttribute", 4, boom)
	infos, _, err := gpu.Devices(d)
	if err != nil || len(infos) != 1 || infos[0].ClockKHz != 0 || infos[0].SMs != 132 {
		t.Fatalf("clock failure: %+v, %v", infos, err)
	}
}

// TestLoadsImage: the kernel image loads on a device, or the failing call
// is reported; either way nothing stays held.
func TestLoadsImage(t *testing.T) {
	d := fakecuda.New(fakecuda.H100(), fakecuda.H100())
	if err := gpu.LoadsImage(d, 1, []byte("fatbin")); err != nil {
		t.Fatal(err)
	}
	boom := gpu.NewCUDAError("cuModuleLoadData", gpu.CodeUnknown)
	d.FailOn(1, "ModuleLoadData", 1, boom)
	if err := gpu.LoadsImage(d, 1, []byte("fatbin")); !errors.Is(err, boom) {
		t.Errorf("got %v, want the load's error", err)
	}
	if err := gpu.LoadsImage(d, 2, []byte("fatbin")); err == nil {
		t.Error("device 2 does not exist")
	}
	if d.Live() != 0 {
		t.Errorf("left held: %+v", d.Resources())
	}
}
