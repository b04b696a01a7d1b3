// Package diag tunes and inspects an ecmul.Engine: the RNS settings of the
// rns-cpu and gpu backends (schedule, base extension, channel width), the
// gpu backend's kernel settings (mapping, items per block, chunk), the
// kernel configuration the library chose, where the time of the last batch
// went, device by device, and the kernel's time alone.
//
// Benchmarks, the ecmul command's bench and troubleshooting import it;
// computing needs none of it, and a program that only multiplies imports
// the root package alone.
package diag

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/engine"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// Tuning configures the rns-cpu and gpu backends; zero values pick the
// library's defaults.
type Tuning struct {
	Schedule  Schedule  // ladder of the rns-cpu and gpu backends; the zero value is CoZ
	Extension Extension // base extension of the rns-cpu and gpu backends; the zero value is Shenoy
	// ChannelBits is the width of the RNS channels of the rns-cpu and gpu
	// backends: 16 (moduli 2^16 − c, the paper's) or 30 (moduli 2^30 − c,
	// Shenoy's extension only, not on the tile mapping). 0 picks 30, the
	// faster on every curve, or 16 where Kawamura's extension or the tile
	// mapping is asked for.
	ChannelBits int
	// ItemsPerBlock is the items per thread block: 0 picks four warps'
	// worth in the warp, mma and pair mappings, the most that fit the
	// block's threads in the block and spread mappings; the tile mapping
	// takes 16, no other, the mma mapping a multiple of 8 and the pair
	// mapping of 16 (whole warps).
	ItemsPerBlock int
	Mapping       Mapping // how threads take items; MappingDefault lets the library choose
	// Chunk is the most items per launch (0 means 1<<17, and one step of
	// ECDSA signing's pipeline, 1<<18, for signing): a batch runs in
	// chunks of whole waves of the GPU, at least three when it spans
	// several waves, and a batch of at most a wave in three chunks side by
	// side (one when it is tiny), while the host drains one and fills the
	// next.
	Chunk int
	// NoSpin runs small batches' host work on fresh goroutines instead of
	// the gpu backend's spinning team (ecmul.Options.Workers): slower small
	// batches on an idle host, but no processors held between batches,
	// for a host whose cores other busy work shares (where a member that
	// the OS takes off its core midway stalls the batch).
	NoSpin bool
	// HostFinish finishes the items on the host (the CRT of the ladder's
	// outputs, the batched inversion, the affine point and its bytes), as
	// the paper's x-only ladder always does, instead of in the GPU's finish
	// kernel, which the co-Z ladder and the comb run by default: for
	// comparing the two.
	HostFinish bool
	// FinishItemsPerThread is how many items each thread of the GPU's
	// finish kernel takes, all of them sharing one inversion, in a chunk
	// that three or more chunks of its batch follow: 1 to
	// MaxFinishItemsPerThread, 0 for the library's (64). More share the
	// inversion's 260 or so field products among more items, on fewer
	// threads, whose longer chains later chunks overlap; a batch's last
	// three chunks take at most 16 a thread, for the batch's latency.
	FinishItemsPerThread int
}

// MaxFinishItemsPerThread is the most items one thread of the finish
// kernel takes (Tuning.FinishItemsPerThread).
const MaxFinishItemsPerThread = kernels.FinishItemsMax

// DefaultChunk is the most items per launch of a Tuning whose Chunk is 0,
// but for ECDSA signing (one step of its pipeline).
const DefaultChunk = engine.DefaultChunk

// Mapping is how the gpu backend's threads take items. Its zero value,
// MappingDefault, lets the library choose.
type Mapping uint8

const (
	// MappingDefault is the faster for the curve and the chunk: pair where
	// the kernel has it (co-Z, Shenoy, 30-bit channels), else mma (the
	// combs on 30-bit channels), warp for P-224 on 16-bit channels and for
	// the comb, block otherwise, and spread for chunks of at most
	// SmallChunkItemsPerSM items per multiprocessor where the kernel has it.
	MappingDefault Mapping = iota
	MappingWarp            // whole items inside a warp
	MappingBlock           // the paper's block-wide mapping
	MappingTile            // blocks of 16 items whose base extensions run on the tensor cores (Shenoy, 16-bit channels)
	MappingSpread          // a warp per item, its lane groups computing different products at once: the lowest latency for small batches (co-Z, Shenoy)
	MappingMma             // 8 items a warp, 4 lanes each, whose base extensions run as mma.sync products on the tensor cores, in registers (co-Z and the combs, Shenoy, 30-bit channels)
	MappingPair            // the mma mapping with 16 items a warp, two to each group of 4 lanes (co-Z and the combs, Shenoy, 30-bit channels)
	numMappings
)

