//go:build linux && (amd64 || arm64)

package gpu

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// cuResult is a CUresult; the C enum is 32 bits wide.
type cuResult int32

const (
	streamNonBlocking = 0x1 // CU_STREAM_NON_BLOCKING
	eventBlockingSync = 0x1 // CU_EVENT_BLOCKING_SYNC
	maxCString        = 4096
)

// libcudaNames are tried in order: the versioned soname is what the driver
// installs; the bare name covers unusual installs.
var libcudaNames = []string{"libcuda.so.1", "libcuda.so"}

// cudaDriver implements Driver with C functions resolved from libcuda.
// Handles are uintptr and sizes uint64 (size_t on 64-bit Linux).
type cudaDriver struct {
	lib uintptr

	cuGetErrorName                              func(code cuResult, str **byte) cuResult
	cuGetErrorString                            func(code cuResult, str **byte) cuResult
	cuInit                                      func(flags uint32) cuResult
	cuDriverGetVersion                          func(version *int32) cuResult
	cuDeviceGetCount                            func(count *int32) cuResult
	cuDeviceGet                                 func(dev *int32, ordinal int32) cuResult
	cuDeviceGetName                             func(name *byte, length int32, dev int32) cuResult
	cuDeviceGetAttribute                        func(value *int32, attr int32, dev int32) cuResult
	cuDeviceTotalMem                            func(bytes *uint64, dev int32) cuResult
	cuDevicePrimaryCtxRetain                    func(ctx *uintptr, dev int32) cuResult
	cuDevicePrimaryCtxRelease                   func(dev int32) cuResult
	cuCtxSetCurrent                             uintptr // uintptr fields: called by address, for every chunk (symbol)
	cuCtxSynchronize                            func() cuResult
	cuModuleLoadData                            func(mod *uintptr, image *byte) cuResult
	cuModuleUnload                              func(mod uintptr) cuResult
	cuModuleGetFunction                         func(fn *uintptr, mod uintptr, name *byte) cuResult
	cuModuleGetGlobal                           func(dptr *uint64, bytes *uint64, mod uintptr, name *byte) cuResult
	cuFuncSetAttribute                          func(fn uintptr, attr int32, value int32) cuResult
	cuOccupancyMaxActiveBlocksPerMultiprocessor func(n *int32, fn uintptr, blockSize int32, dynamicShared uint64) cuResult
	cuMemAlloc                                  func(dptr *uint64, bytes uint64) cuResult
	cuMemFree                                   func(dptr uint64) cuResult
	cuMemAllocHost                              func(pp *unsafe.Pointer, bytes uint64) cuResult
	cuMemHostGetDevicePointer                   func(dp *uint64, p unsafe.Pointer, flags uint32) cuResult
	cuMemFreeHost                               func(p unsafe.Pointer) cuResult
	cuMemcpyHtoD                                func(dst uint64, src unsafe.Pointer, bytes uint64) cuResult
	cuMemcpyHtoDAsync                           uintptr
	cuMemcpyDtoHAsync                           uintptr
	cuMemcpy2DAsync                             uintptr
	cuStreamCreate                              func(s *uintptr, flags uint32) cuResult
	cuStreamDestroy                             func(s uintptr) cuResult
	cuStreamSynchronize                         uintptr
	cuEventCreate                               func(e *uintptr, flags uint32) cuResult
	cuEventRecord                               uintptr
	cuEventSynchronize                          func(e uintptr) cuResult
	cuEventElapsedTime                          uintptr
	cuEventDestroy                              func(e uintptr) cuResult
	cuLaunchKernel                              uintptr
	cuLaunchKernelEx                            uintptr
	cuCtxGetStreamPriorityRange                 func(least, greatest *int32) cuResult

	// elapsedName is the symbol that cuEventElapsedTime resolved to.
	elapsedName string

	// images keeps each loaded module's image reachable until ModuleUnload,
	// in case the driver reads it after cuModuleLoadData returns (lazy
	// loading). Go heap objects do not move, so the address stays valid.
	mu     sync.Mutex
	images map[Module][]byte
}

