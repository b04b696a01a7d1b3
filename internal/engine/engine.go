// Package engine is the library behind the root package ecmul: the
// backends (the gpu runner over package gpu, the rns-cpu twin of the
// kernel, the constant-time cpu backend), the *big.Int and bytes batch
// paths, validation, chunking and progress. The root package is a facade
// over it; package diag reaches its tuning and measurements through Wrap
// and Unwrap.
package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

// Options configure an Engine. The zero value is the auto backend with
// the co-Z ladder and Shenoy's base extension on 30-bit channels, on every
// core, on every visible GPU.
type Options struct {
	Backend   Backend   // where the arithmetic runs; the zero value is Auto
	Devices   []int     // CUDA device ordinals to share the work among; nil means every visible device
	Schedule  Schedule  // ladder of the rns-cpu and gpu backends; the zero value is CoZ
	Extension Extension // base extension of the rns-cpu and gpu backends; the zero value is Shenoy
	// ChannelBits is the width of the RNS channels of the rns-cpu and gpu
	// backends: 16 (moduli 2^16 − c, the paper's) or 30 (moduli 2^30 − c,
	// Shenoy's extension only, not on the tile mapping). 0 picks 30, the
	// faster on every curve (internal/kernels/README.md), or 16 where
	// Kawamura's extension or the tile mapping is asked for.
	ChannelBits int
	// Workers is how many goroutines share a batch's host work; 0 means
	// GOMAXPROCS. On the gpu backend, a batch of at most 16,384 items runs
	// it on the calling goroutine and min(Workers, GOMAXPROCS) − 2 others
	// (when that is at least 1) that the Engine keeps until Close: after
	// each such batch they spin for up to 2 ms (yielding their processors
	// every 100 µs), so that the next one finds them running, then park
	// (diag.Tuning.NoSpin turns this off).
	Workers int
	Logger  *slog.Logger // where events of note go (a GPU left out after a fault); nil means slog.Default()
}

// Result is the outcome of one item: a point, the point at infinity, or Err.
type Result struct {
	X, Y     *big.Int
	Infinity bool
	Err      error // nil when the item was computed; the item's own error or the batch's otherwise
}

// Point is an affine point (x, y).
type Point struct {
	X, Y *big.Int
}

// Engine multiplies batches of points by scalars on one curve. It is safe
// for concurrent use. Make one with New; every method of a nil Engine, and
// every call after Close, returns an error matching ErrClosed.
type Engine struct {
	curve   *curves.Curve
	backend Backend
	opts    Options
	gpu     GPUConfig
	setup   *ladder.Setup // nil for the cpu backend
	run     runner
	base    []byte // G as an uncompressed SEC1 point: every item's point in ScalarBaseMultBytes
	closed  atomic.Bool
	// closing ends when Close is called; every batch's context is cut
	// with it, so that a running batch stops within a chunk.
	closing  context.Context
	closeAll context.CancelCauseFunc
}

// usable returns the error a call on e must fail with, or nil.
func (e *Engine) usable() error {
	switch {
	case e == nil || e.run == nil:
		return ErrClosed
	case e.closed.Load():
		return e.closedErr()
	}
	return nil
}

// closedErr is ErrClosed, also matching gpu.ErrClosed on the gpu backend.
func (e *Engine) closedErr() error {
	if _, ok := e.run.(*gpuRunner); ok {
		return errClosedGPU
	}
	return ErrClosed
}

// runner computes the items whose Result.Err is still nil, calling
// done(n) as each group of n items gets its result.
type runner interface {
	run(ctx context.Context, items []item, done func(n int)) error
	close() error
}

// item is one validated multiplication and where its result goes.
type item struct {
	x, y, k *big.Int
	res     *Result
}

