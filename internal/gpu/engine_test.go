package gpu_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

type fixture struct {
	d    *fakecuda.Driver
	su   *ladder.Setup
	cfg  gpu.Config
	jobs []ladder.Job
	want []ladder.Channels
	// overlapped marks the fixture's batches Batch.Overlapped
	overlapped bool
}

func newFixture(t *testing.T, items int) *fixture {
	su, err := ladder.NewSetup(curves.P224())
	require.NoError(t, err)
	jobs, _, _, _ := randomJobs(t, su, items, 9)
	d := fakecuda.New()
	d.OnLaunch = kernelemu.Launch(d)
	n := su.Params.N
	k, err := kernels.Find("P-224", su.Schedule.Kind.String(), "shenoy", "warp", "c16")
	require.NoError(t, err)
	return &fixture{d: d, su: su, jobs: jobs, want: cpuTwin(su, jobs), cfg: gpu.Config{
		Image: []byte("fatbin"), Entry: k.Name(), Constants: su.KernelConstants(),
		InRows: ladder.ElementRows(n), ScalarRows: su.ScalarWords(), OutRows: su.OutputRows(),
		ItemsPerBlock: 2, BlockThreads: k.Threads(n, 2), Chunk: 3,
	}}
}

// batch returns a Batch over the fixture's jobs that records what was drained.
func (f *fixture) batch(got []ladder.Channels, drained []bool, mu *sync.Mutex) gpu.Batch {
	return gpu.Batch{
		Count:      len(f.jobs),
		Overlapped: f.overlapped,
		Fill: func(lo, hi int, in, sc []uint32) {
			for i := lo; i < hi; i++ {
				f.su.PackInput(in, sc, hi-lo, i-lo, f.jobs[i])
			}
		},
		Drain: func(lo, hi int, out []uint32) error {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				got[i] = f.su.UnpackOutput(out, hi-lo, i-lo)
				drained[i] = true
			}
			return nil
		},
	}
}

// requireTimeline checks a Run's timeline: one row per chunk, the chunks
// covering [0, count) once, each row's stages in order from the Run's
// origin.
func requireTimeline(t *testing.T, tl []gpu.ChunkTimes, count, chunks int) {
	t.Helper()
	require.Len(t, tl, chunks)
	covered := make([]int, count)
	for _, c := range tl {
		for i := c.Lo; i < c.Hi; i++ {
			covered[i]++
		}
		stages := []float64{0, c.Start, c.CopiedIn, c.Prepared, c.Laddered, c.Ran, c.Done}
		require.True(t, slices.IsSorted(stages), "stages in order: %+v", c)
	}
	require.Equal(t, slices.Repeat([]int{1}, count), covered)
}

func TestEngineChunksMatchCPUTwin(t *testing.T) {
	f := newFixture(t, 8)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	got, drained := make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
	var mu sync.Mutex
	st, err := eng.Run(context.Background(), f.batch(got, drained, &mu))
	require.NoError(t, err)
	require.Equal(t, 3, st.Chunks, "8 items in chunks of 3")
	require.Equal(t, f.want, got)
	require.Positive(t, st.DrainMs, "the drains are timed")
	require.GreaterOrEqual(t, st.WallMs, st.FillMs+st.WaitMs, "the fills and waits lie within the Run")
	requireTimeline(t, st.Timeline, len(f.jobs), 3)
	require.Equal(t, []string{f.cfg.Entry}, f.d.FunctionNames())
	require.NoError(t, eng.Close())
	require.Zero(t, f.d.Live(), "everything released")
	_, err = eng.Run(context.Background(), f.batch(got, drained, &mu))
	require.ErrorIs(t, err, gpu.ErrClosed)
}

// TestEngineTimesEachEventOnce: a chunk's stages are timed by one query of
// each of its six events from the Run's origin, and the Run's kernel and
// copy times are its chunks' stages.
func TestEngineTimesEachEventOnce(t *testing.T) {
	f := newFixture(t, 8)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer eng.Close()
	got, drained := make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
	var mu sync.Mutex
	before := f.d.Calls("EventElapsedMs")
	st, err := eng.Run(context.Background(), f.batch(got, drained, &mu))
	require.NoError(t, err)
	require.Equal(t, 6*st.Chunks, f.d.Calls("EventElapsedMs")-before)
	requireTimeline(t, st.Timeline, len(f.jobs), st.Chunks)
	var kernel, copies float64
	for _, c := range st.Timeline {
		kernel += c.Ran - c.CopiedIn
		copies += c.CopiedIn - c.Start + c.Done - c.Ran
	}
	require.Positive(t, st.KernelMs)
	require.InDelta(t, kernel, st.KernelMs, 1e-9)
	require.InDelta(t, copies, st.CopyMs, 1e-9)
}

