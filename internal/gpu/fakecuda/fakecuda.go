// Package fakecuda is an in-memory gpu.Driver for tests. It keeps device
// memory as Go byte slices so host/device copies really move data, checks
// handles and launch configurations the way the CUDA driver would, counts
// outstanding resources to catch leaks, and can fail any call on demand.
// Kernels do nothing unless OnLaunch emulates them in Go.
//
// Async copies complete before they return, and streams and events never
// wait, so any ordering the engine enqueues is trivially respected.
package fakecuda

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// DeviceSpec describes one simulated device.
type DeviceSpec struct {
	Name               string
	SMs                int
	ComputeMajor       int
	ComputeMinor       int
	TotalMem           uint64 // bytes; MemAlloc fails with OUT_OF_MEMORY beyond it
	ClockKHz           int
	MaxThreadsPerBlock int
	WarpSize           int
	MaxSharedOptin     int // bytes of dynamic shared memory a kernel may opt in to
	MaxThreadsPerSM    int // resident threads per multiprocessor, which bound the blocks one holds
}

// H100 is the spec of an NVIDIA H100 SXM, the default device.
func H100() DeviceSpec {
	return DeviceSpec{
		Name:               "NVIDIA H100 80GB HBM3",
		SMs:                132,
		ComputeMajor:       9,
		ComputeMinor:       0,
		TotalMem:           80 << 30,
		ClockKHz:           1980000,
		MaxThreadsPerBlock: 1024,
		WarpSize:           32,
		MaxSharedOptin:     227 << 10,
		MaxThreadsPerSM:    2048,
	}
}

// LaunchFunc emulates a kernel: fn is the name given to ModuleGetFunction and
// params are the argument pointers passed to LaunchKernel.
type LaunchFunc func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error

// Resources counts what is currently allocated or retained.
type Resources struct {
	DeviceAllocs int // MemAlloc without MemFree
	HostAllocs   int // MemAllocHost without MemFreeHost
	Modules      int
	Streams      int
	Events       int
	ContextRefs  int // PrimaryCtxRetain without PrimaryCtxRelease
}

// Total is the sum of all counts.
func (r Resources) Total() int {
	return r.DeviceAllocs + r.HostAllocs + r.Modules + r.Streams + r.Events + r.ContextRefs
}

const (
	// defaultGlobalSize is the size of a module global when Globals is nil:
	// the 64 KiB of a __constant__ bank.
	defaultGlobalSize = 64 << 10
	// defaultSharedLimit is the dynamic shared memory a kernel may use
	// without opting in through MaxDynamicSharedSizeBytes.
	defaultSharedLimit = 48 << 10
	allocAlign         = 512
	baseAddr           = 0x7f00_0000_0000
)

// Driver is the fake. Set the exported fields before the code under test
// runs; the methods are safe for concurrent use.
type Driver struct {
	// OnLaunch, when set, runs for every LaunchKernel that passes the
	// checks, outside the driver's lock; its error is returned. Kernels can
	// reach device memory through DeviceBytes.
	OnLaunch LaunchFunc
	// Globals, when non-nil, lists the globals every module has and their
	// sizes; other names fail with CUDA_ERROR_NOT_FOUND. When nil, any name
	// resolves to a 64 KiB buffer.
	Globals map[string]uint64
	// ElapsedMs, when non-zero, is what EventElapsedMs reports; otherwise it
	// reports the wall time between the two EventRecord calls.
	ElapsedMs float32
	// Version is what DriverVersion reports.
	Version int
	// Async, set before the first StreamCreate, runs each stream's copies,
	// launches and event records on the stream's own goroutine, in order,
	// after the calls that queued them have returned, as a GPU does: host
	// memory is read and written when a copy runs, and only the
	// synchronisations wait. AsyncJitter is the longest random pause
	// before each piece of work, so that streams interleave differently
	// from run to run. A failed OnLaunch fails the next synchronisation.
	Async       bool
	AsyncJitter time.Duration

	mu       sync.Mutex
	devices  []DeviceSpec
	calls    map[string]int
	callsOn  map[int32]map[string]int // calls made for each device
	rules    []*failRule
	handle   uintptr
	nextAddr uint64

	allocs    map[gpu.DevicePtr]*allocation
	host      map[unsafe.Pointer][]uint64
	ctxRefs   map[int32]int
	current   map[uint64]gpu.Context // per goroutine, standing in for the OS thread
	modules   map[gpu.Module]*module
	funcs     map[gpu.Function]*function
	streams   map[gpu.Stream]bool
	queues    map[gpu.Stream]*queue // Async: each stream's work
	asyncErr  error                 // Async: the first failed launch
	events    map[gpu.Event]*event
	funcNames []string
	images    [][]byte
	launches  int
}

type allocation struct {
	buf    []byte
	dev    int32
	module gpu.Module     // non-zero for a module global
	host   unsafe.Pointer // non-nil for pinned host memory mapped by MemHostDevicePointer: buf is that memory
}

type module struct {
	globals map[string]gpu.DevicePtr
}

