package ecmul_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
)

// faultDriver installs a fake CUDA driver, its kernel emulated by the CPU
// twin, as the gpu backend of the engines New creates during the test.
func faultDriver(t *testing.T, _ *curves.Curve) *fakecuda.Driver {
	t.Helper()
	d := fakecuda.New()
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	t.Cleanup(ecmul.GPUItemsFrom(1)) // the prepare and finish kernels on the tests' small batches too
	return d
}

// smallBatchesInPlace makes the test's small batches run the ladder alone,
// as they do outside the tests: their chunks then take the small kernel in
// place in the pinned buffers (a wire chunk always copies).
func smallBatchesInPlace(t *testing.T) {
	t.Cleanup(ecmul.GPUItemsFrom(1 << 30))
}

// faultCase is a batch and, for every item, what it must give: a point,
// infinity (nil with err nil), or an item error.
type faultCase struct {
	pts  []*ecmul.Point
	ks   []*big.Int
	want []*ecmul.Point
	bad  map[int]error
}

// newFaultCase builds count items on c: random points and scalars shifted
// by shift (so two cases with different shifts have different results for
// every item), item 1 an invalid point and item 4+shift a multiple of n.
func newFaultCase(t *testing.T, c *curves.Curve, count int, shift int64) faultCase {
	t.Helper()
	rng := newRNG(77)
	fc := faultCase{bad: map[int]error{}}
	for i := range count {
		p := randPoint(t, rng, c)
		k := randScalar(rng, c)
		k.Add(k, big.NewInt(shift))
		switch i {
		case 1:
			p = &ecmul.Point{X: big.NewInt(1), Y: big.NewInt(1)}
			fc.bad[i] = curves.ErrNotOnCurve
		case 4 + int(shift):
			k = new(big.Int).Mul(c.N(), big.NewInt(3+shift))
		}
		fc.pts, fc.ks = append(fc.pts, p), append(fc.ks, k)
		if _, isBad := fc.bad[i]; isBad {
			fc.want = append(fc.want, nil)
			continue
		}
		fc.want = append(fc.want, want(t, c, p, k, false))
	}
	return fc
}

// requireHonest checks a batch's results: invalid items carry their own
// error; when the batch failed (batchErr non-nil), every other item either
// carries that error and no result, or is right; when it did not, every
// other item is right. It returns how many valid items were computed.
func requireHonest(t *testing.T, fc faultCase, res []ecmul.Result, batchErr error) int {
	t.Helper()
	require.Len(t, res, len(fc.pts))
	computed := 0
	for i, r := range res {
		if werr, isBad := fc.bad[i]; isBad {
			require.ErrorIs(t, r.Err, werr, "item %d", i)
			continue
		}
		if r.Err != nil {
			require.Error(t, batchErr, "item %d failed (%v) in a batch that succeeded", i, r.Err)
			require.ErrorIs(t, r.Err, batchErr, "item %d", i)
			require.Nil(t, r.X, "item %d failed but has a result", i)
			require.Nil(t, r.Y, "item %d failed but has a result", i)
			require.False(t, r.Infinity, "item %d failed but has a result", i)
			continue
		}
		computed++
		requireResult(t, r, fc.want[i], "item %d", i)
	}
	return computed
}

// runCalls are the driver calls a batch makes after the engine is open;
// zeroCopyCalls those of a batch in small chunks, which the spread kernel
// computes on the pinned buffers in place, untimed.
var (
	runCalls      = []string{"EventRecord", "MemcpyHtoDAsync", "LaunchKernel", "LaunchKernelFirst", "MemcpyDtoHAsync", "EventSynchronize", "EventElapsedMs"}
	zeroCopyCalls = []string{"LaunchKernel", "StreamSynchronize"}
)

// openCalls are the driver calls New makes to open the gpu backend.
var openCalls = []string{"Device", "PrimaryCtxRetain", "CtxSetCurrent", "ModuleLoadData", "ModuleGetFunction",
	"DeviceAttribute", "OccupancyBlocksPerSM", "MemAlloc", "MemcpyHtoD", "StreamCreate", "MemAllocHost", "MemHostDevicePointer", "EventCreate"}