// TestEngineFaults fails one driver call at a time: the run (or Open)
// returns the error, no item is drained that was not computed, nothing
// leaks, and after a failed run the engine still computes correctly.
func TestEngineFaults(t *testing.T) {
	f := newFixture(t, 7)
	for _, call := range []string{"MemcpyHtoDAsync", "LaunchKernel", "EventSynchronize", "MemcpyDtoHAsync", "EventRecord"} {
		for _, nth := range []int{1, 3} {
			t.Run(call, func(t *testing.T) {
				eng, err := gpu.Open(f.d, f.cfg)
				require.NoError(t, err)
				launchesBefore := f.d.Launches()
				f.d.FailAt(call, nth, nil)
				got, drained := make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
				var mu sync.Mutex
				_, err = eng.Run(context.Background(), f.batch(got, drained, &mu))
				f.d.ClearFailures()
				require.Error(t, err)
				var ce *gpu.CUDAError
				require.ErrorAs(t, err, &ce)
				for i := range f.jobs {
					if drained[i] {
						require.Equal(t, f.want[i], got[i], "item %d drained with a wrong value", i)
					}
				}
				require.LessOrEqual(t, f.d.Launches()-launchesBefore, 3)
				// the engine is still usable
				got, drained = make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
				_, err = eng.Run(context.Background(), f.batch(got, drained, &mu))
				require.NoError(t, err)
				require.Equal(t, f.want, got)
				require.NoError(t, eng.Close())
				require.Zero(t, f.d.Live())
			})
		}
	}
	for _, call := range []string{"ModuleLoadData", "ModuleGetFunction", "MemAlloc", "MemAllocHost", "StreamCreate", "EventCreate", "MemcpyHtoD", "PrimaryCtxRetain"} {
		for _, nth := range []int{1, 2} {
			t.Run("Open/"+call, func(t *testing.T) {
				f.d.FailAt(call, nth, nil)
				eng, err := gpu.Open(f.d, f.cfg)
				f.d.ClearFailures()
				if err == nil { // the call happens only once during Open
					require.NoError(t, eng.Close())
					require.Zero(t, f.d.Live())
					return
				}
				require.Nil(t, eng)
				require.Zero(t, f.d.Live(), "a failed Open releases what it acquired")
			})
		}
	}
}

func TestEngineCancel(t *testing.T) {
	f := newFixture(t, 9)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer eng.Close()
	ctx, cancel := context.WithCancel(context.Background())
	got, drained := make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
	var mu sync.Mutex
	b := f.batch(got, drained, &mu)
	fill := b.Fill
	b.Fill = func(lo, hi int, in, sc []uint32) {
		fill(lo, hi, in, sc)
		cancel() // cancelled while the first chunk is being packed
	}
	before := f.d.Launches()
	_, err = eng.Run(ctx, b)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, f.d.Launches()-before, "stops within one chunk")
	for i := range f.jobs {
		if drained[i] {
			require.Equal(t, f.want[i], got[i])
		}
	}
}

func TestOpenRejectsBadConfig(t *testing.T) {
	d := fakecuda.New()
	_, err := gpu.Open(d, gpu.Config{})
	require.Error(t, err)
	_, err = gpu.Open(d, gpu.Config{Chunk: 1, ItemsPerBlock: 33, BlockThreads: 528, InRows: 1, OutRows: 1, ScalarRows: 1})
	require.ErrorContains(t, err, "threads per block")
	for _, n := range []int{-1, kernels.FinishItemsMax + 1} {
		_, err = gpu.Open(d, gpu.Config{Chunk: 1, ItemsPerBlock: 1, BlockThreads: 32, InRows: 1, OutRows: 1, ScalarRows: 1,
			Finish: &gpu.FinishKernel{Entry: "f", Constants: []uint32{1}, ResultRows: 1, ItemsPerThread: n}})
		require.ErrorContains(t, err, "items each", n)
	}
	require.Zero(t, d.Live())
}

