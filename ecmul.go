// Package ecmul computes batched elliptic-curve scalar multiplications
// k_i·P_i for NIST P-224, P-256 and secp256k1, on an NVIDIA GPU with the RNS
// arithmetic of Antão, Bajard and Sousa and a constant-time Montgomery
// ladder, or on the CPU.
//
// Curves are values: P224(), P256(), Secp256k1(), or ParseCurve(name). An
// Engine is bound to one curve and one Backend:
//
//   - GPU: the CUDA kernel (one thread per RNS channel), when a GPU is present;
//   - RNSCPU: the CPU twin of the kernel, the same RNS arithmetic channel for channel;
//   - CPU: constant-time scalar multiplication in four-limb Montgomery
//     arithmetic (a fixed window for k·P, a comb for k·G, complete
//     formulas), on all cores;
//   - Auto (the zero value): GPU when a GPU can be used, otherwise CPU.
//
// Batches come in two forms: ScalarMult takes *big.Int points and scalars;
// ScalarMultBytes takes fixed-width big-endian scalars and SEC1 points in
// flat buffers and writes a Status per item and the results, as
// uncompressed or compressed SEC1 points or as x alone (ECDH's shared
// secret), into the caller's buffers, with no allocation per item and, on
// the gpu backend, without taking a scalar or a result through math/big or
// a branch on them. ScalarBaseMultBytes is ScalarMultBytes with the
// curve's generator G as every item's point (k·G: key generation,
// signing), computed from a table of G's multiples. On a host with several GPUs the gpu backend shares each batch
// among them.
//
// Every point is validated before any arithmetic; an invalid item gets its
// own error (matching ErrInvalidPoint or ErrInvalidScalar) and the other
// items of the batch still get their results.
//
// The gpu backend's own settings (devices, mapping, items per block, chunk)
// and its measurements (per-device statistics, kernel timing, the kernel
// configuration chosen) are package diag's; a program that only multiplies
// imports this package alone.
package ecmul

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
	"github.com/rnsec/ecmul/internal/tuning"
	"github.com/rnsec/ecmul/kernels"
)

// Options configure an Engine. The zero value is the auto backend with
// the co-Z ladder and Shenoy's base extension on 30-bit channels, on every
// core. The gpu backend's own settings (devices, mapping, items per block,
// chunk) are package diag's: its New takes them beside these.
type Options struct {
	Backend   Backend   // where the arithmetic runs; the zero value is Auto
	Schedule  Schedule  // ladder of the rns-cpu and gpu backends; the zero value is CoZ
	Extension Extension // base extension of the rns-cpu and gpu backends; the zero value is Shenoy
	// ChannelBits is the width of the RNS channels of the rns-cpu and gpu
	// backends: 16 (moduli 2^16 − c, the paper's) or 30 (moduli 2^30 − c,
	// Shenoy's extension only, not on the tile mapping). 0 picks 30, the
	// faster on every curve (kernels/README.md), or 16 where Kawamura's
	// extension or the tile mapping is asked for.
	ChannelBits int
	// Workers is how many goroutines share a batch's host work; 0 means
	// GOMAXPROCS. On the gpu backend, a batch of at most 16,384 items runs
	// it on the calling goroutine and min(Workers, GOMAXPROCS) − 2 others
	// (when that is at least 1) that the Engine keeps until Close: after
	// each such batch they spin for up to 2 ms (yielding their processors
	// every 100 µs), so that the next one finds them running, then park
	// (diag.GPU.NoSpin turns this off).
	Workers int
	Logger  *slog.Logger // where events of note go (a GPU left out after a fault); nil means slog.Default()
}

// Result is the outcome of one item: a point, the point at infinity, or Err.
type Result struct {
	X, Y     *big.Int
	Infinity bool
	Err      error // nil when the item was computed; an *ItemError otherwise
}

// Engine multiplies batches of points by scalars on one curve. It is safe
// for concurrent use. Make one with New; every method of a zero or nil
// Engine returns ErrNoEngine (or a zero value), and every call after Close
// returns an error matching ErrClosed.
type Engine struct {
	curve   *curves.Curve
	backend Backend
	opts    Options
	gpu     tuning.GPU
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
		return ErrNoEngine
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

// New returns an Engine for curve c. With Backend GPU it fails when no GPU
// can be used; Auto then falls back to CPU.
func New(c Curve, opts Options) (*Engine, error) {
	return newEngine(c, opts, tuning.GPU{})
}

// newEngine is New with the gpu backend's settings (diag.New).
func newEngine(curve Curve, opts Options, g tuning.GPU) (*Engine, error) {
	c := curve.c
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
		return nil, fmt.Errorf("ecmul: Options.Extension is %v: want Shenoy or Kawamura", opts.Extension)
	}
	if opts.Schedule >= numSchedules {
		return nil, fmt.Errorf("ecmul: Options.Schedule is %v: want CoZ or Paper", opts.Schedule)
	}
	if opts.ChannelBits == 0 {
		opts.ChannelBits = rns.WideChannelBits
		if opts.Extension != Shenoy || g.Mapping == mappingTile {
			opts.ChannelBits = rns.ChannelBits
		}
	}
	if !slices.Contains(rns.Widths, opts.ChannelBits) {
		return nil, fmt.Errorf("ecmul: Options.ChannelBits = %d: want %v", opts.ChannelBits, rns.Widths)
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
func checkSigns(o Options, g tuning.GPU) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Options.Workers", o.Workers}, {"GPU.ItemsPerBlock", g.ItemsPerBlock}, {"GPU.Chunk", g.Chunk}} {
		if f.v < 0 {
			return fmt.Errorf("ecmul: %s = %d: must not be negative (0 picks the default)", f.name, f.v)
		}
	}
	for _, d := range g.Devices {
		if d < 0 {
			return fmt.Errorf("ecmul: GPU.Devices holds %d: device ordinals are not negative", d)
		}
	}
	return nil
}

