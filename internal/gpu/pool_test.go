package gpu_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
)

// newPoolFixture is newFixture on devices fake H100s.
func newPoolFixture(t *testing.T, items, devices int) *fixture {
	f := newFixture(t, items)
	specs := make([]fakecuda.DeviceSpec, devices)
	for i := range specs {
		specs[i] = fakecuda.H100()
	}
	f.d = fakecuda.New(specs...)
	f.d.OnLaunch = kernelemu.Launch(f.d)
	return f
}

// drainLog records every item a Batch drained and how often.
type drainLog struct {
	mu    sync.Mutex
	got   []ladder.Channels
	times []int
}

// batch returns a Batch over the fixture's jobs that records into l.
func (f *fixture) loggedBatch(l *drainLog) gpu.Batch {
	l.got, l.times = make([]ladder.Channels, len(f.jobs)), make([]int, len(f.jobs))
	b := f.batch(l.got, make([]bool, len(f.jobs)), &l.mu)
	drain := b.Drain
	b.Drain = func(lo, hi int, out []uint32) error {
		l.mu.Lock()
		for i := lo; i < hi; i++ {
			l.times[i]++
		}
		l.mu.Unlock()
		return drain(lo, hi, out)
	}
	return b
}

// requireEach checks that every item was drained exactly once, right.
func (f *fixture) requireEach(t *testing.T, l *drainLog) {
	t.Helper()
	for i := range f.jobs {
		require.Equal(t, 1, l.times[i], "item %d drained %d times", i, l.times[i])
		require.Equal(t, f.want[i], l.got[i], "item %d", i)
	}
}

// requireAtMostOnce checks that no item was drained twice or wrong.
func (f *fixture) requireAtMostOnce(t *testing.T, l *drainLog) {
	t.Helper()
	for i := range f.jobs {
		require.LessOrEqual(t, l.times[i], 1, "item %d drained %d times", i, l.times[i])
		if l.times[i] == 1 {
			require.Equal(t, f.want[i], l.got[i], "item %d", i)
		}
	}
}

// startTogether makes the first fills of b wait until devices of them
// have begun, so that every device takes a chunk: a device fills one chunk
// at a time, so those are one per device.
func startTogether(b gpu.Batch, devices int) gpu.Batch {
	var mu sync.Mutex
	started := 0
	all := make(chan struct{})
	fill := b.Fill
	b.Fill = func(lo, hi int, in, sc []uint32) {
		mu.Lock()
		started++
		first := started <= devices
		if started == devices {
			close(all)
		}
		mu.Unlock()
		if first {
			select {
			case <-all:
			case <-time.After(10 * time.Second):
			}
		}
		fill(lo, hi, in, sc)
	}
	return b
}

// TestPoolSharesChunks: three devices share a batch; every item is drained
// once and matches the CPU twin, and each device launched exactly the
// chunks its statistics claim.
func TestPoolSharesChunks(t *testing.T) {
	f := newPoolFixture(t, 20, 3)
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	require.Len(t, p.Devices(), 3, "every visible device by default")
	var l drainLog
	st, err := p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.Equal(t, 7, st.Chunks, "20 items in chunks of 3")
	require.Len(t, st.Devices, 3)
	sum := 0
	for i, d := range st.Devices {
		require.Equal(t, i, d.Device)
		require.NoError(t, d.Fault)
		require.Equal(t, f.d.CallsOn(i, "LaunchKernel"), d.Chunks, "device %d", i)
		sum += d.Chunks
	}
	require.Equal(t, st.Chunks, sum)
	require.NoError(t, p.Close())
	require.Zero(t, f.d.Live(), "everything released: %+v", f.d.Resources())
	_, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.ErrorIs(t, err, gpu.ErrClosed)
	require.NoError(t, p.Close(), "a second Close is harmless")
}

// TestPoolPicksDevices: a pool opens only the devices named, refuses
// ordinals that are negative, repeated or absent, and leaks nothing.
func TestPoolPicksDevices(t *testing.T) {
	f := newPoolFixture(t, 5, 3)
	p, err := gpu.OpenPool(f.d, f.cfg, []int{2})
	require.NoError(t, err)
	var l drainLog
	st, err := p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.Equal(t, []gpu.DeviceStats{{Device: 2, Stats: st.Devices[0].Stats}}, st.Devices)
	require.Zero(t, f.d.CallsOn(0, "LaunchKernel")+f.d.CallsOn(1, "LaunchKernel"))
	require.NoError(t, p.Close())
	for _, bad := range [][]int{{-1}, {0, 0}, {0, 3}} {
		_, err := gpu.OpenPool(f.d, f.cfg, bad)
		require.Error(t, err, "%v", bad)
		require.Zero(t, f.d.Live(), "%v: a failed open releases everything", bad)
	}
}

// runCallsOnDevice are the driver calls a device makes for each chunk.
var runCallsOnDevice = []string{"EventRecord", "MemcpyHtoDAsync", "LaunchKernel", "MemcpyDtoHAsync", "EventSynchronize"}