// TestEngineSpreadsSmallChunks: with Config.ThreadsFor, a chunk too small to
// give each of the 132 SMs a full block runs ⌈n/132⌉ items per block; a
// large one, and every chunk without ThreadsFor, runs ItemsPerBlock.
func TestEngineSpreadsSmallChunks(t *testing.T) {
	for _, c := range []struct {
		items, chunk int
		spread       bool
		wantBlock    uint32 // threads per block of the first launch
		wantGrid     uint32
	}{
		{1, 1, true, 16, 1},       // one item: one block of one item
		{300, 300, true, 48, 100}, // ⌈300/132⌉ = 3 items per block of 16 lanes
		{300, 300, false, 64, 75}, // ItemsPerBlock 4 without ThreadsFor
		{600, 600, true, 64, 150}, // 600 >= 132·4: ItemsPerBlock
	} {
		if testing.Short() && c.items > 300 {
			continue // emulating the kernel on 600 items takes seconds (tens under -race): the full run checks it
		}
		f := newFixture(t, c.items)
		k, err := kernels.ByName(f.cfg.Entry)
		require.NoError(t, err)
		n := f.su.Params.N
		f.cfg.ItemsPerBlock, f.cfg.BlockThreads, f.cfg.Chunk = 4, k.Threads(n, 4), c.chunk
		if c.spread {
			f.cfg.ThreadsFor = func(items int) int { return k.Threads(n, items) }
		}
		var block, grid uint32
		emu := f.d.OnLaunch
		f.d.OnLaunch = func(fn string, g, b [3]uint32, params []unsafe.Pointer) error {
			if block == 0 {
				block, grid = b[0], g[0]
			}
			return emu(fn, g, b, params)
		}
		eng, err := gpu.Open(f.d, f.cfg)
		require.NoError(t, err)
		got, drained := make([]ladder.Channels, c.items), make([]bool, c.items)
		var mu sync.Mutex
		_, err = eng.Run(context.Background(), f.batch(got, drained, &mu))
		require.NoError(t, err)
		require.Equal(t, f.want, got)
		require.Equal(t, c.wantBlock, block, "%+v", c)
		require.Equal(t, c.wantGrid, grid, "%+v", c)
		require.NoError(t, eng.Close())
	}
}

