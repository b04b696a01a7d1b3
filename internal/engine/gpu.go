package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/big"
	"math/bits"
	"runtime"
	"strings"
	"sync"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
	"github.com/rnsec/ecmul/internal/reuse"
)

// The mappings of kernels.Mappings the gpu backend names in its choices.
const (
	mappingWarp   = "warp"
	mappingBlock  = "block"
	mappingTile   = "tile"
	mappingSpread = "spread"
	mappingMma    = "mma"
	mappingPair   = "pair"
)

// smallChunkItemsPerSM is the largest chunk, per multiprocessor of the GPU,
// that the library's choice of mapping runs on the spread mapping (1,056
// items on an H200). On an H200 with 30-bit channels the first spread
// kernel won up to about 8 items per SM (1,024 P-224 items: 0.47 against
// 0.59 ms) and lost from about 30 (4,096 items: 1.15 against 0.89 ms,
// bench/h200/2026-11-23-spread/); the kernel has become faster since
// (docs/performance.md), and the crossing has not been measured again.
const smallChunkItemsPerSM = 8

// gpuRunner computes with the CUDA kernel. Host work (preparing and packing
// the inputs, CRT, the batched inversion and y-recovery) runs on all cores
// while the GPU computes.
type gpuRunner struct {
	su      *ladder.Setup
	eng     *gpu.Pool
	opts    Options   // as New was given them, for the comb's runner
	gpuOpts GPUConfig // as given (Mapping "" when the library chose it)
	workers int
	noSpin  bool // diag.Tuning.NoSpin
	log     *slog.Logger
	items   sync.Pool // *[]ladder.Item: a chunk's items on the bytes path
	stats   gpu.Stats
	statsMu sync.Mutex
	kernel  Kernel     // the configuration chosen
	cfg     gpu.Config // as its pool opened it

	teamOnce sync.Once
	team     *par.Team // small batches' host work (latencyTeam); nil until the first

	// the combs' runners for k·G batches, ladder.Comb's and
	// ladder.CombVarTime's, each opened by the first batch that takes it
	// (combRunner); nil where the kernel has no such comb for this
	// configuration
	combs    [2]combSlot
	verifier combSlot // ECDSA verification's runner (verifyRunner)
	signer   combSlot // ECDSA signing's runner (signRunner)
	closing  bool     // set under combMu by close: no comb, verify or sign runner opens after it
	combMu   sync.Mutex
}

// combSlot is one comb's runner, opened once.
type combSlot struct {
	once sync.Once
	r    *gpuRunner
}

// combIndex returns the place of comb kind in a runner's combs: 0 for
// ladder.Comb, 1 for ladder.CombVarTime.
func combIndex(kind ladder.Kind) int {
	if kind == ladder.CombVarTime {
		return 1
	}
	return 0
}

// gpuSource supplies the CUDA driver and the kernel image of the gpu
// backend: the real driver and the embedded fatbin (tests substitute a fake).
var gpuSource = func() (gpu.Driver, []byte, error) {
	d, err := gpu.DefaultDriver()
	if err != nil {
		return nil, nil, err
	}
	image, err := gpu.KernelImage()
	return d, image, err
}