// TestPoolDeviceFault fails one device's driver call, each call of a batch
// at each position in turn, with two and three devices, on a batch whose
// chunks go to whichever device has room and on an overlapped one, whose
// chunks go an equal share to each: the batch still succeeds with every
// item drained exactly once and right (the others take the failed device's
// share), the statistics name the fault, the next batch leaves the device
// out (and is right), and Close releases everything.
func TestPoolDeviceFault(t *testing.T) {
	for _, overlapped := range []bool{false, true} {
		for _, devices := range []int{2, 3} {
			t.Run(fmt.Sprintf("overlapped=%v/%d-devices", overlapped, devices), func(t *testing.T) {
				poolDeviceFault(t, devices, overlapped)
			})
		}
	}
}

// poolDeviceFault is TestPoolDeviceFault on devices devices.
func poolDeviceFault(t *testing.T, devices int, overlapped bool) {
	const bad = 1
	f := newPoolFixture(t, 11, devices)
	f.overlapped = overlapped
	// how often device bad makes each call in a clean batch
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	before := map[string]int{}
	for _, m := range runCallsOnDevice {
		before[m] = f.d.CallsOn(bad, m)
	}
	var l drainLog
	_, err = p.Run(context.Background(), startTogether(f.loggedBatch(&l), devices))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.NoError(t, p.Close())
	calls := map[string]int{}
	for _, m := range runCallsOnDevice {
		calls[m] = f.d.CallsOn(bad, m) - before[m]
	}
	for _, m := range runCallsOnDevice {
		hit := 0
		for nth := 1; nth <= calls[m]; nth++ {
			t.Run(fmt.Sprintf("%s/%d", m, nth), func(t *testing.T) {
				if poolFaultOnce(t, f, devices, bad, m, nth) {
					hit++
				}
			})
		}
		// chunks go to whichever device is free, so a later call may
		// not come in every run; the first chunk's calls do
		require.Positive(t, hit, "%s: no fault was ever injected", m)
	}
}

// poolFaultOnce runs one batch with device bad's nth call of m failing and
// reports whether the fault was injected.
func poolFaultOnce(t *testing.T, f *fixture, devices, bad int, m string, nth int) bool {
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer func() {
		require.NoError(t, p.Close())
		require.Zero(t, f.d.Live(), "Close releases everything: %+v", f.d.Resources())
	}()
	f.d.FailOn(bad, m, nth, nil)
	var l drainLog
	st, err := p.Run(context.Background(), startTogether(f.loggedBatch(&l), devices))
	f.d.ClearFailures()
	require.NoError(t, err, "one device failing does not fail the batch")
	f.requireEach(t, &l)
	require.Len(t, st.Devices, devices)
	fault := st.Devices[bad].Fault
	if fault == nil {
		return false
	}
	var ce *gpu.CUDAError
	require.ErrorAs(t, fault, &ce)
	require.Equal(t, fakecuda.Symbol(m), ce.Call)
	require.ErrorContains(t, fault, fmt.Sprintf("device %d", bad))
	require.Equal(t, fault, p.Devices()[bad].Fault)

	st, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.Len(t, st.Devices, devices-1, "the failed device is left out")
	for _, d := range st.Devices {
		require.NotEqual(t, bad, d.Device)
	}
	return true
}

// TestPoolEveryDeviceFails: when every device fails, the batch fails with
// an error naming each; nothing is drained twice or wrong; the next batch
// tries every device again and succeeds.
func TestPoolEveryDeviceFails(t *testing.T) {
	f := newPoolFixture(t, 9, 2)
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	f.d.FailAt("LaunchKernel", 0, nil)
	var l drainLog
	st, err := p.Run(context.Background(), f.loggedBatch(&l))
	f.d.ClearFailures()
	require.ErrorContains(t, err, "every device failed")
	require.ErrorContains(t, err, "device 0")
	require.ErrorContains(t, err, "device 1")
	var ce *gpu.CUDAError
	require.ErrorAs(t, err, &ce)
	require.Zero(t, st.Chunks)
	f.requireAtMostOnce(t, &l)

	st, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.Len(t, st.Devices, 2, "every device is tried again")
}

// TestPoolCancel: a cancelled batch stops within one chunk per device.
func TestPoolCancel(t *testing.T) {
	f := newPoolFixture(t, 30, 2)
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var l drainLog
	b := f.loggedBatch(&l)
	fill := b.Fill
	b.Fill = func(lo, hi int, in, sc []uint32) {
		fill(lo, hi, in, sc)
		cancel()
	}
	before := f.d.Launches()
	_, err = p.Run(ctx, b)
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, f.d.Launches()-before, 2, "at most the chunk each device was filling")
	f.requireAtMostOnce(t, &l)
}