// TestEngineRunsSmallChunksOnSmallKernel: with Config.Small, a chunk of at
// most ItemsPerSM items per SM (132 SMs) runs the small kernel, ⌈n/132⌉
// items per block, in place, its wait spinning on the stream; a larger one
// runs the main kernel between copies, its wait sleeping on an event.
func TestEngineRunsSmallChunksOnSmallKernel(t *testing.T) {
	for _, c := range []struct {
		items     int
		small     bool
		wantBlock uint32
		wantGrid  uint32
	}{
		{1, true, 32, 1},     // one warp of one item
		{264, true, 64, 132}, // 2 per SM: two items per block
		{265, false, 64, 67}, // past 2 per SM: the main kernel, 4 items per block
		{700, false, 64, 75}, // chunks of 300: three launches
	} {
		if testing.Short() && c.items > 300 {
			continue // emulating the kernel on 700 items takes seconds (tens under -race): the full run checks it
		}
		f := newFixture(t, c.items)
		main, err := kernels.ByName(f.cfg.Entry)
		require.NoError(t, err)
		spread, err := kernels.Find(main.Curve, main.Schedule, main.Ext, "spread", main.Channels)
		require.NoError(t, err)
		n := f.su.Params.N
		f.cfg.ItemsPerBlock, f.cfg.BlockThreads, f.cfg.Chunk = 4, main.Threads(n, 4), 300
		f.cfg.Small = &gpu.SmallKernel{Entry: spread.Name(), ItemsPerSM: 2, ItemsPerBlock: spread.MaxItemsPerBlock(n),
			ThreadsFor: func(items int) int { return spread.Threads(n, items) }}
		var mu sync.Mutex
		var entry string
		var block, grid uint32
		emu := f.d.OnLaunch
		f.d.OnLaunch = func(fn string, g, b [3]uint32, params []unsafe.Pointer) error {
			mu.Lock()
			if block == 0 {
				entry, block, grid = fn, b[0], g[0]
			}
			mu.Unlock()
			return emu(fn, g, b, params)
		}
		eng, err := gpu.Open(f.d, f.cfg)
		require.NoError(t, err)
		got, drained := make([]ladder.Channels, c.items), make([]bool, c.items)
		copies := f.d.Calls("MemcpyHtoDAsync") + f.d.Calls("MemcpyDtoHAsync")
		spins, sleeps := f.d.Calls("StreamSynchronize"), f.d.Calls("EventSynchronize")
		st, err := eng.Run(context.Background(), f.batch(got, drained, &mu))
		require.NoError(t, err)
		require.Equal(t, f.want, got)
		copies = f.d.Calls("MemcpyHtoDAsync") + f.d.Calls("MemcpyDtoHAsync") - copies
		spins, sleeps = f.d.Calls("StreamSynchronize")-spins, f.d.Calls("EventSynchronize")-sleeps
		wantEntry := main.Name()
		if c.small {
			wantEntry = spread.Name()
			require.Zero(t, copies, "the small kernel works on the pinned buffers in place")
			require.Equal(t, [2]int{1, 0}, [2]int{spins, sleeps}, "a small chunk's wait spins on its stream")
			require.Empty(t, st.Timeline, "a chunk in place is not timed")
		} else {
			require.Positive(t, copies)
			// chunks of 300, the last of items mod 300 (on the small kernel
			// when it is at most 2 per SM)
			full, last := c.items/300, c.items%300
			want := [2]int{0, full}
			if last > 0 && last <= 2*132 {
				want[0]++
			} else if last > 0 {
				want[1]++
			}
			require.Equal(t, want, [2]int{spins, sleeps}, "a chunk with copies waits on its blocking event, one in place spins")
			require.Len(t, st.Timeline, want[1], "each chunk with copies is on the timeline")
		}
		require.Equal(t, wantEntry, entry, "%+v", c)
		require.Equal(t, c.wantBlock, block, "%+v", c)
		require.Equal(t, c.wantGrid, grid, "%+v", c)
		require.NoError(t, eng.Close())
	}
	f := newFixture(t, 1)
	f.cfg.Small = smallSpread(t, f)
	for _, nth := range []int{1, 3, 9} { // mapping any of the slots' buffers fails Open, and nothing leaks
		f.d.FailAt("MemHostDevicePointer", nth, nil)
		_, err := gpu.Open(f.d, f.cfg)
		f.d.ClearFailures()
		var ce *gpu.CUDAError
		require.ErrorAs(t, err, &ce)
		require.Zero(t, f.d.Live())
	}
	f.cfg.Small = &gpu.SmallKernel{Entry: "ecm_ladder_p224_coz_shenoy_spread_c16", ItemsPerSM: 1, ItemsPerBlock: 17,
		ThreadsFor: func(items int) int { return 32 * items }}
	_, err := gpu.Open(f.d, f.cfg)
	require.ErrorContains(t, err, "small-chunk kernel")
}

// smallSpread returns the spread kernel of f's curve as Config.Small.
func smallSpread(t *testing.T, f *fixture) *gpu.SmallKernel {
	main, err := kernels.ByName(f.cfg.Entry)
	require.NoError(t, err)
	spread, err := kernels.Find(main.Curve, main.Schedule, main.Ext, "spread", main.Channels)
	require.NoError(t, err)
	n := f.su.Params.N
	return &gpu.SmallKernel{Entry: spread.Name(), ItemsPerSM: 2, ItemsPerBlock: spread.MaxItemsPerBlock(n),
		ThreadsFor: func(items int) int { return spread.Threads(n, items) }}
}

// TestEngineCutsBatchesInWaves: on a device whose wave (multiprocessors ×
// resident blocks × items per block) is 64 items, a batch of 400 runs in
// three chunks of whole waves (192, 192, 16), the host's work of one beside
// the kernel of another, and a batch of one wave in one chunk.
func TestEngineCutsBatchesInWaves(t *testing.T) {
	f := newFixture(t, 1)
	spec := fakecuda.H100()
	spec.SMs = 1
	d := fakecuda.New(spec)
	cfg := f.cfg
	cfg.Chunk = 1000
	cfg.ItemsPerBlock = 2
	cfg.BlockThreads = 32 // 64 such blocks fit 2048 threads: 32, the most, are resident
	eng, err := gpu.Open(d, cfg)
	require.NoError(t, err)
	defer eng.Close()
	for _, c := range []struct {
		count int
		spans [][2]int
	}{
		{400, [][2]int{{0, 192}, {192, 384}, {384, 400}}},
		{64, [][2]int{{0, 64}}},
		{65, [][2]int{{0, 64}, {64, 65}}},
	} {
		var mu sync.Mutex
		var spans [][2]int
		st, err := eng.Run(context.Background(), gpu.Batch{
			Count: c.count,
			Fill:  func(lo, hi int, in, sc []uint32) {},
			Drain: func(lo, hi int, out []uint32) error {
				mu.Lock()
				defer mu.Unlock()
				spans = append(spans, [2]int{lo, hi})
				return nil
			},
		})
		require.NoError(t, err)
		slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
		require.Equal(t, c.spans, spans, "%d items", c.count)
		require.Equal(t, len(c.spans), st.Chunks)
	}
}

