package fakecuda_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernels"
)

// setup retains and binds the primary context of device 0.
func setup(t *testing.T, d *fakecuda.Driver) {
	t.Helper()
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CtxSetCurrent(ctx); err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) int {
	var ce *gpu.CUDAError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

func TestRoundTrip(t *testing.T) {
	d := fakecuda.New()
	setup(t, d)

	const n = 1000
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dp, err := d.MemAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.MemcpyHtoD(dp, unsafe.Pointer(&src[0]), n); err != nil {
		t.Fatal(err)
	}
	s, err := d.StreamCreate()
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := d.MemAllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.MemcpyDtoHAsync(pinned, dp, n, s); err != nil {
		t.Fatal(err)
	}
	if err := d.StreamSynchronize(s); err != nil {
		t.Fatal(err)
	}
	if got := unsafe.Slice((*byte)(pinned), n); !bytes.Equal(got, src) {
		t.Fatal("DtoH did not return what HtoD stored")
	}

	// An async upload at an offset inside the allocation.
	patch := []byte{0xAA, 0xBB, 0xCC}
	if err := d.MemcpyHtoDAsync(dp+10, unsafe.Pointer(&patch[0]), 3, s); err != nil {
		t.Fatal(err)
	}
	dev, err := d.DeviceBytes(dp, n)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dev[10:13], patch) || dev[9] != src[9] || dev[13] != src[13] {
		t.Fatalf("offset copy wrong: % x", dev[8:15])
	}

	// Copies past the end of an allocation are refused.
	if err := d.MemcpyHtoD(dp+n-2, unsafe.Pointer(&patch[0]), 3); codeOf(err) != gpu.CodeInvalidValue {
		t.Fatalf("overrun: got %v", err)
	}

	if got := d.Resources(); got != (fakecuda.Resources{DeviceAllocs: 1, HostAllocs: 1, Streams: 1, ContextRefs: 1}) {
		t.Fatalf("resources %+v", got)
	}
	for _, err := range []error{d.MemFree(dp), d.MemFreeHost(pinned), d.StreamDestroy(s), d.PrimaryCtxRelease(0)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d.Live() != 0 {
		t.Fatalf("Live = %d after releasing everything", d.Live())
	}
	if err := d.MemFree(dp); err == nil {
		t.Fatal("double free accepted")
	}
}

// TestMappedHostMemory: pinned memory mapped by MemHostDevicePointer is the
// same bytes at a device address of its own (the same one each time), is
// not device memory to MemFree, and is gone with MemFreeHost.
func TestMappedHostMemory(t *testing.T) {
	d := fakecuda.New()
	setup(t, d)
	const n = 100
	pinned, err := d.MemAllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	dp, err := d.MemHostDevicePointer(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := d.MemHostDevicePointer(pinned); err != nil || again != dp {
		t.Fatalf("mapped again at %#x (%v), first at %#x", again, err, dp)
	}
	other, err := d.MemAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if other >= dp && other < dp+n {
		t.Fatalf("device allocation %#x inside the mapping at %#x", other, dp)
	}
	host := unsafe.Slice((*byte)(pinned), n)
	host[7] = 0x5a
	dev, err := d.DeviceBytes(dp, n)
	if err != nil {
		t.Fatal(err)
	}
	dev[9] = 0xa5 // a kernel's write
	if dev[7] != 0x5a || host[9] != 0xa5 {
		t.Fatal("the mapping is not the pinned memory itself")
	}
	if got := d.Resources(); got.DeviceAllocs != 1 || got.HostAllocs != 1 {
		t.Fatalf("resources %+v: the mapping counts as neither", got)
	}
	if err := d.MemFree(dp); codeOf(err) != gpu.CodeInvalidValue {
		t.Fatalf("MemFree of a mapping: got %v", err)
	}
	var stack [8]byte
	if _, err := d.MemHostDevicePointer(unsafe.Pointer(&stack[0])); codeOf(err) != gpu.CodeInvalidValue {
		t.Fatalf("mapping memory not from MemAllocHost: got %v", err)
	}
	if err := d.MemFreeHost(pinned); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DeviceBytes(dp, n); err == nil {
		t.Fatal("the mapping outlived its pinned memory")
	}
}

func TestFailAt(t *testing.T) {
	d := fakecuda.New()
	setup(t, d)
	boom := errors.New("boom")
	d.FailAt("MemAlloc", 2, boom)

	p1, err := d.MemAlloc(16)
	if err != nil {
		t.Fatalf("first MemAlloc: %v", err)
	}
	if _, err := d.MemAlloc(16); !errors.Is(err, boom) {
		t.Fatalf("second MemAlloc: got %v, want boom", err)
	}
	p3, err := d.MemAlloc(16)
	if err != nil {
		t.Fatalf("third MemAlloc: %v", err)
	}
	if d.Calls("MemAlloc") != 3 {
		t.Fatalf("Calls = %d", d.Calls("MemAlloc"))
	}
	if r := d.Resources(); r.DeviceAllocs != 2 {
		t.Fatalf("a failed MemAlloc allocated: %+v", r)
	}
	_ = d.MemFree(p1)
	_ = d.MemFree(p3)

	// A nil error stands for CUDA_ERROR_UNKNOWN from the right symbol, and
	// nth <= 0 fails every later call.
	d.FailAt("StreamCreate", 0, nil)
	for range 3 {
		_, err := d.StreamCreate()
		var ce *gpu.CUDAError
		if !errors.As(err, &ce) || ce.Code != gpu.CodeUnknown || ce.Call != "cuStreamCreate" {
			t.Fatalf("got %v", err)
		}
	}
	d.ClearFailures()
	s, err := d.StreamCreate()
	if err != nil {
		t.Fatal(err)
	}
	_ = d.StreamDestroy(s)

	defer func() {
		if recover() == nil {
			t.Fatal("FailAt accepted an unknown method name")
		}
	}()
	d.FailAt("MemAllocs", 1, nil)
}

func TestNeedsContext(t *testing.T) {
	d := fakecuda.New()
	if _, err := d.MemAlloc(8); codeOf(err) != gpu.CodeInvalidContext {
		t.Fatalf("MemAlloc without context: %v", err)
	}
	setup(t, d)
	if err := d.PrimaryCtxRelease(0); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StreamCreate(); codeOf(err) != gpu.CodeInvalidContext {
		t.Fatalf("StreamCreate after the last release: %v", err)
	}
	if err := d.PrimaryCtxRelease(0); err == nil {
		t.Fatal("unbalanced release accepted")
	}
}

func TestLaunch(t *testing.T) {
	d := fakecuda.New()
	setup(t, d)
	m, f := loadLadder(t, d)
	buf, err := d.MemAlloc(4 * 8)
	if err != nil {
		t.Fatal(err)
	}

	// The emulated kernel adds its scalar argument to each uint32.
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if fn != "ladder" || len(params) != 2 {
			t.Errorf("launch of %q with %d params", fn, len(params))
		}
		p := *(*gpu.DevicePtr)(params[0])
		add := *(*uint32)(params[1])
		mem, err := d.DeviceBytes(p, 4*8)
		if err != nil {
			return err
		}
		for i := 0; i < 8; i++ {
			v := binary.LittleEndian.Uint32(mem[4*i:])
			binary.LittleEndian.PutUint32(mem[4*i:], v+add)
		}
		return nil
	}
	add := uint32(5)
	params := []unsafe.Pointer{unsafe.Pointer(&buf), unsafe.Pointer(&add)}
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{8, 1, 1}, 0, 0, params); err != nil {
		t.Fatal(err)
	}
	mem, _ := d.DeviceBytes(buf, 32)
	if binary.LittleEndian.Uint32(mem[28:]) != 5 {
		t.Fatalf("kernel did not run: % x", mem)
	}

	// More than 48 KiB of dynamic shared memory needs the opt-in.
	big := uint32(100 << 10)
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, big, 0, params); codeOf(err) != gpu.CodeInvalidValue {
		t.Fatalf("launch without opt-in: %v", err)
	}
	if err := d.FuncSetAttribute(f, gpu.MaxDynamicSharedSizeBytes, int(big)); err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, big, 0, params); err != nil {
		t.Fatalf("launch after opt-in: %v", err)
	}
	if err := d.FuncSetAttribute(f, gpu.MaxDynamicSharedSizeBytes, 300<<10); err == nil {
		t.Fatal("opt-in beyond the device limit accepted")
	}
	for _, bad := range []struct {
		grid, block [3]uint32
		params      []unsafe.Pointer
	}{
		{[3]uint32{0, 1, 1}, [3]uint32{32, 1, 1}, params},
		{[3]uint32{1, 1, 1}, [3]uint32{2048, 1, 1}, params},
		{[3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, []unsafe.Pointer{nil}},
	} {
		if err := d.LaunchKernel(f, bad.grid, bad.block, 0, 0, bad.params); codeOf(err) != gpu.CodeInvalidValue {
			t.Fatalf("bad launch %v %v accepted: %v", bad.grid, bad.block, err)
		}
	}
	if d.Launches() != 2 {
		t.Fatalf("Launches = %d", d.Launches())
	}
	if got := d.FunctionNames(); len(got) != 1 || got[0] != "ladder" {
		t.Fatalf("FunctionNames = %v", got)
	}

	// Globals live with their module.
	g, size, err := d.ModuleGetGlobal(m, "c_moduli")
	if err != nil || size != 64<<10 {
		t.Fatalf("global: %v size %d", err, size)
	}
	if err := d.MemFree(g); err == nil {
		t.Fatal("MemFree of a module global accepted")
	}
	if err := d.ModuleUnload(m); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DeviceBytes(g, 1); err == nil {
		t.Fatal("global survived ModuleUnload")
	}
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, nil); codeOf(err) != gpu.CodeInvalidHandle {
		t.Fatalf("launch of an unloaded function: %v", err)
	}
	_ = d.MemFree(buf)
	_ = d.PrimaryCtxRelease(0)
	if d.Live() != 0 {
		t.Fatalf("leak: %+v", d.Resources())
	}
}