// New returns an Engine for curve c with the gpu backend configured by g.
// With Backend GPU it fails when no GPU can be used; Auto then falls back
// to CPU.
func New(c *curves.Curve, opts Options, g GPUConfig) (*Engine, error) {
	if c == nil {
		return nil, fmt.Errorf("ecmul: %w: the zero Curve is not one", curves.ErrUnknownCurve)
	}
	if err := checkSigns(opts, g); err != nil {
		return nil, err
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Backend >= numBackends {
		return nil, fmt.Errorf("ecmul: Options.Backend is %v: want Auto, GPU, RNSCPU or CPU", opts.Backend)
	}
	if g.Mapping != "" {
		i := slices.IndexFunc(kernels.Mappings, func(m string) bool { return strings.EqualFold(m, g.Mapping) })
		if i < 0 {
			return nil, fmt.Errorf("ecmul: the gpu mapping is %q: want %s, in any case, or \"\" for the default", g.Mapping, strings.Join(kernels.Mappings, ", "))
		}
		g.Mapping = kernels.Mappings[i]
	}
	if opts.Extension >= numExtensions {
		return nil, fmt.Errorf("ecmul: Tuning.Extension is %v: want Shenoy or Kawamura", opts.Extension)
	}
	if opts.Schedule >= numSchedules {
		return nil, fmt.Errorf("ecmul: Tuning.Schedule is %v: want CoZ or Paper", opts.Schedule)
	}
	if opts.ChannelBits == 0 {
		opts.ChannelBits = rns.WideChannelBits
		if opts.Extension != Shenoy || g.Mapping == mappingTile {
			opts.ChannelBits = rns.ChannelBits
		}
	}
	if !slices.Contains(rns.Widths, opts.ChannelBits) {
		return nil, fmt.Errorf("ecmul: Tuning.ChannelBits = %d: want %v", opts.ChannelBits, rns.Widths)
	}
	if opts.ChannelBits != rns.ChannelBits && opts.Extension != Shenoy {
		return nil, fmt.Errorf("ecmul: %d-bit channels take Shenoy's base extension, not %v", opts.ChannelBits, opts.Extension)
	}
	e := &Engine{curve: c, opts: opts, gpu: g, base: c.EncodeSEC1(c.Generator(), false)}
	e.closing, e.closeAll = context.WithCancelCause(context.Background())
	switch opts.Backend {
	case CPU:
		r, err := newCPURunner(c, opts.Workers)
		if err != nil {
			return nil, err
		}
		e.run = r
	case RNSCPU:
		su, err := ladder.NewSetupBits(c, opts.Schedule.kind(), opts.ChannelBits)
		if err != nil {
			return nil, err
		}
		e.setup = su
		e.run = &rnsRunner{su: su, ext: opts.Extension.variant(), workers: opts.Workers}
	case GPU, Auto:
		su, err := ladder.NewSetupBits(c, opts.Schedule.kind(), opts.ChannelBits)
		if err != nil {
			return nil, err
		}
		r, err := newGPURunner(su, opts, g)
		if err != nil {
			if opts.Backend == GPU {
				return nil, err
			}
			cr, cerr := newCPURunner(c, opts.Workers)
			if cerr != nil {
				return nil, cerr
			}
			opts.Backend = CPU
			e.opts.Backend = CPU
			e.run = cr
			break
		}
		opts.Backend = GPU
		e.setup, e.run = su, r
	}
	e.backend = opts.Backend
	return e, nil
}

// checkSigns refuses negative counts, naming the option.
func checkSigns(o Options, g GPUConfig) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Options.Workers", o.Workers}, {"Tuning.ItemsPerBlock", g.ItemsPerBlock}, {"Tuning.Chunk", g.Chunk}} {
		if f.v < 0 {
			return fmt.Errorf("ecmul: %s = %d: must not be negative (0 picks the default)", f.name, f.v)
		}
	}
	for _, d := range o.Devices {
		if d < 0 {
			return fmt.Errorf("ecmul: Options.Devices holds %d: device ordinals are not negative", d)
		}
	}
	return nil
}

// ChannelBits returns the width of the RNS channels the engine computes in:
// 16 or 30 on the rns-cpu and gpu backends, 0 on the cpu backend (and for
// a nil Engine).
func (e *Engine) ChannelBits() int {
	if e == nil || e.setup == nil {
		return 0
	}
	return e.setup.Params.Bits
}

// Curve returns the engine's curve (nil for a nil Engine).
func (e *Engine) Curve() *curves.Curve {
	if e == nil {
		return nil
	}
	return e.curve
}

// Backend returns the backend in use: GPU, RNSCPU or CPU, Auto resolved
// (Auto for a nil Engine).
func (e *Engine) Backend() Backend {
	if e == nil {
		return Auto
	}
	return e.backend
}

// Close releases the engine's GPU resources, if any. Batches still running
// end with an error matching ErrClosed; a second Close returns ErrClosed.
func (e *Engine) Close() error {
	if e == nil || e.run == nil {
		return ErrClosed
	}
	if !e.closed.CompareAndSwap(false, true) {
		return e.closedErr()
	}
	if e.closeAll != nil {
		e.closeAll(e.closedErr())
	}
	return e.run.close()
}