// TestPoolDrainError: a Drain error fails the batch on every device, is no
// device's fault, and stops the Run: once the first drain has failed, the
// devices launch at most the chunks already in their slots, and the batch's
// other chunks never (a bound that holds however the goroutines are
// scheduled, where a count of launches alone does not on a loaded host).
func TestPoolDrainError(t *testing.T) {
	const devices = 2
	f := newPoolFixture(t, 90, devices)
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	var l drainLog
	before := f.d.Launches()
	_, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	whole := f.d.Launches() - before
	b := f.loggedBatch(&l)
	var atFailure atomic.Int64
	atFailure.Store(-1)
	b.Drain = func(lo, hi int, out []uint32) error {
		atFailure.CompareAndSwap(-1, int64(f.d.Launches()))
		return fmt.Errorf("caller's failure at %d", lo)
	}
	before = f.d.Launches()
	_, err = p.Run(context.Background(), b)
	require.ErrorContains(t, err, "caller's failure")
	require.LessOrEqual(t, f.d.Launches()-int(atFailure.Load()), devices*gpu.SlotCount, "after the failure, only the chunks in the slots")
	require.Less(t, f.d.Launches()-before, whole, "not the whole batch")
	for _, d := range p.Devices() {
		require.NoError(t, d.Fault, "a caller's error is no device's fault")
	}
}

// TestPoolSplitsSmallBatches: a batch of fewer than a chunk per device is
// cut into one chunk per device, so every device takes part.
func TestPoolSplitsSmallBatches(t *testing.T) {
	f := newPoolFixture(t, 8, 2)
	f.cfg.Chunk = 100
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	var l drainLog
	st, err := p.Run(context.Background(), startTogether(f.loggedBatch(&l), 2))
	require.NoError(t, err)
	f.requireEach(t, &l)
	require.Equal(t, 2, st.Chunks)
	require.Equal(t, 1, st.Devices[0].Chunks)
	require.Equal(t, 1, st.Devices[1].Chunks)
}

// TestPoolOverlappedOneChunk: a batch marked overlapped or closing that
// Config.Chunk holds runs as one chunk, where the same batch unmarked, many
// waves of a device of one SM and one block, is cut into several to
// overlap its own fills and drains; each gives every item.
func TestPoolOverlappedOneChunk(t *testing.T) {
	for _, mark := range []string{"", "overlapped", "closing"} {
		f := newFixture(t, 40)
		spec := fakecuda.H100()
		spec.SMs, spec.MaxThreadsPerSM = 1, f.cfg.BlockThreads // a wave of one block
		f.d = fakecuda.New(spec)
		f.d.OnLaunch = kernelemu.Launch(f.d)
		f.cfg.Chunk = 40
		p, err := gpu.OpenPool(f.d, f.cfg, nil)
		require.NoError(t, err)
		var l drainLog
		b := f.loggedBatch(&l)
		b.Overlapped, b.Closing = mark == "overlapped", mark == "closing"
		st, err := p.Run(context.Background(), b)
		require.NoError(t, err)
		f.requireEach(t, &l)
		if mark != "" {
			require.Equal(t, 1, st.Chunks)
		} else {
			require.Greater(t, st.Chunks, 1)
		}
		require.NoError(t, p.Close())
	}
}

// TestPoolGivesEachDeviceItsShare: a pipeline's step (an overlapped batch,
// one chunk a device) runs a chunk on each device, even where one device
// comes to take only after the other has room for both: with both on one
// device, the step would end a chunk's time after the other device's
// share. The fake's second device is held before its first take until the
// first device fills a second chunk (which it must not) or 200 ms pass.
func TestPoolGivesEachDeviceItsShare(t *testing.T) {
	f := newPoolFixture(t, 6, 2) // chunks of 3
	late := &lateDevice{Driver: f.d, ordinal: 1, release: make(chan struct{})}
	p, err := gpu.OpenPool(late, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()
	var l drainLog
	b := f.loggedBatch(&l)
	b.Overlapped = true
	b.Fill = nthFill(b.Fill, 2, late.open) // the first device took the second chunk too
	late.hold.Store(true)
	timer := time.AfterFunc(200*time.Millisecond, late.open)
	defer timer.Stop()
	st, err := p.Run(context.Background(), b)
	require.NoError(t, err)
	f.requireEach(t, &l)
	for _, d := range st.Devices {
		require.Equal(t, 1, d.Chunks, "device %d", d.Device)
	}
}

// lateDevice holds the first making current of device ordinal's context
// while hold is set, until open.
type lateDevice struct {
	*fakecuda.Driver
	ordinal int
	ctx     atomic.Uint64 // the device's primary context
	hold    atomic.Bool
	release chan struct{}
	once    sync.Once
}

func (d *lateDevice) PrimaryCtxRetain(dev int32) (gpu.Context, error) {
	ctx, err := d.Driver.PrimaryCtxRetain(dev)
	if want, _ := d.Driver.Device(d.ordinal); err == nil && dev == want {
		d.ctx.Store(uint64(ctx))
	}
	return ctx, err
}

func (d *lateDevice) CtxSetCurrent(ctx gpu.Context) error {
	if ctx != 0 && uint64(ctx) == d.ctx.Load() && d.hold.Load() {
		<-d.release
	}
	return d.Driver.CtxSetCurrent(ctx)
}

func (d *lateDevice) open() { d.once.Do(func() { close(d.release) }) }

// TestPoolRunsFollow: on one device or several, a Run starts once the Run
// before it has taken its last chunk on every device, while that chunk is
// still on the GPU, and both give the CPU twin's results. The fake runs
// streams' work later (Async); the first Run's last launch waits for the
// second Run's first fill, which, with Runs serialised whole, would come
// only after the first Run returned.
func TestPoolRunsFollow(t *testing.T) {
	for _, devices := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("%d-devices", devices), func(t *testing.T) {
			runsFollow(t, devices)
		})
	}
}