// TestKernelTimesOnDeviceBuffers: after a small chunk computed in place in
// slot 0's pinned buffers, KernelTimes still times the kernel on data in
// device memory, not on the pinned buffers.
func TestKernelTimesOnDeviceBuffers(t *testing.T) {
	f := newFixture(t, 1)
	f.cfg.Small = smallSpread(t, f)
	var mu sync.Mutex
	inputs := launchInputs(f, &mu)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer eng.Close()
	got, drained := make([]ladder.Channels, 1), make([]bool, 1)
	_, err = eng.Run(context.Background(), f.batch(got, drained, &mu))
	require.NoError(t, err)
	require.Equal(t, f.want, got)
	_, err = eng.KernelTimes(1, func(in, sc []uint32) { f.su.PackInput(in, sc, 1, 0, f.jobs[0]) }, 1, 1)
	require.NoError(t, err)
	require.Len(t, *inputs, 3, "the chunk, then an untimed launch and the timed one")
	require.NotEqual(t, (*inputs)[0], (*inputs)[2], "the timed launch read the pinned buffer the small chunk used in place")
	require.Equal(t, (*inputs)[1], (*inputs)[2], "the untimed launch runs where the timed one does")
}

// launchInputs records the input buffer of each launch on f's driver,
// under mu, which then emulates it as before.
func launchInputs(f *fixture, mu *sync.Mutex) *[]gpu.DevicePtr {
	var inputs []gpu.DevicePtr
	emu := f.d.OnLaunch
	f.d.OnLaunch = func(fn string, g, b [3]uint32, params []unsafe.Pointer) error {
		mu.Lock()
		inputs = append(inputs, *(*gpu.DevicePtr)(params[1]))
		mu.Unlock()
		return emu(fn, g, b, params)
	}
	return &inputs
}

// TestKernelTimesSpreadsLaunches: a timing of several launches runs them
// in turn on every slot's device buffers, as a batch's chunks run, each
// on the items filled once, and reports one span per rep.
func TestKernelTimesSpreadsLaunches(t *testing.T) {
	f := newFixture(t, 1)
	var mu sync.Mutex
	recorded := launchInputs(f, &mu)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer eng.Close()
	fills := 0
	ms, err := eng.KernelTimes(1, func(in, sc []uint32) { fills++; f.su.PackInput(in, sc, 1, 0, f.jobs[0]) }, 5, 2)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, 1, fills)
	inputs := *recorded
	require.Len(t, inputs, 10, "no untimed launch before several")
	distinct := map[gpu.DevicePtr]bool{}
	for i, in := range inputs {
		distinct[in] = true
		require.Equal(t, inputs[i%5%gpu.SlotCount], in, "launch %d", i) // each rep from the first slot
	}
	require.Len(t, distinct, gpu.SlotCount, "every slot's buffers")
	_, err = eng.KernelTimes(1, func(in, sc []uint32) {}, 0, 1)
	require.Error(t, err)
}

// TestEngineAsyncSlowDrains runs chunks on a fake driver whose streams run
// their work later, on their own goroutines (fakecuda.Driver.Async), with
// drains slow enough that a later chunk's copy back into the same slot
// would overwrite outputs still being read: every result must still be the
// CPU twin's, on one device and on two.
func TestEngineAsyncSlowDrains(t *testing.T) {
	for _, devices := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d-devices", devices), func(t *testing.T) {
			f := newPoolFixture(t, 17, devices)
			f.d.Async = true
			p, err := gpu.OpenPool(f.d, f.cfg, nil)
			require.NoError(t, err)
			defer p.Close()
			got, drained := make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs))
			var mu sync.Mutex
			b := f.batch(got, drained, &mu)
			drain := b.Drain
			b.Drain = func(lo, hi int, out []uint32) error {
				time.Sleep(3 * time.Millisecond) // while the next chunks are queued
				return drain(lo, hi, out)
			}
			for range 3 {
				st, err := p.Run(context.Background(), b)
				require.NoError(t, err)
				require.GreaterOrEqual(t, st.Chunks, 4, "slots are reused")
				require.Equal(t, f.want, got)
			}
		})
	}
}