// batchContext returns the context a batch runs under: ctx (nil means
// context.Background()), also ended by Close with a cause matching
// ErrClosed. release must be called when the batch is over.
func (e *Engine) batchContext(ctx context.Context) (bctx context.Context, release func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	if e.closing == nil {
		return ctx, func() {}
	}
	bctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(e.closing, func() { cancel(context.Cause(e.closing)) })
	return bctx, func() {
		stop()
		cancel(nil)
	}
}

// batchErr is the error a batch that ended with err returns: one matching
// ErrClosed when Close ran during it.
func (e *Engine) batchErr(err error) error {
	if err != nil && e.closed.Load() && !errors.Is(err, ErrClosed) {
		return e.closedErr()
	}
	return err
}

// ScalarMult sets res[i] to scalars[i]·points[i] for every i: the root
// package's ScalarMult, whose doc says what each Result holds. Progress
// goes to the function ctx carries (WithProgress).
func (e *Engine) ScalarMult(ctx context.Context, res []Result, scalars []*big.Int, points []*Point) error {
	if err := e.usable(); err != nil {
		failAll(res, err)
		return err
	}
	if len(points) != len(scalars) || len(res) != len(scalars) {
		failAll(res, errLengthMismatch)
		return errLengthMismatch
	}
	e.clearResults(res)
	if len(points) == 0 {
		return nil
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	rep := newReporter(progressOf(ctx), len(points))
	err := e.scalarMult(ctx, res, scalars, points, rep)
	err = e.batchErr(err)
	if err != nil {
		if _, checking := e.run.(checkingRunner); checking && context.Cause(ctx) == nil {
			// a fault: the items not yet checked are, as they would have
			// been before the batch; once ctx has ended, validation stops
			e.checkUnanswered(points, scalars, res)
		}
		failItems(res, err)
	}
	return err
}

// scalarMult validates and computes the items of a batch: on a
// checkingRunner as it loads them, otherwise all first.
func (e *Engine) scalarMult(ctx context.Context, res []Result, scalars []*big.Int, points []*Point, rep *reporter) error {
	cr, checking := e.run.(checkingRunner)
	if checking && ctx.Err() == nil { // an ended ctx: the first items are validated all the same
		checks := itemChecks{
			coordinates: func(i int) error { return e.checkCoordinates(points[i], scalars[i]) },
			full:        func(i int) error { return e.check(points[i], scalars[i]) },
		}
		items := func(i int) item { return itemOf(points[i], scalars[i], &res[i]) }
		return cr.runChecked(ctx, len(points), items, func(i int) *Result { return &res[i] }, &checks, rep.add)
	}
	if err := e.validate(ctx, points, scalars, res); err != nil {
		return err
	}
	items := e.validItems(points, scalars, res)
	rep.add(len(points) - len(items))
	if len(items) == 0 {
		return nil
	}
	return e.run.run(ctx, items, rep.add)
}

// failAll gives every result the error of a call that failed before it
// started.
func failAll(res []Result, err error) {
	for i := range res {
		res[i] = Result{Err: err}
	}
}

// failItems gives the error of a batch that failed as a whole, err, to
// every item of res left without a result.
func failItems(res []Result, err error) {
	for i := range res {
		if r := &res[i]; r.X == nil && !r.Infinity && r.Err == nil {
			r.Err = err
		}
	}
}

// checkingRunner is a runner that validates the items itself, as it loads
// them (the gpu backend, whose loads run beside the GPU's work): it takes
// every item of the batch, n of them, items(i) the i-th and results(i)
// its result alone (which a drain reads without the item's inputs), and
// checks says what is wrong with one.
type checkingRunner interface {
	runChecked(ctx context.Context, n int, items func(i int) item, results func(i int) *Result, checks *itemChecks, done func(n int)) error
}

// itemChecks validate the items of a batch for a checkingRunner:
// coordinates(i) says what is wrong with item i but the curve's equation,
// which the runner checks itself (on the GPU, or as it prepares the point);
// full(i) is the whole check, which gives a point off the curve its error.
type itemChecks struct {
	coordinates, full func(i int) error
}

// itemOf returns the item of a point, its scalar and its result; a nil
// point's item has nil coordinates.
func itemOf(p *Point, k *big.Int, res *Result) item {
	if p == nil {
		return item{k: k, res: res}
	}
	return item{x: p.X, y: p.Y, k: k, res: res}
}

// checkUnanswered validates, after a batch failed as a whole, the items
// left without an answer, so that an invalid one gets its own error rather
// than the batch's whether or not its chunk was reached.
func (e *Engine) checkUnanswered(points []*Point, scalars []*big.Int, res []Result) {
	e.split(len(res))(len(res), itemBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if r := &res[i]; r.X == nil && !r.Infinity && r.Err == nil {
				r.Err = e.check(points[i], scalars[i])
			}
		}
	})
}