type function struct {
	name      string
	module    gpu.Module
	maxShared int
	// maxThreads, when non-zero, is the largest block the function runs:
	// kernels.MaxThreads for an entry point of the kernel, whose larger
	// blocks trap.
	maxThreads int
}

// codeLaunchFailed is CUDA_ERROR_LAUNCH_FAILED, what a kernel that traps
// leaves.
const codeLaunchFailed = 719

// codeNotReady is CUDA_ERROR_NOT_READY: work queued is not done yet.
const codeNotReady = 600

type event struct {
	recorded bool
	at       time.Time
	pending  int           // records queued and not yet run (Async)
	done     chan struct{} // closed when the latest record has run; nil before the first
}

type failRule struct {
	dev  int32 // the device whose calls it counts; anyDevice for all
	call string
	nth  int
	seen int
	err  error
}

var _ gpu.Driver = (*Driver)(nil)

// symbols maps each Driver method to the C function it stands for, so fake
// errors read like real ones.
var symbols = map[string]string{
	"Init":                 "cuInit",
	"DriverVersion":        "cuDriverGetVersion",
	"DeviceCount":          "cuDeviceGetCount",
	"Device":               "cuDeviceGet",
	"DeviceName":           "cuDeviceGetName",
	"DeviceAttribute":      "cuDeviceGetAttribute",
	"DeviceTotalMem":       "cuDeviceTotalMem_v2",
	"PrimaryCtxRetain":     "cuDevicePrimaryCtxRetain",
	"PrimaryCtxRelease":    "cuDevicePrimaryCtxRelease_v2",
	"CtxSetCurrent":        "cuCtxSetCurrent",
	"CtxSynchronize":       "cuCtxSynchronize",
	"ModuleLoadData":       "cuModuleLoadData",
	"ModuleUnload":         "cuModuleUnload",
	"ModuleGetFunction":    "cuModuleGetFunction",
	"ModuleGetGlobal":      "cuModuleGetGlobal_v2",
	"FuncSetAttribute":     "cuFuncSetAttribute",
	"OccupancyBlocksPerSM": "cuOccupancyMaxActiveBlocksPerMultiprocessor",
	"MemAlloc":             "cuMemAlloc_v2",
	"MemFree":              "cuMemFree_v2",
	"MemAllocHost":         "cuMemAllocHost_v2",
	"MemFreeHost":          "cuMemFreeHost",
	"MemHostDevicePointer": "cuMemHostGetDevicePointer_v2",
	"MemcpyHtoD":           "cuMemcpyHtoD_v2",
	"MemcpyHtoDAsync":      "cuMemcpyHtoDAsync_v2",
	"MemcpyDtoHAsync":      "cuMemcpyDtoHAsync_v2",
	"Memcpy2DDtoDAsync":    "cuMemcpy2DAsync_v2",
	"StreamCreate":         "cuStreamCreate",
	"StreamDestroy":        "cuStreamDestroy_v2",
	"StreamSynchronize":    "cuStreamSynchronize",
	"EventCreate":          "cuEventCreate",
	"EventRecord":          "cuEventRecord",
	"EventSynchronize":     "cuEventSynchronize",
	"EventElapsedMs":       "cuEventElapsedTime",
	"EventDestroy":         "cuEventDestroy_v2",
	"LaunchKernel":         "cuLaunchKernel",
	"LaunchKernelFirst":    "cuLaunchKernelEx",
}

// Symbol returns the C function that a Driver method name stands for, such
// as "cuMemAlloc_v2" for "MemAlloc", or "" for an unknown name.
func Symbol(method string) string { return symbols[method] }

// New returns a fake with the given devices, or one H100 when none are given.
// Like a driver from gpu.LoadDriver it is already initialised.
func New(devices ...DeviceSpec) *Driver {
	if len(devices) == 0 {
		devices = []DeviceSpec{H100()}
	}
	return &Driver{
		Version:  12080,
		devices:  append([]DeviceSpec(nil), devices...),
		calls:    make(map[string]int),
		callsOn:  make(map[int32]map[string]int),
		current:  make(map[uint64]gpu.Context),
		handle:   0x1000,
		nextAddr: baseAddr,
		allocs:   make(map[gpu.DevicePtr]*allocation),
		host:     make(map[unsafe.Pointer][]uint64),
		ctxRefs:  make(map[int32]int),
		modules:  make(map[gpu.Module]*module),
		funcs:    make(map[gpu.Function]*function),
		streams:  make(map[gpu.Stream]bool),
		queues:   make(map[gpu.Stream]*queue),
		events:   make(map[gpu.Event]*event),
	}
}

// FailAt makes the nth call of method (a Driver method name such as
// "MemAlloc"), counted from now and starting at 1, fail with err and no side
// effect. nth <= 0 fails every call from now on. A nil err stands for
// CUDA_ERROR_UNKNOWN from the matching C function. Several rules may be set;
// FailAt panics on a name that is not a Driver method, so typos do not
// silently disable a test.
func (d *Driver) FailAt(method string, nth int, err error) {
	d.FailOn(anyDevice, method, nth, err)
}

// anyDevice is the device of a rule that counts every device's calls, and
// of a call made with no device (DriverVersion, DeviceCount).
const anyDevice = -1

