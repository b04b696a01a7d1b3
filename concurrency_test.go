package ecmul_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
)

// concurrentCallers is how many goroutines share one engine.
const concurrentCallers = 64

// callerBatch is one goroutine's work and what each item must give.
type callerBatch struct {
	ctx  context.Context
	pts  []*ecmul.Point
	ks   []*big.Int
	want []*ecmul.Point // nil: infinity, unless bad says the item is invalid
	bad  map[int]error
}

// invalidItem returns one of the kinds of invalid item a caller mixes into its batch, and its error.
func invalidItem(c *curves.Curve, kind int) (*ecmul.Point, *big.Int, error) {
	one := big.NewInt(1)
	switch kind % 7 {
	case 0:
		return &ecmul.Point{X: big.NewInt(1), Y: big.NewInt(1)}, one, curves.ErrNotOnCurve
	case 1:
		return &ecmul.Point{X: c.P(), Y: c.Gy()}, one, curves.ErrCoordinateRange
	case 2:
		return &ecmul.Point{X: new(big.Int), Y: new(big.Int)}, one, curves.ErrInfinity
	case 3:
		return nil, one, ecmul.ErrNilPoint
	case 4:
		return ep(c.Generator()), nil, ecmul.ErrNilScalar
	case 5:
		return ep(c.Generator()), big.NewInt(-1), ecmul.ErrScalarNegative
	default:
		return ep(c.Generator()), new(big.Int).Lsh(one, ecmul.MaxScalarBits), ecmul.ErrScalarTooLarge
	}
}

// callerBatches builds the 64 callers' batches on c, each with valid items
// of its own (one of them on a base point shared by every caller), one
// invalid item at a position that depends on the caller, and for some
// callers an empty batch or a context that has already ended.
func callerBatches(t *testing.T, c *curves.Curve, valid int) []callerBatch {
	rng := newRNG(64)
	shared := randPoint(t, rng, c)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bs := make([]callerBatch, concurrentCallers)
	for g := range bs {
		b := callerBatch{ctx: context.Background(), bad: map[int]error{}}
		if g%16 == 5 {
			bs[g] = b // an empty batch
			continue
		}
		for i := range valid {
			p := shared
			if i > 0 {
				p = randPoint(t, rng, c)
			}
			k := randScalar(rng, c)
			if g%9 == 4 && i == 0 {
				k = new(big.Int).Mul(c.N(), big.NewInt(int64(g))) // → infinity
			}
			b.pts, b.ks, b.want = append(b.pts, p), append(b.ks, k), append(b.want, want(t, c, p, k, false))
		}
		at := g % (valid + 1)
		p, k, err := invalidItem(c, g)
		b.pts = append(b.pts[:at], append([]*ecmul.Point{p}, b.pts[at:]...)...)
		b.ks = append(b.ks[:at], append([]*big.Int{k}, b.ks[at:]...)...)
		b.want = append(b.want[:at], append([]*ecmul.Point{nil}, b.want[at:]...)...)
		b.bad[at] = err
		if g%8 == 7 {
			b.ctx = cancelled
		}
		bs[g] = b
	}
	return bs
}

// check verifies one caller's results: invalid items carry their own error
// with their index in this caller's batch; with an ended context the batch
// fails with its error and computes nothing; otherwise every valid item is
// right.
func (b callerBatch) check(res []ecmul.Result, err error) error {
	if len(res) != len(b.pts) {
		return fmt.Errorf("%d results for %d items (err %v)", len(res), len(b.pts), err)
	}
	cancelled := b.ctx.Err() != nil
	if cancelled && len(b.pts) > len(b.bad) {
		if !errors.Is(err, context.Canceled) {
			return fmt.Errorf("ended context: batch error %v", err)
		}
	} else if err != nil {
		return fmt.Errorf("batch error %v", err)
	}
	for i, r := range res {
		if werr, isBad := b.bad[i]; isBad {
			if !errors.Is(r.Err, werr) {
				return fmt.Errorf("item %d: error %v, want %v", i, r.Err, werr)
			}
			continue
		}
		if cancelled {
			if !errors.Is(r.Err, context.Canceled) || r.X != nil || r.Infinity {
				return fmt.Errorf("item %d of a cancelled batch: %+v", i, r)
			}
			continue
		}
		if r.Err != nil {
			return fmt.Errorf("item %d: %v", i, r.Err)
		}
		w := b.want[i]
		switch {
		case w == nil && (!r.Infinity || r.X != nil):
			return fmt.Errorf("item %d: got %+v, want infinity", i, r)
		case w != nil && (r.Infinity || r.X == nil || r.X.Cmp(w.X) != 0 || r.Y.Cmp(w.Y) != 0):
			return fmt.Errorf("item %d: got %+v, want %v", i, r, w)
		}
	}
	return nil
}

