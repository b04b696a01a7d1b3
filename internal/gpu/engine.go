package gpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rnsec/ecmul/internal/kernels"
)

// Config describes one ladder kernel and how to launch it.
type Config struct {
	Device    int      // device ordinal
	Image     []byte   // fatbin (or PTX) holding the kernel
	Entry     string   // kernel name
	Constants []uint32 // the kernel's constant table, uploaded once

	InRows, ScalarRows, OutRows int // words per item of each buffer (channel-major rows)
	ItemsPerBlock               int // items per thread block
	BlockThreads                int // threads per block: kernels.Kernel.Threads of ItemsPerBlock
	Chunk                       int // most items per launch
	// ThreadsFor, when set, gives the block size for fewer items per block
	// (kernels.Kernel.Threads): a chunk too small to give every SM a full
	// block then runs in smaller blocks, one or more per SM, which cuts the
	// latency of small batches. Nil: blocks always hold ItemsPerBlock.
	ThreadsFor func(items int) int
	// Small, when set, is a second kernel over the same buffers and
	// constants, one that spends more threads per item to finish a small
	// chunk sooner: chunks of at most Small.ItemsPerSM items per
	// multiprocessor run it instead.
	Small *SmallKernel
	// Prepare, when set, is a kernel launched before the ladder on every
	// chunk, over the same buffers with its own constants: it turns each
	// item's input rows, as the host packed them, into the ones the ladder
	// and the finish read, in place.
	Prepare *PrepareKernel
	// Finish, when set, is a kernel launched after the ladder on every
	// chunk, over the same buffers with its own constants: it replaces each
	// item's outputs, in place, by its ResultRows rows of results, and only
	// those rows are copied back and drained.
	Finish *FinishKernel
	// Pre, when set, is a chain of kernels that a chunk of a Wire batch
	// with Wire.Pre runs before this one, on the same stream.
	Pre *PreChain
}

// PreChain is a chain of kernels that a chunk of a Wire batch with
// Wire.Pre runs before the engine's own, on the same stream, over device
// buffers of its own that hold Config.Chunk items of its rows: its unpack
// (Prepare.Unpack), prepare, kernel (Entry, one block of ItemsPerBlock
// items and BlockThreads threads, or fewer items per block through
// ThreadsFor), finish and pack (Finish.Pack). ECDSA verification computes
// u1·G on it, so that u1·G goes from the comb's pack to the verify
// unpack without leaving the device. For a chunk of n items:
//
//   - its wire input is the last InBytes of each item's Wire.InBytes, the
//     tail of the chunk's input (n·InBytes bytes); the engine's own kernels
//     get the rest;
//   - its pack writes n results of ResultBytes bytes, then n outcome bytes;
//     Width bytes of each result, from its Skip-th, go into the engine's
//     wire input on the device, item k's at n·At + k·Width;
//   - its outcome bytes come back to the host after the engine's own wire
//     output: the last byte of each item's Wire.OutBytes.
type PreChain struct {
	Config
	InBytes                      int
	ResultBytes, Skip, Width, At int
}

// preOutcomeBytes is the pre chain's output per item that comes back to
// the host: its outcome byte.
const preOutcomeBytes = 1

// PrepareKernel is the kernel that prepares the ladder's items on the
// device (Config.Prepare): kernels.PrepareName, launched in blocks of
// kernels.FinishThreads, one item per thread.
type PrepareKernel struct {
	Entry     string
	Constants []uint32 // its constant table, uploaded once (ladder.Setup.PrepareConstants)
	// Unpack, when set, is the kernel that a Wire batch's chunks run
	// before it, over its constants: kernels.UnpackName.
	Unpack string
}

// FinishKernel is the kernel that finishes the ladder's items on the
// device (Config.Finish): kernels.FinishName, launched in blocks of
// kernels.FinishThreads on kernels.FinishGrid blocks.
type FinishKernel struct {
	Entry      string
	Constants  []uint32 // its constant table, uploaded once (ladder.Setup.FinishConstants)
	ResultRows int      // the rows per item it leaves in the output buffer, at most OutRows
	// ItemsPerThread is how many items each of its threads finishes, with
	// one inversion (kernels.FinishGrid), in a full chunk that at least
	// slotCount later chunks of its batch follow; 0 for
	// kernels.FinishItemsPerThread. A batch's last slotCount chunks take
	// at most kernels.FinishItemsLastChunk a thread, and a smaller chunk
	// fewer (Engine.finishItems).
	ItemsPerThread int
	// Pack, when set, is the kernel that a Wire batch's chunks run after
	// it, over its constants: kernels.PackName.
	Pack string
	// PackShares launches Pack on the finish's grid, its threads taking
	// the finish's items and sharing one inversion among them (a signing
	// batch's pack, kernels.SignPackName), rather than one item a thread.
	PackShares bool
}

// SmallKernel is the kernel of small chunks (Config.Small): its chunks
// spread over every SM, ⌈n/SMs⌉ items per block up to ItemsPerBlock.
type SmallKernel struct {
	Entry         string
	ItemsPerSM    int                 // the largest chunk it runs, per multiprocessor of the device
	ItemsPerBlock int                 // the most items of one of its blocks
	ThreadsFor    func(items int) int // its block size for a number of items
}

// Batch is work for Engine.Run: Count items, packed and unpacked by the
// caller chunk by chunk. Fill writes items [lo, hi) into in and scalars,
// row r of item lo+i at r·(hi−lo) + i; Drain reads the outputs of [lo, hi)
// in the same layout. Fill runs on the goroutine that called Run, between launches;
// Drain runs on its own goroutine while later chunks compute (on the
// calling goroutine once no chunk is left to fill), reading the pinned
// buffer itself (its slot takes no new chunk until Drain returns),
// and must not keep out after it returns.
type Batch struct {
	Count int
	Fill  func(lo, hi int, in, scalars []uint32)
	Drain func(lo, hi int, out []uint32) error
	// LadderOnly runs the ladder kernel alone, without Config.Prepare and
	// Config.Finish: Fill packs the ladder's own input rows and Drain reads
	// its outputs (OutRows rows). A small batch takes it, for latency: the
	// finish kernel's inversion is one thread's long chain of products.
	LadderOnly bool
	// Wire, when set, takes the batch as bytes in place of Fill and Drain,
	// on the unpack and pack kernels around the prepare and finish ones.
	Wire *Wire
	// Overlapped says the caller queues more work behind the batch, whose
	// chunks will overlap its last ones: those then finish as the others
	// do (Config.Finish.ItemsPerThread), not for the batch's latency, and
	// the batch is one chunk per device where Config.Chunk holds it
	// (chunkFor).
	Overlapped bool
	// Closing says that the batch is one of the last its caller queues,
	// which little work follows: each of its chunks finishes as a batch's
	// last chunks do (kernels.FinishItemsLastChunk), in short chains of
	// products that end soon after its ladder, rather than in chains that
	// later chunks would overlap; and, as an overlapped batch, it is one
	// chunk per device where Config.Chunk holds a device's share, its fills
	// beside the kernels of the batches before it (chunkFor).
	Closing bool
}

// overlapsOthers reports whether the caller's other batches overlap b's
// fills and drains with their kernels: later ones (Overlapped) or earlier
// ones still on the GPU (Closing).
func (b *Batch) overlapsOthers() bool { return b.Overlapped || b.Closing }

// Wire is a batch's bytes (Batch.Wire): Fill writes items [lo, hi) as
// InBytes bytes each, laid out as the unpack kernel reads them, and Drain
// reads their OutBytes bytes each, as the pack kernel writes them (package
// ladder's wire.go says how), with the roles and timing of Batch.Fill and
// Batch.Drain. The pinned buffers they get are the slot's input and output
// ones; on the device the bytes go into the output buffer, which the ladder
// writes only after the unpack kernel has read them, and come back from the
// input buffer, free once the finish kernel has read it.
type Wire struct {
	InBytes, OutBytes int
	Fill              func(lo, hi int, in []byte)
	Drain             func(lo, hi int, out []byte) error
	// Pre runs Config.Pre on each chunk first: InBytes and OutBytes count
	// its bytes too (PreChain says where they lie).
	Pre bool
}