// TestPoolRunStartsOnceTheLastChunkIsTaken: the next Run starts, and
// fills its first chunks, once the Run before has handed out its last
// chunk, while that chunk is still being filled, on one device and on two;
// every item of both still comes back.
func TestPoolRunStartsOnceTheLastChunkIsTaken(t *testing.T) {
	for _, devices := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d-devices", devices), func(t *testing.T) {
			f := newPoolFixture(t, 6, devices) // chunks of 3: one a device, or two on one
			p, err := gpu.OpenPool(f.d, f.cfg, nil)
			require.NoError(t, err)
			defer p.Close()
			var mu sync.Mutex
			gotFirst, gotSecond := make([]ladder.Channels, len(f.jobs)), make([]ladder.Channels, len(f.jobs))
			first := f.batch(gotFirst, make([]bool, len(f.jobs)), &mu)
			second := f.batch(gotSecond, make([]bool, len(f.jobs)), &mu)
			lastFilling, secondFilled := make(chan struct{}), make(chan struct{})
			fillFirst := first.Fill
			first.Fill = func(lo, hi int, in, sc []uint32) {
				if hi == len(f.jobs) { // the last chunk: filled once the second Run fills one
					close(lastFilling)
					waitOrFail(t, secondFilled)
				}
				fillFirst(lo, hi, in, sc)
			}
			second.Fill = nthFill(second.Fill, 1, func() { close(secondFilled) })
			var g errgroup.Group
			g.Go(func() error { _, err := p.Run(context.Background(), first); return err })
			<-lastFilling
			g.Go(func() error { _, err := p.Run(context.Background(), second); return err })
			require.NoError(t, g.Wait())
			require.Equal(t, f.want, gotFirst)
			require.Equal(t, f.want, gotSecond)
		})
	}
}

func runsFollow(t *testing.T, devices int) {
	f := newPoolFixture(t, 17, devices) // chunks of 3: the last one has 2 items
	f.d.Async = true
	emulate := f.d.OnLaunch
	secondFilled := make(chan struct{})
	var overlapped atomic.Bool
	f.d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if count := *(*uint32)(params[slices.IndexFunc(kernels.Args, func(a kernels.Arg) bool { return a.Name == "count" })]); count == 2 {
			select {
			case <-secondFilled:
				overlapped.Store(true)
			case <-time.After(2 * time.Second):
			}
		}
		return emulate(fn, grid, block, params)
	}
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()

	var mu sync.Mutex
	gotFirst := make([]ladder.Channels, len(f.jobs))
	first := f.batch(gotFirst, make([]bool, len(f.jobs)), &mu)
	gotSecond := make([]ladder.Channels, len(f.jobs))
	second := f.batch(gotSecond, make([]bool, len(f.jobs)), &mu)
	second.Count = 15 // chunks of 3 only
	fill, once := second.Fill, sync.OnceFunc(func() { close(secondFilled) })
	second.Fill = func(lo, hi int, in, sc []uint32) {
		fill(lo, hi, in, sc)
		once()
	}
	firstTook := make(chan struct{})
	firstFill, firstOnce := first.Fill, sync.OnceFunc(func() { close(firstTook) })
	first.Fill = func(lo, hi int, in, sc []uint32) {
		firstFill(lo, hi, in, sc)
		firstOnce()
	}
	var g errgroup.Group
	g.Go(func() error { _, err := p.Run(context.Background(), first); return err })
	<-firstTook // the first Run is under way before the second asks
	g.Go(func() error { _, err := p.Run(context.Background(), second); return err })
	require.NoError(t, g.Wait())
	require.True(t, overlapped.Load(), "the second Run filled a chunk while the first one's last chunk was on the GPU")
	require.Equal(t, f.want, gotFirst)
	require.Equal(t, f.want[:15], gotSecond[:15])
}

// TestPoolConcurrentRunsFault: Runs from several goroutines at once on
// two and three devices, whose streams run their work later (Async), while
// one device's driver call fails mid-way, at each of several points: every
// Run gets the CPU twin's results, each item drained once, though the
// failing device's chunks go back to devices already working on later Runs.
// Under -short, two of the cases, with fewer Runs.
func TestPoolConcurrentRunsFault(t *testing.T) {
	type fault struct {
		devices int
		call    string
		nth     int
	}
	cases := []fault{{2, "EventSynchronize", 7}, {3, "LaunchKernel", 2}}
	goroutines, counts := 3, []int{17, 9}
	if !testing.Short() {
		cases = append(cases, fault{2, "MemcpyDtoHAsync", 2}, fault{3, "EventSynchronize", 7})
		goroutines, counts = 4, []int{17, 40, 5}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d-devices/%s/%d", c.devices, c.call, c.nth), func(t *testing.T) {
			concurrentRunsFault(t, c.devices, c.call, c.nth, goroutines, counts)
		})
	}
}

