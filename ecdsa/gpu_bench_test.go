package ecdsa

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// gpuBenchPlans are the plans of Verify's pipeline that BenchmarkVerifyGPU
// compares, the library's first: the most items of a step, the first and
// last step's (the most again where the steps do not ramp), the host's
// workers (0 for the library's), whether a step's calls are marked as
// followed by the next steps' (engine.WithOverlap), and whether the verify
// kernel judges the signatures (where the engine has it) or the host adds
// the points.
var gpuBenchPlans = []struct {
	most, ramp, workers int
	overlap, kernel     bool
}{
	{subBatch, rampStep, 0, true, true},
	{subBatch, rampStep, 0, true, false},
	{subBatch, rampStep, 0, false, true},
	{subBatch, subBatch, 0, true, true},
	{subBatch * 2, rampStep, 0, true, true},
	{subBatch, rampStep, 8, true, true},
}

// gpuBenchItems is the batch of BenchmarkVerifyGPU, the size at which
// ecmul bench compares ECDSA with k·P.
const gpuBenchItems = 1 << 22

// BenchmarkVerifyGPU splits Verify's time on the gpu backend, per curve,
// into what the engine alone takes and what the host adds, beside the
// bytes API's k·P of as many items (the rate ECDSA is compared with):
//   - kP: ScalarMultBytes of the batch's keys by its u2, in one call and in
//     calls of a step each;
//   - u1G: ScalarBaseMultVarTimeBytes of its u1, the same ways;
//   - engine: Verify's pipeline with the host's work left out (the scalars
//     written once, the results not read): the GPU's bound;
//   - verify: Verify;
//
// the last two with the library's plan and others (gpuBenchPlans).
//
// Each reports items/s. It skips without a GPU.
func BenchmarkVerifyGPU(b *testing.B) {
	for _, c := range curves.All() {
		pc, err := ecmul.ParseCurve(c.Name())
		if err != nil {
			b.Fatal(err)
		}
		e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.GPU})
		if errors.Is(err, ecmul.ErrNoDevice) {
			b.Skip("no GPU")
		}
		if err != nil {
			b.Fatal(err)
		}
		warmUp(b, e, c)
		g := &gpuBench{c: c, e: e, base: lazyFixture(c)}
		g.calls(b)
		g.pipelines(b)
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// gpuBench is BenchmarkVerifyGPU on one curve: its engine, and its batch
// of gpuBenchItems valid signatures, made by the first sub-benchmark that
// runs.
type gpuBench struct {
	c    *curves.Curve
	e    *ecmul.Engine
	base func(testing.TB) *hostFixture
	f    *hostFixture
}

func (g *gpuBench) fixture(b *testing.B) *hostFixture {
	if g.f == nil {
		g.f = g.base(b).tiled(gpuBenchItems / fixtureItems)
	}
	b.ResetTimer()
	return g.f
}