// TestGPUFaultEveryCall fails, one at a time, every driver call a batch
// makes through the root API: each of the engine's copies (up and down),
// launches, stream synchronisations and event records, at every position
// in the batch. The batch returns the driver's error; no item is reported
// computed that was not (the pinned buffers hold another batch's valid
// results beforehand, so a stale chunk reported as computed would show);
// the engine computes the next batch correctly; Close releases every
// resource. A failure of the timing query alone does not fail the batch.
func TestGPUFaultEveryCall(t *testing.T) {
	for _, m := range []struct {
		mapping diag.Mapping
		calls   []string
	}{{diag.MappingBlock, runCalls}, {diag.MappingDefault, zeroCopyCalls}} {
		t.Run("mapping="+m.mapping.String(), func(t *testing.T) { testGPUFaultEveryCall(t, m.mapping, m.calls) })
	}
}

func testGPUFaultEveryCall(t *testing.T, mapping diag.Mapping, runCalls []string) {
	c := curves.P224()
	d := faultDriver(t, c)
	if mapping == diag.MappingDefault {
		smallBatchesInPlace(t)
	}
	const items, chunk = 7, 2 // four chunks over the slots, the last one short
	fc := newFaultCase(t, c, items, 0)
	other := newFaultCase(t, c, items, 1)
	opts, gpuOpts := ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: chunk, Mapping: mapping}

	// How often a clean batch calls each method.
	eng, err := diag.New(pub(c), opts, gpuOpts)
	require.NoError(t, err)
	before := map[string]int{}
	for _, m := range runCalls {
		before[m] = d.Calls(m)
	}
	copies := func() int { return d.Calls("MemcpyHtoDAsync") + d.Calls("MemcpyDtoHAsync") }
	events := func() int { return d.Calls("EventRecord") + d.Calls("EventElapsedMs") }
	copiesBefore, eventsBefore := copies(), events()
	res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
	require.NoError(t, err)
	require.Equal(t, items-1, requireHonest(t, fc, res, nil))
	counts := map[string]int{}
	for _, m := range runCalls {
		counts[m] = d.Calls(m) - before[m]
		require.Positive(t, counts[m], m)
	}
	if !slices.Contains(runCalls, "MemcpyHtoDAsync") {
		require.Equal(t, copiesBefore, copies(), "small chunks are computed in place, with no copies")
		require.Equal(t, eventsBefore, events(), "small chunks are not timed")
	}
	require.NoError(t, eng.Close())
	require.Zero(t, d.Live())

	for _, m := range runCalls {
		for nth := 1; nth <= counts[m]; nth++ {
			t.Run(fmt.Sprintf("%s/%d", m, nth), func(t *testing.T) {
				eng, err := diag.New(pub(c), opts, gpuOpts)
				require.NoError(t, err)
				res, err := scalarMult(eng, context.Background(), other.pts, other.ks)
				require.NoError(t, err)
				requireHonest(t, other, res, nil)

				d.FailAt(m, nth, nil)
				res, err = scalarMult(eng, context.Background(), fc.pts, fc.ks)
				d.ClearFailures()
				if m == "EventElapsedMs" {
					require.NoError(t, err, "a failed timing query fails nothing")
					require.Equal(t, items-1, requireHonest(t, fc, res, nil))
				} else {
					var ce *gpu.CUDAError
					require.ErrorAs(t, err, &ce)
					require.Equal(t, fakecuda.Symbol(m), ce.Call)
					computed := requireHonest(t, fc, res, err)
					require.Less(t, computed, items-1, "the failed chunk's items were reported computed")
				}

				res, err = scalarMult(eng, context.Background(), fc.pts, fc.ks)
				require.NoError(t, err, "the engine is usable after the fault")
				require.Equal(t, items-1, requireHonest(t, fc, res, nil))
				require.NoError(t, eng.Close())
				require.Zero(t, d.Live(), "Close releases everything: %+v", d.Resources())
			})
		}
	}
}