// Stats says where the time of one Run went.
type Stats struct {
	Chunks   int
	KernelMs float64 // sum of kernel times measured with events (a small chunk computed in place is not timed)
	// PrepareMs and FinishMs are the prepare and finish kernels' shares
	// of KernelMs.
	PrepareMs, FinishMs float64
	CopyMs              float64 // sum of host↔device copy times measured with events
	FillMs              float64 // host time spent packing inputs
	DrainMs             float64 // host time spent in Drain, beside the later chunks' work
	WaitMs              float64 // host time spent waiting for the GPU to finish a chunk
	WallMs              float64 // the whole Run, drains included
	// ItemKernels says the prepare and finish kernels ran around the
	// ladder (Config.Prepare, Config.Finish, and not Batch.LadderOnly).
	ItemKernels bool
	// Timeline is when each chunk with copies reached each stage on the
	// device, in the order the chunks were collected.
	Timeline []ChunkTimes

	Devices []DeviceStats // a Pool's Run: each device's share, in the pool's order
}

// ChunkTimes is one chunk's items and the device times, in milliseconds
// from its Run's start on that device, at which its stages ended: the fill
// (Start, when the copy in was queued), the copy in, the prepare kernel,
// the ladder, the finish kernel, the copy out (Prepared = CopiedIn and
// Laddered = Ran when the chunk ran the ladder alone). Chunks on different
// streams overlap.
type ChunkTimes struct {
	Lo, Hi                                         int
	Start, CopiedIn, Prepared, Laddered, Ran, Done float64
}

// add sums o's chunks and times into st.
func (st *Stats) add(o Stats) {
	st.Chunks += o.Chunks
	st.KernelMs += o.KernelMs
	st.PrepareMs += o.PrepareMs
	st.FinishMs += o.FinishMs
	st.CopyMs += o.CopyMs
	st.FillMs += o.FillMs
	st.DrainMs += o.DrainMs
	st.WaitMs += o.WaitMs
	st.ItemKernels = st.ItemKernels || o.ItemKernels
	st.Timeline = append(st.Timeline, o.Timeline...)
}

// slot is one stream with its own buffers. There are slotCount of them, and
// a slot's chunk is collected only when the slot is needed again: up to
// slotCount chunks are on the GPU at once (a small batch's chunks run side
// by side), and the host drains a chunk while it fills the next one into
// the same slot's input buffers, so that neither waits for the other's
// slowest worker.
type slot struct {
	stream                    Stream
	hostIn, hostSc, hostOut   unsafe.Pointer
	devIn, devSc, devOut      DevicePtr
	preIn, preSc, preOut      DevicePtr // Config.Pre's buffers; 0 without it
	evStart, evKernel, evDone Event
	evCopyIn                  Event
	evPrepared, evLaddered    Event     // between the item kernels and the ladder
	mapIn, mapSc, mapOut      DevicePtr // where the small kernel reaches hostIn, hostSc and hostOut in place; 0 without Config.Small
	zeroCopy                  bool      // the slot's chunk runs on its pinned buffers in place
	itemKernels               bool      // the slot's chunk runs the prepare and finish kernels around the ladder
	finishItems               int       // items per thread of its finish launch (Engine.finishItems)
	preFinishItems            int       // and of Config.Pre's
	wire                      *Wire     // the slot's chunk's batch's Wire, if it is bytes unpacked and packed on the device
	lo, hi                    int
	busy                      bool
	drained                   chan struct{} // closed when the Drain of the slot's last chunk returns; nil if none ran
	// owner holds a token while the slot is a Run's, from its first chunk
	// there until its last one there is done (deviceRun.hold,
	// deviceRun.finishAll): a channel, so that a Run can stop waiting for
	// the slot (deviceRun.holdUnlessHandedOut)
	owner chan struct{}
}

// awaitDrain waits until the Drain reading the slot's pinned outputs has
// returned, so that the slot can take its next chunk.
func (s *slot) awaitDrain() {
	if s.drained != nil {
		<-s.drained
		s.drained = nil
	}
}

// Engine runs one kernel on one device. Its own OS thread retains the
// device's primary context and sets up and releases its resources; a Run
// computes on the calling goroutine, bound to its OS thread with that
// context current. Its own Runs are serialised, so an Engine is safe for
// concurrent use; a Pool of one device lets a Run start on it once the one
// before has taken its last chunk, the slots' owners keeping each slot to
// one Run at a time.
type Engine struct {
	d     Driver
	cfg   Config
	dev   int32
	ctx   Context // the device's primary context, retained by the engine's thread
	mod   Module
	chain          // the engine's own kernels
	small Function // Config.Small's kernel, or 0
	pre   *chain   // Config.Pre's kernels, or nil
	sms   int      // the device's multiprocessors, over which small chunks spread
	wave  int      // the items the device runs at once: sms × resident blocks × ItemsPerBlock
	slots [slotCount]slot
	// next is the slot of the next Run's first chunk: the one after the
	// last Run's last chunk, whose oldest chunk in flight frees it first.
	// The latest Run to start (latestRun, counting Runs) sets it before it
	// takes each chunk, since the next Run may start once the batch's last
	// chunk is taken (Pool.Run); a Run that a later one has followed no
	// longer does.
	nextMu    sync.Mutex
	next      int
	latestRun uint64

	calls   chan func()
	stopped chan struct{} // closed once the engine's thread has released the context
	mu      sync.Mutex    // serialises Run and Close
	done    bool
	allocs  []DevicePtr
	hosts   []unsafe.Pointer
	epoch   epoch // its origin in a trace (StartTrace)
}

// chain is one chain of kernels loaded on the device, with its
// constants: the engine's own (Config) or Config.Pre's.
type chain struct {
	fn         Function  // Entry's kernel
	finish     Function  // Finish's kernel, or 0
	prepare    Function  // Prepare's kernel, or 0
	unpack     Function  // Prepare.Unpack's kernel, or 0
	pack       Function  // Finish.Pack's kernel, or 0
	consts     DevicePtr // Constants
	finConsts  DevicePtr // Finish's constants
	prepConsts DevicePtr // Prepare's constants
}

// slotCount is the number of slots, and so of chunks filling, on the GPU
// and draining at once on a device. A pipeline of steps of one chunk a
// device (ECDSA signing) fills its next step while three are on the GPU;
// with three slots, that step waited for the oldest one's finish and
// drain, which near the end come together
// (bench/h200x2/2026-11-30-closing).
const slotCount = 4

// Bounds of Config: a chunk's item count and stride reach the kernel as
// 32-bit values, and every buffer's size, 4·Chunk·rows bytes, must not wrap.
const (
	maxChunk = 1<<31 - 1
	maxRows  = 1 << 16
)

