package gpu

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Handles of the CUDA driver API. They are opaque values owned by the driver;
// the zero value of Stream is the legacy default stream.
type (
	// DevicePtr is a CUdeviceptr: an address in device memory.
	DevicePtr uint64
	// Context is a CUcontext.
	Context uintptr
	// Module is a CUmodule.
	Module uintptr
	// Function is a CUfunction.
	Function uintptr
	// Stream is a CUstream.
	Stream uintptr
	// Event is a CUevent.
	Event uintptr
	// HostPtr is host memory handed to the driver, such as a pinned buffer
	// from MemAllocHost.
	HostPtr = unsafe.Pointer
)

// DeviceAttr is a CUdevice_attribute.
type DeviceAttr int32

// Device attributes used by the engine, with their cuda.h values.
const (
	MaxThreadsPerBlock           DeviceAttr = 1  // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	WarpSize                     DeviceAttr = 10 // CU_DEVICE_ATTRIBUTE_WARP_SIZE
	ClockRate                    DeviceAttr = 13 // CU_DEVICE_ATTRIBUTE_CLOCK_RATE, in kHz
	MultiprocessorCount          DeviceAttr = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	ComputeCapabilityMajor       DeviceAttr = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	ComputeCapabilityMinor       DeviceAttr = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	MaxSharedMemoryPerBlockOptin DeviceAttr = 97 // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
)

// FuncAttr is a CUfunction_attribute.
type FuncAttr int32

// MaxDynamicSharedSizeBytes is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
// a kernel must opt in through it before it is launched with more than 48 KiB
// of dynamic shared memory.
const MaxDynamicSharedSizeBytes FuncAttr = 8

// Driver is the subset of the CUDA driver API that the engine uses. The real
// implementation comes from LoadDriver; tests use package gpu/fakecuda.
//
// A Driver from LoadDriver is already initialised (cuInit has run). The CUDA
// current context is per OS thread: a goroutine that calls CtxSetCurrent must
// hold runtime.LockOSThread for as long as it makes calls that depend on that
// context (memory, modules, streams, events, launches).
type Driver interface {
	// Init initialises the driver (cuInit(0)); calling it again is harmless.
	Init() error
	// DriverVersion reports the driver's CUDA version as 1000*major+10*minor.
	DriverVersion() (int, error)
	// DeviceCount reports the number of visible devices.
	DeviceCount() (int, error)
	// Device returns the CUdevice for an ordinal in [0, DeviceCount()).
	Device(ordinal int) (int32, error)
	// DeviceName returns the marketing name of dev.
	DeviceName(dev int32) (string, error)
	// DeviceAttribute reads one integer attribute of dev.
	DeviceAttribute(attr DeviceAttr, dev int32) (int, error)
	// DeviceTotalMem reports the device memory of dev in bytes.
	DeviceTotalMem(dev int32) (uint64, error)

	// PrimaryCtxRetain retains the primary context of dev; balance each
	// call with PrimaryCtxRelease.
	PrimaryCtxRetain(dev int32) (Context, error)
	// PrimaryCtxRelease releases one retain of the primary context of dev.
	PrimaryCtxRelease(dev int32) error
	// CtxSetCurrent binds ctx to the calling OS thread.
	CtxSetCurrent(ctx Context) error
	// CtxSynchronize waits for all work in the current context.
	CtxSynchronize() error

	// ModuleLoadData loads a cubin, fatbin or PTX image into the current
	// context. The caller may reuse image once the call returns.
	ModuleLoadData(image []byte) (Module, error)
	// ModuleUnload unloads m; its functions and globals become invalid.
	ModuleUnload(m Module) error
	// ModuleGetFunction looks up a kernel (an extern "C" or mangled name).
	ModuleGetFunction(m Module, name string) (Function, error)
	// ModuleGetGlobal returns the address and size of a __device__ or
	// __constant__ variable of m.
	ModuleGetGlobal(m Module, name string) (DevicePtr, uint64, error)
	// FuncSetAttribute sets an attribute of f, such as
	// MaxDynamicSharedSizeBytes.
	FuncSetAttribute(f Function, attr FuncAttr, value int) error
	// OccupancyBlocksPerSM reports how many blocks of blockThreads threads
	// running f one multiprocessor holds at once, with no dynamic shared
	// memory (cuOccupancyMaxActiveBlocksPerMultiprocessor).
	OccupancyBlocksPerSM(f Function, blockThreads int) (int, error)

	// MemAlloc allocates device memory.
	MemAlloc(bytes uint64) (DevicePtr, error)
	// MemFree frees memory from MemAlloc.
	MemFree(p DevicePtr) error
	// MemAllocHost allocates page-locked host memory, which async copies
	// need to overlap with kernels. It is not Go memory: free it with
	// MemFreeHost.
	MemAllocHost(bytes uint64) (unsafe.Pointer, error)
	// MemFreeHost frees memory from MemAllocHost.
	MemFreeHost(p unsafe.Pointer) error
	// MemHostDevicePointer returns the address at which kernels of the
	// current context reach pinned memory from MemAllocHost directly,
	// over the bus, with no copy (cuMemHostGetDevicePointer).
	MemHostDevicePointer(p unsafe.Pointer) (DevicePtr, error)
	// MemcpyHtoD copies bytes from host memory src to dst and returns when
	// the copy is done.
	MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes uint64) error
	// MemcpyHtoDAsync enqueues a host-to-device copy on s. src should be
	// pinned memory and must stay untouched until s reaches the copy.
	MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes uint64, s Stream) error
	// MemcpyDtoHAsync enqueues a device-to-host copy on s. dst should be
	// pinned memory and must not be read before s reaches the copy.
	MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes uint64, s Stream) error
	// Memcpy2DDtoDAsync enqueues a device-to-device copy of height rows of
	// width bytes on s: row k from src + k·srcPitch to dst + k·dstPitch
	// (cuMemcpy2DAsync; pitches need no alignment).
	Memcpy2DDtoDAsync(dst DevicePtr, dstPitch uint64, src DevicePtr, srcPitch, width, height uint64, s Stream) error

	// StreamCreate creates a stream that does not synchronise with the
	// legacy default stream (CU_STREAM_NON_BLOCKING).
	StreamCreate() (Stream, error)
	// StreamDestroy destroys s once its pending work is done.
	StreamDestroy(s Stream) error
	// StreamSynchronize waits for all work queued on s.
	StreamSynchronize(s Stream) error

	// EventCreate creates an event with timing enabled whose
	// EventSynchronize blocks the waiting thread instead of spinning
	// (CU_EVENT_BLOCKING_SYNC): a chunk of milliseconds then costs its
	// host no core while it runs.
	EventCreate() (Event, error)
	// EventRecord records e on s.
	EventRecord(e Event, s Stream) error
	// EventSynchronize waits until e has completed.
	EventSynchronize(e Event) error
	// EventElapsedMs reports the time between two completed events in
	// milliseconds.
	EventElapsedMs(start, end Event) (float32, error)
	// EventDestroy destroys e.
	EventDestroy(e Event) error

	// LaunchKernel enqueues f on s. params holds one pointer per kernel
	// argument, each pointing at the argument's value, as cuLaunchKernel's
	// kernelParams; the values are copied during the call, so they may be
	// reused as soon as it returns.
	LaunchKernel(f Function, grid, block [3]uint32, sharedBytes uint32, s Stream, params []unsafe.Pointer) error
	// LaunchKernelFirst is LaunchKernel at the context's greatest launch
	// priority (cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PRIORITY): once
	// it may run, its blocks go before the waiting blocks of launches at
	// the default priority. The prepare and finish kernels, short, go so;
	// otherwise a chunk's finish would wait behind the ladders of the
	// chunks launched after it.
	LaunchKernelFirst(f Function, grid, block [3]uint32, sharedBytes uint32, s Stream, params []unsafe.Pointer) error
}