// TestGPUFaultOpen fails, one at a time, every driver call of opening the
// gpu backend, allocations of device and pinned memory included, at every
// position: New fails with the driver's error, releases what it had
// acquired, and the next New works; with the auto backend the same fault
// makes New fall back to the cpu backend, with nothing held on the device.
func TestGPUFaultOpen(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	opts, gpuOpts := ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 4}
	before := map[string]int{}
	for _, m := range openCalls {
		before[m] = d.Calls(m)
	}
	eng, err := diag.New(pub(c), opts, gpuOpts)
	require.NoError(t, err)
	require.NoError(t, eng.Close())
	counts := map[string]int{}
	for _, m := range openCalls {
		counts[m] = d.Calls(m) - before[m]
		require.Positive(t, counts[m], m)
	}
	fc := newFaultCase(t, c, 3, 0)
	for _, m := range openCalls {
		for nth := 1; nth <= counts[m]; nth++ {
			t.Run(fmt.Sprintf("%s/%d", m, nth), func(t *testing.T) {
				d.FailAt(m, nth, nil)
				eng, err := diag.New(pub(c), opts, gpuOpts)
				d.ClearFailures()
				var ce *gpu.CUDAError
				require.ErrorAs(t, err, &ce)
				require.Nil(t, eng)
				require.Zero(t, d.Live(), "a failed New releases what it acquired: %+v", d.Resources())

				d.FailAt(m, nth, nil)
				auto, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.Auto}, gpuOpts)
				d.ClearFailures()
				require.NoError(t, err)
				require.Equal(t, ecmul.CPU, auto.Backend())
				require.Zero(t, d.Live())
				require.NoError(t, auto.Close())

				eng, err = diag.New(pub(c), opts, gpuOpts)
				require.NoError(t, err)
				res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
				require.NoError(t, err)
				require.Equal(t, 2, requireHonest(t, fc, res, nil))
				require.NoError(t, eng.Close())
				require.Zero(t, d.Live())
			})
		}
	}
}

// TestGPUAfterClose: a closed gpu engine computes nothing and answers every
// call, a second Close and an empty batch included, with an error matching
// both ecmul.ErrClosed and gpu.ErrClosed.
func TestGPUAfterClose(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 2})
	require.NoError(t, err)
	require.NoError(t, eng.Close())
	err = eng.Close()
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.ErrorIs(t, err, gpu.ErrClosed)
	require.Zero(t, d.Live())
	launches := d.Launches()
	fc := newFaultCase(t, c, 3, 0)
	res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.ErrorIs(t, err, gpu.ErrClosed)
	requireNoneComputed(t, res, ecmul.ErrClosed)
	require.Equal(t, launches, d.Launches())
	res, err = scalarMult(eng, context.Background(), nil, nil)
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.Empty(t, res)
	_, err = diag.KernelTimes(eng, fc.pts[:1], fc.ks[:1], 1, 1)
	require.ErrorIs(t, err, ecmul.ErrClosed)
}

// TestGPUChunkShapes runs batches of every size around the chunk size on
// the gpu backend over the fake driver: the chunking handles any count, an
// empty batch included, and launches exactly ⌈valid items/chunk⌉ kernels
// (invalid items never reach the device).
func TestGPUChunkShapes(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	const chunk = 3
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: chunk})
	require.NoError(t, err)
	all := newFaultCase(t, c, 2*chunk+1, 0)
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 2*chunk + 1} {
		fc := faultCase{pts: all.pts[:n], ks: all.ks[:n], want: all.want[:n], bad: map[int]error{}}
		valid := 0
		for i := range n {
			if werr, isBad := all.bad[i]; isBad {
				fc.bad[i] = werr
			} else {
				valid++
			}
		}
		launches := d.Launches()
		res, err := scalarMult(eng, context.Background(), fc.pts, fc.ks)
		require.NoError(t, err, "%d items", n)
		require.Equal(t, valid, requireHonest(t, fc, res, nil), "%d items", n)
		// the items are checked as their chunks are filled: an invalid one
		// takes its place in a chunk, with G times 0 in its stead
		require.Equal(t, 5*((n+chunk-1)/chunk), d.Launches()-launches, "%d items: the unpack, the prepare, the ladder, the finish and the pack per chunk", n)
	}
	require.NoError(t, eng.Close())
	require.Zero(t, d.Live())
}

// TestGPUAbsurdOptions: chunk and block sizes whose buffer sizes or thread
// counts would overflow are refused by New, before anything is allocated
// (a chunk of 2^62 + 1 items used to wrap the buffer sizes to a few bytes,
// and the first batch wrote past its pinned buffers).
func TestGPUAbsurdOptions(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	for _, g := range []diag.Tuning{
		{Chunk: 1<<62 + 1}, {Chunk: 1 << 40}, {Chunk: int(^uint(0) >> 1)},
		{ItemsPerBlock: 1 << 62}, {ItemsPerBlock: 1 << 60, Mapping: diag.MappingBlock}, {ItemsPerBlock: 1 << 20},
	} {
		e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, g)
		require.Error(t, err, "%+v", g)
		require.Nil(t, e)
		require.Zero(t, d.Live(), "%+v", g)
	}
	e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 1})
	require.NoError(t, err)
	fc := newFaultCase(t, c, 3, 0)
	res, err := scalarMult(e, context.Background(), fc.pts, fc.ks)
	require.NoError(t, err)
	require.Equal(t, 2, requireHonest(t, fc, res, nil))
	require.NoError(t, e.Close())
}