// Open loads the kernel on the device, uploads the constants and allocates
// slotCount chunks' worth of pinned and device buffers. On error everything
// already acquired is released.
func Open(d Driver, cfg Config) (*Engine, error) {
	if cfg.Chunk <= 0 || cfg.ItemsPerBlock <= 0 || cfg.BlockThreads <= 0 || cfg.InRows < 0 || cfg.OutRows <= 0 || cfg.ScalarRows <= 0 {
		return nil, fmt.Errorf("gpu: invalid configuration: chunk %d, %d items per block of %d threads, rows %d/%d/%d (all must be positive)",
			cfg.Chunk, cfg.ItemsPerBlock, cfg.BlockThreads, cfg.InRows, cfg.ScalarRows, cfg.OutRows)
	}
	if cfg.Chunk > maxChunk || cfg.InRows > maxRows || cfg.OutRows > maxRows || cfg.ScalarRows > maxRows {
		return nil, fmt.Errorf("gpu: a chunk of %d items of %d, %d and %d rows exceeds %d items or %d rows",
			cfg.Chunk, cfg.InRows, cfg.ScalarRows, cfg.OutRows, maxChunk, maxRows)
	}
	if cfg.ItemsPerBlock > cfg.BlockThreads || cfg.BlockThreads > kernels.MaxThreads {
		return nil, fmt.Errorf("gpu: %d items per block of %d threads: more items than threads, or more than the kernels' %d threads per block",
			cfg.ItemsPerBlock, cfg.BlockThreads, kernels.MaxThreads)
	}
	if fk := cfg.Finish; fk != nil && (fk.Entry == "" || len(fk.Constants) == 0 || fk.ResultRows <= 0 || fk.ResultRows > cfg.OutRows) {
		return nil, fmt.Errorf("gpu: invalid finish kernel %q: %d constants, %d result rows (1 to the %d output rows)",
			fk.Entry, len(fk.Constants), fk.ResultRows, cfg.OutRows)
	}
	if fk := cfg.Finish; fk != nil && (fk.ItemsPerThread < 0 || fk.ItemsPerThread > kernels.FinishItemsMax) {
		return nil, fmt.Errorf("gpu: the finish kernel's threads take %d items each: want 1 to %d (0 for %d)",
			fk.ItemsPerThread, kernels.FinishItemsMax, kernels.FinishItemsPerThread)
	}
	if pk := cfg.Prepare; pk != nil && (pk.Entry == "" || len(pk.Constants) == 0) {
		return nil, fmt.Errorf("gpu: invalid prepare kernel %q: %d constants", pk.Entry, len(pk.Constants))
	}
	if sk := cfg.Small; sk != nil && (sk.Entry == "" || sk.ItemsPerSM <= 0 || sk.ItemsPerBlock <= 0 || sk.ThreadsFor == nil ||
		sk.ThreadsFor(sk.ItemsPerBlock) > kernels.MaxThreads) {
		return nil, fmt.Errorf("gpu: invalid small-chunk kernel %q: up to %d items per SM, %d per block (positive, within %d threads per block)",
			sk.Entry, sk.ItemsPerSM, sk.ItemsPerBlock, kernels.MaxThreads)
	}
	if err := checkPre(cfg); err != nil {
		return nil, err
	}
	e := &Engine{d: d, cfg: cfg, calls: make(chan func()), stopped: make(chan struct{})}
	for i := range e.slots {
		e.slots[i].owner = make(chan struct{}, 1)
	}
	ready := make(chan error)
	go e.loop(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	var err error
	e.call(func() { err = e.setup() })
	if err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

// checkPre fails a Config.Pre that lacks one of its kernels, or whose
// bytes do not fit its buffers or the engine's.
func checkPre(cfg Config) error {
	pc := cfg.Pre
	if pc == nil {
		return nil
	}
	if pc.Entry == "" || len(pc.Constants) == 0 || pc.ItemsPerBlock <= 0 || pc.BlockThreads < pc.ItemsPerBlock ||
		pc.BlockThreads > kernels.MaxThreads || pc.OutRows <= 0 || pc.ScalarRows <= 0 || pc.InRows < 0 ||
		pc.OutRows > maxRows || pc.ScalarRows > maxRows || pc.InRows > maxRows ||
		pc.Prepare == nil || pc.Prepare.Unpack == "" || pc.Finish == nil || pc.Finish.Pack == "" || pc.Finish.PackShares {
		return fmt.Errorf("gpu: invalid pre chain %q: it needs its constants, blocks, rows, and its unpack, prepare, finish and pack kernels", pc.Entry)
	}
	in, out := 4*max(pc.InRows, 1), 4*pc.OutRows
	if pc.InBytes <= 0 || pc.InBytes > out || pc.ResultBytes+preOutcomeBytes > in || pc.Skip < 0 || pc.Width <= 0 ||
		pc.Skip+pc.Width > pc.ResultBytes || pc.At < 0 || pc.At+pc.Width > 4*cfg.OutRows {
		return fmt.Errorf("gpu: the pre chain %q's bytes do not fit: %d in, results of %d, %d from %d to %d", pc.Entry,
			pc.InBytes, pc.ResultBytes, pc.Width, pc.Skip, pc.At)
	}
	return nil
}

// loop owns the OS thread and the context; it runs every call in order.
func (e *Engine) loop(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(e.stopped)
	dev, err := e.d.Device(e.cfg.Device)
	var ctx Context
	if err == nil {
		if ctx, err = e.d.PrimaryCtxRetain(dev); err == nil {
			if err = e.d.CtxSetCurrent(ctx); err != nil {
				e.d.PrimaryCtxRelease(dev)
			}
		}
	}
	if err != nil {
		ready <- fmt.Errorf("gpu: device %d: %w", e.cfg.Device, err)
		return
	}
	e.dev, e.ctx = dev, ctx
	ready <- nil
	for f := range e.calls {
		f()
	}
	e.d.PrimaryCtxRelease(dev)
}

// call runs f on the engine's thread and waits for it.
func (e *Engine) call(f func()) {
	done := make(chan struct{})
	e.calls <- func() { f(); close(done) }
	<-done
}

func (e *Engine) alloc(bytes uint64) (DevicePtr, error) {
	p, err := e.d.MemAlloc(bytes)
	if err == nil {
		e.allocs = append(e.allocs, p)
	}
	return p, err
}

func (e *Engine) allocHost(bytes uint64) (unsafe.Pointer, error) {
	p, err := e.d.MemAllocHost(bytes)
	if err == nil {
		e.hosts = append(e.hosts, p)
	}
	return p, err
}

func (e *Engine) setup() error {
	var err error
	if e.mod, err = e.d.ModuleLoadData(e.cfg.Image); err != nil {
		e.mod = 0
		return err
	}
	if err = e.load(&e.chain, &e.cfg); err != nil {
		return err
	}
	if pc := e.cfg.Pre; pc != nil {
		e.pre = new(chain)
		if err = e.load(e.pre, &pc.Config); err != nil {
			return err
		}
	}
	if sk := e.cfg.Small; sk != nil {
		if e.small, err = e.d.ModuleGetFunction(e.mod, sk.Entry); err != nil {
			return err
		}
	}
	if e.sms, err = e.d.DeviceAttribute(MultiprocessorCount, e.dev); err != nil {
		return err
	}
	blocks, err := e.d.OccupancyBlocksPerSM(e.fn, e.cfg.BlockThreads)
	if err != nil {
		return err
	}
	e.wave = e.sms * blocks * e.cfg.ItemsPerBlock
	c := uint64(e.cfg.Chunk) * 4
	for i := range e.slots {
		s := &e.slots[i]
		if s.stream, err = e.d.StreamCreate(); err != nil {
			return err
		}
		for _, b := range []struct {
			host   *unsafe.Pointer
			dev    *DevicePtr
			rows   int
			mapped *DevicePtr
		}{{&s.hostIn, &s.devIn, e.cfg.InRows, &s.mapIn}, {&s.hostSc, &s.devSc, e.cfg.ScalarRows, &s.mapSc}, {&s.hostOut, &s.devOut, e.cfg.OutRows, &s.mapOut}} {
			rows := uint64(max(b.rows, 1)) // a kernel of no input rows (the comb) still gets a valid pointer
			if *b.host, err = e.allocHost(c * rows); err != nil {
				return err
			}
			if *b.dev, err = e.alloc(c * rows); err != nil {
				return err
			}
			if e.small != 0 {
				if *b.mapped, err = e.d.MemHostDevicePointer(*b.host); err != nil {
					return err
				}
			}
		}
		if pc := e.cfg.Pre; pc != nil {
			for _, b := range []struct {
				dev  *DevicePtr
				rows int
			}{{&s.preIn, pc.InRows}, {&s.preSc, pc.ScalarRows}, {&s.preOut, pc.OutRows}} {
				if *b.dev, err = e.alloc(c * uint64(max(b.rows, 1))); err != nil {
					return err
				}
			}
		}
		for _, ev := range []*Event{&s.evStart, &s.evCopyIn, &s.evPrepared, &s.evLaddered, &s.evKernel, &s.evDone} {
			if *ev, err = e.d.EventCreate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// load loads cfg's kernels into c and uploads their constants.
func (e *Engine) load(c *chain, cfg *Config) error {
	var err error
	if c.fn, err = e.d.ModuleGetFunction(e.mod, cfg.Entry); err != nil {
		return err
	}
	if c.consts, err = e.upload(cfg.Constants); err != nil {
		return err
	}
	if pk := cfg.Prepare; pk != nil {
		if c.prepare, err = e.d.ModuleGetFunction(e.mod, pk.Entry); err != nil {
			return err
		}
		if c.prepConsts, err = e.upload(pk.Constants); err != nil {
			return err
		}
		if pk.Unpack != "" {
			if c.unpack, err = e.d.ModuleGetFunction(e.mod, pk.Unpack); err != nil {
				return err
			}
		}
	}
	if fk := cfg.Finish; fk != nil {
		if c.finish, err = e.d.ModuleGetFunction(e.mod, fk.Entry); err != nil {
			return err
		}
		if c.finConsts, err = e.upload(fk.Constants); err != nil {
			return err
		}
		if fk.Pack != "" {
			if c.pack, err = e.d.ModuleGetFunction(e.mod, fk.Pack); err != nil {
				return err
			}
		}
	}
	return nil
}

// upload copies words to new device memory.
func (e *Engine) upload(words []uint32) (DevicePtr, error) {
	bytes := uint64(4 * len(words))
	p, err := e.alloc(bytes)
	if err != nil {
		return 0, err
	}
	return p, e.d.MemcpyHtoD(p, unsafe.Pointer(&words[0]), bytes)
}

// resultRows returns the rows per item that slot s's chunk leaves in the
// output buffer for its drain: the finish kernel's, or the ladder's outputs.
func (e *Engine) resultRows(s *slot) int {
	if s.itemKernels {
		return e.cfg.Finish.ResultRows
	}
	return e.cfg.OutRows
}

// release frees everything setup acquired; it keeps going past errors.
func (e *Engine) release() {
	e.releaseEpoch()
	for i := range e.slots {
		s := &e.slots[i]
		for _, ev := range []*Event{&s.evStart, &s.evCopyIn, &s.evPrepared, &s.evLaddered, &s.evKernel, &s.evDone} {
			if *ev != 0 {
				e.d.EventDestroy(*ev)
				*ev = 0
			}
		}
		if s.stream != 0 {
			e.d.StreamDestroy(s.stream)
			s.stream = 0
		}
	}
	for _, p := range e.allocs {
		e.d.MemFree(p)
	}
	for _, p := range e.hosts {
		e.d.MemFreeHost(p)
	}
	e.allocs, e.hosts = nil, nil
	if e.mod != 0 {
		e.d.ModuleUnload(e.mod)
		e.mod = 0
	}
}

// Close releases the device memory, streams and module. The Engine cannot
// be used afterwards.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil
	}
	e.done = true
	e.stop()
	return nil
}

// stop releases every resource and ends the engine's thread.
func (e *Engine) stop() {
	e.call(e.release)
	close(e.calls)
	<-e.stopped
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("gpu: engine closed")

func words(p unsafe.Pointer, n int) []uint32 { return unsafe.Slice((*uint32)(p), n) }

// Run computes a batch in chunks of at most Config.Chunk items (whole waves
// of the device, and at least pipelineDepth of them for a batch of several
// waves: chunkFor) on slotCount streams: while the GPU copies and computes
// up to slotCount chunks, the host drains the oldest and, at the same time,
// fills the next. It checks ctx between chunks; on any error (a driver call, a
// Drain, ctx) it stops launching, waits for what is in flight, and returns
// the first error. Chunks that were not drained have not been reported to
// the caller. A driver error fails only this Run: the next one uses the
// device again.
func (e *Engine) Run(ctx context.Context, b Batch) (Stats, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return Stats{}, ErrClosed
	}
	if err := e.checkBatch(b); err != nil {
		return Stats{}, err
	}
	start := time.Now()
	w := newWork(b.Count, chunkFor(b.Count, e.cfg.Chunk, 1, e.wave, b.overlapsOthers()), 1)
	st, _ := e.runOn(ctx, b, w, nil)
	st.WallMs = msSince(start)
	return st, w.failed()
}

// checkBatch fails a batch the engine cannot run: a Wire batch without the
// unpack, prepare, finish and pack kernels, or whose bytes per item do not
// fit the buffers they pass through.
func (e *Engine) checkBatch(b Batch) error {
	wire := b.Wire
	if wire == nil {
		return nil
	}
	if e.unpack == 0 || e.pack == 0 || e.prepare == 0 || e.finish == 0 || b.LadderOnly {
		return errors.New("gpu: a wire batch needs the unpack, prepare, finish and pack kernels")
	}
	preIn, preOut := 0, 0
	if wire.Pre {
		if e.pre == nil {
			return errors.New("gpu: a wire batch asks for the pre chain, which the engine lacks")
		}
		preIn, preOut = e.cfg.Pre.InBytes, preOutcomeBytes
	}
	// the input goes from the host's input buffer, the engine's own part
	// into the device's output buffer; the output from the device's input
	// buffer into the host's output buffer
	in, out := 4*max(e.cfg.InRows, 1), 4*e.cfg.OutRows
	ownIn, ownOut := wire.InBytes-preIn, wire.OutBytes-preOut
	if ownIn <= 0 || ownOut <= 0 || wire.InBytes > in || ownIn > out || ownOut > in || wire.OutBytes > out {
		return fmt.Errorf("gpu: a wire batch of %d bytes in and %d out per item (%d and %d the engine's own) does not fit buffers of %d and %d bytes an item",
			wire.InBytes, wire.OutBytes, ownIn, ownOut, in, out)
	}
	return nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1e3 }

// runOn computes chunks of w until the batch is over, and returns the
// device's share of the work and its fault, if any. It runs on the calling
// goroutine, bound to its OS thread with the device's context current for
// the while, rather than on the engine's thread: handing a batch to a
// parked thread and back costs two thread wake-ups, which a small batch
// would wait for.
func (e *Engine) runOn(ctx context.Context, b Batch, w *work, handover func()) (Stats, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st := Stats{ItemKernels: e.cfg.Finish != nil && !b.LadderOnly}
	if err := e.d.CtxSetCurrent(e.ctx); err != nil {
		err = fmt.Errorf("gpu: device %d: %w", e.cfg.Device, err)
		w.deviceFailed(err, nil)
		return st, err
	}
	defer e.d.CtxSetCurrent(0)
	return st, e.runChunks(ctx, b, w, &st, handover)
}

// deviceRun is one device's share of a batch as runChunks computes it: the
// drains of its chunks' outputs and the time they took.
type deviceRun struct {
	e       *Engine
	b       Batch
	w       *work
	st      *Stats
	drains  sync.WaitGroup
	drainNs atomic.Int64
	// origin is recorded before the Run's first chunk with copies: the
	// origin of Stats.Timeline; 0 until then
	origin Event
	seq    uint64          // the Run's number on the device (Engine.latestRun)
	taken  int             // the chunks of the batch this Run has taken
	start  int             // the slot of chunk 0: chunk c goes to slot (start + c) mod slotCount
	held   [slotCount]bool // the slots whose owner this Run holds
	// handover, when set, lets the device's next Run start once this one
	// has no chunk left to take (Pool.Run); handedOver says it
	// did, after which a slot is released as soon as its last chunk is
	// done, before that chunk's drain (finishAll)
	handover   func()
	handedOver bool
}

// hold makes slot i this Run's: the first time, it waits until the Run
// before has let the slot go (its last chunk there done, or drained).
func (r *deviceRun) hold(i int) {
	if !r.held[i] {
		r.e.slots[i].owner <- struct{}{}
		r.held[i] = true
	}
}

// holdUnlessHandedOut is hold, but stops waiting once every chunk of the
// batch has been handed out, and reports whether the Run holds slot i. The
// next Run may then start and take the slot while this one still holds
// others, so the wait could close a cycle: this Run waiting for the next
// one's slot, the next one for this one's.
func (r *deviceRun) holdUnlessHandedOut(i int) bool {
	if r.held[i] {
		return true
	}
	select {
	case r.e.slots[i].owner <- struct{}{}:
		r.held[i] = true
		return true
	case <-r.w.handedOut:
		return false
	}
}

// release lets the next Run use slot i, whose chunks this Run has
// finished and drained.
func (r *deviceRun) release(i int) {
	if r.held[i] {
		r.e.slots[i].awaitDrain()
		r.held[i] = false
		<-r.e.slots[i].owner
	}
}

// begin makes r the device's latest Run, its first chunk going to the slot
// after the last one taken.
func (r *deviceRun) begin() {
	e := r.e
	e.nextMu.Lock()
	defer e.nextMu.Unlock()
	e.latestRun++
	r.seq, r.start = e.latestRun, e.next
}

// setNext makes the slot of chunk c the next Run's first, while r is the
// device's latest Run, and reports whether it is.
func (r *deviceRun) setNext(c int) (latest bool) {
	e := r.e
	e.nextMu.Lock()
	defer e.nextMu.Unlock()
	if e.latestRun == r.seq {
		e.next = (r.start + c) % slotCount
		return true
	}
	return false
}

// handOver lets the device's next Run start, its first chunk going to the
// slot of chunk c, if this Run hands over and has not yet.
func (r *deviceRun) handOver(c int) {
	if r.handover != nil && !r.handedOver {
		r.handedOver = true
		r.setNext(c)
		r.handover()
	}
}

// finish waits for slot s's chunk, times it and hands its outputs to a
// drain: on its own goroutine, beside the fills of later chunks, or inline
// once there is nothing left to fill (a goroutine would cost a thread's
// wake-up, which a small batch would feel). A slot with no chunk is left as
// it is.
func (r *deviceRun) finish(s *slot, inline bool) error {
	drain, err := r.collect(s)
	switch {
	case err != nil || drain == nil:
		return err
	case inline:
		drain()
	default:
		r.drains.Go(drain)
	}
	return nil
}

// collect waits for slot s's chunk, times it, and returns the drain of its
// outputs, which closes s.drained when it returns; nil for a slot with no
// chunk.
func (r *deviceRun) collect(s *slot) (drain func(), err error) {
	e, st := r.e, r.st
	if !s.busy {
		return nil, nil
	}
	t0 := time.Now()
	if err := e.wait(s); err != nil {
		return nil, err
	}
	st.WaitMs += msSince(t0)
	s.busy = false
	e.timeSlot(s, st, r.origin)
	n := s.hi - s.lo
	lo, hi := s.lo, s.hi
	out := words(s.hostOut, e.resultRows(s)*n)
	drainChunk := func() error { return r.b.Drain(lo, hi, out) }
	if wire := s.wire; wire != nil {
		bytes := unsafe.Slice((*byte)(s.hostOut), wire.OutBytes*n)
		drainChunk = func() error { return wire.Drain(lo, hi, bytes) }
	}
	r.w.done()
	drained := make(chan struct{})
	s.drained = drained
	return func() {
		defer close(drained)
		t0 := time.Now()
		if err := drainChunk(); err != nil {
			r.w.fail(err)
		}
		r.drainNs.Add(time.Since(t0).Nanoseconds())
	}, nil
}

// runChunks takes chunks from w and computes them on the slots. A
// driver error takes the device out of the batch and gives the chunks it
// held back to w (to run on another device, if any); a Drain error or the
// end of ctx fails the batch. It returns the driver error, once the
// device's drains are over.
func (e *Engine) runChunks(ctx context.Context, b Batch, w *work, st *Stats, handover func()) error {
	r := &deviceRun{e: e, b: b, w: w, st: st, handover: handover}
	r.begin()
	var fault error
	c := 0 // the chunk that goes next, into slot (r.start + c) mod slotCount
	for ; ; c++ {
		if err := context.Cause(ctx); err != nil {
			w.fail(err)
			break
		}
		// chunk c − slotCount leaves its slot for chunk c and starts
		// draining, to run beside the fill of chunk c, or inline when no
		// chunk is left to fill
		i := (r.start + c) % slotCount
		if r.held[i] {
			if fault = r.finish(&e.slots[i], w.nonePending()); fault != nil {
				break
			}
		}
		ch, ok, err := r.take(c, i)
		if fault = err; fault != nil || !ok {
			break
		}
		if fault = r.fillAndEnqueue(&e.slots[i], ch); fault != nil {
			break
		}
		st.Chunks++
	}
	if fault == nil && w.failed() == nil {
		fault = r.finishAll(c)
	}
	held := r.settle()
	if fault != nil {
		fault = fmt.Errorf("gpu: device %d: %w", e.cfg.Device, fault)
		w.deviceFailed(fault, held)
	}
	r.drains.Wait()
	st.DrainMs += float64(r.drainNs.Load()) / 1e6
	if !r.handedOver {
		r.setNext(c)
	}
	for i := range slotCount {
		r.release(i)
	}
	if r.origin != 0 {
		e.d.EventDestroy(r.origin)
	}
	return fault
}

// take takes chunk c of the Run, for slot i, and holds the slot: ok is
// false once the batch is over for this device. With no chunk pending while
// others are out, it finishes the device's own, oldest first and inline
// (nothing is left to fill beside them), then waits for one to come back
// or the end; the device's next Run may start meanwhile. It returns the
// first driver error of those it finished.
func (r *deviceRun) take(c, i int) (ch span, ok bool, fault error) {
	r.beforeTake(c, i)
	ch, ok, more := r.w.take(&r.taken, false)
	if !ok && more {
		r.handOver(c)
		if fault = r.finishAll(c); fault != nil {
			return ch, false, fault
		}
		ch, ok, _ = r.w.take(&r.taken, true)
	}
	if !ok {
		return ch, false, nil
	}
	if !r.handedOver && !r.held[i] {
		r.yieldSlots(c + 1) // a chunk given back: this Run waits for slot i below
	}
	if r.handedOver {
		// a chunk given back by a failed device, while the next Run may
		// hold slots here: one slot at a time, so that this Run never
		// holds one while waiting for another
		if fault = r.finishAll(c); fault != nil {
			r.w.giveBack(ch) // taken, but no slot holds it: another device's
			return ch, false, fault
		}
	}
	r.hold(i)
	return ch, true, nil
}

// fillAndEnqueue fills chunk ch into slot s and enqueues its copies and kernels.
func (r *deviceRun) fillAndEnqueue(s *slot, ch span) error {
	e, b, st := r.e, r.b, r.st
	n := ch.hi - ch.lo
	t0 := time.Now()
	if b.Wire != nil {
		b.Wire.Fill(ch.lo, ch.hi, unsafe.Slice((*byte)(s.hostIn), b.Wire.InBytes*n))
	} else {
		b.Fill(ch.lo, ch.hi, words(s.hostIn, e.cfg.InRows*n), words(s.hostSc, e.cfg.ScalarRows*n))
	}
	st.FillMs += msSince(t0)
	s.awaitDrain() // the slot's last chunk's, of this Run or the one before: it reads the outputs ch copies back into
	s.lo, s.hi, s.busy = ch.lo, ch.hi, true
	s.itemKernels = e.cfg.Finish != nil && !b.LadderOnly
	last := b.Closing || !b.Overlapped && r.w.pendingCount() < slotCount
	s.finishItems = e.finishItems(n, last)
	if e.cfg.Pre != nil {
		s.preFinishItems = finishItems(e.cfg.Pre.Finish, n, e.fullChunk(), last)
	}
	s.wire = b.Wire
	return e.enqueue(s, n, &r.origin)
}

// beforeTake readies the Run to take chunk c, into slot i. Once the
// batch's chunks have all been handed out, the next Run may have started:
// the Run hands over (yieldSlots). Until then it makes the slot after i
// the next Run's first (should this take hand out the last chunk, the next
// Run starts at once, past the slot this one may wait for) and holds slot
// i before the take: a chunk is taken only where it can run at once, so
// that while the previous Run still holds the slot another device takes
// the chunk instead; with no chunk left to take, or once the other devices
// have taken the last one while it waits (holdUnlessHandedOut), it hands
// over without the slot, and the next Run's chunks may take it.
func (r *deviceRun) beforeTake(c, i int) {
	if r.yieldSlots(c) || !r.setNext(c+1) {
		r.handOver(c)
	}
	if !r.handedOver && !r.w.nonePending() && !r.holdUnlessHandedOut(i) {
		r.handOver(c)
	}
}

// yieldSlots hands the Run over, given that chunk c goes next, once its
// batch's chunks have all been handed out, and reports whether it has
// handed over: the next Run may then have started, its first chunk in the
// slot after this Run's last, and this Run holds a slot only while it
// holds no other (for a chunk given back, after finishAll), so that
// neither Run waits for the other's slots while holding its own.
func (r *deviceRun) yieldSlots(c int) bool {
	if r.w.allHandedOut() {
		r.handOver(c)
	}
	return r.handedOver
}

// finishAll finishes, inline, the Run's chunks still in its slots in the
// order they were launched, given that chunk c goes next, and returns the
// first error. Once the Run has handed over, each slot goes to the next
// Run as soon as its chunk is done, before the drain: the next Run fills
// its first chunk there beside the drain, and waits for it only before
// that chunk's outputs come back (fillAndEnqueue).
func (r *deviceRun) finishAll(c int) error {
	for k := range slotCount {
		i := (r.start + c + k) % slotCount
		if !r.held[i] {
			continue
		}
		drain, err := r.collect(&r.e.slots[i])
		if err != nil {
			return err
		}
		if r.handedOver {
			r.held[i] = false
			<-r.e.slots[i].owner
		}
		if drain != nil {
			drain()
		}
	}
	return nil
}

// timeSlot adds the finished slot's kernel and copy times to st (none for
// a chunk computed in place), all from its chunk's times (chunkTimes): a
// query for each event, the fewest that time every stage; a failed query
// leaves the chunk's times out.
func (e *Engine) timeSlot(s *slot, st *Stats, origin Event) {
	if s.zeroCopy {
		return
	}
	ct, ok := e.chunkTimes(s, origin)
	if !ok {
		return
	}
	st.Timeline = append(st.Timeline, ct)
	st.KernelMs += ct.Ran - ct.CopiedIn
	if s.itemKernels {
		st.PrepareMs += ct.Prepared - ct.CopiedIn
		st.FinishMs += ct.Ran - ct.Laddered
	}
	st.CopyMs += ct.CopiedIn - ct.Start + ct.Done - ct.Ran
	e.traceChunk(s, ct)
}

// wait waits for slot s's chunk. A chunk with copies waits on its last
// event, which sleeps (EventCreate); a zero-copy chunk, a small batch's,
// spins on its stream, since waking a sleeping thread would add tens of
// microseconds to a latency of a quarter of a millisecond.
func (e *Engine) wait(s *slot) error {
	if s.zeroCopy {
		return e.d.StreamSynchronize(s.stream)
	}
	return e.d.EventSynchronize(s.evDone)
}

// chunkTimes returns the finished slot's chunk's times from the event
// origin; ok is false where a timing query failed.
func (e *Engine) chunkTimes(s *slot, origin Event) (ct ChunkTimes, ok bool) {
	ct = ChunkTimes{Lo: s.lo, Hi: s.hi}
	prepared, laddered := s.evCopyIn, s.evKernel
	if s.itemKernels {
		prepared, laddered = s.evPrepared, s.evLaddered
	}
	for _, at := range []struct {
		t  *float64
		ev Event
	}{{&ct.Start, s.evStart}, {&ct.CopiedIn, s.evCopyIn}, {&ct.Prepared, prepared}, {&ct.Laddered, laddered}, {&ct.Ran, s.evKernel}, {&ct.Done, s.evDone}} {
		ms, err := e.d.EventElapsedMs(origin, at.ev)
		if err != nil {
			return ct, false
		}
		*at.t = float64(ms)
	}
	return ct, true
}

// settle waits for the slots still busy, without reporting their chunks,
// and returns those chunks.
func (r *deviceRun) settle() []span {
	e := r.e
	var held []span
	for i := range e.slots {
		s := &e.slots[i]
		if r.held[i] && s.busy {
			e.d.StreamSynchronize(s.stream)
			s.busy = false
			held = append(held, span{s.lo, s.hi})
		}
	}
	return held
}

// enqueue copies n items up, launches the kernel and copies the results
// back, all on the slot's stream, with events around each stage (and, for
// the Run's first such chunk, *origin 0, a new event for the Run's origin
// before them). A chunk
// of the small kernel skips the copies and the events: its kernel reads
// and writes the slot's pinned buffers in place, which saves a small batch
// the copies' fixed costs (zeroCopy).
func (e *Engine) enqueue(s *slot, n int, origin *Event) error {
	d := e.d
	fn, _, _ := e.kernelFor(n)
	// a wire chunk always copies: its bytes go up from the input buffer
	// into the device's output buffer
	if s.zeroCopy = fn == e.small && s.mapOut != 0 && s.wire == nil; s.zeroCopy {
		// untimed: an event before the launch and the query after the wait
		// would add 3 to 4 µs to a single item's 0.25 ms
		return e.launch(s, n, true)
	}
	e.traceEpoch(s)
	if *origin == 0 {
		// the origin of the Run's timeline, before its first timed chunk
		ev, err := d.EventCreate()
		if err != nil {
			return err
		}
		*origin = ev
		if err := d.EventRecord(ev, s.stream); err != nil {
			return err
		}
	}
	if err := d.EventRecord(s.evStart, s.stream); err != nil {
		return err
	}
	if err := e.copyChunkIn(s, n); err != nil {
		return err
	}
	if err := d.EventRecord(s.evCopyIn, s.stream); err != nil {
		return err
	}
	if err := e.launch(s, n, false); err != nil {
		return err
	}
	if err := d.EventRecord(s.evKernel, s.stream); err != nil {
		return err
	}
	if err := e.copyChunkOut(s, n); err != nil {
		return err
	}
	return d.EventRecord(s.evDone, s.stream)
}

// copyChunkIn enqueues the copy of slot s's n items to the device: their
// input and scalar rows, or a wire chunk's bytes into the output buffer
// (the pre chain's tail into its own, PreChain).
func (e *Engine) copyChunkIn(s *slot, n int) error {
	if w := s.wire; w != nil && w.Pre {
		own := uint64((w.InBytes - e.cfg.Pre.InBytes) * n)
		if err := e.d.MemcpyHtoDAsync(s.preOut, unsafe.Add(s.hostIn, own), uint64(e.cfg.Pre.InBytes*n), s.stream); err != nil {
			return err
		}
		return e.d.MemcpyHtoDAsync(s.devOut, s.hostIn, own, s.stream)
	}
	if s.wire != nil {
		return e.d.MemcpyHtoDAsync(s.devOut, s.hostIn, uint64(s.wire.InBytes*n), s.stream)
	}
	if err := e.copyIn(s, n); err != nil {
		return err
	}
	return e.d.MemcpyHtoDAsync(s.devSc, s.hostSc, uint64(4*e.cfg.ScalarRows*n), s.stream)
}

// copyChunkOut enqueues the copy of slot s's n results to the host: the
// rows the drain reads, or a wire chunk's bytes from the input buffer.
func (e *Engine) copyChunkOut(s *slot, n int) error {
	if w := s.wire; w != nil && w.Pre {
		own := uint64((w.OutBytes - preOutcomeBytes) * n)
		outcomes := s.preIn + DevicePtr(e.cfg.Pre.ResultBytes*n)
		if err := e.d.MemcpyDtoHAsync(unsafe.Add(s.hostOut, own), outcomes, uint64(preOutcomeBytes*n), s.stream); err != nil {
			return err
		}
		return e.d.MemcpyDtoHAsync(s.hostOut, s.devIn, own, s.stream)
	}
	if s.wire != nil {
		return e.d.MemcpyDtoHAsync(s.hostOut, s.devIn, uint64(s.wire.OutBytes*n), s.stream)
	}
	return e.d.MemcpyDtoHAsync(s.hostOut, s.devOut, uint64(4*e.resultRows(s)*n), s.stream)
}

// kernelFor returns the kernel of a launch on n items and the items and
// threads of each of its blocks: Config.Small's for a chunk of at most its
// ItemsPerSM per SM, spread over every SM; otherwise ItemsPerBlock, or, when n items
// would leave SMs without a block and Config.ThreadsFor is set, ⌈n/SMs⌉
// items per block.
func (e *Engine) kernelFor(n int) (fn Function, items, threads int) {
	cfg := e.cfg
	spread := max((n+e.sms-1)/max(e.sms, 1), 1)
	if sk := cfg.Small; sk != nil && n <= sk.ItemsPerSM*e.sms {
		items = min(spread, sk.ItemsPerBlock)
		return e.small, items, sk.ThreadsFor(items)
	}
	items, threads = blockShape(&cfg, n, e.sms)
	return e.fn, items, threads
}

// blockShape returns the items and threads of each block of cfg's kernel
// in a launch on n items over sms multiprocessors: ItemsPerBlock, or, when
// n items would leave multiprocessors without a block and cfg.ThreadsFor
// is set, ⌈n/sms⌉.
func blockShape(cfg *Config, n, sms int) (items, threads int) {
	if cfg.ThreadsFor == nil || sms <= 0 || n >= sms*cfg.ItemsPerBlock {
		return cfg.ItemsPerBlock, cfg.BlockThreads
	}
	spread := max((n+sms-1)/sms, 1)
	return spread, cfg.ThreadsFor(spread)
}

// launch enqueues the kernel on n items of slot s's device buffers, or of
// its pinned buffers in place when inPlace is set, with the prepare kernel
// before it and the finish kernel after it, if any, on the same buffers.
// A chunk with copies that runs them gets events between them and the
// ladder, for its timeline.
func (e *Engine) launch(s *slot, n int, inPlace bool) error {
	mark := func(ev Event) error {
		if inPlace || !s.itemKernels {
			return nil
		}
		return e.d.EventRecord(ev, s.stream)
	}
	if err := e.launchPre(s, n); err != nil {
		return err
	}
	if err := e.launchWire(e.unpack, e.prepConsts, s, n); err != nil {
		return err
	}
	if err := e.launchPrepare(s, n, inPlace); err != nil {
		return err
	}
	if err := mark(s.evPrepared); err != nil {
		return err
	}
	if err := e.launchLadder(s, n, inPlace); err != nil {
		return err
	}
	if err := mark(s.evLaddered); err != nil {
		return err
	}
	if err := e.launchFinish(s, n, inPlace); err != nil {
		return err
	}
	return e.launchPack(s, n)
}

// launchPack enqueues the pack kernel on n items of slot s, if its chunk
// is a wire chunk: one item a thread, or on the finish's grid where
// Config.Finish.PackShares.
func (e *Engine) launchPack(s *slot, n int) error {
	if s.wire != nil && e.cfg.Finish != nil && e.cfg.Finish.PackShares {
		return e.launchItems(e.pack, e.finConsts, s, n, false, kernels.FinishGrid(n, s.finishItems))
	}
	return e.launchWire(e.pack, e.finConsts, s, n)
}

// launchWire enqueues fn, the unpack or pack kernel, with its constants
// consts, on n items of slot s, if its chunk is a wire chunk: one thread
// per item.
func (e *Engine) launchWire(fn Function, consts DevicePtr, s *slot, n int) error {
	if s.wire == nil {
		return nil
	}
	return e.launchItems(fn, consts, s, n, false, itemBlocks(n))
}

// launchPrepare enqueues the prepare kernel, if the engine has one, on n
// items of slot s: one thread per item, with its own constants.
func (e *Engine) launchPrepare(s *slot, n int, inPlace bool) error {
	if e.cfg.Prepare == nil || !s.itemKernels {
		return nil
	}
	return e.launchItems(e.prepare, e.prepConsts, s, n, inPlace, itemBlocks(n))
}

// buffers returns slot s's device buffers, or where the device reaches its
// pinned buffers when inPlace is set.
func (s *slot) buffers(inPlace bool) (in, sc, out DevicePtr) {
	if inPlace {
		return s.mapIn, s.mapSc, s.mapOut
	}
	return s.devIn, s.devSc, s.devOut
}

// launchLadder enqueues the ladder kernel on n items of slot s.
func (e *Engine) launchLadder(s *slot, n int, inPlace bool) error {
	in, sc, out := s.buffers(inPlace)
	fn, items, threads := e.kernelFor(n)
	return e.launchBlocks(fn, e.consts, [3]DevicePtr{in, sc, out}, s, n, items, threads)
}

// launchBlocks enqueues fn, a ladder or comb kernel with its constants
// consts, on n items of the buffers bufs (input, scalars, output) on slot
// s's stream, in blocks of items items and threads threads.
func (e *Engine) launchBlocks(fn Function, consts DevicePtr, bufs [3]DevicePtr, s *slot, n, items, threads int) error {
	count, stride := uint32(n), uint32(n)
	args := kernelArgs(&consts, &bufs[0], &bufs[1], &bufs[2], &count, &stride)
	grid := [3]uint32{uint32((n + items - 1) / items), 1, 1}
	block := [3]uint32{uint32(threads), 1, 1}
	return e.d.LaunchKernel(fn, grid, block, 0, s.stream, args)
}

// launchFinish enqueues the finish kernel, if the engine has one, on n
// items of slot s: one thread per item, with its own constants.
func (e *Engine) launchFinish(s *slot, n int, inPlace bool) error {
	if !s.itemKernels {
		return nil
	}
	return e.launchItems(e.finish, e.finConsts, s, n, inPlace, kernels.FinishGrid(n, s.finishItems))
}

// finishItems returns the items per thread of the finish launch of a
// chunk of n items: Config.Finish's, or kernels.FinishItemsPerThread,
// where the ladders of a pipeline's worth of later chunks overlap the
// finish, whose inversion more items then share; at most
// kernels.FinishItemsLastChunk for one of a batch's last slotCount chunks
// (last), which run side by side with nothing after them: the batch's
// latency waits for their threads, whose chains of products are shorter
// with fewer items. A chunk smaller than a full one (fullChunk) takes
// fewer still, so that its finish has as many threads as a full chunk's
// would: its chains then shorten with its ladder, which is all a small
// chunk of a pipeline's ramp has beside them. 0 without a finish kernel.
func (e *Engine) finishItems(n int, last bool) int {
	return finishItems(e.cfg.Finish, n, e.fullChunk(), last)
}

// fullChunk is the largest chunk Run cuts a batch into: Config.Chunk, in
// whole waves where it spans several (chunkFor).
func (e *Engine) fullChunk() int {
	c := e.cfg.Chunk
	if e.wave > 0 && c > e.wave {
		c -= c % e.wave
	}
	return c
}

// finishItems is Engine.finishItems for the finish kernel fk and full
// chunks of full items.
func finishItems(fk *FinishKernel, n, full int, last bool) int {
	if fk == nil {
		return 0
	}
	k := cmp.Or(fk.ItemsPerThread, kernels.FinishItemsPerThread)
	if last {
		k = min(k, kernels.FinishItemsLastChunk)
	}
	threads := max(1, full/k) // a full chunk's
	return max(1, min(k, (n+threads-1)/threads))
}

// launchItems enqueues fn, a kernel around the ladder with its constants
// consts, on n items of slot s, in blocks of kernels.FinishThreads.
func (e *Engine) launchItems(fn Function, consts DevicePtr, s *slot, n int, inPlace bool, blocks int) error {
	in, sc, out := s.buffers(inPlace)
	return e.launchOn(fn, consts, [3]DevicePtr{in, sc, out}, s, n, blocks)
}

// itemBlocks is the blocks of kernels.FinishThreads that give n items a
// thread each.
func itemBlocks(n int) int { return (n + kernels.FinishThreads - 1) / kernels.FinishThreads }

// launchOn enqueues fn, a kernel around a ladder with its constants
// consts, on n items of the buffers bufs (input, scalars, output) on slot
// s's stream, in blocks of kernels.FinishThreads.
func (e *Engine) launchOn(fn Function, consts DevicePtr, bufs [3]DevicePtr, s *slot, n int, blocks int) error {
	count, stride := uint32(n), uint32(n)
	args := kernelArgs(&consts, &bufs[0], &bufs[1], &bufs[2], &count, &stride)
	grid := [3]uint32{uint32(blocks), 1, 1}
	block := [3]uint32{uint32(kernels.FinishThreads), 1, 1}
	return e.d.LaunchKernelFirst(fn, grid, block, 0, s.stream, args)
}

// launchPre enqueues Config.Pre's kernels on n items of slot s, if its
// chunk asks for them, then the copy of their results into the engine's
// wire input (PreChain).
func (e *Engine) launchPre(s *slot, n int) error {
	if s.wire == nil || !s.wire.Pre {
		return nil
	}
	p, pc := e.pre, e.cfg.Pre
	bufs := [3]DevicePtr{s.preIn, s.preSc, s.preOut}
	perItem := itemBlocks(n)
	if err := e.launchOn(p.unpack, p.prepConsts, bufs, s, n, perItem); err != nil {
		return err
	}
	if err := e.launchOn(p.prepare, p.prepConsts, bufs, s, n, perItem); err != nil {
		return err
	}
	items, threads := blockShape(&pc.Config, n, e.sms)
	if err := e.launchBlocks(p.fn, p.consts, bufs, s, n, items, threads); err != nil {
		return err
	}
	if err := e.launchOn(p.finish, p.finConsts, bufs, s, n, kernels.FinishGrid(n, s.preFinishItems)); err != nil {
		return err
	}
	if err := e.launchOn(p.pack, p.finConsts, bufs, s, n, perItem); err != nil {
		return err
	}
	dst := s.devOut + DevicePtr(pc.At*n)
	return e.d.Memcpy2DDtoDAsync(dst, uint64(pc.Width), s.preIn+DevicePtr(pc.Skip), uint64(pc.ResultBytes), uint64(pc.Width), uint64(n), s.stream)
}

// kernelArgs returns the launch's argument pointers in the order of
// kernels.Args, the one declaration of the entry points' arguments.
func kernelArgs(consts, in, scalars, out *DevicePtr, count, stride *uint32) []unsafe.Pointer {
	args := make([]unsafe.Pointer, len(kernels.Args))
	for i, a := range kernels.Args {
		switch a.Name {
		case "consts":
			args[i] = unsafe.Pointer(consts)
		case "in":
			args[i] = unsafe.Pointer(in)
		case "scalars":
			args[i] = unsafe.Pointer(scalars)
		case "out":
			args[i] = unsafe.Pointer(out)
		case "count":
			args[i] = unsafe.Pointer(count)
		case "stride":
			args[i] = unsafe.Pointer(stride)
		default:
			panic("gpu: the kernel's argument " + a.Name + " has no value here")
		}
	}
	return args
}

// KernelTimes measures the kernel alone on count items (count at most
// Config.Chunk), filled once and copied to the device. Each of reps runs
// launches launches of them as a batch's chunks run, in turn on the slots'
// streams, and yields its milliseconds from the first launch's start to
// the last one's end (events). One launch is timed behind an untimed one
// on the same stream, so that its start waits on no host call.
func (e *Engine) KernelTimes(count int, fill func(in, scalars []uint32), launches, reps int) ([]float64, error) {
	if count <= 0 || count > e.cfg.Chunk || launches <= 0 || reps <= 0 {
		return nil, fmt.Errorf("gpu: kernel timing needs 0 < count <= %d, launches > 0 and reps > 0", e.cfg.Chunk)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil, ErrClosed
	}
	var times []float64
	var err error
	e.call(func() { times, err = e.kernelTimes(count, fill, launches, reps) })
	return times, err
}

// copyIn enqueues the copy of n items' input rows to slot s's device
// buffer, if the kernel has any.
func (e *Engine) copyIn(s *slot, n int) error {
	if e.cfg.InRows == 0 {
		return nil
	}
	return e.d.MemcpyHtoDAsync(s.devIn, s.hostIn, uint64(4*e.cfg.InRows*n), s.stream)
}

func (e *Engine) kernelTimes(count int, fill func(in, scalars []uint32), launches, reps int) ([]float64, error) {
	used := e.slots[:min(launches, slotCount)]
	if err := e.uploadTimed(used, count, fill); err != nil {
		return nil, err
	}
	times := make([]float64, 0, reps)
	for range reps {
		ms, err := e.timeLaunches(used, count, launches)
		if err != nil {
			return nil, err
		}
		times = append(times, ms)
	}
	return times, nil
}

// uploadTimed fills count items into the first slot's pinned buffers and
// copies them to the device buffers of every slot in used.
func (e *Engine) uploadTimed(used []slot, count int, fill func(in, scalars []uint32)) error {
	first := &used[0]
	fill(words(first.hostIn, e.cfg.InRows*count), words(first.hostSc, e.cfg.ScalarRows*count))
	for i := range used {
		s := &used[i]
		if e.cfg.InRows > 0 {
			if err := e.d.MemcpyHtoDAsync(s.devIn, first.hostIn, uint64(4*e.cfg.InRows*count), s.stream); err != nil {
				return err
			}
		}
		if err := e.d.MemcpyHtoDAsync(s.devSc, first.hostSc, uint64(4*e.cfg.ScalarRows*count), s.stream); err != nil {
			return err
		}
		if err := e.d.StreamSynchronize(s.stream); err != nil {
			return err
		}
	}
	return nil
}

// timeLaunches enqueues launches launches of count resident items, in
// turn on the streams of used, and returns the milliseconds from the
// first one's start to the last one's end. A single launch goes behind an
// untimed one.
func (e *Engine) timeLaunches(used []slot, count, launches int) (float64, error) {
	d, first := e.d, &used[0]
	if launches == 1 {
		if err := e.launchLadder(first, count, false); err != nil {
			return 0, err
		}
	}
	if err := d.EventRecord(first.evStart, first.stream); err != nil {
		return 0, err
	}
	for i := range launches {
		if err := e.launchLadder(&used[i%len(used)], count, false); err != nil {
			return 0, err
		}
	}
	var span float64
	for i := range used {
		s := &used[i]
		if err := d.EventRecord(s.evKernel, s.stream); err != nil {
			return 0, err
		}
		if err := d.EventSynchronize(s.evKernel); err != nil {
			return 0, err
		}
		ms, err := d.EventElapsedMs(first.evStart, s.evKernel)
		if err != nil {
			return 0, err
		}
		span = max(span, float64(ms))
	}
	return span, nil
}