// FailOn is FailAt counting only the calls made for device dev: with its
// context current on the calling goroutine, or naming it (Device,
// PrimaryCtxRetain and the other device queries).
func (d *Driver) FailOn(dev int, method string, nth int, err error) {
	sym, ok := symbols[method]
	if !ok {
		panic(fmt.Sprintf("fakecuda: FailAt: %q is not a gpu.Driver method", method))
	}
	if err == nil {
		err = gpu.NewCUDAError(sym, gpu.CodeUnknown)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rules = append(d.rules, &failRule{dev: int32(dev), call: method, nth: nth, err: err})
}

// ClearFailures removes every FailAt rule.
func (d *Driver) ClearFailures() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rules = nil
}

// Calls reports how many times method has been called, failed calls included.
func (d *Driver) Calls(method string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[method]
}

// CallsOn reports how many times method has been called for device dev
// (as FailOn counts them), failed calls included.
func (d *Driver) CallsOn(dev int, method string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.callsOn[int32(dev)][method]
}

// Resources reports what is outstanding.
func (d *Driver) Resources() Resources {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := Resources{
		HostAllocs: len(d.host),
		Modules:    len(d.modules),
		Streams:    len(d.streams),
		Events:     len(d.events),
	}
	for _, a := range d.allocs {
		if a.module == 0 && a.host == nil {
			r.DeviceAllocs++
		}
	}
	for _, n := range d.ctxRefs {
		r.ContextRefs += n
	}
	return r
}

// Live reports the number of outstanding resources of every kind (device and
// pinned host allocations, modules, streams, events, context retains); it is
// 0 once everything acquired has been released.
func (d *Driver) Live() int { return d.Resources().Total() }

// FunctionNames lists the names passed to ModuleGetFunction, in call order.
func (d *Driver) FunctionNames() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.funcNames...)
}

// Images returns copies of the images passed to ModuleLoadData, in order.
func (d *Driver) Images() [][]byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([][]byte, len(d.images))
	for i, img := range d.images {
		out[i] = append([]byte(nil), img...)
	}
	return out
}

// Launches reports how many kernel launches passed the checks.
func (d *Driver) Launches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.launches
}

// DeviceBytes returns the n bytes of simulated device memory at p, aliasing
// the fake's storage, so kernel emulations and tests can read and write it.
// The range must lie within one allocation or module global.
func (d *Driver) DeviceBytes(p gpu.DevicePtr, n uint64) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.span("DeviceBytes", p, n)
}

// enter is enterOn for the device whose context is current on the
// calling goroutine.
func (d *Driver) enter(method string, needCtx bool) error {
	dev, ok := d.ctxDevice(d.currentCtx())
	if !ok {
		dev = anyDevice
	}
	return d.enterOn(method, needCtx, dev)
}

// enterOn counts a call made for device dev, applies the fail rules and,
// when needCtx is set, checks that a live context is current. d.mu is held.
func (d *Driver) enterOn(method string, needCtx bool, dev int32) error {
	d.calls[method]++
	if d.callsOn[dev] == nil {
		d.callsOn[dev] = make(map[string]int)
	}
	d.callsOn[dev][method]++
	for i, r := range d.rules {
		if r.call != method || (r.dev != anyDevice && r.dev != dev) {
			continue
		}
		r.seen++
		if r.nth <= 0 {
			return r.err
		}
		if r.seen == r.nth {
			d.rules = append(d.rules[:i], d.rules[i+1:]...)
			return r.err
		}
	}
	if needCtx && !d.contextLive() {
		return d.fail(method, gpu.CodeInvalidContext, "no current context")
	}
	return nil
}

func (d *Driver) fail(method string, code int, msg string) error {
	e := gpu.NewCUDAError(symbols[method], code)
	if msg != "" {
		e.Message = msg
	}
	return e
}

func ctxHandle(dev int32) gpu.Context { return gpu.Context(0xC7_0000 + uintptr(dev)) }

func (d *Driver) ctxDevice(c gpu.Context) (int32, bool) {
	dev := int32(uintptr(c) - 0xC7_0000)
	if c < 0xC7_0000 || int(dev) >= len(d.devices) {
		return 0, false
	}
	return dev, true
}

// currentCtx is the context current on the calling goroutine.
func (d *Driver) currentCtx() gpu.Context { return d.current[goroutineID()] }

// goroutineID reads the calling goroutine's number from its stack header,
// "goroutine N [...". The engine runs all of a device's calls on one
// locked goroutine, so it stands for the OS thread the real driver binds
// contexts to.
func goroutineID() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("fakecuda: unreadable goroutine header " + strconv.Quote(string(buf[:])))
	}
	return id
}

func (d *Driver) contextLive() bool {
	dev, ok := d.ctxDevice(d.currentCtx())
	return ok && d.ctxRefs[dev] > 0
}

func (d *Driver) newHandle() uintptr {
	d.handle += 0x10
	return d.handle
}

