package ecmul

import (
	"context"
	"sync"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// inChunks runs do on consecutive chunks of items on up to workers
// goroutines, stopping between chunks once ctx ends.
func inChunks(ctx context.Context, items []item, chunk, workers int, do func(part []item) error) error {
	return par.Chunks(ctx, len(items), chunk, workers, func(lo, hi int) error { return do(items[lo:hi]) })
}

// cpuRunner computes with the reference implementations.
type cpuRunner struct {
	curve   *curves.Curve
	workers int
}

func (r *cpuRunner) run(ctx context.Context, items []item, done func(int)) error {
	return inChunks(ctx, items, 64, r.workers, func(part []item) error {
		defer done(len(part))
		for _, it := range part {
			x, y, ok, err := r.curve.ReferenceScalarMultValid(it.x, it.y, it.k)
			switch {
			case err != nil:
				it.res.Err = err
			case !ok:
				it.res.Infinity = true
			default:
				it.res.X, it.res.Y = x, y
			}
		}
		return nil
	})
}

func (r *cpuRunner) close() error { return nil }

// rnsRunner computes with the CPU twin of the kernel: the RNS ladder channel
// by channel, then the batched affine conversion per chunk.
type rnsRunner struct {
	su      *ladder.Setup
	ext     basext.Variant
	workers int

	// the combs of k·G, ladder.Comb's and ladder.CombVarTime's, each made
	// by the first runBase that takes it; nil if it failed
	combs [2]struct {
		once sync.Once
		su   *ladder.Setup
	}
}

func (r *rnsRunner) run(ctx context.Context, items []item, done func(int)) error {
	return r.runOn(ctx, r.su, items, done)
}

// runOn computes items on su's schedule (the ladder, or the comb whose
// base is G) through its CPU twin, chunk by chunk.
func (r *rnsRunner) runOn(ctx context.Context, su *ladder.Setup, items []item, done func(int)) error {
	return inChunks(ctx, items, 8, r.workers, func(part []item) error {
		defer done(len(part))
		e := su.NewRNSExecutor(r.ext)
		jobs := make([]ladder.Job, 0, len(part))
		outs := make([]ladder.Channels, 0, len(part))
		idx := make([]int, 0, len(part))
		for i, it := range part {
			j, err := su.Prepare(it.x, it.y, it.k)
			if err != nil {
				it.res.Err = err
				continue
			}
			jobs = append(jobs, j)
			outs = append(outs, e.RunJob(j))
			idx = append(idx, i)
		}
		aff, errs := su.Finish(jobs, outs)
		for n, i := range idx {
			setAffine(part[i].res, aff[n], errs[n])
		}
		return nil
	})
}

func (r *rnsRunner) close() error { return nil }

// runBase computes k·G on the CPU twin of the comb kernel of kind comb
// (items' points are G), or on the ladder where the comb cannot be set up.
func (r *rnsRunner) runBase(ctx context.Context, comb ladder.Kind, items []item, done func(int)) error {
	c := &r.combs[combIndex(comb)]
	c.once.Do(func() {
		c.su, _ = ladder.NewSetupBits(r.su.Curve, comb, r.su.Params.Bits)
	})
	if c.su == nil {
		return r.run(ctx, items, done)
	}
	return r.runOn(ctx, c.su, items, done)
}