var mappingNames = [numMappings]string{"default", "warp", "block", "tile", "spread", "mma", "pair"}

// String returns the mapping's name: default, warp, block, tile, spread,
// mma or pair.
func (m Mapping) String() string {
	if m < numMappings {
		return mappingNames[m]
	}
	return fmt.Sprintf("Mapping(%d)", int(m))
}

// ParseMapping returns the mapping of that name, in any case: default,
// warp, block, tile, spread, mma or pair.
func ParseMapping(s string) (Mapping, error) {
	for i, n := range mappingNames {
		if strings.EqualFold(s, n) {
			return Mapping(i), nil
		}
	}
	return 0, fmt.Errorf("ecmul/diag: unknown mapping %q (want %s, in any case)", s, strings.Join(mappingNames[:], ", "))
}

// name is the kernel's name of m, "" for MappingDefault.
func (m Mapping) name() string {
	if m == MappingDefault {
		return ""
	}
	return m.String()
}

// SmallChunkItemsPerSM is the largest chunk, per multiprocessor of the
// GPU, that MappingDefault runs on the spread mapping (1,056 items on an
// H200 of 132 multiprocessors).
const SmallChunkItemsPerSM = 8

// New returns an Engine for curve c, as ecmul.New does, with the rns-cpu
// and gpu backends configured by t (which the cpu backend ignores, though
// its values are checked).
func New(c ecmul.Curve, opts ecmul.Options, t Tuning) (*ecmul.Engine, error) {
	if t.Mapping >= numMappings {
		return nil, fmt.Errorf("ecmul/diag: Tuning.Mapping is %v: want one of %s", t.Mapping, strings.Join(mappingNames[:], ", "))
	}
	if t.FinishItemsPerThread < 0 || t.FinishItemsPerThread > MaxFinishItemsPerThread {
		return nil, fmt.Errorf("ecmul/diag: Tuning.FinishItemsPerThread is %d: want 1 to %d, or 0 for the library's",
			t.FinishItemsPerThread, MaxFinishItemsPerThread)
	}
	cc, err := curves.ByName(c.String())
	if err != nil {
		return nil, fmt.Errorf("ecmul: %w: the zero Curve is not one", curves.ErrUnknownCurve)
	}
	o := engine.Options{
		Backend: engine.Backend(opts.Backend), Devices: opts.Devices, Workers: opts.Workers, Logger: opts.Logger,
		Schedule: engine.Schedule(t.Schedule), Extension: engine.Extension(t.Extension), ChannelBits: t.ChannelBits,
	}
	e, err := engine.New(cc, o, engine.GPUConfig{
		ItemsPerBlock: t.ItemsPerBlock, Mapping: t.Mapping.name(), Chunk: t.Chunk, NoSpin: t.NoSpin, HostFinish: t.HostFinish,
		FinishItems: t.FinishItemsPerThread,
	})
	if err != nil {
		return nil, err
	}
	return engine.Wrap[*ecmul.Engine](e), nil
}

// impl is the engine behind e, nil for an Engine not made by New.
func impl(e *ecmul.Engine) *engine.Engine { return engine.Unwrap(e) }

// ChannelBits returns the width of the RNS channels e computes in: 16 or
// 30 on the rns-cpu and gpu backends, 0 on the cpu backend and for an
// Engine not made by New.
func ChannelBits(e *ecmul.Engine) int { return impl(e).ChannelBits() }

// ErrNotGPU is returned by KernelTimes on engines of other backends.
var ErrNotGPU = engine.ErrNotGPU

// ErrNoComb is returned by BaseKernelTimes where the engine's kernel has no
// comb for its configuration, so that its k·G batches run on the ladder.
var ErrNoComb = engine.ErrNoComb