func newGPURunner(su *ladder.Setup, opts Options, g GPUConfig) (runner, error) {
	d, image, err := gpuSource()
	if err != nil {
		return nil, gpuError{err}
	}
	n := su.Params.N
	small := g.Mapping == ""
	if small {
		// measured on an H200: whole items per warp win for n = 15 (16
		// lanes, two items a warp); for n = 17 the warp mapping idles 14 of
		// 32 lanes and the block mapping is faster, and so it is on 30-bit
		// channels (9 or 10 lanes: 3 items a warp idle 5 or 2 lanes). The
		// comb is the other way round on 30-bit channels (an H100, P-256:
		// 20.1 M op/s in blocks of 4 warps against 17.9 M in the block
		// mapping, bench/h100/2026-11-25-comb/).
		g.Mapping = mappingWarp
		if (n+1 > 16 || su.Params.Wide()) && !su.Schedule.Kind.IsComb() {
			g.Mapping = mappingBlock
		}
		// the mma mapping beats both where it exists (an H100, 2^20 items:
		// P-256 7.6 M op/s against 6.2 M on the block mapping, P-224 11.1 M
		// against 8.4 M; internal/kernels/README.md), the comb's too (2^22
		// items end to end, 4-bit windows: P-256 20.4 M against 19.8 M on the
		// warp mapping, P-224 30.1 M against 23.2 M,
		// bench/h100/2026-11-27-comb-mma/)
		if kernels.Supports(su.Schedule.Kind.String(), opts.Extension.String(), mappingMma, kernels.ChannelTag(su.Params.Bits)) {
			g.Mapping = mappingMma
		}
		// and the pair mapping beats the mma mapping on the ladder (an H200,
		// 2^20 items, one call: P-256 9.22 M op/s against 7.34 M, P-224
		// 14.28 M against 12.01 M; bench/h200/2026-11-28-pair/, call F1) and
		// on the combs (P-256 38.6 M against 31.4 M, P-224 57.0 M against
		// 51.8 M, the variable-time comb 85.7 M against 67.7 M;
		// bench/h200/2026-11-28-twist/, call G2)
		if kernels.Supports(su.Schedule.Kind.String(), opts.Extension.String(), mappingPair, kernels.ChannelTag(su.Params.Bits)) {
			g.Mapping = mappingPair
		}
	}
	k, err := kernels.Find(su.Curve.Name(), su.Schedule.Kind.String(), opts.Extension.String(), g.Mapping, kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return nil, gpuError{err}
	}
	if fixed := k.FixedItemsPerBlock(); fixed > 0 {
		if g.ItemsPerBlock != 0 && g.ItemsPerBlock != fixed {
			return nil, fmt.Errorf("ecmul: gpu backend: the %s mapping runs %d items per block, not %d", g.Mapping, fixed, g.ItemsPerBlock)
		}
		g.ItemsPerBlock = fixed
	}
	if g.ItemsPerBlock <= 0 {
		// four warps of whole items (8 for P-224 on 16-bit channels, 32 in
		// the mma mapping, 64 in the pair mapping), or the fullest block of
		// the block and spread mappings
		g.ItemsPerBlock = 4 * k.ItemsPerWarp(n)
		if g.ItemsPerBlock == 0 {
			g.ItemsPerBlock = k.MaxItemsPerBlock(n)
		}
	}
	if most := k.MaxItemsPerBlock(n); g.ItemsPerBlock > most {
		return nil, fmt.Errorf("ecmul: gpu backend: %d items per block: the %s mapping holds at most %d", g.ItemsPerBlock, g.Mapping, most)
	}
	if whole := k.ItemsPerBlock(n, k.Threads(n, g.ItemsPerBlock)); whole != g.ItemsPerBlock {
		// the mma and pair mappings: blocks of whole warps, 8 or 16 items each
		return nil, fmt.Errorf("ecmul: gpu backend: %d items per block: the %s mapping runs whole warps of %d items, so a multiple of %d",
			g.ItemsPerBlock, g.Mapping, k.ItemsPerWarp(n), k.ItemsPerWarp(n))
	}
	cfg := gpu.Config{
		Image: image, Entry: k.Name(), Constants: su.KernelConstants(),
		InRows: su.InputRows(), ScalarRows: su.ScalarWords(), OutRows: su.OutputRows(),
		ItemsPerBlock: g.ItemsPerBlock, BlockThreads: k.Threads(n, g.ItemsPerBlock), Chunk: g.chunk(),
		ThreadsFor: spreadThreads(k, n),
	}
	if small {
		cfg.Small = smallKernel(k, n)
	}
	switch {
	case g.verify:
		err = gpuVerify(&cfg, su, g.pre)
	case g.sign:
		err = gpuSign(&cfg, su, g)
	default:
		err = gpuFinish(&cfg, su, g)
	}
	if err != nil {
		return nil, gpuError{err}
	}
	eng, err := gpu.OpenPool(d, cfg, opts.Devices)
	if err != nil {
		return nil, gpuError{err}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	kc := Kernel{Entry: k.Name(), Mapping: g.Mapping, ItemsPerBlock: g.ItemsPerBlock, ChannelBits: su.Params.Bits}
	if cfg.Small != nil {
		kc.SmallEntry, kc.SmallItemsPerSM = cfg.Small.Entry, cfg.Small.ItemsPerSM
	}
	if cfg.Finish != nil {
		kc.FinishEntry = cfg.Finish.Entry
	}
	if small {
		g.Mapping = "" // the comb's runner makes its own choice
	}
	return &gpuRunner{su: su, eng: eng, opts: opts, gpuOpts: g, workers: opts.Workers, noSpin: g.NoSpin, log: log, kernel: kc, cfg: cfg}, nil
}

// gpuFinish gives cfg the prepare and finish kernels, which turn the
// points' words into the ladder's inputs and the ladder's outputs into the
// results' bytes on the GPU, where the setup's schedule has them
// (ladder.Setup.FinishOnGPU) and g does not ask for the host's; the
// finish's rows (the base and the fixed result) then follow the ladder's
// inputs.
func gpuFinish(cfg *gpu.Config, su *ladder.Setup, g GPUConfig) error {
	if g.HostFinish || !su.FinishOnGPU() {
		return nil
	}
	entry, err := kernels.FinishName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	prepare, err := kernels.PrepareName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	unpack, err := kernels.UnpackName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	pack, err := kernels.PackName(su.Curve.Name(), kernels.ChannelTag(su.Params.Bits))
	if err != nil {
		return err
	}
	cfg.InRows = su.GPUInputRows()
	cfg.Prepare = &gpu.PrepareKernel{Entry: prepare, Constants: su.PrepareConstants(), Unpack: unpack}
	cfg.Finish = &gpu.FinishKernel{Entry: entry, Constants: su.FinishConstants(), ResultRows: su.ResultRows(), Pack: pack,
		ItemsPerThread: g.FinishItems}
	return nil
}

// combRunner returns the runner of k·G batches on the comb kernel of kind
// (ladder.Comb or ladder.CombVarTime), opened on the first call with the
// ladder's mapping, items per block, chunk and devices; for CombVarTime
// where the kernel has none, Comb's, with the same results. It returns nil
// when the kernel has no comb for them (another mapping or extension), or
// it cannot be opened: k·G then runs on the ladder, with the same results.
func (r *gpuRunner) combRunner(kind ladder.Kind) *gpuRunner {
	if r.su.Schedule.Kind.IsComb() {
		return nil
	}
	slot := &r.combs[combIndex(kind)]
	slot.once.Do(func() {
		ext, channels := r.opts.Extension.String(), kernels.ChannelTag(r.su.Params.Bits)
		mapping := r.gpuOpts.Mapping
		supported := kernels.Supports(kind.String(), ext, mapping, channels)
		if mapping == "" {
			// newGPURunner picks pair or mma where they exist, else warp
			supported = kernels.Supports(kind.String(), ext, mappingMma, channels) || kernels.Supports(kind.String(), ext, mappingWarp, channels)
		}
		if !supported {
			return
		}
		su, err := ladder.NewSetupBits(r.su.Curve, kind, r.su.Params.Bits)
		if err != nil {
			r.log.Warn("ecmul: gpu backend: k·G runs on the ladder: no comb", "comb", kind, "err", err)
			return
		}
		g := r.gpuOpts
		g.ItemsPerBlock = 0 // the comb's own fullest block
		cr, err := newGPURunner(su, r.opts, g)
		if err != nil {
			r.log.Warn("ecmul: gpu backend: k·G runs on the ladder: the comb kernel did not open", "comb", kind, "err", err)
			return
		}
		r.combMu.Lock()
		defer r.combMu.Unlock()
		if r.closing {
			cr.close()
			return
		}
		slot.r = cr.(*gpuRunner)
	})
	if slot.r == nil && kind == ladder.CombVarTime {
		return r.combRunner(ladder.Comb)
	}
	return slot.r
}

// spreadThreads lets small chunks run in smaller blocks spread over every
// SM (gpu.Config.ThreadsFor), except on the tile mapping, whose blocks hold
// a fixed number of items.
func spreadThreads(k kernels.Kernel, n int) func(int) int {
	if k.FixedItemsPerBlock() > 0 {
		return nil
	}
	return func(items int) int { return k.Threads(n, items) }
}

// smallKernel returns the spread mapping's entry point of k's curve,
// schedule, extension and channels for chunks of at most
// smallChunkItemsPerSM items per SM, or nil where the kernel has none.
func smallKernel(k kernels.Kernel, n int) *gpu.SmallKernel {
	s, err := kernels.Find(k.Curve, k.Schedule, k.Ext, mappingSpread, k.Channels)
	if err != nil || k == s {
		return nil
	}
	return &gpu.SmallKernel{
		Entry: s.Name(), ItemsPerSM: smallChunkItemsPerSM, ItemsPerBlock: s.MaxItemsPerBlock(n),
		ThreadsFor: func(items int) int { return s.Threads(n, items) },
	}
}

// parallel runs do(lo, hi) over [0, n) on the caller and fresh goroutines,
// up to workers at once, in ranges of at least minPart units claimed as
// each comes free (par.Spread): a chunk's fill or drain then yields to the
// pipeline's launches between its ranges.
func parallel(n, workers, minPart int, do func(lo, hi int)) {
	par.Spread(n, workers, par.Grain(n, workers, minPart), do)
}

// splitFunc spreads per-item host work over the cores: do(lo, hi) over
// [0, n) in parts of at least minPart units (items, or blocks of them).
type splitFunc func(n, minPart int, do func(lo, hi int))

// minPartItems is the fewest items of a part of the host's per-chunk work
// (and the block of the co-Z finish): few enough that a small chunk (a
// third of 1,024 items) still spreads over 16 cores, many enough that a
// part's fixed costs (claiming it; on the paper's schedule its own batched
// inversion, about 6 µs) stay below its items' work (0.3 to 0.6 µs each).
const minPartItems = 16

// run is the *big.Int path on validated items: runChecked with nothing
// left to check.
func (r *gpuRunner) run(ctx context.Context, items []item, done func(int)) error {
	return r.runChecked(ctx, len(items), func(i int) item { return items[i] }, func(i int) *Result { return items[i].res }, nil, done)
}

// runChecked is the *big.Int path, a convenience over runBytes: each
// item's scalar (reduced mod n) and point go into fixed-width bytes as its
// chunk is filled, and its result comes out of them as the chunk drains, so
// the conversions overlap the GPU's work. Where checks is set, the item's
// coordinates and scalar are validated just before (an invalid item gets
// its error as its result, and G times 0 stands in for it on the GPU) and
// its point is then checked against the curve's equation with the bytes
// (on the GPU by the prepare kernel, or on the host), a point off the curve
// getting checks.full's error: validation, too, runs beside the GPU's work
// rather than before it. Without checks the points were validated whole,
// and preparing them skips the equation. On the wire kernels (batches
// above the latency batches) the bytes are the chunks' own buffers; a
// smaller batch stages them, 3L+2 per item beside the *big.Int values (a
// point's bytes hold its result once read). The results' coordinates share
// the batch's slab (resultSlab).
func (r *gpuRunner) runChecked(ctx context.Context, n int, items func(i int) item, results func(i int) *Result, checks *itemChecks, done func(int)) error {
	c := r.su.Curve
	L, order := c.ByteLen(), c.N()
	slab := newResultSlab(n, L)
	b := &bytesBatch{count: n, size: L, pointSize: 1 + 2*L, outPointBytes: 1 + 2*L, validPoints: checks == nil}
	g := c.EncodeSEC1(c.Generator(), false)
	fill := func(i int, scalar, point []byte) {
		it := items(i)
		if checks != nil {
			if err := checks.coordinates(i); err != nil {
				it.res.Err = err
				clear(scalar)
				copy(point, g)
				return
			}
		}
		k := it.k
		if k.Cmp(order) >= 0 {
			k = new(big.Int).Mod(k, order)
		}
		fillBytes(scalar, k)
		point[0] = 4
		fillBytes(point[1:1+L], it.x)
		fillBytes(point[1+L:], it.y)
	}
	keep := func(i int, s Status, result []byte) {
		res := results(i)
		if res.Err != nil {
			return // invalid: checked as it was loaded
		}
		switch s {
		case StatusPoint:
			slab.set(res, i, result[1:])
		case StatusInfinity:
			res.Infinity = true
		case StatusNotOnCurve:
			res.Err = s.Err()
			if checks != nil {
				if err := checks.full(i); err != nil {
					res.Err = err // the error validation gives it
				}
			}
		default:
			res.Err = s.Err()
		}
	}
	if r.takesWire(b) {
		// the items' bytes written into the chunks' pinned buffers and read
		// from them: no staging copy of the batch
		b.loadInto, b.storeFrom = fill, keep
		return r.runBytes(ctx, b, done)
	}
	staging := stagingBytes(n * (L + 1 + 2*L))
	defer stagingBuffers.Put(staging)
	b.scalars, b.points = (*staging)[:n*L], (*staging)[n*L:]
	b.out, b.status = b.points, make([]Status, n)
	b.load = func(i int) { fill(i, b.scalar(i), b.point(i)) }
	b.store = func(i int) { keep(i, b.status[i], b.result(i)) }
	return r.runBytes(ctx, b, done)
}

// fillBytes is big.Int.FillBytes for 0 <= x < 2^(8·len(b)), len(b) at most
// curves.MaxByteLen, a word at a time (FillBytes goes byte by byte).
func fillBytes(b []byte, x *big.Int) {
	const wordBytes = bits.UintSize / 8
	var buf [(curves.MaxByteLen + wordBytes - 1) / wordBytes * wordBytes]byte
	at := len(buf)
	for _, w := range x.Bits() {
		at -= wordBytes
		if wordBytes == 8 {
			binary.BigEndian.PutUint64(buf[at:], uint64(w))
		} else {
			binary.BigEndian.PutUint32(buf[at:], uint32(w))
		}
	}
	copy(b, buf[len(buf)-len(b):])
}

// stagingBuffers keeps the *big.Int path's byte buffers (scalars, points and
// results of a batch, every byte written before it is read) from one batch
// to the next, so that a batch does not clear hundreds of megabytes on one
// core before its work starts (package reuse says why not a sync.Pool).
var stagingBuffers reuse.List[[]byte]

// stagingBytes returns a buffer of size bytes from stagingBuffers, or a new one.
func stagingBytes(size int) *[]byte {
	if p := stagingBuffers.Get(); p != nil && cap(*p) >= size {
		*p = (*p)[:size]
		return p
	}
	buf := make([]byte, size)
	return &buf
}

// recordStats keeps a batch's statistics and, when several devices took
// part, logs every device fault (a single device's fault is the batch's
// error).
func (r *gpuRunner) recordStats(st gpu.Stats) {
	r.statsMu.Lock()
	r.stats = st
	r.statsMu.Unlock()
	if len(st.Devices) < 2 {
		return
	}
	for _, d := range st.Devices {
		if d.Fault != nil {
			r.log.Warn("ecmul: a GPU failed during a batch; its unfinished chunks go to the other GPUs, if any work, and it sits out later batches while another one works",
				"device", d.Device, "err", d.Fault)
		}
	}
}

func (r *gpuRunner) close() error {
	r.teamOnce.Do(func() {}) // no team starts once closing
	if r.team != nil {
		r.team.Close()
	}
	r.combMu.Lock()
	r.closing = true
	var crs []*gpuRunner
	for i := range r.combs {
		if cr := r.combs[i].r; cr != nil {
			crs = append(crs, cr)
		}
	}
	for _, slot := range []*combSlot{&r.verifier, &r.signer} {
		if slot.r != nil {
			crs = append(crs, slot.r)
		}
	}
	r.combMu.Unlock()
	err := r.eng.Close()
	for _, cr := range crs {
		if cerr := cr.close(); err == nil {
			err = cerr
		}
	}
	return err
}

// gpuError is an error of package gpu as the gpu backend reports it: one
// prefix, "ecmul: gpu backend: ", in place of gpu's own.
type gpuError struct{ err error }

func (e gpuError) Error() string {
	return "ecmul: gpu backend: " + strings.TrimPrefix(e.err.Error(), "gpu: ")
}
func (e gpuError) Unwrap() error { return e.err }

// errClosedGPU is ErrClosed on the gpu backend: it also matches gpu.ErrClosed.
var errClosedGPU error = closedGPU{}

// closedGPU reads as ErrClosed, with one prefix, and matches gpu.ErrClosed
// too.
type closedGPU struct{}

func (closedGPU) Error() string        { return ErrClosed.Error() }
func (closedGPU) Is(target error) bool { return target == ErrClosed || target == gpu.ErrClosed }

// lastStats returns where the time of the last batch went.
func (r *gpuRunner) lastStats() gpu.Stats {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	return r.stats
}

func (e *Engine) kernelTimes(points []*Point, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	r, err := e.timedRunner()
	if err != nil {
		return nil, err
	}
	if len(points) != len(scalars) {
		return nil, errLengthMismatch
	}
	jobs := make([]ladder.Job, len(points))
	for i := range points {
		if err := e.check(points[i], scalars[i]); err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		j, err := r.su.Prepare(points[i].X, points[i].Y, scalars[i])
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		jobs[i] = j
	}
	return r.timeJobs(jobs, launches, reps)
}

// baseKernelTimes is kernelTimes for k·G: the comb kernel that k·G
// batches run on (varTime: that of ScalarBaseMultVarTimeBytes) alone, on
// scalars. It fails where k·G runs on the ladder (no comb for the
// configuration).
func (e *Engine) baseKernelTimes(varTime bool, scalars []*big.Int, launches, reps int) ([][]float64, error) {
	r, err := e.timedRunner()
	if err != nil {
		return nil, err
	}
	kind := ladder.Comb
	if varTime {
		kind = ladder.CombVarTime
	}
	cr := r.combRunner(kind)
	if cr == nil {
		return nil, ErrNoComb
	}
	c := e.curve
	jobs := make([]ladder.Job, len(scalars))
	for i, k := range scalars {
		if err := checkScalar(k); err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		j, err := cr.su.Prepare(c.Gx(), c.Gy(), k)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		jobs[i] = j
	}
	return cr.timeJobs(jobs, launches, reps)
}

// timedRunner returns e's gpu runner for the kernel-only timings.
func (e *Engine) timedRunner() (*gpuRunner, error) {
	if err := e.usable(); err != nil {
		return nil, err
	}
	r, ok := e.run.(*gpuRunner)
	if !ok {
		return nil, ErrNotGPU
	}
	return r, nil
}

// timeJobs packs jobs and times r's kernel alone on them (gpu.Pool.KernelTimes).
func (r *gpuRunner) timeJobs(jobs []ladder.Job, launches, reps int) ([][]float64, error) {
	return r.eng.KernelTimes(len(jobs), func(in, sc []uint32) {
		parallel(len(jobs), r.workers, minPartItems, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r.su.PackInput(in, sc, len(jobs), i, jobs[i])
			}
		})
	}, launches, reps)
}