// concurrentRunsFault runs Runs of counts items, one after the other, from
// goroutines at once, on devices fake devices of which the last one fails
// its nth call of m.
func concurrentRunsFault(t *testing.T, devices int, m string, nth, goroutines int, counts []int) {
	f := newPoolFixture(t, 40, devices)
	f.d.Async, f.d.AsyncJitter = true, 20*time.Microsecond
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	f.d.FailOn(devices-1, m, nth, nil)
	var g errgroup.Group
	for k := range goroutines {
		g.Go(func() error {
			for _, count := range counts {
				var l drainLog
				b := f.loggedBatch(&l)
				b.Count = count
				if _, err := p.Run(context.Background(), b); err != nil {
					return fmt.Errorf("goroutine %d, run of %d items: %w", k, count, err)
				}
				for i := range count {
					if l.times[i] != 1 || !reflect.DeepEqual(l.got[i], f.want[i]) {
						return fmt.Errorf("goroutine %d, run of %d items: item %d drained %d times or wrong", k, count, i, l.times[i])
					}
				}
			}
			return nil
		})
	}
	require.NoError(t, g.Wait())
	require.Error(t, p.Devices()[devices-1].Fault, "the fault was injected")
	require.NoError(t, p.Close())
	require.Zero(t, f.d.Live(), "Close releases everything")
}

// TestPoolConcurrentRunsAsync: Runs of several sizes from several
// goroutines at once on one device, whose streams run their work later
// (Async), with drains of random length: each Run gets the CPU twin's
// results for its items, and Close waits for them all.
func TestPoolConcurrentRunsAsync(t *testing.T) {
	f := newPoolFixture(t, 40, 1)
	f.d.Async, f.d.AsyncJitter = true, 20*time.Microsecond
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	var g errgroup.Group
	for k := range 6 {
		g.Go(func() error {
			for j, count := range []int{1, 5, 17, 40} {
				var mu sync.Mutex
				got := make([]ladder.Channels, len(f.jobs))
				b := f.batch(got, make([]bool, len(f.jobs)), &mu)
				b.Count = count
				drain := b.Drain
				b.Drain = func(lo, hi int, out []uint32) error {
					time.Sleep(time.Duration((k*7+j*3+lo)%5) * 200 * time.Microsecond)
					return drain(lo, hi, out)
				}
				if _, err := p.Run(context.Background(), b); err != nil {
					return err
				}
				if !reflect.DeepEqual(got[:count], f.want[:count]) {
					return fmt.Errorf("goroutine %d, run of %d items: results differ from the CPU twin's", k, count)
				}
			}
			return nil
		})
	}
	require.NoError(t, g.Wait())
	require.NoError(t, p.Close())
	require.Zero(t, f.d.Live(), "Close releases everything")
}

// TestPoolFaultOutlivesEarlierRun: a Run whose chunk on a device is still
// on the GPU when the next Run's driver call fails there, and which then
// finishes that chunk without fault, leaves the device out of later Runs.
// The first Run's chunks (one a device) are held on the GPU until the
// second Run has recorded the fault, so the order is certain.
func TestPoolFaultOutlivesEarlierRun(t *testing.T) {
	f := newPoolFixture(t, 6, 2)
	f.d.Async = true
	emulate := f.d.OnLaunch
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	defer p.Close()

	firstOnGPU := make(chan struct{}, 2)
	var sawFault atomic.Bool
	countArg := slices.IndexFunc(kernels.Args, func(a kernels.Arg) bool { return a.Name == "count" })
	f.d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if *(*uint32)(params[countArg]) == 2 { // the first Run's chunks
			firstOnGPU <- struct{}{}
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if p.Devices()[1].Fault != nil {
					sawFault.Store(true)
					break
				}
			}
		}
		return emulate(fn, grid, block, params)
	}

	var mu sync.Mutex
	gotFirst, gotSecond := make([]ladder.Channels, 4), make([]ladder.Channels, len(f.jobs))
	first := startTogether(f.batch(gotFirst, make([]bool, len(f.jobs)), &mu), 2)
	first.Count, first.Overlapped = 4, true // a chunk of 2 on each device
	second := startTogether(f.batch(gotSecond, make([]bool, len(f.jobs)), &mu), 2)
	var g errgroup.Group
	g.Go(func() error { _, err := p.Run(context.Background(), first); return err })
	<-firstOnGPU
	<-firstOnGPU
	f.d.FailOn(1, "MemcpyHtoDAsync", 1, nil) // the second Run's first copy up on device 1
	st, err := p.Run(context.Background(), second)
	require.NoError(t, err, "device 0 takes the chunk device 1 gave back")
	require.Error(t, st.Devices[1].Fault)
	require.NoError(t, g.Wait())
	require.True(t, sawFault.Load(), "the second Run recorded its fault while the first Run's chunks were on the GPU")
	require.Error(t, p.Devices()[1].Fault, "the first Run, finishing later without fault, kept device 1 out")
	require.Equal(t, f.want[:4], gotFirst[:4])
	require.Equal(t, f.want, gotSecond)
}

