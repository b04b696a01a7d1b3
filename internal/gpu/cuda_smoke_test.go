package gpu_test

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"

	"github.com/rnsec/ecmul/internal/gpu"
)

// smokePTX adds the __constant__ addend to each of n words, staging each
// value through dynamic shared memory 60 KiB in, so the launch needs the
// MaxDynamicSharedSizeBytes opt-in. It is JIT-compiled by the driver.
const smokePTX = `
.version 7.0
.target sm_70
.address_size 64

.const .align 4 .u32 addend;
.extern .shared .align 4 .b8 stage[];

.visible .entry add_const(
	.param .u64 data,
	.param .u32 n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [data];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r6, [%rd4];
	ld.const.u32 %r7, [addend];
	add.s32 %r6, %r6, %r7;
	mov.u32 %r8, stage;
	shl.b32 %r9, %r4, 2;
	add.s32 %r8, %r8, %r9;
	add.s32 %r8, %r8, 61440;
	st.shared.u32 [%r8], %r6;
	ld.shared.u32 %r6, [%r8];
	st.global.u32 [%rd4], %r6;
DONE:
	ret;
}
`

// gpuDriver returns the real driver and binds device 0's primary context to
// the test's locked OS thread, or skips without a GPU.
func gpuDriver(tb testing.TB) gpu.Driver {
	d, err := gpu.LoadDriver()
	if errors.Is(err, gpu.ErrNoDevice) {
		tb.Skipf("no GPU: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	runtime.LockOSThread()
	tb.Cleanup(runtime.UnlockOSThread)
	dev, err := d.Device(0)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, err := d.PrimaryCtxRetain(dev)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.PrimaryCtxRelease(dev); err != nil {
			tb.Error(err)
		}
	})
	if err := d.CtxSetCurrent(ctx); err != nil {
		tb.Fatal(err)
	}
	return d
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCUDASmoke(t *testing.T) {
	d := gpuDriver(t)

	m, err := d.ModuleLoadData([]byte(smokePTX))
	must(t, err)
	defer func() { must(t, d.ModuleUnload(m)) }()
	f, err := d.ModuleGetFunction(m, "add_const")
	must(t, err)
	var ce *gpu.CUDAError
	if _, err := d.ModuleGetFunction(m, "no_such_kernel"); !errors.As(err, &ce) || ce.Code != gpu.CodeNotFound {
		t.Errorf("missing kernel: %v", err)
	}
	g, size, err := d.ModuleGetGlobal(m, "addend")
	must(t, err)
	if size != 4 {
		t.Errorf("addend is %d bytes", size)
	}
	addend := uint32(7)
	must(t, d.MemcpyHtoD(g, unsafe.Pointer(&addend), 4))

	const n = 1 << 20
	dp, err := d.MemAlloc(4 * n)
	must(t, err)
	defer func() { must(t, d.MemFree(dp)) }()
	hp, err := d.MemAllocHost(4 * n)
	must(t, err)
	defer func() { must(t, d.MemFreeHost(hp)) }()
	host := unsafe.Slice((*uint32)(hp), n)
	for i := range host {
		host[i] = uint32(i)
	}
	s, err := d.StreamCreate()
	must(t, err)
	defer func() { must(t, d.StreamDestroy(s)) }()
	e0, err := d.EventCreate()
	must(t, err)
	defer func() { must(t, d.EventDestroy(e0)) }()
	e1, err := d.EventCreate()
	must(t, err)
	defer func() { must(t, d.EventDestroy(e1)) }()

	dev, err := d.Device(0)
	must(t, err)
	optin, err := d.DeviceAttribute(gpu.MaxSharedMemoryPerBlockOptin, dev)
	must(t, err)
	const shared = 64 << 10
	if optin < shared {
		t.Skipf("device allows only %d bytes of shared memory", optin)
	}
	nArg := uint32(n)
	params := []unsafe.Pointer{unsafe.Pointer(&dp), unsafe.Pointer(&nArg)}
	grid, block := [3]uint32{n / 256, 1, 1}, [3]uint32{256, 1, 1}
	if err := d.LaunchKernel(f, grid, block, shared, s, params); err == nil {
		t.Error("64 KiB of dynamic shared memory launched without the opt-in")
	} else {
		t.Logf("without opt-in, as expected: %v", err)
	}
	must(t, d.FuncSetAttribute(f, gpu.MaxDynamicSharedSizeBytes, shared))

	must(t, d.EventRecord(e0, s))
	must(t, d.MemcpyHtoDAsync(dp, hp, 4*n, s))
	must(t, d.LaunchKernel(f, grid, block, shared, s, params))
	must(t, d.MemcpyDtoHAsync(hp, dp, 4*n, s))
	must(t, d.EventRecord(e1, s))
	must(t, d.EventSynchronize(e1))
	ms, err := d.EventElapsedMs(e0, e1)
	must(t, err)
	must(t, d.StreamSynchronize(s))
	must(t, d.CtxSynchronize())
	t.Logf("upload+kernel+download of %d MiB: %.3f ms", 4*n>>20, ms)
	if ms <= 0 {
		t.Errorf("elapsed %v ms", ms)
	}
	for i, v := range host {
		if v != uint32(i)+7 {
			t.Fatalf("word %d = %d, want %d", i, v, i+7)
		}
	}

	_, err = d.MemAlloc(1 << 60)
	if !errors.As(err, &ce) || ce.Code != gpu.CodeOutOfMemory || ce.Name != "CUDA_ERROR_OUT_OF_MEMORY" || ce.Message == "" {
		t.Errorf("huge MemAlloc: %v", err)
	}
	t.Logf("huge MemAlloc: %v", err)
}

// BenchmarkLaunch measures the host cost of one LaunchKernel through purego.
func BenchmarkLaunch(b *testing.B) {
	d := gpuDriver(b)
	m, err := d.ModuleLoadData([]byte(smokePTX))
	must(b, err)
	defer d.ModuleUnload(m)
	f, err := d.ModuleGetFunction(m, "add_const")
	must(b, err)
	dp, err := d.MemAlloc(4)
	must(b, err)
	defer d.MemFree(dp)
	s, err := d.StreamCreate()
	must(b, err)
	defer d.StreamDestroy(s)
	nArg := uint32(0)
	params := []unsafe.Pointer{unsafe.Pointer(&dp), unsafe.Pointer(&nArg)}
	for i := 0; b.Loop(); i++ {
		if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, s, params); err != nil {
			b.Fatal(err)
		}
		if i%1024 == 1023 {
			must(b, d.StreamSynchronize(s))
		}
	}
	must(b, d.StreamSynchronize(s))
}