// runBytes is run for a bytes batch: items are prepared from their bytes
// and finished into them in fixed-size words, chunk by chunk, with no
// allocation per item (the chunks' Items come from a pool). Where the GPU
// has the prepare and finish kernels, the host only decodes the points
// into words, prepares the scalars and copies the results' bytes.
func (r *gpuRunner) runBytes(ctx context.Context, b *bytesBatch, done func(int)) error {
	if b.onePoint {
		if cr := r.combRunner(b.comb); cr != nil {
			err := cr.runBytes(ctx, b, done)
			r.statsMu.Lock()
			r.stats = cr.lastStats() // the Engine's last batch, for diag.LastBatch
			r.statsMu.Unlock()
			return err
		}
	}
	split, onTeam := r.splitFor(b.count)
	batch := r.hostConversionsBatch(b, split, onTeam, done)
	switch {
	case r.takesWire(b):
		batch = r.wireBatch(b, split, done)
	case r.kernel.FinishEntry != "" && b.count >= gpuItemsMinBatch: // compressed points: decompressed on the host
		batch = r.itemKernelsBatch(b, split, done)
	}
	batch.Overlapped, batch.Closing = overlapped(ctx), closing(ctx)
	st, err := r.eng.Run(ctx, batch)
	r.recordStats(st)
	return err
}