// TestHandedOverRunsShareSlots: two Runs on one device, each handed over
// (every chunk taken, some still out on another device), each given back
// several chunks by a failing device, take them into the device's slots
// one slot at a time, and both finish with the CPU twin's results. A Run
// that held a slot while waiting for the next one would deadlock here: the
// first Run holds slot 1 and wants slot 2 while the second holds slots 2
// and 0 and wants slot 1. The order is forced by the Runs' fills.
func TestHandedOverRunsShareSlots(t *testing.T) {
	f := newFixture(t, 4)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	gotA, gotB := make([]ladder.Channels, 3), make([]ladder.Channels, 4)
	a := f.batch(gotA, make([]bool, len(f.jobs)), &mu)
	b := f.batch(gotB, make([]bool, len(f.jobs)), &mu)
	a.Count, b.Count = 3, 4
	aHoldsSlot1, bInSlot0 := make(chan struct{}), make(chan struct{})
	a.Fill = nthFill(a.Fill, 2, func() { close(aHoldsSlot1) }) // A's first given-back chunk, in slot 1
	b.Fill = nthFill(b.Fill, 3, func() {                       // B's second given-back chunk, in slot 0
		close(bInSlot0)
		waitOrFail(t, aHoldsSlot1)
	})

	wa, wb := gpu.NewShareWork(3, 1, 2), gpu.NewShareWork(4, 1, 2)
	aOut := [][2]int{wa.TakeAsOther(), wa.TakeAsOther()}                   // A runs the third chunk itself
	bOut := [][2]int{wb.TakeAsOther(), wb.TakeAsOther(), wb.TakeAsOther()} // B the fourth
	bHandedOver := make(chan struct{})
	var g errgroup.Group
	g.Go(func() error {
		return eng.RunShare(context.Background(), a, wa, func() { // A: slot 0, then hands over
			g.Go(func() error { // B: slot 1, then hands over
				return eng.RunShare(context.Background(), b, wb, func() { close(bHandedOver) })
			})
		})
	})
	waitOrFail(t, bHandedOver)
	wb.GiveBack(bOut...) // B takes them into slots 2, 0, 1
	waitOrFail(t, bInSlot0)
	wa.GiveBack(aOut...) // A takes them into slots 1, 2
	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the two Runs wait for each other's slots") // no Close: it would wait for them too
	}
	require.Equal(t, f.want[:3], gotA)
	require.Equal(t, f.want[:4], gotB)
	require.NoError(t, eng.Close())
}

// TestRunTakesChunksOnlyWithASlot: a Run whose next slot the device's
// previous Run still holds, its chunk there not done, leaves the batch's
// next chunk to the other devices until the slot is free, rather than
// taking it and waiting there.
func TestRunTakesChunksOnlyWithASlot(t *testing.T) {
	f := newFixture(t, 4)
	f.d.Async = true
	releaseA := make(chan struct{})
	const itemsA = 2 // A's one chunk, in slot 0, the only one of two items, is done once released
	launch := f.d.OnLaunch
	f.d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if *(*uint32)(params[4]) == itemsA {
			<-releaseA
		}
		return launch(fn, grid, block, params)
	}
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	const chunksB = gpu.SlotCount // the last one's slot, 0, is A's
	gotA, gotB := make([]ladder.Channels, itemsA), make([]ladder.Channels, chunksB)
	a := f.batch(gotA, make([]bool, len(f.jobs)), &mu)
	b := f.batch(gotB, make([]bool, len(f.jobs)), &mu)
	a.Count, b.Count = itemsA, chunksB
	bFilledOthers := make(chan struct{})
	b.Fill = nthFill(b.Fill, chunksB-1, func() { close(bFilledOthers) }) // slots 1 and on; slot 0 is A's

	wa, wb := gpu.NewShareWork(itemsA, itemsA, 1), gpu.NewShareWork(chunksB, 1, 2)
	var g errgroup.Group
	g.Go(func() error {
		return eng.RunShare(context.Background(), a, wa, func() {
			g.Go(func() error { return eng.RunShare(context.Background(), b, wb, nil) })
		})
	})
	waitOrFail(t, bFilledOthers)
	time.Sleep(50 * time.Millisecond) // time for B to reach slot 0
	other := wb.TakeAsOther()
	close(releaseA)
	require.Equal(t, [2]int{chunksB - 1, chunksB}, other, "the chunk for slot 0 was left to another device")
	wb.GiveBack(other) // that device fails: B takes the chunk once slot 0 is free
	require.NoError(t, g.Wait())
	require.Equal(t, f.want[:itemsA], gotA)
	require.Equal(t, f.want[:chunksB], gotB)
	require.NoError(t, eng.Close())
}