// ChannelBits returns the width of the RNS channels the engine computes in:
// 16 or 30 on the rns-cpu and gpu backends, 0 on the cpu backend (and for
// an Engine not made by New).
func (e *Engine) ChannelBits() int {
	if e == nil || e.setup == nil {
		return 0
	}
	return e.setup.Params.Bits
}

// Curve returns the engine's curve (the zero Curve for an Engine not made
// by New).
func (e *Engine) Curve() Curve {
	if e == nil {
		return Curve{}
	}
	return Curve{e.curve}
}

// Backend returns the backend in use: GPU, RNSCPU or CPU, Auto resolved
// (Auto for an Engine not made by New).
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
		return ErrNoEngine
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

// ScalarMult returns scalars[i]·points[i] for every i. Each Result carries
// its own error (an *ItemError) when the item is invalid: a missing or
// invalid point (not on the curve, a coordinate outside [0, p), (0, 0)), a
// missing or negative scalar, or one of more than 512 bits; the valid items
// are computed all the same. Scalars are reduced mod n; a multiple of n
// gives the point at infinity. The error is non-nil only when the batch as
// a whole failed (lengths differ, ctx ended, a GPU fault): then the items
// without a result carry that error too, and no item is reported computed
// that was not. Once ctx ends, validation stops within validateBlock items
// per worker (on the gpu backend, which validates each chunk's items as it
// fills it, within one chunk) and computing within one chunk; the invalid
// items found before keep their own error. A nil ctx is
// context.Background(). After Close, or
// on an Engine not made by New, it returns no results and ErrClosed or
// ErrNoEngine.
func (e *Engine) ScalarMult(ctx context.Context, points []*Point, scalars []*big.Int) ([]Result, error) {
	return e.ScalarMultProgress(ctx, points, scalars, nil)
}

// ScalarMultProgress is ScalarMult that also reports how far the batch has
// got: progress(done, total) is called as items get their results, done
// counting the items answered so far (invalid ones included, once
// validation is over) and total the batch's length. The calls come from the
// engine's goroutines, one at a time, with done growing from call to call;
// the last one has done == total when the batch completes, and fewer when
// it fails as a whole. They come about once per chunk of the gpu backend
// and once per few items on the CPU backends; progress must return quickly,
// since the batch waits for it. A nil progress is ScalarMult.
func (e *Engine) ScalarMultProgress(ctx context.Context, points []*Point, scalars []*big.Int, progress func(done, total int)) ([]Result, error) {
	if err := e.usable(); err != nil {
		return nil, err
	}
	if len(points) != len(scalars) {
		return nil, errLengthMismatch
	}
	ctx, release := e.batchContext(ctx)
	defer release()
	res := make([]Result, len(points))
	if len(points) == 0 {
		return res, nil
	}
	rep := newReporter(progress, len(points))
	var err error
	cr, checking := e.run.(checkingRunner)
	checking = checking && ctx.Err() == nil // an ended ctx: the first items are validated all the same
	if checking {
		checks := itemChecks{
			coordinates: func(i int) error { return e.checkCoordinates(points[i], scalars[i]) },
			full:        func(i int) error { return e.check(points[i], scalars[i]) },
		}
		err = cr.runChecked(ctx, len(points), func(i int) item { return itemOf(points[i], scalars[i], &res[i]) }, &checks, rep.add)
	} else if err = e.validate(ctx, points, scalars, res); err == nil {
		items := e.validItems(points, scalars, res)
		rep.add(len(points) - len(items))
		if len(items) > 0 {
			err = e.run.run(ctx, items, rep.add)
		}
	}
	err = e.batchErr(err)
	if err != nil {
		if checking && context.Cause(ctx) == nil {
			// a fault: the items not yet checked are, as they would have
			// been before the batch; once ctx has ended, validation stops
			e.checkUnanswered(points, scalars, res)
		}
		failItems(res, err)
		return res, err
	}
	e.split(len(res))(len(res), itemBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if r := &res[i]; r.Err != nil {
				if _, ok := r.Err.(*ItemError); !ok {
					r.Err = &ItemError{Index: i, Err: r.Err}
				}
			}
		}
	})
	return res, nil
}

// failItems gives the error of a batch that failed as a whole, err, to
// every item of res left without a result, and wraps every item's own
// error in an ItemError. Millions of items may be left: their errors share
// one allocation, whose capacity covers every item from the first such one
// on, so appending never moves the earlier ones.
func failItems(res []Result, err error) {
	var batchErrs []ItemError
	for i := range res {
		r := &res[i]
		switch {
		case r.X == nil && !r.Infinity && r.Err == nil:
			if batchErrs == nil {
				batchErrs = make([]ItemError, 0, len(res)-i)
			}
			batchErrs = append(batchErrs, ItemError{Index: i, Err: err})
			r.Err = &batchErrs[len(batchErrs)-1]
		case r.Err != nil:
			if _, ok := r.Err.(*ItemError); !ok {
				r.Err = &ItemError{Index: i, Err: r.Err}
			}
		}
	}
}

// checkingRunner is a runner that validates the items itself, as it loads
// them (the gpu backend, whose loads run beside the GPU's work): it takes
// every item of the batch, n of them, items(i) the i-th, and checks says
// what is wrong with one.
type checkingRunner interface {
	runChecked(ctx context.Context, n int, items func(i int) item, checks *itemChecks, done func(n int)) error
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
				if err := e.check(points[i], scalars[i]); err != nil {
					r.Err = &ItemError{Index: i, Err: err}
				}
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
			res[i].Err = &ItemError{Index: i, Err: err}
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