// overlapKey marks a context whose calls have more work queued behind
// them (WithOverlap).
type overlapKey struct{}

// WithOverlap returns ctx marked for calls that the caller follows at once
// with more calls on the same engine, as a pipeline of steps does: the gpu
// backend then finishes a call's last chunks for throughput, as its other
// chunks, since the next calls' chunks overlap them, rather than for the
// call's latency.
func WithOverlap(ctx context.Context) context.Context {
	return context.WithValue(ctx, overlapKey{}, true)
}

// overlapped reports whether ctx was marked by WithOverlap.
func overlapped(ctx context.Context) bool {
	v, _ := ctx.Value(overlapKey{}).(bool)
	return v
}

// closingKey marks a context whose calls are among the last of a pipeline
// (WithClosing).
type closingKey struct{}

// WithClosing returns ctx marked for calls among the last that the caller
// queues on the engine, which little work follows: the gpu backend then
// finishes each chunk in short chains of products (gpu.Batch.Closing), so
// that the pipeline's end does not wait for long ones.
func WithClosing(ctx context.Context) context.Context {
	return context.WithValue(ctx, closingKey{}, true)
}

// closing reports whether ctx was marked by WithClosing.
func closing(ctx context.Context) bool {
	v, _ := ctx.Value(closingKey{}).(bool)
	return v
}