// TestRunHandsOverWithoutWaitingForASlot: a Run with no chunk left to take
// hands over at once, holding no slot it has no chunk for, so that the
// device's next Run computes beside the Run before's chunks, still
// draining, rather than after them.
func TestRunHandsOverWithoutWaitingForASlot(t *testing.T) {
	f := newFixture(t, 4)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	const chunksA = gpu.SlotCount - 1
	gotA, gotB := make([]ladder.Channels, chunksA), make([]ladder.Channels, 1)
	a := f.batch(gotA, make([]bool, len(f.jobs)), &mu)
	b := f.batch(gotB, make([]bool, len(f.jobs)), &mu)
	a.Count, b.Count = chunksA, 1
	releaseA := make(chan struct{})
	drainA := a.Drain
	a.Drain = func(lo, hi int, out []uint32) error { // A keeps its slots until released
		<-releaseA
		return drainA(lo, hi, out)
	}
	bHandedOver := make(chan struct{})

	wa, wb := gpu.NewShareWork(chunksA, 1, 1), gpu.NewShareWork(1, 1, 1)
	var g errgroup.Group
	g.Go(func() error {
		return eng.RunShare(context.Background(), a, wa, func() {
			g.Go(func() error { return eng.RunShare(context.Background(), b, wb, func() { close(bHandedOver) }) })
		})
	})
	waitOrFail(t, bHandedOver) // B's chunk in the last slot, A's still in the others
	close(releaseA)
	require.NoError(t, g.Wait())
	require.Equal(t, f.want[:chunksA], gotA)
	require.Equal(t, f.want[:1], gotB)
	require.NoError(t, eng.Close())
}

// A Run that has handed over lets the next Run fill a slot as soon as its
// chunk there is done, while that chunk drains; the next chunk's outputs
// wait for the drain, so neither Run's results are lost.
func TestRunFillsASlotWhileTheLastRunDrainsIt(t *testing.T) {
	const chunksA = gpu.SlotCount // in every slot: B's first chunk goes to slot 0, its second to slot 1
	f := newFixture(t, chunksA+2)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	gotA, gotB := make([]ladder.Channels, chunksA), make([]ladder.Channels, 2)
	a := f.batch(gotA, make([]bool, len(f.jobs)), &mu)
	a.Count = chunksA
	releaseA := make(chan struct{})
	drainA := a.Drain
	a.Drain = func(lo, hi int, out []uint32) error { // A's chunk 1, in slot 1, drains once released
		if lo == 1 {
			<-releaseA
		}
		return drainA(lo, hi, out)
	}
	const skip = chunksA // B's items come after A's: their outputs are not A's
	whole := f.batch(make([]ladder.Channels, len(f.jobs)), make([]bool, len(f.jobs)), &mu)
	bFilledSlot1 := make(chan struct{})
	b := gpu.Batch{Count: 2,
		Fill: nthFill(func(lo, hi int, in, sc []uint32) { whole.Fill(lo+skip, hi+skip, in, sc) }, 2, func() { close(bFilledSlot1) }),
		Drain: func(lo, hi int, out []uint32) error {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				gotB[i] = f.su.UnpackOutput(out, hi-lo, i-lo)
			}
			return nil
		}}

	wa, wb := gpu.NewShareWork(chunksA, 1, 1), gpu.NewShareWork(2, 1, 1)
	var g errgroup.Group
	g.Go(func() error {
		return eng.RunShare(context.Background(), a, wa, func() {
			g.Go(func() error { return eng.RunShare(context.Background(), b, wb, nil) })
		})
	})
	waitOrFail(t, bFilledSlot1) // B's second chunk filled in slot 1 while A's chunk 1 drains there
	close(releaseA)
	require.NoError(t, g.Wait())
	require.Equal(t, f.want[:chunksA], gotA)
	require.Equal(t, f.want[skip:skip+2], gotB)
	require.NoError(t, eng.Close())
}

// TestRunTakesAGivenBackChunkBesideTheNextRun: once a batch's chunks have
// all been handed out, the device's next Run starts, its first chunk in the
// slot after the Run's last; when a failing device then gives a chunk back,
// the Run takes it holding no other slot while it waits for one, so that
// neither Run waits for the other's slots: both end, every item right.
func TestRunTakesAGivenBackChunkBesideTheNextRun(t *testing.T) {
	const chunksA = gpu.SlotCount // one for another device, the rest in slots 0 on
	f := newFixture(t, chunksA)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	gotA, gotB := make([]ladder.Channels, chunksA), make([]ladder.Channels, 2)
	a := f.batch(gotA, make([]bool, len(f.jobs)), &mu)
	b := f.batch(gotB, make([]bool, len(f.jobs)), &mu)
	a.Count, b.Count = chunksA, 2
	wa, wb := gpu.NewShareWork(chunksA, 1, 2), gpu.NewShareWork(2, 1, 1)
	other := wa.TakeAsOther()
	bFilled, gaveBack := make(chan struct{}), make(chan struct{})
	b.Fill = nthFill(b.Fill, 1, func() { close(bFilled) }) // B's first chunk, in the slot after A's last
	a.Fill = nthFill(a.Fill, chunksA-1, func() {           // A's last chunk: the other device fails meanwhile
		waitOrFail(t, bFilled)
		wa.GiveBack(other)
		close(gaveBack)
	})
	var g errgroup.Group
	wa.OnHandedOut(func() {
		g.Go(func() error { return eng.RunShare(context.Background(), b, wb, func() {}) })
	})
	g.Go(func() error { return eng.RunShare(context.Background(), a, wa, func() {}) })
	waitOrFail(t, gaveBack)
	done := make(chan struct{})
	go func() { _ = g.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the two Runs wait for each other's slots")
	}
	require.NoError(t, g.Wait())
	require.Equal(t, f.want, gotA)
	require.Equal(t, f.want[:2], gotB)
	require.NoError(t, eng.Close())
}