// symbol binds one C function; the first name that resolves wins and is
// stored in resolved when that is set. fptr is a func field, which purego
// makes call the function, or a uintptr field, which gets its address: the
// calls made for every chunk go by address through purego.SyscallN, a
// fifth of the time of a registered func's reflective call.
type symbol struct {
	fptr     any
	names    []string
	resolved *string
}

func (d *cudaDriver) symbols() []symbol {
	return []symbol{
		{&d.cuGetErrorName, []string{"cuGetErrorName"}, nil},
		{&d.cuGetErrorString, []string{"cuGetErrorString"}, nil},
		{&d.cuInit, []string{"cuInit"}, nil},
		{&d.cuDriverGetVersion, []string{"cuDriverGetVersion"}, nil},
		{&d.cuDeviceGetCount, []string{"cuDeviceGetCount"}, nil},
		{&d.cuDeviceGet, []string{"cuDeviceGet"}, nil},
		{&d.cuDeviceGetName, []string{"cuDeviceGetName"}, nil},
		{&d.cuDeviceGetAttribute, []string{"cuDeviceGetAttribute"}, nil},
		{&d.cuDeviceTotalMem, []string{"cuDeviceTotalMem_v2"}, nil},
		{&d.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}, nil},
		{&d.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2"}, nil},
		{&d.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}, nil},
		{&d.cuCtxSynchronize, []string{"cuCtxSynchronize"}, nil},
		{&d.cuModuleLoadData, []string{"cuModuleLoadData"}, nil},
		{&d.cuModuleUnload, []string{"cuModuleUnload"}, nil},
		{&d.cuModuleGetFunction, []string{"cuModuleGetFunction"}, nil},
		{&d.cuModuleGetGlobal, []string{"cuModuleGetGlobal_v2"}, nil},
		{&d.cuFuncSetAttribute, []string{"cuFuncSetAttribute"}, nil},
		{&d.cuOccupancyMaxActiveBlocksPerMultiprocessor, []string{"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, nil},
		{&d.cuMemAlloc, []string{"cuMemAlloc_v2"}, nil},
		{&d.cuMemFree, []string{"cuMemFree_v2"}, nil},
		{&d.cuMemAllocHost, []string{"cuMemAllocHost_v2"}, nil},
		{&d.cuMemHostGetDevicePointer, []string{"cuMemHostGetDevicePointer_v2"}, nil},
		{&d.cuMemFreeHost, []string{"cuMemFreeHost"}, nil},
		{&d.cuMemcpyHtoD, []string{"cuMemcpyHtoD_v2"}, nil},
		{&d.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}, nil},
		{&d.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}, nil},
		{&d.cuMemcpy2DAsync, []string{"cuMemcpy2DAsync_v2"}, nil},
		{&d.cuStreamCreate, []string{"cuStreamCreate"}, nil},
		{&d.cuStreamDestroy, []string{"cuStreamDestroy_v2"}, nil},
		{&d.cuStreamSynchronize, []string{"cuStreamSynchronize"}, nil},
		{&d.cuEventCreate, []string{"cuEventCreate"}, nil},
		{&d.cuEventRecord, []string{"cuEventRecord"}, nil},
		{&d.cuEventSynchronize, []string{"cuEventSynchronize"}, nil},
		// CUDA 12.8 added cuEventElapsedTime_v2 and CUDA 13 headers map
		// the plain name to it; the plain symbol is still exported for
		// older binaries. Both take (float*, CUevent, CUevent).
		{&d.cuEventElapsedTime, []string{"cuEventElapsedTime", "cuEventElapsedTime_v2"}, &d.elapsedName},
		{&d.cuEventDestroy, []string{"cuEventDestroy_v2"}, nil},
		{&d.cuLaunchKernel, []string{"cuLaunchKernel"}, nil},
		{&d.cuLaunchKernelEx, []string{"cuLaunchKernelEx"}, nil},
		{&d.cuCtxGetStreamPriorityRange, []string{"cuCtxGetStreamPriorityRange"}, nil},
	}
}