// TestLaunchOverKernelBlockLimit: a block of more than kernels.MaxThreads
// threads of an entry point of the kernel fails as the kernel's trap does
// (CUDA_ERROR_LAUNCH_FAILED), before OnLaunch and uncounted; other
// functions, and smaller blocks, keep the device's limit.
func TestLaunchOverKernelBlockLimit(t *testing.T) {
	d := fakecuda.New()
	setup(t, d)
	m, err := d.ModuleLoadData([]byte("fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	d.OnLaunch = func(string, [3]uint32, [3]uint32, []unsafe.Pointer) error { ran++; return nil }
	var word uint32
	params := []unsafe.Pointer{unsafe.Pointer(&word)}
	for _, k := range kernels.Entries() {
		f, err := d.ModuleGetFunction(m, k.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range [][3]uint32{{kernels.MaxThreads + 1, 1, 1}, {1024, 1, 1}, {kernels.MaxThreads, 2, 1}} {
			err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, block, 0, 0, params)
			var ce *gpu.CUDAError
			if !errors.As(err, &ce) || ce.Code != 719 || ce.Name != "CUDA_ERROR_LAUNCH_FAILED" || ce.Call != "cuLaunchKernel" ||
				!strings.Contains(ce.Message, k.Name()) {
				t.Fatalf("%s, block %v: %v, want CUDA_ERROR_LAUNCH_FAILED naming the entry point", k.Name(), block, err)
			}
		}
		if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{kernels.MaxThreads, 1, 1}, 0, 0, params); err != nil {
			t.Fatalf("%s, %d threads: %v", k.Name(), kernels.MaxThreads, err)
		}
	}
	if n := len(kernels.Entries()); ran != n || d.Launches() != n {
		t.Fatalf("OnLaunch ran %d times, Launches = %d, want %d", ran, d.Launches(), n)
	}
	// a function that is not the kernel's takes the device's 1,024
	f, err := d.ModuleGetFunction(m, "other")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1024, 1, 1}, 0, 0, params); err != nil {
		t.Fatalf("other function, 1024 threads: %v", err)
	}
	if err := d.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1025, 1, 1}, 0, 0, params); codeOf(err) != gpu.CodeInvalidValue {
		t.Fatalf("other function, 1025 threads: %v", err)
	}
	_ = d.ModuleUnload(m)
	_ = d.PrimaryCtxRelease(0)
	if d.Live() != 0 {
		t.Fatalf("leak: %+v", d.Resources())
	}
}