// hammer runs every caller's batch on e at once (they are released
// together) and checks each caller's results, and that no input was
// modified.
func hammer(t *testing.T, e *ecmul.Engine, bs []callerBatch) {
	t.Helper()
	type snapshot struct{ x, y, k string }
	snap := func(b callerBatch) []snapshot {
		var s []snapshot
		for i := range b.pts {
			var v snapshot
			if p := b.pts[i]; p != nil {
				v.x, v.y = fmt.Sprint(p.X), fmt.Sprint(p.Y)
			}
			v.k = fmt.Sprint(b.ks[i])
			s = append(s, v)
		}
		return s
	}
	before := make([][]snapshot, len(bs))
	for g, b := range bs {
		before[g] = snap(b)
	}
	start := make(chan struct{})
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	for g, b := range bs {
		wg.Go(func() {
			<-start
			_ = e.Curve()
			_ = e.Backend()
			res, err := scalarMult(e, b.ctx, b.pts, b.ks)
			if cerr := b.check(res, err); cerr != nil {
				errs[g] = fmt.Errorf("caller %d: %w", g, cerr)
			}
			_, _ = diag.LastBatch(e)
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	for g, b := range bs {
		require.Equal(t, before[g], snap(b), "caller %d: inputs modified", g)
	}
}

// TestEngineSharedBy64Callers uses one engine from 64 goroutines at once,
// on the cpu and rns-cpu backends (both base extensions) and on the gpu
// backend over the fake driver: every caller gets exactly its own results,
// its own item errors with its own indices, its own cancellation, and
// nobody's inputs change. Meant to run under -race as well; without it, it
// still checks that concurrent batches do not mix their items.
func TestEngineSharedBy64Callers(t *testing.T) {
	type backend struct {
		name  string
		opts  ecmul.Options
		gpu   diag.Tuning
		curve *curves.Curve
		valid int
		fake  bool
	}
	backends := []backend{
		{"cpu", ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{}, curves.P256(), 6, false},
		{"rns-cpu/shenoy", ecmul.Options{Backend: ecmul.RNSCPU}, diag.Tuning{Extension: diag.Shenoy}, curves.P224(), 1, false},
		{"rns-cpu/kawamura", ecmul.Options{Backend: ecmul.RNSCPU, Workers: 2}, diag.Tuning{Extension: diag.Kawamura}, curves.Secp256k1(), 1, false},
		{"gpu-fake", ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 1}, curves.P224(), 1, true},
	}
	for _, bk := range backends {
		t.Run(bk.name, func(t *testing.T) {
			var live func() int
			if bk.fake {
				d := faultDriver(t, bk.curve)
				live = d.Live
			}
			e, err := diag.New(pub(bk.curve), bk.opts, bk.gpu)
			require.NoError(t, err)
			hammer(t, e, callerBatches(t, bk.curve, bk.valid))
			require.NoError(t, e.Close())
			if live != nil {
				require.Zero(t, live())
			}
		})
	}
}

// TestGPUCloseWhileInUse closes a gpu engine (over the fake driver) while
// 64 callers use it: every batch either completes correctly or fails as a
// whole with gpu.ErrClosed and reports nothing computed, and every device
// resource is released.
func TestGPUCloseWhileInUse(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 1})
	require.NoError(t, err)
	bs := callerBatches(t, c, 1)
	start := make(chan struct{})
	errs := make([]error, len(bs))
	closed := 0
	var closeErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g, b := range bs {
		b.ctx = context.Background()
		wg.Go(func() {
			<-start
			res, err := scalarMult(e, b.ctx, b.pts, b.ks)
			if errors.Is(err, gpu.ErrClosed) {
				mu.Lock()
				closed++
				mu.Unlock()
				for i, r := range res {
					if _, isBad := b.bad[i]; !isBad && (!errors.Is(r.Err, gpu.ErrClosed) || r.X != nil || r.Infinity) {
						errs[g] = fmt.Errorf("caller %d item %d after Close: %+v", g, i, r)
					}
				}
				return
			}
			if cerr := b.check(res, err); cerr != nil {
				errs[g] = fmt.Errorf("caller %d: %w", g, cerr)
			}
		})
		if g == len(bs)/2 {
			wg.Go(func() {
				<-start
				closeErr = e.Close()
			})
		}
	}
	close(start)
	wg.Wait()
	require.NoError(t, closeErr)
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, d.Live(), "%+v", d.Resources())
	t.Logf("%d of %d callers found the engine closed", closed, len(bs))
}
