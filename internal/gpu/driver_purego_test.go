//go:build linux && (amd64 || arm64)

package gpu

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

func TestCStrings(t *testing.T) {
	b, err := cString("cuModuleGetFunction", "ladder_step")
	if err != nil || string(b) != "ladder_step\x00" {
		t.Fatalf("cString = %q, %v", b, err)
	}
	if got := goString(&b[0]); got != "ladder_step" {
		t.Fatalf("goString = %q", got)
	}
	_, err = cString("cuModuleGetFunction", "bad\x00name")
	var ce *CUDAError
	if !errors.As(err, &ce) || ce.Code != CodeInvalidValue {
		t.Fatalf("NUL in name: %v", err)
	}
}

// TestBindMissingSymbol binds against libc, which has none of the CUDA
// symbols: that must be an error, not a panic.
func TestBindMissingSymbol(t *testing.T) {
	lib, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Skipf("no libc.so.6: %v", err)
	}
	defer purego.Dlclose(lib)
	d := &cudaDriver{lib: lib}
	err = d.bind()
	if err == nil || !strings.Contains(err.Error(), "cuGetErrorName") {
		t.Fatalf("bind against libc: %v", err)
	}
}

// TestResolvedSymbols logs the symbol versions picked where there is a choice.
func TestResolvedSymbols(t *testing.T) {
	d, err := LoadDriver()
	if errors.Is(err, ErrNoDevice) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("elapsed time via %s", d.(*cudaDriver).elapsedName)
}

// BenchmarkDeviceAttribute measures the host cost of a driver call through
// purego, without any GPU work.
func BenchmarkDeviceAttribute(b *testing.B) {
	d, err := LoadDriver()
	if errors.Is(err, ErrNoDevice) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := d.DeviceAttribute(WarpSize, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLaunchConfigLayout: cuLaunchConfig and cuLaunchAttribute have the
// C layout of CUlaunchConfig and CUlaunchAttribute on 64-bit targets
// (cuda.h: seven unsigned ints, then the stream, the attributes' pointer
// and their count; an attribute's 4-byte id padded to 8, then a 64-byte
// value).
func TestLaunchConfigLayout(t *testing.T) {
	var c cuLaunchConfig
	var a cuLaunchAttribute
	got := []uintptr{unsafe.Offsetof(c.shared), unsafe.Offsetof(c.stream), unsafe.Offsetof(c.attrs), unsafe.Offsetof(c.numAttrs), unsafe.Sizeof(c),
		unsafe.Offsetof(a.value), unsafe.Sizeof(a)}
	want := []uintptr{24, 32, 40, 48, 56, 8, 72}
	if !slices.Equal(got, want) {
		t.Fatalf("offsets and sizes %v, want %v", got, want)
	}
}

// TestMemcpy2DLayout holds memcpy2D to CUDA_MEMCPY2D's layout in cuda.h:
// the fields the driver reads at their offsets, 128 bytes in all.
func TestMemcpy2DLayout(t *testing.T) {
	var m memcpy2D
	got := []uintptr{unsafe.Offsetof(m.srcType), unsafe.Offsetof(m.srcDevice), unsafe.Offsetof(m.srcPitch), unsafe.Offsetof(m.dstType),
		unsafe.Offsetof(m.dstDevice), unsafe.Offsetof(m.dstPitch), unsafe.Offsetof(m.width), unsafe.Offsetof(m.height), unsafe.Sizeof(m)}
	want := []uintptr{16, 32, 48, 72, 88, 104, 112, 120, 128}
	if !slices.Equal(got, want) {
		t.Fatalf("offsets and size %v, want %v", got, want)
	}
}