// Kernel is the kernel configuration an engine of the gpu backend chose.
type Kernel struct {
	Entry         string  // the entry point of the kernel image
	Mapping       Mapping // the mapping chosen (never MappingDefault)
	ItemsPerBlock int     // items per thread block
	ChannelBits   int     // width of the RNS channels: 16 or 30
	// SmallEntry is the entry point that chunks of at most SmallItemsPerSM
	// items per multiprocessor run on (the spread mapping), "" when none.
	SmallEntry      string
	SmallItemsPerSM int
	// FinishEntry is the kernel that finishes items on the GPU (CRT,
	// inversion, affine bytes), "" when the host finishes them.
	FinishEntry string
}

// KernelOf returns the kernel configuration of e's gpu backend; ok is
// false for the other backends and for an Engine not made by New.
func KernelOf(e *ecmul.Engine) (k Kernel, ok bool) { return kernelFrom(impl(e).KernelOf()) }

// kernelFrom is the configuration t in this package's terms.
func kernelFrom(t engine.Kernel, ok bool) (Kernel, bool) {
	if !ok {
		return Kernel{}, false
	}
	m, _ := ParseMapping(t.Mapping)
	return Kernel{Entry: t.Entry, Mapping: m, ItemsPerBlock: t.ItemsPerBlock, ChannelBits: t.ChannelBits,
		SmallEntry: t.SmallEntry, SmallItemsPerSM: t.SmallItemsPerSM, FinishEntry: t.FinishEntry}, true
}

// BaseKernelOf returns the kernel configuration e's k·G batches run on:
// the fixed-base comb's (opened here if no k·G batch has opened it yet), or
// the ladder's where the kernel has no comb for e's configuration; ok is
// false for the other backends and for an Engine not made by New.
func BaseKernelOf(e *ecmul.Engine) (k Kernel, ok bool) { return kernelFrom(impl(e).BaseKernelOf()) }

// Stats says where the time of a batch went, in milliseconds summed over
// its chunks, and each device's share.
type Stats struct {
	Chunks   int
	KernelMs float64 // kernel times measured with events (a small chunk computed in place is not timed)
	// PrepareMs and FinishMs are the prepare and finish kernels' shares of
	// KernelMs (0 when the host prepared and finished the items).
	PrepareMs, FinishMs float64
	CopyMs              float64 // host↔device copy times measured with events
	FillMs              float64 // host time spent packing inputs
	DrainMs             float64 // host time spent turning outputs into results, beside the later chunks' work
	WaitMs              float64 // host time spent waiting for the GPU to finish a chunk
	WallMs              float64 // the whole batch, drains included
	// ItemKernels says the GPU prepared and finished the items (the
	// prepare and finish kernels around the ladder), as it does on the
	// default's batches of more than 16,384 items; else the host did.
	ItemKernels bool
	// Timeline is when each chunk with copies reached each stage on its
	// device, in milliseconds from the batch's start there.
	Timeline []ChunkTimes
	Devices  []DeviceStats
}

// ChunkTimes is one chunk's items [Lo, Hi) and the device times, in
// milliseconds from the batch's start on its device, at which its stages
// ended: the host's fill (Start), the copy in, the prepare kernel, the
// ladder, the finish kernel, the copy out (Prepared = CopiedIn and
// Laddered = Ran when the chunk ran the ladder alone).
type ChunkTimes struct {
	Lo       int     `json:"lo"`
	Hi       int     `json:"hi"`
	Start    float64 `json:"start_ms"`
	CopiedIn float64 `json:"copied_in_ms"`
	Prepared float64 `json:"prepared_ms"`
	Laddered float64 `json:"laddered_ms"`
	Ran      float64 `json:"ran_ms"`
	Done     float64 `json:"done_ms"`
}

// DeviceStats is one device's share of a batch: its chunks and times
// (WallMs is the batch's).
type DeviceStats struct {
	Device int   // CUDA ordinal
	Stats        // its chunks and times
	Fault  error // the fault that took the device out of the batch, nil when none
}