// span finds n bytes at p inside one allocation. d.mu is held.
func (d *Driver) span(method string, p gpu.DevicePtr, n uint64) ([]byte, error) {
	a, off, ok := d.allocationAt(p)
	switch {
	case !ok:
		return nil, d.fail(method, gpu.CodeInvalidValue, fmt.Sprintf("%#x is not device memory", uint64(p)))
	case n > uint64(len(a.buf))-off:
		return nil, d.fail(method, gpu.CodeInvalidValue,
			fmt.Sprintf("%d bytes at %#x overrun a %d-byte allocation", n, uint64(p), len(a.buf)))
	}
	return a.buf[off : off+n], nil
}

// allocationAt returns the live allocation that holds device address p and
// p's offset in it. d.mu is held.
func (d *Driver) allocationAt(p gpu.DevicePtr) (a *allocation, off uint64, ok bool) {
	for base, a := range d.allocs {
		if p >= base && uint64(p-base) < uint64(len(a.buf)) {
			return a, uint64(p - base), true
		}
	}
	return nil, 0, false
}

func (d *Driver) streamOK(method string, s gpu.Stream) error {
	if s != 0 && !d.streams[s] {
		return d.fail(method, gpu.CodeInvalidHandle, "unknown stream")
	}
	return nil
}

func (d *Driver) deviceOK(method string, dev int32) error {
	if dev < 0 || int(dev) >= len(d.devices) {
		return d.fail(method, gpu.CodeInvalidDevice, "")
	}
	return nil
}

func (d *Driver) allocate(dev int32, n uint64, mod gpu.Module) gpu.DevicePtr {
	p := d.reserve(n)
	d.allocs[p] = &allocation{buf: make([]byte, n), dev: dev, module: mod}
	return p
}

// reserve returns a device address range of n bytes that no other
// allocation overlaps.
func (d *Driver) reserve(n uint64) gpu.DevicePtr {
	p := gpu.DevicePtr(d.nextAddr)
	d.nextAddr += (n+allocAlign-1)/allocAlign*allocAlign + allocAlign
	return p
}

func (d *Driver) Init() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.enter("Init", false)
}

func (d *Driver) DriverVersion() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("DriverVersion", false); err != nil {
		return 0, err
	}
	return d.Version, nil
}

func (d *Driver) DeviceCount() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("DeviceCount", false); err != nil {
		return 0, err
	}
	return len(d.devices), nil
}

func (d *Driver) Device(ordinal int) (int32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("Device", false, int32(ordinal)); err != nil {
		return 0, err
	}
	if ordinal < 0 || ordinal >= len(d.devices) {
		return 0, d.fail("Device", gpu.CodeInvalidDevice, "")
	}
	return int32(ordinal), nil
}

func (d *Driver) DeviceName(dev int32) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("DeviceName", false, dev); err != nil {
		return "", err
	}
	if err := d.deviceOK("DeviceName", dev); err != nil {
		return "", err
	}
	return d.devices[dev].Name, nil
}

func (d *Driver) DeviceAttribute(attr gpu.DeviceAttr, dev int32) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("DeviceAttribute", false, dev); err != nil {
		return 0, err
	}
	if err := d.deviceOK("DeviceAttribute", dev); err != nil {
		return 0, err
	}
	s := d.devices[dev]
	switch attr {
	case gpu.MaxThreadsPerBlock:
		return s.MaxThreadsPerBlock, nil
	case gpu.WarpSize:
		return s.WarpSize, nil
	case gpu.ClockRate:
		return s.ClockKHz, nil
	case gpu.MultiprocessorCount:
		return s.SMs, nil
	case gpu.ComputeCapabilityMajor:
		return s.ComputeMajor, nil
	case gpu.ComputeCapabilityMinor:
		return s.ComputeMinor, nil
	case gpu.MaxSharedMemoryPerBlockOptin:
		return s.MaxSharedOptin, nil
	}
	return 0, d.fail("DeviceAttribute", gpu.CodeInvalidValue, fmt.Sprintf("attribute %d is not simulated", attr))
}

func (d *Driver) DeviceTotalMem(dev int32) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("DeviceTotalMem", false, dev); err != nil {
		return 0, err
	}
	if err := d.deviceOK("DeviceTotalMem", dev); err != nil {
		return 0, err
	}
	return d.devices[dev].TotalMem, nil
}

func (d *Driver) PrimaryCtxRetain(dev int32) (gpu.Context, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("PrimaryCtxRetain", false, dev); err != nil {
		return 0, err
	}
	if err := d.deviceOK("PrimaryCtxRetain", dev); err != nil {
		return 0, err
	}
	d.ctxRefs[dev]++
	return ctxHandle(dev), nil
}

// PrimaryCtxRelease drops one retain. When the last one goes, the context
// stops being usable, as the real primary context is then destroyed.
func (d *Driver) PrimaryCtxRelease(dev int32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enterOn("PrimaryCtxRelease", false, dev); err != nil {
		return err
	}
	if err := d.deviceOK("PrimaryCtxRelease", dev); err != nil {
		return err
	}
	if d.ctxRefs[dev] == 0 {
		return d.fail("PrimaryCtxRelease", gpu.CodeInvalidContext, "primary context is not retained")
	}
	d.ctxRefs[dev]--
	if d.ctxRefs[dev] == 0 {
		delete(d.ctxRefs, dev)
	}
	return nil
}