func TestGlobalsAndEvents(t *testing.T) {
	d := fakecuda.New()
	d.Globals = map[string]uint64{"c_table": 128}
	d.ElapsedMs = 2.5
	setup(t, d)
	m, _ := d.ModuleLoadData([]byte{1})
	if _, n, err := d.ModuleGetGlobal(m, "c_table"); err != nil || n != 128 {
		t.Fatalf("c_table: %v %d", err, n)
	}
	if _, _, err := d.ModuleGetGlobal(m, "missing"); codeOf(err) != gpu.CodeNotFound {
		t.Fatalf("missing global: %v", err)
	}
	a, _ := d.EventCreate()
	b, _ := d.EventCreate()
	if _, err := d.EventElapsedMs(a, b); err == nil {
		t.Fatal("elapsed time of unrecorded events")
	}
	_ = d.EventRecord(a, 0)
	_ = d.EventRecord(b, 0)
	if err := d.EventSynchronize(b); err != nil {
		t.Fatal(err)
	}
	if ms, err := d.EventElapsedMs(a, b); err != nil || ms != 2.5 {
		t.Fatalf("elapsed %v %v", ms, err)
	}
	_ = d.EventDestroy(a)
	_ = d.EventDestroy(b)
	_ = d.ModuleUnload(m)
	_ = d.PrimaryCtxRelease(0)
	if d.Live() != 0 {
		t.Fatalf("leak: %+v", d.Resources())
	}
}