// itemBlock is the items of a block of a batch's host passes over its
// items (validItems, the wrapping of errors): blocks are numbered, so that
// a pass can find where a block's items go.
const itemBlock = 1 << 13

// validItems returns the items of the batch that validation left without
// an error, in order, built over the workers: each block's valid items
// are counted, and each block then fills its own range.
func (e *Engine) validItems(points []*Point, scalars []*big.Int, res []Result) []item {
	n := len(points)
	blocks := (n + itemBlock - 1) / itemBlock
	split := e.split(n)
	block := func(b int) (lo, hi int) { return b * itemBlock, min((b+1)*itemBlock, n) }
	at := make([]int, blocks+1) // at[b+1]: the valid items of block b, then of blocks 0 … b
	split(blocks, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			lo, hi := block(b)
			for i := lo; i < hi; i++ {
				if res[i].Err == nil {
					at[b+1]++
				}
			}
		}
	})
	for b := range blocks {
		at[b+1] += at[b]
	}
	items := make([]item, at[blocks])
	split(blocks, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			lo, hi := block(b)
			k := at[b]
			for i := lo; i < hi; i++ {
				if res[i].Err == nil {
					items[k] = item{x: points[i].X, y: points[i].Y, k: scalars[i], res: &res[i]}
					k++
				}
			}
		}
	})
	return items
}

// progressKey is the key of the progress function a context carries.
type progressKey struct{}

// WithProgress returns ctx carrying progress, which every batch run under
// it reports to (nil: none).
func WithProgress(ctx context.Context, progress func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, progress)
}

// progressOf returns the progress function ctx carries, or nil.
func progressOf(ctx context.Context) func(done, total int) {
	if ctx == nil {
		return nil
	}
	fn, _ := ctx.Value(progressKey{}).(func(done, total int))
	return fn
}

// reporter serialises a batch's progress calls.
type reporter struct {
	mu          sync.Mutex
	fn          func(done, total int)
	done, total int
}

func newReporter(fn func(done, total int), total int) *reporter {
	return &reporter{fn: fn, total: total}
}

// add counts n more answered items and reports the new count.
func (r *reporter) add(n int) {
	if r.fn == nil || n <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	r.fn(r.done, r.total)
}

// validateBlock is how many items a validation worker checks between two
// looks at the context.
const validateBlock = 256

// splitter is a runner that spreads a batch's per-item host work its own
// way (the gpu backend's team for small batches), which validation then
// shares rather than compete with.
type splitter interface {
	splitFor(count int) (split splitFunc, onTeam bool)
}

// validate checks every item on all workers, storing each invalid item's
// error in res; it stops early, returning the cause of ctx's end, once ctx
// ends.
func (e *Engine) validate(ctx context.Context, points []*Point, scalars []*big.Int, res []Result) error {
	return e.forItems(ctx, len(points), func(i int) {
		if err := e.check(points[i], scalars[i]); err != nil {
			res[i].Err = err
		}
	})
}

// forItems runs do(i) for every i in [0, n) on all workers (or the gpu
// backend's team), each worker looking at ctx every validateBlock items
// and stopping once it has ended; it returns the cause of ctx's end.
func (e *Engine) forItems(ctx context.Context, n int, do func(i int)) error {
	e.split(n)(n, minPartItems, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if i > lo && (i-lo)%validateBlock == 0 && ctx.Err() != nil {
				return
			}
			do(i)
		}
	})
	return context.Cause(ctx)
}

// clearResults clears res over the workers, in parts of at least
// clearPartItems: a batch of millions of results is too much memory for
// one core to clear before the work starts.
func (e *Engine) clearResults(res []Result) {
	e.split(len(res))(len(res), clearPartItems, func(lo, hi int) { clear(res[lo:hi]) })
}

// clearPartItems is the fewest results of a part of clearResults: about
// 2.5 MB.
const clearPartItems = 1 << 16

// split returns how the host work of a batch of n items spreads over the
// workers: the runner's way, if it has one (splitter), else in parts on
// fresh goroutines.
func (e *Engine) split(n int) splitFunc {
	if s, ok := e.run.(splitter); ok {
		split, _ := s.splitFor(n)
		return split
	}
	return func(n, minPart int, do func(lo, hi int)) { parallel(n, e.opts.Workers, minPart, do) }
}