// stats is st in this package's terms.
func stats(st gpu.Stats) Stats {
	s := Stats{Chunks: st.Chunks, KernelMs: st.KernelMs, PrepareMs: st.PrepareMs, FinishMs: st.FinishMs, CopyMs: st.CopyMs, FillMs: st.FillMs, DrainMs: st.DrainMs, WaitMs: st.WaitMs, WallMs: st.WallMs,
		ItemKernels: st.ItemKernels}
	for _, t := range st.Timeline {
		s.Timeline = append(s.Timeline, ChunkTimes(t))
	}
	for _, d := range st.Devices {
		s.Devices = append(s.Devices, DeviceStats{Device: d.Device, Stats: stats(d.Stats), Fault: d.Fault})
	}
	return s
}

// LastBatch says where the time of e's last gpu batch (of k·P or of k·G)
// went, device by device, with the fault of any device that failed during it; ok is false
// for the other backends and for an Engine not made by New.
func LastBatch(e *ecmul.Engine) (st Stats, ok bool) {
	g, ok := impl(e).LastBatch()
	if !ok {
		return Stats{}, false
	}
	return stats(g), true
}

// ChunkItems returns the items of the first launch of a batch of count
// items on e's gpu backend (a batch of several waves of the GPU runs in
// chunks of whole waves, GPU.Chunk at most; a smaller one in three
// launches side by side, or one when it is tiny), so that a kernel-only
// timing can launch the same; ok is false for the other backends.
func ChunkItems(e *ecmul.Engine, count int) (items int, ok bool) {
	return impl(e).ChunkItems(count)
}

// KernelTimes times the kernel alone (no conversions, no transfers) on
// valid points and scalars, at most one chunk of them, resident on each
// GPU e uses, all GPUs at once. Each of reps times launches launches of
// them queued as a batch's chunks are, in turn on the GPU's streams, from
// the first one's start to the last one's end; a single launch is timed
// behind an untimed one, so that no host call delays its start. It
// returns those milliseconds, one list per GPU (in the order of e's
// devices; nil for a GPU left out after a fault), or ErrNotGPU on the
// other backends.
func KernelTimes(e *ecmul.Engine, points []*ecmul.Point, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	if impl(e) == nil {
		return nil, ecmul.ErrClosed
	}
	pts := make([]*engine.Point, len(points))
	for i, p := range points {
		pts[i] = (*engine.Point)(p)
	}
	return impl(e).KernelTimes(pts, scalars, launches, reps)
}

// BaseKernelTimes is KernelTimes for k·G: it times the comb kernel that
// e's k·G batches run on alone, on scalars (reduced mod n), at most one
// chunk of them; with varTime, the variable-time comb of
// ScalarBaseMultVarTimeBytes (the fixed-time comb where the kernel has
// none). It returns ErrNoComb where e's k·G batches run on the ladder, and
// ErrNotGPU on the other backends.
func BaseKernelTimes(e *ecmul.Engine, varTime bool, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	if impl(e) == nil {
		return nil, ecmul.ErrClosed
	}
	return impl(e).BaseKernelTimes(varTime, scalars, launches, reps)
}

// Schedule is the ladder the rns-cpu and gpu backends run. Its zero value
// is CoZ.
type Schedule uint8

const (
	CoZ   Schedule = iota // Hamburg's co-Z ladder: 11 RNS reductions per bit (the default)
	Paper                 // the x-only ladder of Antão, Bajard and Sousa: 18 per bit
)

// String returns the schedule's name: coz or paper.
func (s Schedule) String() string { return engine.Schedule(s).String() }

// ParseSchedule returns the schedule of that name, in any case: coz, paper,
// or default (CoZ).
func ParseSchedule(s string) (Schedule, error) {
	v, err := engine.ParseSchedule(s)
	return Schedule(v), err
}

// Extension is the base extension of the RNS Montgomery multiplication.
// Its zero value is Shenoy.
type Extension uint8

const (
	Shenoy   Extension = iota // Shenoy's, exact by a redundant modulus (the default)
	Kawamura                  // Kawamura's, with a floating-point correction (16-bit channels only)
)

// String returns the extension's name: shenoy or kawamura.
func (x Extension) String() string { return engine.Extension(x).String() }

// ParseExtension returns the base extension of that name, in any case:
// shenoy or kawamura.
func ParseExtension(s string) (Extension, error) {
	v, err := engine.ParseExtension(s)
	return Extension(v), err
}