// TestFinishItemsOfLastChunks: the finish launches of a batch's chunks
// take kernels.FinishItemsPerThread items a thread, but for its last
// ones, as many as the slots, which take kernels.FinishItemsLastChunk; every chunk of a batch
// marked Overlapped takes the former, and every chunk of one marked
// Closing the latter.
func TestFinishItemsOfLastChunks(t *testing.T) {
	const chunk, chunks = 4096, gpu.SlotCount + 3
	for _, b := range []gpu.Batch{{}, {Overlapped: true}, {Closing: true}, {Overlapped: true, Closing: true}} {
		d := fakecuda.New()
		var perThread []int // items per thread of each finish launch, in launch order
		d.OnLaunch = func(fn string, grid, _ [3]uint32, params []unsafe.Pointer) error {
			if fn == "finish" {
				count := int(*(*uint32)(params[4]))
				for _, n := range []int{kernels.FinishItemsPerThread, kernels.FinishItemsLastChunk} {
					if int(grid[0]) == kernels.FinishGrid(count, n) {
						perThread = append(perThread, n)
						break
					}
				}
			}
			return nil
		}
		eng, err := gpu.Open(d, gpu.Config{Image: []byte("image"), Entry: "ladder", Constants: []uint32{1},
			InRows: 1, ScalarRows: 1, OutRows: 1, ItemsPerBlock: 32, BlockThreads: 32, Chunk: chunk,
			Finish: &gpu.FinishKernel{Entry: "finish", Constants: []uint32{1}, ResultRows: 1}})
		require.NoError(t, err)
		b.Count = chunk * chunks
		b.Fill, b.Drain = func(lo, hi int, in, sc []uint32) {}, func(lo, hi int, out []uint32) error { return nil }
		_, err = eng.Run(context.Background(), b)
		require.NoError(t, err)
		require.NoError(t, eng.Close())
		want := slices.Repeat([]int{kernels.FinishItemsPerThread}, chunks)
		switch {
		case b.Closing:
			want = slices.Repeat([]int{kernels.FinishItemsLastChunk}, chunks)
		case !b.Overlapped:
			want = append(want[:chunks-gpu.SlotCount], slices.Repeat([]int{kernels.FinishItemsLastChunk}, gpu.SlotCount)...)
		}
		require.Equal(t, want, perThread, "overlapped %v, closing %v", b.Overlapped, b.Closing)
	}
}

// TestPackSharesFinishGrid: a wire batch's pack kernel runs one item a
// thread, or, with FinishKernel.PackShares, on each chunk's finish grid.
func TestPackSharesFinishGrid(t *testing.T) {
	const chunk, chunks = 4096, 5
	for _, shares := range []bool{false, true} {
		d := fakecuda.New()
		grids := map[string][]uint32{} // each kernel's grid of each launch, in launch order
		d.OnLaunch = func(fn string, grid, _ [3]uint32, _ []unsafe.Pointer) error {
			grids[fn] = append(grids[fn], grid[0])
			return nil
		}
		eng, err := gpu.Open(d, gpu.Config{Image: []byte("image"), Entry: "ladder", Constants: []uint32{1},
			InRows: 1, ScalarRows: 1, OutRows: 1, ItemsPerBlock: 32, BlockThreads: 32, Chunk: chunk,
			Prepare: &gpu.PrepareKernel{Entry: "prepare", Constants: []uint32{1}, Unpack: "unpack"},
			Finish:  &gpu.FinishKernel{Entry: "finish", Constants: []uint32{1}, ResultRows: 1, Pack: "pack", PackShares: shares}})
		require.NoError(t, err)
		wire := &gpu.Wire{InBytes: 4, OutBytes: 4, Fill: func(lo, hi int, in []byte) {}, Drain: func(lo, hi int, out []byte) error { return nil }}
		_, err = eng.Run(context.Background(), gpu.Batch{Count: chunk * chunks, Wire: wire})
		require.NoError(t, err)
		require.NoError(t, eng.Close())
		want := slices.Repeat([]uint32{chunk / kernels.FinishThreads}, chunks) // one item a thread
		if shares {
			want = grids["finish"]
		}
		require.Len(t, grids["pack"], chunks)
		require.Equal(t, want, grids["pack"], "PackShares %v", shares)
		require.Less(t, grids["finish"][0], uint32(chunk/kernels.FinishThreads), "the finish's threads take several items")
	}
}