// takesWire says whether b runs on the wire kernels: a batch larger than
// the latency batches, of uncompressed points or of the comb, where the
// kernel has the item kernels.
func (r *gpuRunner) takesWire(b *bytesBatch) bool {
	return r.kernel.FinishEntry != "" && b.count >= gpuItemsMinBatch &&
		(r.su.Schedule.Kind.IsComb() || b.pointSize == 1+2*b.size)
}

// itemKernelsBatch is a bytes batch on the prepare and finish kernels:
// the host decodes the points into words and prepares the scalars (Fill),
// and copies the results' bytes and outcomes (Drain).
func (r *gpuRunner) itemKernelsBatch(b *bytesBatch, split splitFunc, done func(int)) gpu.Batch {
	su := r.su
	prepare := su.PrepareRaw
	if su.Schedule.Kind.IsComb() {
		prepare = func(it *ladder.RawItem, scalar, _ []byte) error { return su.PrepareRawBase(it, scalar) }
	}
	return gpu.Batch{
		Count: b.count,
		Fill: func(lo, hi int, in, scalars []uint32) {
			split(hi-lo, minPartItems, func(a, c int) {
				var it ladder.RawItem
				for k := a; k < c; k++ {
					b.loadItem(lo + k)
					if err := prepare(&it, b.scalar(lo+k), b.point(lo+k)); err != nil {
						b.put(lo+k, statusOf(err), nil)
					}
					su.PackRaw(in, scalars, hi-lo, k, &it)
				}
			})
		},
		Drain: func(lo, hi int, out []uint32) error {
			r.readResults(split, hi-lo, out, resultsOf(b, lo))
			done(hi - lo)
			return nil
		},
	}
}