// LoadDriver opens libcuda, resolves every symbol the engine needs, runs
// cuInit(0) and checks that at least one device is visible. The error wraps
// ErrNoDevice when the library is missing, the driver reports no device, or
// the device count is zero.
func LoadDriver() (Driver, error) {
	var lib uintptr
	var openErrs []string
	for _, name := range libcudaNames {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			lib = h
			break
		}
		openErrs = append(openErrs, err.Error())
	}
	if lib == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoDevice, strings.Join(openErrs, "; "))
	}

	d := &cudaDriver{lib: lib, images: make(map[Module][]byte)}
	if err := d.bind(); err != nil {
		_ = purego.Dlclose(lib)
		return nil, err
	}
	// libcuda stays open from here on: the driver may have started threads
	// that run its code.
	if err := d.Init(); err != nil {
		if errors.Is(err, ErrNoDevice) {
			return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
		}
		return nil, err
	}
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: cuDeviceGetCount reports 0 devices", ErrNoDevice)
	}
	return d, nil
}

// bind resolves every symbol; a missing one is an error, not a panic.
func (d *cudaDriver) bind() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gpu: binding libcuda: %v", r)
		}
	}()
	for _, s := range d.symbols() {
		var addr uintptr
		var found string
		for _, name := range s.names {
			if a, e := purego.Dlsym(d.lib, name); e == nil && a != 0 {
				addr, found = a, name
				break
			}
		}
		if addr == 0 {
			return fmt.Errorf("gpu: libcuda lacks %s (NVIDIA driver too old?)", strings.Join(s.names, " or "))
		}
		if raw, ok := s.fptr.(*uintptr); ok {
			*raw = addr
		} else {
			purego.RegisterFunc(s.fptr, addr)
		}
		if s.resolved != nil {
			*s.resolved = found
		}
	}
	return nil
}

// check turns a CUresult into nil or a *CUDAError named by the driver.
func (d *cudaDriver) check(call string, r cuResult) error {
	if r == 0 {
		return nil
	}
	e := NewCUDAError(call, int(r))
	var p *byte
	if d.cuGetErrorName(r, &p) == 0 && p != nil {
		e.Name = goString(p)
	}
	p = nil
	if d.cuGetErrorString(r, &p) == 0 && p != nil {
		e.Message = goString(p)
	}
	return e
}