// TestPreChainBytes: a wire chunk with Wire.Pre runs Config.Pre's kernels
// first, in their order, on the tail of each item's input; Width bytes of
// each of its pack's results, from Skip, reach the engine's unpack at
// n·At + k·Width, and its outcome bytes come back after the engine's own
// outputs. The engine's other bytes keep their places.
func TestPreChainBytes(t *testing.T) {
	const chunk, count = 5, 12
	const own, preIn, result, skip, width, at = 8, 4, 5, 1, 3, 2
	d := fakecuda.New()
	var mu sync.Mutex
	var order []string
	bytesAt := func(params []unsafe.Pointer, arg, n int) []byte {
		b, err := d.DeviceBytes(*(*gpu.DevicePtr)(params[arg]), uint64(n))
		require.NoError(t, err)
		return b
	}
	const in, out, countArg = 1, 3, 4
	seen := map[string][]byte{} // what each unpack read, by chunk's first byte
	d.OnLaunch = func(fn string, _, _ [3]uint32, params []unsafe.Pointer) error {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, fn)
		n := int(*(*uint32)(params[countArg]))
		switch fn {
		case "pre-unpack":
			seen["pre"] = append(seen["pre"], bytesAt(params, out, n*preIn)...)
		case "pre-pack":
			w := bytesAt(params, in, n*(result+1))
			for k := range n {
				for j := range result {
					w[k*result+j] = byte(10*k + j)
				}
				w[n*result+k] = byte(200 + k)
			}
		case "unpack":
			w := bytesAt(params, out, n*own)
			seen["own"] = append(seen["own"], w[:n*at]...)
			seen["moved"] = append(seen["moved"], w[n*at:n*(at+width)]...)
		case "pack":
			w := bytesAt(params, in, n)
			for k := range n {
				w[k] = byte(k)
			}
		}
		return nil
	}
	pre := &gpu.PreChain{Config: chainConfig("pre-", 2, 1), InBytes: preIn, ResultBytes: result, Skip: skip, Width: width, At: at}
	open := func(inRows int) *gpu.Engine {
		cfg := chainConfig("", inRows, 2)
		cfg.Image, cfg.Chunk, cfg.Pre = []byte("image"), chunk, pre
		eng, err := gpu.Open(d, cfg)
		require.NoError(t, err)
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	eng := open(3) // 12 bytes in an item, the engine's 8 and the pre chain's 4
	var wantPre, wantOwn, wantMoved []byte
	got := make([][2]byte, count)
	wire := &gpu.Wire{InBytes: own + preIn, OutBytes: 2, Pre: true,
		Fill: func(lo, hi int, b []byte) {
			n := hi - lo
			for j := range b {
				b[j] = byte(lo + 3*j)
			}
			wantOwn = append(wantOwn, b[:n*at]...)
			wantPre = append(wantPre, b[n*own:]...)
			for k := range n {
				for j := range width {
					wantMoved = append(wantMoved, byte(10*k+skip+j))
				}
			}
		},
		Drain: func(lo, hi int, b []byte) error {
			for k := range hi - lo {
				got[lo+k] = [2]byte{b[k], b[hi-lo+k]}
			}
			return nil
		}}
	_, err := open(2).Run(context.Background(), gpu.Batch{Count: count, Wire: wire})
	require.ErrorContains(t, err, "does not fit", "an input of 12 bytes an item in a host buffer of 8")
	_, err = eng.Run(context.Background(), gpu.Batch{Count: count, Wire: wire})
	require.NoError(t, err)
	require.Equal(t, wantPre, seen["pre"], "the pre chain's unpack reads the tail of each chunk's input")
	require.Equal(t, wantOwn, seen["own"], "the engine's unpack reads the rest")
	require.Equal(t, wantMoved, seen["moved"], "and the pre chain's results where PreChain puts them")
	for i, g := range got {
		k := i % chunk
		require.Equal(t, [2]byte{byte(k), byte(200 + k)}, g, "item %d: its own outcome, then the pre chain's", i)
	}
	chain := []string{"pre-unpack", "pre-prepare", "pre-ladder", "pre-finish", "pre-pack", "unpack", "prepare", "ladder", "finish", "pack"}
	require.Equal(t, slices.Concat(chain, chain, chain), order, "each chunk runs the pre chain first")

	// a batch that asks for a pre chain the engine lacks, and a pre chain
	// without its pack, are refused
	plainCfg := chainConfig("", 3, 2)
	plainCfg.Image, plainCfg.Chunk = []byte("image"), chunk
	plain, err := gpu.Open(d, plainCfg)
	require.NoError(t, err)
	defer plain.Close()
	_, err = plain.Run(context.Background(), gpu.Batch{Count: count, Wire: wire})
	require.ErrorContains(t, err, "pre chain")
	noPack := *pre
	noPack.Finish = &gpu.FinishKernel{Entry: "pre-finish", Constants: []uint32{1}, ResultRows: 1}
	_, err = gpu.Open(d, gpu.Config{Image: []byte("image"), Entry: "ladder", Constants: []uint32{1},
		InRows: 3, ScalarRows: 1, OutRows: 2, ItemsPerBlock: 1, BlockThreads: 32, Chunk: chunk, Pre: &noPack})
	require.ErrorContains(t, err, "pre chain")
}