// wireBatch is a bytes batch on the wire kernels (ladder's wire.go): the
// host copies the scalars' and the uncompressed points' bytes up as they
// are (Fill), and the results' bytes and outcomes back (Drain); the GPU
// does the rest. A point with x = 0, whose ladder must start from its
// double, is first rewritten on the host (ladder.Setup.RewriteZeroX); the
// comb's items are their scalars alone.
func (r *gpuRunner) wireBatch(b *bytesBatch, split splitFunc, done func(int)) gpu.Batch {
	su, L := r.su, b.size
	withPoints := !su.Schedule.Kind.IsComb()
	return gpu.Batch{
		Count: b.count,
		Wire: &gpu.Wire{
			InBytes:  su.WireInBytes(),
			OutBytes: su.WireOutBytes(),
			Fill: func(lo, hi int, in []byte) {
				n, ps := hi-lo, b.pointSize
				scalars, points := in[:n*L], in[n*L:]
				split(n, minWireItems, func(a, c int) {
					if b.loadInto != nil {
						for k := a; k < c; k++ {
							b.loadInto(lo+k, scalars[k*L:(k+1)*L], points[k*ps:(k+1)*ps])
						}
					} else {
						copy(scalars[a*L:c*L], b.scalars[(lo+a)*L:(lo+c)*L])
						if withPoints {
							copy(points[a*ps:c*ps], b.points[(lo+a)*ps:(lo+c)*ps])
						}
					}
					if !withPoints {
						return
					}
					for k := a; k < c; k++ {
						// x = 0 is public, and its first eight bytes are zero for
						// no other point but once in 2^64
						if p := points[k*ps : (k+1)*ps]; binary.BigEndian.Uint64(p[1:]) == 0 {
							su.RewriteZeroX(scalars[k*L:(k+1)*L], p)
						}
					}
				})
			},
			Drain: func(lo, hi int, out []byte) error {
				r.readWire(split, b, lo, hi, out)
				done(hi - lo)
				return nil
			},
		},
	}
}