func TestOutOfMemory(t *testing.T) {
	spec := fakecuda.H100()
	spec.TotalMem = 1 << 20
	d := fakecuda.New(spec)
	setup(t, d)
	p, err := d.MemAlloc(768 << 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.MemAlloc(512 << 10); codeOf(err) != gpu.CodeOutOfMemory {
		t.Fatalf("got %v, want out of memory", err)
	}
	_ = d.MemFree(p)
	if _, err := d.MemAlloc(512 << 10); err != nil {
		t.Fatalf("after free: %v", err)
	}
}

func TestMethodsCoverInterface(t *testing.T) {
	iface := reflect.TypeFor[gpu.Driver]()
	for i := range iface.NumMethod() {
		if name := iface.Method(i).Name; fakecuda.Symbol(name) == "" {
			t.Errorf("gpu.Driver.%s has no symbol", name)
		}
	}
	if n := len(fakecuda.Methods()); n != iface.NumMethod() {
		t.Errorf("%d methods, gpu.Driver has %d", n, iface.NumMethod())
	}
}

// TestAsync: with Async, a stream's copies and event records run after
// the calls return, in order, and only the synchronisations wait for them;
// a timing query on an event whose latest record has not run is refused
// (CUDA_ERROR_NOT_READY); a failed launch fails the next synchronisation.
func TestAsync(t *testing.T) {
	d := fakecuda.New()
	d.Async = true
	setup(t, d)
	const n = 64
	dp, err := d.MemAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.StreamCreate()
	if err != nil {
		t.Fatal(err)
	}
	start, err := d.EventCreate()
	if err != nil {
		t.Fatal(err)
	}
	end, err := d.EventCreate()
	if err != nil {
		t.Fatal(err)
	}
	src, dst := bytes.Repeat([]byte{7}, n), make([]byte, n)
	// a launch that holds the stream until released, so what is queued
	// behind it has not run when the calls return
	release := make(chan struct{})
	d.OnLaunch = func(string, [3]uint32, [3]uint32, []unsafe.Pointer) error { <-release; return nil }
	_, fn := loadLadder(t, d)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.EventRecord(start, s))
	must(d.LaunchKernel(fn, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, s, nil))
	must(d.MemcpyHtoDAsync(dp, unsafe.Pointer(&src[0]), n, s))
	must(d.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), dp, n, s))
	must(d.EventRecord(end, s))
	if _, err := d.EventElapsedMs(start, end); codeOf(err) != 600 {
		t.Fatalf("elapsed time of a pending event: %v, want CUDA_ERROR_NOT_READY", err)
	}
	if !bytes.Equal(dst, make([]byte, n)) {
		t.Fatal("a queued copy ran before the work ahead of it")
	}
	close(release)
	must(d.EventSynchronize(end))
	if !bytes.Equal(dst, src) {
		t.Fatal("EventSynchronize returned before the copies ahead of the event ran")
	}
	if _, err := d.EventElapsedMs(start, end); err != nil {
		t.Fatal(err)
	}

	d.OnLaunch = func(string, [3]uint32, [3]uint32, []unsafe.Pointer) error { return errors.New("trap") }
	must(d.LaunchKernel(fn, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, s, nil))
	if err := d.StreamSynchronize(s); err == nil || !strings.Contains(err.Error(), "trap") {
		t.Fatalf("synchronisation after a failed launch: %v", err)
	}
}

// loadLadder loads a module and returns it with its function "ladder".
func loadLadder(t *testing.T, d *fakecuda.Driver) (gpu.Module, gpu.Function) {
	t.Helper()
	m, err := d.ModuleLoadData([]byte("fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.ModuleGetFunction(m, "ladder")
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}
