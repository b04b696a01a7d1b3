package engine

import (
	"context"
	"sync"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/ctec"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// inChunks runs do on consecutive chunks of items on up to workers
// goroutines, stopping between chunks once ctx ends.
func inChunks(ctx context.Context, items []item, chunk, workers int, do func(part []item) error) error {
	return par.Chunks(ctx, len(items), chunk, workers, func(lo, hi int) error { return do(items[lo:hi]) })
}

// cpuRunner computes on the CPU in constant time (internal/ctec): k·P on
// a four-bit fixed window, k·G on a comb, both with complete formulas, in
// four-limb Montgomery arithmetic. Nothing that depends on a scalar or a
// result branches or picks an address, from the scalar's bytes to the
// result's and its Status on the bytes path (runBytes); the *big.Int
// path (run) adds math/big's conversions around it.
type cpuRunner struct {
	curve   *curves.Curve
	ec      *ctec.Curve
	workers int
}

// cpuChunk is the items a worker of the cpu backend takes at a time: a
// few milliseconds of work, so that a batch stops soon once its context
// ends.
const cpuChunk = 64

func newCPURunner(c *curves.Curve, workers int) (*cpuRunner, error) {
	ec, err := ctec.For(c)
	if err != nil {
		return nil, err
	}
	return &cpuRunner{curve: c, ec: ec, workers: workers}, nil
}

// run computes the items of the *big.Int path: each scalar (validated:
// at most 512 bits, not negative) is written into 64 bytes and reduced mod
// n in constant time (curves.Curve.ReduceScalar), then multiplied as on
// the bytes path; the result's math/big form, and whether it is the point
// at infinity, are then read with branches, as the API's types need.
func (r *cpuRunner) run(ctx context.Context, items []item, done func(int)) error {
	L := r.ec.ScalarBytes()
	slab := newResultSlab(len(items), L)
	return par.Chunks(ctx, len(items), cpuChunk, r.workers, func(lo, hi int) error {
		defer done(hi - lo)
		var wide [curves.MaxScalarBytes]byte
		var buf [3 * curves.MaxByteLen]byte
		k, xy := buf[:L], buf[L:3*L]
		for i := lo; i < hi; i++ {
			it := items[i]
			it.k.FillBytes(wide[:])
			if err := r.curve.ReduceScalar(k, wide[:]); err != nil {
				it.res.Err = err
				continue
			}
			r.multiply(it, k, xy, slab, i)
		}
		return nil
	})
}

// multiply computes item i, its scalar reduced into k, with xy as scratch.
func (r *cpuRunner) multiply(it item, k, xy []byte, slab *resultSlab, i int) {
	f := r.ec.Field()
	var a ctec.Affine
	f.SetBig(&a.X, it.x)
	f.SetBig(&a.Y, it.y)
	var p ctec.Point
	r.ec.ScalarMult(&p, &a, k)
	inf, onCurve := r.ec.Encode(xy, &p)
	switch {
	case inf != 0:
		it.res.Infinity = true
	case onCurve == 0:
		it.res.Err = ladder.ErrResultCheck
	default:
		slab.set(it.res, i, xy)
	}
}

// runBytes computes a bytes batch: each point is decoded and validated
// (public, with branches), each scalar's L bytes go to the multiplication
// as they are (any value: k and k mod n give the same point), and the
// result's bytes and its Status (a point, the point at infinity, a failed
// check) are chosen by masks (statusOfMasks, then put). A batch of one
// point, G (newBaseBatch), runs on the comb, ScalarBaseMultVarTimeBytes's
// too.
func (r *cpuRunner) runBytes(ctx context.Context, b *bytesBatch, done func(int)) error {
	f := r.ec.Field()
	return par.Chunks(ctx, b.count, cpuChunk, r.workers, func(lo, hi int) error {
		defer done(hi - lo)
		xy := make([]byte, 2*b.size)
		for i := lo; i < hi; i++ {
			var p ctec.Point
			if b.onePoint {
				r.ec.ScalarBaseMult(&p, b.scalar(i))
			} else {
				q, err := r.curve.DecodeSEC1(b.point(i))
				if err != nil {
					b.put(i, statusOf(err), nil)
					continue
				}
				var a ctec.Affine
				f.SetBig(&a.X, q.X)
				f.SetBig(&a.Y, q.Y)
				r.ec.ScalarMult(&p, &a, b.scalar(i))
			}
			b.put(i, statusOfMasks(r.ec.Encode(xy, &p)), xy)
		}
		return nil
	})
}

// statusOfMasks returns the Status of a result from Encode's masks, by
// masks: StatusInfinity for the point at infinity, StatusResultCheck for a
// point off the curve, StatusPoint otherwise.
func statusOfMasks(infinity, onCurve uint64) Status {
	s := uint64(StatusPoint)
	s = s&^infinity | uint64(StatusInfinity)&infinity
	bad := ^infinity &^ onCurve
	s = s&^bad | uint64(StatusResultCheck)&bad
	return Status(s)
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