// readWire hands the results of items [lo, hi) of b, the wire output of
// their chunk, to b: the bytes of the uncompressed results copied whole,
// the other formats item by item, and each item's status.
func (r *gpuRunner) readWire(split splitFunc, b *bytesBatch, lo, hi int, out []byte) {
	n, rs := hi-lo, 1+2*b.size
	results, outcomes := out[:n*rs], out[n*rs:n*(rs+1)]
	whole := b.outPointBytes == rs
	split(n, minWireItems, func(a, c int) {
		if b.storeFrom != nil {
			for k := a; k < c; k++ {
				b.storeFrom(lo+k, statusOfOutcome(ladder.Outcome(outcomes[k])), results[k*rs:(k+1)*rs])
			}
			return
		}
		if whole {
			copy(b.out[(lo+a)*rs:(lo+c)*rs], results[a*rs:c*rs])
		}
		for k := a; k < c; k++ {
			i, s := lo+k, statusOfOutcome(ladder.Outcome(outcomes[k]))
			if whole {
				b.status[i] = s
			} else {
				b.put(i, s, results[k*rs+1:(k+1)*rs])
			}
		}
	})
}

// minWireItems is the fewest items of a part of a wire chunk's host work,
// a copy of some tens of bytes and a status each: enough that a part's
// fixed costs stay small beside it.
const minWireItems = 1024

// hostConversionsBatch is a bytes batch on the ladder kernel alone: the
// host prepares and packs the items (binary → RNS) and finishes them from
// the ladder's outputs (CRT, inversion, bytes).
func (r *gpuRunner) hostConversionsBatch(b *bytesBatch, split splitFunc, onTeam bool, done func(int)) gpu.Batch {
	su := r.su
	prepare := su.PrepareBytes
	if b.validPoints {
		prepare = su.PrepareValidBytes
	}
	if su.Schedule.Kind.IsComb() {
		prepare = func(it *ladder.Item, scalar, _ []byte) error { return su.PrepareBaseBytes(it, scalar) }
	}
	var mu sync.Mutex
	filled := map[int][]ladder.Item{} // a chunk's items, from its Fill to its Drain
	return gpu.Batch{
		Count:      b.count,
		LadderOnly: true,
		Fill: func(lo, hi int, in, scalars []uint32) {
			items := r.itemBuf(hi - lo)
			split(hi-lo, minPartItems, func(a, c int) {
				for k := a; k < c; k++ {
					b.loadItem(lo + k)
					if err := prepare(&items[k], b.scalar(lo+k), b.point(lo+k)); err != nil {
						b.put(lo+k, statusOf(err), nil)
					}
					su.PackItem(in, scalars, hi-lo, k, &items[k])
				}
			})
			mu.Lock()
			filled[lo] = items
			mu.Unlock()
		},
		Drain: func(lo, hi int, out []uint32) error {
			mu.Lock()
			items := filled[lo]
			delete(filled, lo)
			mu.Unlock()
			r.finish(split, onTeam, items, out, resultsOf(b, lo))
			r.items.Put(&items)
			done(hi - lo)
			return nil
		},
	}
}

// resultsOf returns the function that gives item lo+k of b its result.
func resultsOf(b *bytesBatch, lo int) func(k int, o ladder.Outcome, xy []byte) {
	return func(k int, o ladder.Outcome, xy []byte) {
		i := lo + k
		// a bad point, computed as the generator, keeps its status
		if b.status[i] == StatusNotComputed {
			b.put(i, statusOfOutcome(o), xy)
		}
		if b.store != nil {
			b.store(i)
		}
	}
}