// CtxSetCurrent makes ctx current for the calling goroutine, as the real
// driver does for the calling OS thread.
func (d *Driver) CtxSetCurrent(ctx gpu.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	dev, ok := d.ctxDevice(ctx)
	if !ok {
		dev = anyDevice
	}
	if err := d.enterOn("CtxSetCurrent", false, dev); err != nil {
		return err
	}
	if ctx != 0 {
		if dev, ok := d.ctxDevice(ctx); !ok || d.ctxRefs[dev] == 0 {
			return d.fail("CtxSetCurrent", gpu.CodeInvalidContext, "")
		}
	}
	d.current[goroutineID()] = ctx
	return nil
}

func (d *Driver) CtxSynchronize() error {
	d.mu.Lock()
	if err := d.enter("CtxSynchronize", true); err != nil {
		d.mu.Unlock()
		return err
	}
	var all []<-chan struct{}
	for s := range d.queues {
		all = append(all, d.drained(s))
	}
	d.mu.Unlock()
	for _, done := range all {
		<-done
	}
	return d.await(nil)
}

func (d *Driver) ModuleLoadData(image []byte) (gpu.Module, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("ModuleLoadData", true); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, d.fail("ModuleLoadData", gpu.CodeInvalidValue, "empty module image")
	}
	d.images = append(d.images, append([]byte(nil), image...))
	m := gpu.Module(d.newHandle())
	d.modules[m] = &module{globals: make(map[string]gpu.DevicePtr)}
	return m, nil
}

// ModuleUnload also invalidates the module's functions and globals.
func (d *Driver) ModuleUnload(m gpu.Module) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("ModuleUnload", true); err != nil {
		return err
	}
	mod, ok := d.modules[m]
	if !ok {
		return d.fail("ModuleUnload", gpu.CodeInvalidHandle, "unknown module")
	}
	for _, p := range mod.globals {
		delete(d.allocs, p)
	}
	for f, fn := range d.funcs {
		if fn.module == m {
			delete(d.funcs, f)
		}
	}
	delete(d.modules, m)
	return nil
}

func (d *Driver) ModuleGetFunction(m gpu.Module, name string) (gpu.Function, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("ModuleGetFunction", true); err != nil {
		return 0, err
	}
	d.funcNames = append(d.funcNames, name)
	if _, ok := d.modules[m]; !ok {
		return 0, d.fail("ModuleGetFunction", gpu.CodeInvalidHandle, "unknown module")
	}
	if name == "" {
		return 0, d.fail("ModuleGetFunction", gpu.CodeNotFound, "")
	}
	f := gpu.Function(d.newHandle())
	fn := &function{name: name, module: m}
	if _, err := kernels.ByName(name); err == nil {
		fn.maxThreads = kernels.MaxThreads
	}
	d.funcs[f] = fn
	return f, nil
}

func (d *Driver) ModuleGetGlobal(m gpu.Module, name string) (gpu.DevicePtr, uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("ModuleGetGlobal", true); err != nil {
		return 0, 0, err
	}
	mod, ok := d.modules[m]
	if !ok {
		return 0, 0, d.fail("ModuleGetGlobal", gpu.CodeInvalidHandle, "unknown module")
	}
	size := uint64(defaultGlobalSize)
	if d.Globals != nil {
		if size, ok = d.Globals[name]; !ok {
			return 0, 0, d.fail("ModuleGetGlobal", gpu.CodeNotFound, "")
		}
	}
	if p, ok := mod.globals[name]; ok {
		return p, uint64(len(d.allocs[p].buf)), nil
	}
	dev, _ := d.ctxDevice(d.currentCtx())
	p := d.allocate(dev, size, m)
	mod.globals[name] = p
	return p, size, nil
}

// OccupancyBlocksPerSM reports the blocks of blockThreads threads one
// multiprocessor holds by its resident threads alone (the fake has no
// registers or shared memory to run out of), at most 32.
func (d *Driver) OccupancyBlocksPerSM(f gpu.Function, blockThreads int) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("OccupancyBlocksPerSM", true); err != nil {
		return 0, err
	}
	if _, ok := d.funcs[f]; !ok {
		return 0, d.fail("OccupancyBlocksPerSM", gpu.CodeInvalidHandle, "unknown function")
	}
	dev, _ := d.ctxDevice(d.currentCtx())
	spec := d.devices[dev]
	if blockThreads <= 0 || blockThreads > spec.MaxThreadsPerBlock {
		return 0, d.fail("OccupancyBlocksPerSM", gpu.CodeInvalidValue, fmt.Sprintf("%d threads per block", blockThreads))
	}
	warps := (blockThreads + spec.WarpSize - 1) / spec.WarpSize
	return min(32, spec.MaxThreadsPerSM/(warps*spec.WarpSize)), nil
}