// calls times the batch's k·P (u2·Q) and variable-time k·G (u1·G) alone,
// in one call and in calls of a step, one after the other.
func (g *gpuBench) calls(b *testing.B) {
	ctx, L, size := context.Background(), g.c.ByteLen(), 1+2*g.c.ByteLen()
	out, status := make([]byte, gpuBenchItems*size), make([]ecmul.Status, gpuBenchItems)
	inSteps := func(step int, call func(lo, hi int) error) func() error {
		return func() error {
			for lo := 0; lo < gpuBenchItems; lo += step {
				if err := call(lo, min(lo+step, gpuBenchItems)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, step := range []int{gpuBenchItems, subBatch} {
		b.Run(fmt.Sprintf("%s/kP/step=%d", g.c.Name(), step), func(b *testing.B) {
			f := g.fixture(b)
			itemRate(b, inSteps(step, func(lo, hi int) error {
				return g.e.ScalarMultBytes(ctx, out[lo*size:hi*size], status[lo:hi],
					f.scalars[(gpuBenchItems+lo)*L:(gpuBenchItems+hi)*L], f.keys[lo*size:hi*size])
			}))
			lastCall(b, g.e)
		})
		b.Run(fmt.Sprintf("%s/u1G/step=%d", g.c.Name(), step), func(b *testing.B) {
			f := g.fixture(b)
			itemRate(b, inSteps(step, func(lo, hi int) error {
				return g.e.ScalarBaseMultVarTimeBytes(ctx, out[lo*size:hi*size], status[lo:hi], f.scalars[lo*L:hi*L])
			}))
			lastCall(b, g.e)
		})
	}
}

// pipelines times Verify's pipeline, the engine's part alone and the
// whole, with each plan of gpuBenchPlans.
func (g *gpuBench) pipelines(b *testing.B) {
	ctx := context.Background()
	verdicts := make([]Verdict, gpuBenchItems)
	for _, plan := range gpuBenchPlans {
		restoreSteps, oldRamp := SetSubBatch(plan.most), rampStep
		restoreWorkers, restoreOverlap := SetHostWorkers(plan.workers), SetOverlapSteps(plan.overlap)
		restoreKernel := SetGPUVerify(plan.kernel)
		rampStep = plan.ramp
		name := fmt.Sprintf("%s/%%s/step=%d,ramp=%d,workers=%d,overlap=%v,kernel=%v", g.c.Name(), plan.most, plan.ramp, hostWorkers(), plan.overlap, plan.kernel)
		b.Run(fmt.Sprintf(name, "engine"), func(b *testing.B) {
			f := g.fixture(b)
			bt, err := newBatch(g.c, verdicts, f.digests, f.sigs, f.keys)
			if err != nil {
				b.Fatal(err)
			}
			bt.takeKernel(g.e)
			itemRate(b, func() error { return bt.run(ctx, g.e, engineOnly(f, bt.L)) })
		})
		b.Run(fmt.Sprintf(name, "verify"), func(b *testing.B) {
			f := g.fixture(b)
			itemRate(b, func() error { return Verify(ctx, g.e, verdicts, f.digests, f.sigs, f.keys) })
			allValid(b, verdicts)
		})
		restoreSteps()
		restoreWorkers()
		restoreOverlap()
		restoreKernel()
		rampStep = oldRamp
	}
}

// itemRate runs a batch of gpuBenchItems items b.N times and reports
// items/s.
func itemRate(b *testing.B, run func() error) {
	start := time.Now()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*gpuBenchItems/time.Since(start).Seconds(), "items/s")
}

// warmUp makes e open what its first calls of each kind open (the
// variable-time comb's table and kernel, on their first k·G), so that no
// timed call pays for it.
func warmUp(b *testing.B, e *ecmul.Engine, c *curves.Curve) {
	L, size := c.ByteLen(), 1+2*c.ByteLen()
	scalars := make([]byte, L)
	scalars[L-1] = 1
	out, status := make([]byte, size), make([]ecmul.Status, 1)
	if err := e.ScalarBaseMultVarTimeBytes(context.Background(), out, status, scalars); err != nil {
		b.Fatal(err)
	}
	if err := e.ScalarMultBytes(context.Background(), make([]byte, size), status, scalars, out); err != nil {
		b.Fatal(err)
	}
}

// lastCall reports where the time of e's last call went (diag.LastBatch),
// in milliseconds: its wall time, the host's fills, drains and waits, and
// the device's kernels (prepare and finish apart) and copies.
func lastCall(b *testing.B, e *ecmul.Engine) {
	st, ok := diag.LastBatch(e)
	if !ok {
		return
	}
	for _, m := range []struct {
		unit string
		v    float64
	}{{"wall-ms", st.WallMs}, {"fill-ms", st.FillMs}, {"drain-ms", st.DrainMs}, {"wait-ms", st.WaitMs},
		{"kernel-ms", st.KernelMs}, {"prepare-ms", st.PrepareMs}, {"finish-ms", st.FinishMs}, {"copy-ms", st.CopyMs},
		{"chunks", float64(st.Chunks)}} {
		b.ReportMetric(m.v, m.unit)
	}
	for _, t := range st.Timeline {
		b.Logf("chunk [%d, %d): start %.2f copied in %.2f prepared %.2f laddered %.2f ran %.2f done %.2f ms",
			t.Lo, t.Hi, t.Start, t.CopiedIn, t.Prepared, t.Laddered, t.Ran, t.Done)
	}
}

// engineOnly is the host's work of a pipeline over f's items reduced to
// writing a step buffer's scalars where it is first used for a step of
// that size (a later step of the size computes an earlier one's scalars:
// valid ones, which the engine takes the same time over), and nothing
// after the engine.
func engineOnly(f *hostFixture, L int) hostWork {
	filled := make(map[*byte]int) // the step size each buffer holds
	count := len(f.digests)
	return hostWork{
		prepare: func(_ context.Context, st span, scalars []byte) error {
			if m := st.hi - st.lo; filled[&scalars[0]] != m {
				copy(scalars[:m*L], f.scalars[st.lo*L:st.hi*L])
				copy(scalars[m*L:2*m*L], f.scalars[(count+st.lo)*L:(count+st.hi)*L])
				filled[&scalars[0]] = m
			}
			return nil
		},
		finish: func(context.Context, *stepBuffer, span) error { return nil },
	}
}