// statusOfOutcome maps a finish's outcome to its status by arithmetic, not
// a table indexed by it: whether a result is the point at infinity leaves
// no address behind. Only a failed check (a fault) and a bad point (a
// public fact) take a branch.
func statusOfOutcome(o ladder.Outcome) Status {
	switch o {
	case ladder.OutFailed:
		return StatusResultCheck
	case ladder.OutOffCurve:
		return StatusNotOnCurve
	case ladder.OutBadEncoding:
		return StatusBadEncoding
	case ladder.OutBadCoordinate:
		return StatusBadCoordinate
	case ladder.OutInfinityInput:
		return StatusInfinityInput
	}
	return StatusPoint + Status(o) // OutPoint, OutInfinity: StatusPoint, StatusInfinity
}

// splitFor returns how the host's per-item work of a batch of count items
// is spread over the cores, and whether that is on the runner's team (a
// small batch, latencyTeam) rather than on fresh goroutines.
func (r *gpuRunner) splitFor(count int) (split splitFunc, onTeam bool) {
	if t := r.latencyTeam(count); t != nil {
		return t.Do, true
	}
	return func(n, minPart int, do func(lo, hi int)) { parallel(n, r.workers, minPart, do) }, false
}

// readResults hands the results of a chunk of n items that the finish
// kernel wrote to emit, over the cores.
func (r *gpuRunner) readResults(split splitFunc, n int, out []uint32, emit func(k int, o ladder.Outcome, xy []byte)) {
	split(n, minPartItems, func(a, c int) {
		var buf [2 * curves.MaxByteLen]byte
		xy := buf[:2*r.su.Curve.ByteLen()]
		for k := a; k < c; k++ {
			o := r.su.ReadResult(out, n, k, xy)
			if o >= ladder.OutFailed {
				emit(k, o, nil)
				continue
			}
			emit(k, o, xy)
		}
	})
}

// finish turns a chunk's outputs into results, emit(k, outcome, xy) for
// each of its n items k, in parts of at least minPartItems, one inversion
// each; or, when oneInversion is set (a small batch on the team, whose
// parts are few items each) and the schedule is co-Z, in blocks of
// minPartItems items with one inversion for the whole chunk
// (ladder.ChunkFinish), over two bursts. A large chunk keeps its parts'
// scratch apart, in cache.
func (r *gpuRunner) finish(split splitFunc, oneInversion bool, items []ladder.Item, out []uint32, emit func(k int, o ladder.Outcome, xy []byte)) {
	n := len(items)
	var cf *ladder.ChunkFinish
	if oneInversion {
		cf = r.su.NewChunkFinish(items, out, n, minPartItems)
	}
	if cf == nil {
		split(n, minPartItems, func(a, c int) {
			r.su.FinishItems(items[a:c], out[a:], n, nil, func(k int, o ladder.Outcome, xy []byte) { emit(a+k, o, xy) })
		})
		return
	}
	defer cf.Release()
	split(cf.Blocks(), 1, func(a, c int) {
		for b := a; b < c; b++ {
			cf.Gather(b)
		}
	})
	cf.Invert()
	split(cf.Blocks(), 1, func(a, c int) {
		for b := a; b < c; b++ {
			cf.Emit(b, emit)
		}
	})
}

// latencyTeam returns the runner's par.Team for a batch of count items
// when the batch is small enough for its time to be latency (it fits one
// wave of the GPU, and each chunk's host work takes tens of microseconds,
// about what a parked thread takes to wake) and the host has the cores for
// one; nil otherwise, and the parts then go to fresh goroutines (parallel).
// The team starts with the first such batch and lives until close: its
// members spin for par.TeamSpin after each burst, so that the next small
// batch finds them running. It has two members fewer than the workers:
// with the caller, one processor stays free for the caller's thread to
// take on its way back from a driver call, and for the runtime.
func (r *gpuRunner) latencyTeam(count int) *par.Team {
	members := min(r.workers, runtime.GOMAXPROCS(0)) - 2
	if r.noSpin || count > latencyBatchItems || count < 2*minPartItems || members < 1 {
		return nil
	}
	r.teamOnce.Do(func() { r.team = par.NewTeam(members) })
	return r.team
}

// gpuItemsMinBatch is the smallest batch that the prepare and finish
// kernels take, where the gpu backend has them: a smaller batch's time is
// latency, and a thread of the finish kernel would take one item and its
// whole inversion (hundreds of products in a row), where the host's
// conversions take microseconds on the team. A variable for the tests.
var gpuItemsMinBatch = latencyBatchItems + 1

// latencyBatchItems is the largest batch whose host work the gpu backend
// runs on a par.Team, whose members spin while the GPU computes: 16,384
// items, about one wave of the default kernel on a GPU of 132
// multiprocessors (two blocks of 56 or 51 items per multiprocessor), after
// which the batch's time is throughput and the team's spinning would only
// take cores from the caller.
const latencyBatchItems = 1 << 14

// itemBuf returns room for n Items from the runner's pool.
func (r *gpuRunner) itemBuf(n int) []ladder.Item {
	if p, ok := r.items.Get().(*[]ladder.Item); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]ladder.Item, n)
}