func (e *Engine) check(p *Point, k *big.Int) error {
	if p == nil {
		return errNilPoint
	}
	if err := checkScalar(k); err != nil {
		return err
	}
	return invalidPoint(e.curve.Validate(p.X, p.Y))
}

// checkCoordinates is check without the curve's equation.
func (e *Engine) checkCoordinates(p *Point, k *big.Int) error {
	if p == nil {
		return errNilPoint
	}
	if err := checkScalar(k); err != nil {
		return err
	}
	return invalidPoint(e.curve.ValidateCoordinates(p.X, p.Y))
}

// checkScalar says what is wrong with a scalar: missing, negative, or of
// more than maxScalarBits bits.
func checkScalar(k *big.Int) error {
	switch {
	case k == nil:
		return errNilScalar
	case k.Sign() < 0:
		return errScalarNegative
	case k.BitLen() > maxScalarBits:
		return errScalarTooLarge
	}
	return nil
}

// resultSlab holds the coordinates of a batch's *big.Int results: two
// big.Ints and their words per item, in pieces of slabPieceItems results,
// each piece two allocations made by the first goroutine that stores a
// result in it, so that a batch leaves the collector a few objects to mark
// rather than millions, and no one core clears the whole batch's memory
// before the work starts. A result's words are capped at its share, so
// that arithmetic on it never writes into another's.
type resultSlab struct {
	pieces []atomic.Pointer[slabPiece]
	n, w   int // results, words of a coordinate
}

// slabPiece is the memory of slabPieceItems results (fewer in the last
// piece): their big.Ints and words.
type slabPiece struct {
	ints  []big.Int
	words []big.Word
}

// slabPieceItems is the results of a slab's piece: 2 MiB of 256-bit
// coordinates on a 64-bit host.
const slabPieceItems = 16384

// newResultSlab returns a slab for n results of coordinates of size bytes.
func newResultSlab(n, size int) *resultSlab {
	w := (size + bits.UintSize/8 - 1) / (bits.UintSize / 8)
	return &resultSlab{pieces: make([]atomic.Pointer[slabPiece], (n+slabPieceItems-1)/slabPieceItems), n: n, w: w}
}

// piece returns the piece that holds result i, allocating it on first use,
// and i's index there.
func (s *resultSlab) piece(i int) (*slabPiece, int) {
	p := &s.pieces[i/slabPieceItems]
	if pc := p.Load(); pc != nil {
		return pc, i % slabPieceItems
	}
	items := min(slabPieceItems, s.n-i/slabPieceItems*slabPieceItems)
	pc := &slabPiece{ints: make([]big.Int, 2*items), words: make([]big.Word, 2*s.w*items)}
	if !p.CompareAndSwap(nil, pc) {
		pc = p.Load()
	}
	return pc, i % slabPieceItems
}

// set gives r the coordinates xy (x‖y, big-endian, of equal lengths), on
// item i's share of the slab.
func (s *resultSlab) set(r *Result, i int, xy []byte) {
	pc, j := s.piece(i)
	L, w := len(xy)/2, s.w
	ws := pc.words[2*w*j : 2*w*(j+1)]
	r.X = pc.ints[2*j].SetBits(wordsOf(ws[:w:w], xy[:L]))
	r.Y = pc.ints[2*j+1].SetBits(wordsOf(ws[w:2*w:2*w], xy[L:]))
}

// wordsOf writes the big-endian bytes b into ws, least significant word
// first, a word at a time (big.Int.SetBytes goes byte by byte), and
// returns ws; len(ws)·W must hold b, W the bytes of a word.
func wordsOf(ws []big.Word, b []byte) []big.Word {
	const wordBytes = bits.UintSize / 8
	for j := range ws {
		hi := len(b) - j*wordBytes
		var v uint64
		if hi >= wordBytes {
			if wordBytes == 8 {
				v = binary.BigEndian.Uint64(b[hi-8 : hi])
			} else {
				v = uint64(binary.BigEndian.Uint32(b[hi-4 : hi]))
			}
		} else {
			for _, c := range b[:max(hi, 0)] {
				v = v<<8 | uint64(c)
			}
		}
		ws[j] = big.Word(v)
	}
	return ws
}

// setAffine stores a ladder result (or its error) into r.
func setAffine(r *Result, a ladder.Affine, err error) {
	switch {
	case err != nil:
		r.Err = err
	case a.Infinity:
		r.Infinity = true
	default:
		r.X, r.Y = a.X, a.Y
	}
}