func (d *Driver) FuncSetAttribute(f gpu.Function, attr gpu.FuncAttr, value int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("FuncSetAttribute", true); err != nil {
		return err
	}
	fn, ok := d.funcs[f]
	if !ok {
		return d.fail("FuncSetAttribute", gpu.CodeInvalidHandle, "unknown function")
	}
	if attr == gpu.MaxDynamicSharedSizeBytes {
		dev, _ := d.ctxDevice(d.currentCtx())
		if value < 0 || value > d.devices[dev].MaxSharedOptin {
			return d.fail("FuncSetAttribute", gpu.CodeInvalidValue,
				fmt.Sprintf("%d bytes of dynamic shared memory exceed the device's %d", value, d.devices[dev].MaxSharedOptin))
		}
		fn.maxShared = value
	}
	return nil
}

func (d *Driver) MemAlloc(bytes uint64) (gpu.DevicePtr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemAlloc", true); err != nil {
		return 0, err
	}
	if bytes == 0 {
		return 0, d.fail("MemAlloc", gpu.CodeInvalidValue, "")
	}
	dev, _ := d.ctxDevice(d.currentCtx())
	var used uint64
	for _, a := range d.allocs {
		if a.dev == dev && a.host == nil {
			used += uint64(len(a.buf))
		}
	}
	if total := d.devices[dev].TotalMem; bytes > total || used > total-bytes {
		return 0, d.fail("MemAlloc", gpu.CodeOutOfMemory, "")
	}
	return d.allocate(dev, bytes, 0), nil
}

func (d *Driver) MemFree(p gpu.DevicePtr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemFree", true); err != nil {
		return err
	}
	if a, ok := d.allocs[p]; !ok || a.module != 0 || a.host != nil {
		return d.fail("MemFree", gpu.CodeInvalidValue, "not an allocation from MemAlloc")
	}
	delete(d.allocs, p)
	return nil
}

func (d *Driver) MemAllocHost(bytes uint64) (unsafe.Pointer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemAllocHost", true); err != nil {
		return nil, err
	}
	if bytes == 0 {
		return nil, d.fail("MemAllocHost", gpu.CodeInvalidValue, "")
	}
	buf := make([]uint64, (bytes+7)/8)
	p := unsafe.Pointer(&buf[0])
	d.host[p] = buf
	return p, nil
}

func (d *Driver) MemFreeHost(p unsafe.Pointer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemFreeHost", true); err != nil {
		return err
	}
	if _, ok := d.host[p]; !ok {
		return d.fail("MemFreeHost", gpu.CodeInvalidValue, "not an allocation from MemAllocHost")
	}
	delete(d.host, p)
	for base, a := range d.allocs {
		if a.host == p {
			delete(d.allocs, base)
		}
	}
	return nil
}

// MemHostDevicePointer maps pinned memory from MemAllocHost at a device
// address of its own (once per allocation), through which the kernels and
// DeviceBytes see that memory itself.
func (d *Driver) MemHostDevicePointer(p unsafe.Pointer) (gpu.DevicePtr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemHostDevicePointer", true); err != nil {
		return 0, err
	}
	buf, ok := d.host[p]
	if !ok {
		return 0, d.fail("MemHostDevicePointer", gpu.CodeInvalidValue, "not an allocation from MemAllocHost")
	}
	for base, a := range d.allocs {
		if a.host == p {
			return base, nil
		}
	}
	dev, _ := d.ctxDevice(d.currentCtx())
	n := uint64(8 * len(buf))
	base := d.reserve(n)
	d.allocs[base] = &allocation{buf: unsafe.Slice((*byte)(p), n), dev: dev, host: p}
	return base, nil
}

// copyOn checks a copy of n bytes between host memory at host and device
// memory at dev as method, then has stream s (0 for the synchronous
// copies) run do on the device bytes: at once, or later on an Async
// stream, when nothing happens if the memory has been freed meanwhile.
// d.mu is held.
func (d *Driver) copyOn(method string, s gpu.Stream, dev gpu.DevicePtr, host unsafe.Pointer, n uint64, do func(devBytes, hostBytes []byte)) error {
	if n == 0 {
		return nil
	}
	if host == nil {
		return d.fail(method, gpu.CodeInvalidValue, "nil host pointer")
	}
	if _, err := d.span(method, dev, n); err != nil {
		return err
	}
	d.later(s, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if buf := d.lookup(dev, n); buf != nil {
			do(buf, unsafe.Slice((*byte)(host), n))
		}
	})
	return nil
}

// toDevice and toHost are the copies' directions for copyOn.
func toDevice(devBytes, hostBytes []byte) { copy(devBytes, hostBytes) }
func toHost(devBytes, hostBytes []byte)   { copy(hostBytes, devBytes) }

func (d *Driver) MemcpyHtoD(dst gpu.DevicePtr, src unsafe.Pointer, bytes uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemcpyHtoD", true); err != nil {
		return err
	}
	return d.copyOn("MemcpyHtoD", 0, dst, src, bytes, toDevice)
}

func (d *Driver) MemcpyHtoDAsync(dst gpu.DevicePtr, src unsafe.Pointer, bytes uint64, s gpu.Stream) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemcpyHtoDAsync", true); err != nil {
		return err
	}
	if err := d.streamOK("MemcpyHtoDAsync", s); err != nil {
		return err
	}
	return d.copyOn("MemcpyHtoDAsync", s, dst, src, bytes, toDevice)
}