// nthFill returns fill, with at called at the start of its nth call.
func nthFill(fill func(lo, hi int, in, sc []uint32), nth int, at func()) func(lo, hi int, in, sc []uint32) {
	var calls atomic.Int32
	return func(lo, hi int, in, sc []uint32) {
		if calls.Add(1) == int32(nth) {
			at()
		}
		fill(lo, hi, in, sc)
	}
}

// waitOrFail waits for ch to close, failing t after 10 s.
func waitOrFail(t *testing.T, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Error("a step of the test did not come")
	}
}

// TestRunStopsWaitingForASlotOnceTheLastChunkIsTaken: a Run waiting for
// its next slot, which the device's previous Run still holds, its chunk
// there on the GPU, stops waiting once the other devices have taken the
// batch's last chunk: it hands over and finishes its own chunk at once.
// Waiting on would let the device's next Run take slots in a cycle with
// it (this Run holding its chunk's slot and waiting for the next Run's).
func TestRunStopsWaitingForASlotOnceTheLastChunkIsTaken(t *testing.T) {
	// V's chunks of 2, 2 and 1 items in slots 0 to 2, those of 2 held on the GPU
	const itemsV, chunkV = 5, 2
	f := newFixture(t, itemsV)
	f.d.Async = true
	releaseV := make(chan struct{})
	countArg := slices.IndexFunc(kernels.Args, func(a kernels.Arg) bool { return a.Name == "count" })
	launch := f.d.OnLaunch
	f.d.OnLaunch = func(fn string, grid, block [3]uint32, params []unsafe.Pointer) error {
		if *(*uint32)(params[countArg]) == chunkV {
			<-releaseV
		}
		return launch(fn, grid, block, params)
	}
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	var mu sync.Mutex
	const chunksX = 3 // X's first in slot 3; the other two go to other devices while X waits for slot 0
	gotV, gotX := make([]ladder.Channels, itemsV), make([]ladder.Channels, chunksX)
	v := f.batch(gotV, make([]bool, len(f.jobs)), &mu)
	x := f.batch(gotX, make([]bool, len(f.jobs)), &mu)
	v.Count, x.Count = itemsV, chunksX
	xFilled, xDrainedFirst := make(chan struct{}), make(chan struct{})
	x.Fill = nthFill(x.Fill, 1, func() { close(xFilled) })
	drainX := x.Drain
	x.Drain = func(lo, hi int, out []uint32) error {
		err := drainX(lo, hi, out)
		if lo == 0 {
			close(xDrainedFirst)
		}
		return err
	}

	wv, wx := gpu.NewShareWork(itemsV, chunkV, 1), gpu.NewShareWork(chunksX, 1, 2)
	var g errgroup.Group
	g.Go(func() error {
		return eng.RunShare(context.Background(), v, wv, func() {
			g.Go(func() error { return eng.RunShare(context.Background(), x, wx, func() {}) })
		})
	})
	waitOrFail(t, xFilled)
	time.Sleep(50 * time.Millisecond) // time for X to wait for slot 0
	others := [][2]int{wx.TakeAsOther(), wx.TakeAsOther()}
	waitOrFail(t, xDrainedFirst) // X handed over and finished its own chunk while V holds slot 0
	wx.GiveBack(others...)       // the other devices fail: X takes their chunks once V lets its slots go
	close(releaseV)
	require.NoError(t, g.Wait())
	require.Equal(t, f.want, gotV)
	require.Equal(t, f.want[:chunksX], gotX)
	require.NoError(t, eng.Close())
}

// TestRunGivesBackAChunkItCouldNotStart: a Run that has handed over takes
// a chunk that a failing device gave back, then fails as it finishes its
// own chunk before starting that one: both chunks go back to the batch,
// for the device still healthy to take, none lost.
func TestRunGivesBackAChunkItCouldNotStart(t *testing.T) {
	f := newFixture(t, 3)
	eng, err := gpu.Open(f.d, f.cfg)
	require.NoError(t, err)
	defer eng.Close()
	var mu sync.Mutex
	x := f.batch(make([]ladder.Channels, 3), make([]bool, len(f.jobs)), &mu)
	x.Count = 3
	w := gpu.NewShareWork(3, 1, 3)
	x.Fill = nthFill(x.Fill, 1, func() { // X's first chunk, in slot 0
		w.TakeAsOther()                           // the last two chunks go to the other two devices,
		w.GiveBack(w.TakeAsOther())               // one of which fails: X, handed over, takes its chunk
		f.d.FailOn(0, "EventSynchronize", 1, nil) // and fails as it first finishes its chunk in slot 0
	})
	require.Error(t, eng.RunShare(context.Background(), x, w, func() {}))
	pending := [][2]int{w.TakeAsOther(), w.TakeAsOther()}
	slices.SortFunc(pending, func(a, b [2]int) int { return a[0] - b[0] })
	require.Equal(t, [][2]int{{0, 1}, {2, 3}}, pending, "X's own chunk and the one it took are pending again")
}