// goString copies a NUL-terminated C string owned by the driver.
func goString(p *byte) string {
	n := 0
	for n < maxCString && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cString returns s as a NUL-terminated byte slice; the caller keeps it alive
// across the call that reads it.
func cString(call, s string) ([]byte, error) {
	if strings.IndexByte(s, 0) >= 0 {
		e := NewCUDAError(call, CodeInvalidValue)
		e.Message = "name contains a NUL byte"
		return nil, e
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b, nil
}

func (d *cudaDriver) Init() error {
	return d.check("cuInit", d.cuInit(0))
}

func (d *cudaDriver) DriverVersion() (int, error) {
	var v int32
	if err := d.check("cuDriverGetVersion", d.cuDriverGetVersion(&v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

func (d *cudaDriver) DeviceCount() (int, error) {
	var n int32
	if err := d.check("cuDeviceGetCount", d.cuDeviceGetCount(&n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (d *cudaDriver) Device(ordinal int) (int32, error) {
	var dev int32
	if err := d.check("cuDeviceGet", d.cuDeviceGet(&dev, int32(ordinal))); err != nil {
		return 0, err
	}
	return dev, nil
}

func (d *cudaDriver) DeviceName(dev int32) (string, error) {
	buf := make([]byte, 256)
	r := d.cuDeviceGetName(&buf[0], int32(len(buf)), dev)
	if err := d.check("cuDeviceGetName", r); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}

func (d *cudaDriver) DeviceAttribute(attr DeviceAttr, dev int32) (int, error) {
	var v int32
	if err := d.check("cuDeviceGetAttribute", d.cuDeviceGetAttribute(&v, int32(attr), dev)); err != nil {
		return 0, err
	}
	return int(v), nil
}

func (d *cudaDriver) DeviceTotalMem(dev int32) (uint64, error) {
	var n uint64
	if err := d.check("cuDeviceTotalMem_v2", d.cuDeviceTotalMem(&n, dev)); err != nil {
		return 0, err
	}
	return n, nil
}

func (d *cudaDriver) PrimaryCtxRetain(dev int32) (Context, error) {
	var c uintptr
	if err := d.check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&c, dev)); err != nil {
		return 0, err
	}
	return Context(c), nil
}

func (d *cudaDriver) PrimaryCtxRelease(dev int32) error {
	return d.check("cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease(dev))
}

func (d *cudaDriver) CtxSetCurrent(ctx Context) error {
	r, _, _ := purego.SyscallN(d.cuCtxSetCurrent, uintptr(ctx))
	return d.check("cuCtxSetCurrent", cuResult(r))
}

func (d *cudaDriver) CtxSynchronize() error {
	return d.check("cuCtxSynchronize", d.cuCtxSynchronize())
}

// ModuleLoadData hands the driver a private copy of image with a trailing
// NUL, which PTX text needs and binary images ignore, and keeps that copy
// until ModuleUnload so the caller may reuse its slice at once.
func (d *cudaDriver) ModuleLoadData(image []byte) (Module, error) {
	if len(image) == 0 {
		e := NewCUDAError("cuModuleLoadData", CodeInvalidValue)
		e.Message = "empty module image"
		return 0, e
	}
	img := make([]byte, len(image)+1)
	copy(img, image)
	var m uintptr
	r := d.cuModuleLoadData(&m, &img[0])
	runtime.KeepAlive(img)
	if err := d.check("cuModuleLoadData", r); err != nil {
		return 0, err
	}
	d.mu.Lock()
	d.images[Module(m)] = img
	d.mu.Unlock()
	return Module(m), nil
}

func (d *cudaDriver) ModuleUnload(m Module) error {
	err := d.check("cuModuleUnload", d.cuModuleUnload(uintptr(m)))
	if err == nil {
		d.mu.Lock()
		delete(d.images, m)
		d.mu.Unlock()
	}
	return err
}

func (d *cudaDriver) ModuleGetFunction(m Module, name string) (Function, error) {
	cname, err := cString("cuModuleGetFunction", name)
	if err != nil {
		return 0, err
	}
	var f uintptr
	r := d.cuModuleGetFunction(&f, uintptr(m), &cname[0])
	runtime.KeepAlive(cname)
	if err := d.check("cuModuleGetFunction", r); err != nil {
		return 0, err
	}
	return Function(f), nil
}

func (d *cudaDriver) ModuleGetGlobal(m Module, name string) (DevicePtr, uint64, error) {
	cname, err := cString("cuModuleGetGlobal_v2", name)
	if err != nil {
		return 0, 0, err
	}
	var p, n uint64
	r := d.cuModuleGetGlobal(&p, &n, uintptr(m), &cname[0])
	runtime.KeepAlive(cname)
	if err := d.check("cuModuleGetGlobal_v2", r); err != nil {
		return 0, 0, err
	}
	return DevicePtr(p), n, nil
}

func (d *cudaDriver) FuncSetAttribute(f Function, attr FuncAttr, value int) error {
	return d.check("cuFuncSetAttribute", d.cuFuncSetAttribute(uintptr(f), int32(attr), int32(value)))
}

func (d *cudaDriver) OccupancyBlocksPerSM(f Function, blockThreads int) (int, error) {
	var n int32
	if err := d.check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
		d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, uintptr(f), int32(blockThreads), 0)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (d *cudaDriver) MemAlloc(bytes uint64) (DevicePtr, error) {
	var p uint64
	if err := d.check("cuMemAlloc_v2", d.cuMemAlloc(&p, bytes)); err != nil {
		return 0, err
	}
	return DevicePtr(p), nil
}

func (d *cudaDriver) MemFree(p DevicePtr) error {
	return d.check("cuMemFree_v2", d.cuMemFree(uint64(p)))
}

func (d *cudaDriver) MemAllocHost(bytes uint64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := d.check("cuMemAllocHost_v2", d.cuMemAllocHost(&p, bytes)); err != nil {
		return nil, err
	}
	return p, nil
}

func (d *cudaDriver) MemHostDevicePointer(p unsafe.Pointer) (DevicePtr, error) {
	var dp uint64
	if err := d.check("cuMemHostGetDevicePointer_v2", d.cuMemHostGetDevicePointer(&dp, p, 0)); err != nil {
		return 0, err
	}
	return DevicePtr(dp), nil
}

func (d *cudaDriver) MemFreeHost(p unsafe.Pointer) error {
	return d.check("cuMemFreeHost", d.cuMemFreeHost(p))
}

func (d *cudaDriver) MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	r := d.cuMemcpyHtoD(uint64(dst), src, bytes)
	runtime.KeepAlive(src)
	return d.check("cuMemcpyHtoD_v2", r)
}

func (d *cudaDriver) MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes uint64, s Stream) error {
	r, _, _ := purego.SyscallN(d.cuMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
	runtime.KeepAlive(src)
	return d.check("cuMemcpyHtoDAsync_v2", cuResult(r))
}

func (d *cudaDriver) MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes uint64, s Stream) error {
	r, _, _ := purego.SyscallN(d.cuMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
	runtime.KeepAlive(dst)
	return d.check("cuMemcpyDtoHAsync_v2", cuResult(r))
}

// memcpy2D is CUDA_MEMCPY2D: the source's and the destination's place,
// memory type and pitch, then the rows' width and count.
type memcpy2D struct {
	srcX, srcY    uint64
	srcType       uint32
	_             uint32
	srcHost       uintptr
	srcDevice     uint64
	srcArray      uintptr
	srcPitch      uint64
	dstX, dstY    uint64
	dstType       uint32
	_             uint32
	dstHost       uintptr
	dstDevice     uint64
	dstArray      uintptr
	dstPitch      uint64
	width, height uint64
}

// memoryTypeDevice is CU_MEMORYTYPE_DEVICE.
const memoryTypeDevice = 2

func (d *cudaDriver) Memcpy2DDtoDAsync(dst DevicePtr, dstPitch uint64, src DevicePtr, srcPitch, width, height uint64, s Stream) error {
	m := &memcpy2D{srcType: memoryTypeDevice, srcDevice: uint64(src), srcPitch: srcPitch,
		dstType: memoryTypeDevice, dstDevice: uint64(dst), dstPitch: dstPitch, width: width, height: height}
	r, _, _ := purego.SyscallN(d.cuMemcpy2DAsync, uintptr(unsafe.Pointer(m)), uintptr(s))
	runtime.KeepAlive(m)
	return d.check("cuMemcpy2DAsync_v2", cuResult(r))
}

func (d *cudaDriver) StreamCreate() (Stream, error) {
	var s uintptr
	if err := d.check("cuStreamCreate", d.cuStreamCreate(&s, streamNonBlocking)); err != nil {
		return 0, err
	}
	return Stream(s), nil
}

func (d *cudaDriver) StreamDestroy(s Stream) error {
	return d.check("cuStreamDestroy_v2", d.cuStreamDestroy(uintptr(s)))
}

func (d *cudaDriver) StreamSynchronize(s Stream) error {
	r, _, _ := purego.SyscallN(d.cuStreamSynchronize, uintptr(s))
	return d.check("cuStreamSynchronize", cuResult(r))
}

func (d *cudaDriver) EventCreate() (Event, error) {
	var e uintptr
	if err := d.check("cuEventCreate", d.cuEventCreate(&e, eventBlockingSync)); err != nil {
		return 0, err
	}
	return Event(e), nil
}

func (d *cudaDriver) EventRecord(e Event, s Stream) error {
	r, _, _ := purego.SyscallN(d.cuEventRecord, uintptr(e), uintptr(s))
	return d.check("cuEventRecord", cuResult(r))
}

func (d *cudaDriver) EventSynchronize(e Event) error {
	return d.check("cuEventSynchronize", d.cuEventSynchronize(uintptr(e)))
}

func (d *cudaDriver) EventElapsedMs(start, end Event) (float32, error) {
	var ms float32
	r, _, _ := purego.SyscallN(d.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end))
	if err := d.check(d.elapsedName, cuResult(r)); err != nil {
		return 0, err
	}
	return ms, nil
}

func (d *cudaDriver) EventDestroy(e Event) error {
	return d.check("cuEventDestroy_v2", d.cuEventDestroy(uintptr(e)))
}

// launchAttributePriority is CU_LAUNCH_ATTRIBUTE_PRIORITY.
const launchAttributePriority = 8

// cuLaunchAttribute is CUlaunchAttribute: an id and a 64-byte value, whose
// first 4 bytes hold a priority.
type cuLaunchAttribute struct {
	id    uint32
	_     [4]byte
	value [64]byte
}

// cuLaunchConfig is CUlaunchConfig; Go lays it out as C does (the stream
// 8-aligned at byte 32, 56 bytes in all).
type cuLaunchConfig struct {
	grid, block [3]uint32
	shared      uint32
	stream      uintptr
	attrs       *cuLaunchAttribute
	numAttrs    uint32
}

// LaunchKernelFirst launches through cuLaunchKernelEx with the greatest
// priority of the current context (cuCtxGetStreamPriorityRange).
func (d *cudaDriver) LaunchKernelFirst(f Function, grid, block [3]uint32, sharedBytes uint32, s Stream, params []unsafe.Pointer) error {
	var least, greatest int32
	if err := d.check("cuCtxGetStreamPriorityRange", d.cuCtxGetStreamPriorityRange(&least, &greatest)); err != nil {
		return err
	}
	attr := &cuLaunchAttribute{id: launchAttributePriority}
	*(*int32)(unsafe.Pointer(&attr.value[0])) = greatest
	var pinner runtime.Pinner // cfg, handed to C, holds a Go pointer
	pinner.Pin(attr)
	defer pinner.Unpin()
	cfg := cuLaunchConfig{grid: grid, block: block, shared: sharedBytes, stream: uintptr(s), attrs: attr, numAttrs: 1}
	return d.launch("cuLaunchKernelEx", params, func(kp unsafe.Pointer) uintptr {
		r, _, _ := purego.SyscallN(d.cuLaunchKernelEx, uintptr(unsafe.Pointer(&cfg)), uintptr(f), uintptr(kp), 0)
		runtime.KeepAlive(&cfg)
		return r
	})
}

// launch checks and pins params, and calls call with the kernelParams
// array (nil when there are none).
func (d *cudaDriver) launch(name string, params []unsafe.Pointer, call func(kp unsafe.Pointer) uintptr) error {
	var pinner runtime.Pinner
	defer pinner.Unpin()
	for i, p := range params {
		if p == nil {
			e := NewCUDAError(name, CodeInvalidValue)
			e.Message = fmt.Sprintf("kernel parameter %d is a nil pointer", i)
			return e
		}
		pinner.Pin(p)
	}
	var kp unsafe.Pointer
	if len(params) > 0 {
		kp = unsafe.Pointer(&params[0])
	}
	r := call(kp)
	runtime.KeepAlive(params)
	return d.check(name, cuResult(r))
}

// LaunchKernel passes params to cuLaunchKernel as its kernelParams array.
//
// The array is the backing store of params, in Go memory, and its entries
// point at Go values. That is safe here because cuLaunchKernel reads the
// array and copies every argument value before it returns, the call is
// synchronous (SyscallN keeps what its arguments point to alive and on the
// heap for its duration, and Go's collector does not move heap objects), and each pointee is pinned with a
// runtime.Pinner for the call, as the cgo rules ask for Go pointers stored in
// memory handed to C. Nil entries are rejected rather than handed to the
// driver, which would dereference them.
func (d *cudaDriver) LaunchKernel(f Function, grid, block [3]uint32, sharedBytes uint32, s Stream, params []unsafe.Pointer) error {
	return d.launch("cuLaunchKernel", params, func(kp unsafe.Pointer) uintptr {
		r, _, _ := purego.SyscallN(d.cuLaunchKernel, uintptr(f),
			uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
			uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
			uintptr(sharedBytes), uintptr(s), uintptr(kp), 0)
		return r
	})
}