func (d *Driver) MemcpyDtoHAsync(dst unsafe.Pointer, src gpu.DevicePtr, bytes uint64, s gpu.Stream) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("MemcpyDtoHAsync", true); err != nil {
		return err
	}
	if err := d.streamOK("MemcpyDtoHAsync", s); err != nil {
		return err
	}
	return d.copyOn("MemcpyDtoHAsync", s, src, dst, bytes, toHost)
}

func (d *Driver) Memcpy2DDtoDAsync(dst gpu.DevicePtr, dstPitch uint64, src gpu.DevicePtr, srcPitch, width, height uint64, s gpu.Stream) error {
	const m = "Memcpy2DDtoDAsync"
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(m, true); err != nil {
		return err
	}
	if err := d.streamOK(m, s); err != nil {
		return err
	}
	if height == 0 || width == 0 {
		return nil
	}
	if width > srcPitch || width > dstPitch {
		return d.fail(m, gpu.CodeInvalidValue, fmt.Sprintf("rows of %d bytes at pitches %d and %d", width, srcPitch, dstPitch))
	}
	srcBytes, dstBytes := (height-1)*srcPitch+width, (height-1)*dstPitch+width
	if _, err := d.span(m, src, srcBytes); err != nil {
		return err
	}
	if _, err := d.span(m, dst, dstBytes); err != nil {
		return err
	}
	d.later(s, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		from, to := d.lookup(src, srcBytes), d.lookup(dst, dstBytes)
		if from == nil || to == nil {
			return // freed meanwhile
		}
		for k := range height {
			copy(to[k*dstPitch:k*dstPitch+width], from[k*srcPitch:k*srcPitch+width])
		}
	})
	return nil
}

func (d *Driver) StreamCreate() (gpu.Stream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("StreamCreate", true); err != nil {
		return 0, err
	}
	s := gpu.Stream(d.newHandle())
	d.streams[s] = true
	if d.Async {
		d.queues[s] = newQueue(d.AsyncJitter)
	}
	return s, nil
}

func (d *Driver) StreamDestroy(s gpu.Stream) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("StreamDestroy", true); err != nil {
		return err
	}
	if !d.streams[s] {
		return d.fail("StreamDestroy", gpu.CodeInvalidHandle, "unknown stream")
	}
	delete(d.streams, s)
	if q := d.queues[s]; q != nil {
		q.close()
		delete(d.queues, s)
	}
	return nil
}

func (d *Driver) StreamSynchronize(s gpu.Stream) error {
	d.mu.Lock()
	if err := d.enter("StreamSynchronize", true); err != nil {
		d.mu.Unlock()
		return err
	}
	if err := d.streamOK("StreamSynchronize", s); err != nil {
		d.mu.Unlock()
		return err
	}
	done := d.drained(s)
	d.mu.Unlock()
	return d.await(done)
}

// await waits for done (nil: nothing to wait for) and returns the first
// failed launch of an Async driver, if any.
func (d *Driver) await(done <-chan struct{}) error {
	if done != nil {
		<-done
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asyncErr
}

func (d *Driver) EventCreate() (gpu.Event, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("EventCreate", true); err != nil {
		return 0, err
	}
	e := gpu.Event(d.newHandle())
	d.events[e] = &event{}
	return e, nil
}

func (d *Driver) EventRecord(e gpu.Event, s gpu.Stream) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("EventRecord", true); err != nil {
		return err
	}
	ev, ok := d.events[e]
	if !ok {
		return d.fail("EventRecord", gpu.CodeInvalidHandle, "unknown event")
	}
	if err := d.streamOK("EventRecord", s); err != nil {
		return err
	}
	done := make(chan struct{})
	ev.done = done
	ev.pending++
	d.later(s, func() {
		d.mu.Lock()
		ev.recorded, ev.at = true, time.Now()
		ev.pending--
		d.mu.Unlock()
		close(done)
	})
	return nil
}

func (d *Driver) EventSynchronize(e gpu.Event) error {
	d.mu.Lock()
	if err := d.enter("EventSynchronize", true); err != nil {
		d.mu.Unlock()
		return err
	}
	ev, ok := d.events[e]
	if !ok {
		d.mu.Unlock()
		return d.fail("EventSynchronize", gpu.CodeInvalidHandle, "unknown event")
	}
	done := ev.done
	d.mu.Unlock()
	return d.await(done)
}

func (d *Driver) EventElapsedMs(start, end gpu.Event) (float32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("EventElapsedMs", true); err != nil {
		return 0, err
	}
	a, okA := d.events[start]
	b, okB := d.events[end]
	if okA && okB && (a.pending > 0 || b.pending > 0) {
		return 0, d.fail("EventElapsedMs", codeNotReady, "an event's latest record has not run yet")
	}
	if !okA || !okB || !a.recorded || !b.recorded {
		return 0, d.fail("EventElapsedMs", gpu.CodeInvalidHandle, "event unknown or not recorded")
	}
	if d.ElapsedMs != 0 {
		return d.ElapsedMs, nil
	}
	return float32(b.at.Sub(a.at).Seconds() * 1000), nil
}