// ErrNoDevice reports that no CUDA device can be used: the NVIDIA driver
// library is not installed, or it sees no GPU.
var ErrNoDevice = errors.New("gpu: no CUDA device available (libcuda.so.1 not found or no GPU)")

// CUresult codes that callers and tests may want to recognise.
const (
	CodeInvalidValue   = 1   // CUDA_ERROR_INVALID_VALUE
	CodeOutOfMemory    = 2   // CUDA_ERROR_OUT_OF_MEMORY
	CodeNotInitialized = 3   // CUDA_ERROR_NOT_INITIALIZED
	CodeStubLibrary    = 34  // CUDA_ERROR_STUB_LIBRARY
	CodeNoDevice       = 100 // CUDA_ERROR_NO_DEVICE
	CodeInvalidDevice  = 101 // CUDA_ERROR_INVALID_DEVICE
	CodeInvalidContext = 201 // CUDA_ERROR_INVALID_CONTEXT
	CodeInvalidHandle  = 400 // CUDA_ERROR_INVALID_HANDLE
	CodeNotFound       = 500 // CUDA_ERROR_NOT_FOUND
	CodeUnknown        = 999 // CUDA_ERROR_UNKNOWN
)

// CUDAError is a failed driver call: the C function, its CUresult, and the
// driver's name and description of that code.
type CUDAError struct {
	Call    string // driver symbol, such as "cuMemAlloc_v2"
	Code    int    // CUresult
	Name    string // such as "CUDA_ERROR_OUT_OF_MEMORY"; empty if unknown
	Message string // such as "out of memory"; empty if unknown
}

// Error reads like "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory".
func (e *CUDAError) Error() string {
	name := e.Name
	if name == "" {
		name = "CUDA error"
	}
	s := fmt.Sprintf("%s: %s (%d)", e.Call, name, e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Is makes errors.Is(err, ErrNoDevice) true for the codes that mean no usable
// device: CUDA_ERROR_NO_DEVICE and CUDA_ERROR_STUB_LIBRARY.
func (e *CUDAError) Is(target error) bool {
	return target == ErrNoDevice && (e.Code == CodeNoDevice || e.Code == CodeStubLibrary)
}

// knownCodes names the codes above the way cuGetErrorName/cuGetErrorString do.
var knownCodes = map[int][2]string{
	CodeInvalidValue:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	CodeOutOfMemory:    {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	CodeNotInitialized: {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	CodeStubLibrary:    {"CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
	CodeNoDevice:       {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	CodeInvalidDevice:  {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	CodeInvalidContext: {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	CodeInvalidHandle:  {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	CodeNotFound:       {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	CodeUnknown:        {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// NewCUDAError builds the error a call would return for code, naming the
// codes listed as Code* constants; used by fakes and for argument checks made
// before reaching the driver.
func NewCUDAError(call string, code int) *CUDAError {
	e := &CUDAError{Call: call, Code: code}
	if k, ok := knownCodes[code]; ok {
		e.Name, e.Message = k[0], k[1]
	}
	return e
}

var (
	defaultOnce   sync.Once
	defaultDriver Driver
	defaultErr    error
)

// DefaultDriver loads the CUDA driver on first use and returns the same
// Driver (or error) afterwards.
func DefaultDriver() (Driver, error) {
	defaultOnce.Do(func() {
		defaultDriver, defaultErr = LoadDriver()
	})
	return defaultDriver, defaultErr
}