// TestPreChainDeviceFault: over two devices, one whose first copy of the
// pre chain's results fails, every item of a Wire.Pre batch is drained
// once, with its own outcome and the pre chain's, the chunks the failed
// device held run again on the other.
func TestPreChainDeviceFault(t *testing.T) {
	const chunk, count, result = 4, 40, 5
	d := fakecuda.New(fakecuda.H100(), fakecuda.H100())
	const in, countArg = 1, 4
	d.OnLaunch = func(fn string, _, _ [3]uint32, params []unsafe.Pointer) error {
		n := int(*(*uint32)(params[countArg]))
		w, err := d.DeviceBytes(*(*gpu.DevicePtr)(params[in]), uint64(n*(result+1)))
		if err != nil {
			return err
		}
		switch fn {
		case "pre-pack":
			for k := range n {
				w[n*result+k] = byte(200 + k)
			}
		case "pack":
			for k := range n {
				w[k] = byte(k)
			}
		}
		return nil
	}
	cfg := chainConfig("", 3, 2)
	cfg.Image, cfg.Chunk = []byte("image"), chunk
	cfg.Pre = &gpu.PreChain{Config: chainConfig("pre-", 2, 1), InBytes: 4, ResultBytes: result, Skip: 1, Width: 3, At: 2}
	p, err := gpu.OpenPool(d, cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	d.FailOn(0, "Memcpy2DDtoDAsync", 1, nil)
	var mu sync.Mutex
	drained := make([]int, count)
	got := make([][2]byte, count)
	wire := &gpu.Wire{InBytes: 12, OutBytes: 2, Pre: true, Fill: func(lo, hi int, b []byte) {},
		Drain: func(lo, hi int, b []byte) error {
			mu.Lock()
			defer mu.Unlock()
			for k := range hi - lo {
				drained[lo+k]++
				got[lo+k] = [2]byte{b[k], b[hi-lo+k]}
			}
			return nil
		}}
	st, err := p.Run(context.Background(), gpu.Batch{Count: count, Wire: wire})
	require.NoError(t, err, "one device failing does not fail the batch")
	require.Error(t, st.Devices[0].Fault, "device 0's copy failed")
	require.Equal(t, slices.Repeat([]int{1}, count), drained, "every item drained once")
	for i, g := range got {
		k := i % chunk
		require.Equal(t, [2]byte{byte(k), byte(200 + k)}, g, "item %d", i)
	}
}

// chainConfig is a chain of fake kernels for the pre chain's tests: the
// ladder, prepare, unpack, finish and pack, their names prefixed, one item
// a block, with inRows and outRows rows.
func chainConfig(prefix string, inRows, outRows int) gpu.Config {
	return gpu.Config{Entry: prefix + "ladder", Constants: []uint32{1}, InRows: inRows, ScalarRows: 1, OutRows: outRows,
		ItemsPerBlock: 1, BlockThreads: 32,
		Prepare: &gpu.PrepareKernel{Entry: prefix + "prepare", Constants: []uint32{1}, Unpack: prefix + "unpack"},
		Finish:  &gpu.FinishKernel{Entry: prefix + "finish", Constants: []uint32{1}, ResultRows: 1, Pack: prefix + "pack"}}
}