func (d *Driver) EventDestroy(e gpu.Event) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter("EventDestroy", true); err != nil {
		return err
	}
	if _, ok := d.events[e]; !ok {
		return d.fail("EventDestroy", gpu.CodeInvalidHandle, "unknown event")
	}
	delete(d.events, e)
	return nil
}

// LaunchKernel checks the launch as the driver would (known function, non-zero
// dimensions, threads per block, dynamic shared memory against the opt-in,
// stream, non-nil parameters), then runs OnLaunch. A block of more than
// kernels.MaxThreads threads of an entry point of the kernel (kernels.ByName)
// fails with CUDA_ERROR_LAUNCH_FAILED, as the kernel traps on it: on a GPU
// the driver accepts the launch (the function's limit it reports is larger)
// and the trap fails the work after it; the fake fails the launch itself,
// before OnLaunch.
func (d *Driver) LaunchKernel(f gpu.Function, grid, block [3]uint32, sharedBytes uint32, s gpu.Stream, params []unsafe.Pointer) error {
	return d.launch("LaunchKernel", f, grid, block, sharedBytes, s, params)
}

// LaunchKernelFirst is LaunchKernel, counted apart: the fake has no
// priorities (its Async streams each run their own work in order).
func (d *Driver) LaunchKernelFirst(f gpu.Function, grid, block [3]uint32, sharedBytes uint32, s gpu.Stream, params []unsafe.Pointer) error {
	return d.launch("LaunchKernelFirst", f, grid, block, sharedBytes, s, params)
}

// launch checks the launch as method m, then runs OnLaunch.
func (d *Driver) launch(m string, f gpu.Function, grid, block [3]uint32, sharedBytes uint32, s gpu.Stream, params []unsafe.Pointer) error {
	name, err := d.checkLaunch(m, f, grid, block, sharedBytes, s, params)
	if err != nil {
		return err
	}
	if d.OnLaunch == nil {
		return nil
	}
	d.mu.Lock()
	q := d.queues[s]
	d.mu.Unlock()
	if q == nil {
		return d.OnLaunch(name, grid, block, params)
	}
	q.push(func() {
		if err := d.OnLaunch(name, grid, block, params); err != nil {
			d.mu.Lock()
			if d.asyncErr == nil {
				d.asyncErr = err
			}
			d.mu.Unlock()
		}
	})
	return nil
}

// lookup returns the n bytes of device memory at p, or nil when they are
// not all in one live allocation. d.mu is held.
func (d *Driver) lookup(p gpu.DevicePtr, n uint64) []byte {
	if a, off, ok := d.allocationAt(p); ok && n <= uint64(len(a.buf))-off {
		return a.buf[off : off+n]
	}
	return nil
}

func (d *Driver) checkLaunch(m string, f gpu.Function, grid, block [3]uint32, sharedBytes uint32, s gpu.Stream, params []unsafe.Pointer) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.enter(m, true); err != nil {
		return "", err
	}
	fn, ok := d.funcs[f]
	if !ok {
		return "", d.fail(m, gpu.CodeInvalidHandle, "unknown function")
	}
	dev, _ := d.ctxDevice(d.currentCtx())
	spec := d.devices[dev]
	threads := uint64(1)
	for i := range 3 {
		if grid[i] == 0 || block[i] == 0 {
			return "", d.fail(m, gpu.CodeInvalidValue, fmt.Sprintf("zero dimension in grid %v block %v", grid, block))
		}
		threads *= uint64(block[i])
	}
	if threads > uint64(spec.MaxThreadsPerBlock) {
		return "", d.fail(m, gpu.CodeInvalidValue, fmt.Sprintf("%d threads per block exceed %d", threads, spec.MaxThreadsPerBlock))
	}
	if fn.maxThreads > 0 && threads > uint64(fn.maxThreads) {
		e := gpu.NewCUDAError(symbols[m], codeLaunchFailed)
		e.Name = "CUDA_ERROR_LAUNCH_FAILED"
		e.Message = fmt.Sprintf("%s: a block of %d threads traps: the kernel takes at most %d (kernels.MaxThreads)", fn.name, threads, fn.maxThreads)
		return "", e
	}
	if limit := max(defaultSharedLimit, fn.maxShared); int(sharedBytes) > limit {
		return "", d.fail(m, gpu.CodeInvalidValue,
			fmt.Sprintf("%d bytes of dynamic shared memory exceed the function's %d", sharedBytes, limit))
	}
	if err := d.streamOK(m, s); err != nil {
		return "", err
	}
	for i, p := range params {
		if p == nil {
			return "", d.fail(m, gpu.CodeInvalidValue, fmt.Sprintf("kernel parameter %d is a nil pointer", i))
		}
	}
	d.launches++
	return fn.name, nil
}

// Methods lists the Driver method names that FailAt accepts, sorted.
func Methods() []string {
	out := make([]string, 0, len(symbols))
	for m := range symbols {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
