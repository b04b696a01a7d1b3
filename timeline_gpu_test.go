package ecmul_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
)

// timedDriver records when each driver call of the batch path starts and
// ends, relative to mark.
type timedDriver struct {
	gpu.Driver
	mu     sync.Mutex
	mark   time.Time
	events []timedCall
}

type timedCall struct {
	name       string
	start, end time.Duration
}

func (d *timedDriver) record(name string, start time.Time) {
	d.mu.Lock()
	d.events = append(d.events, timedCall{name, start.Sub(d.mark), time.Since(d.mark)})
	d.mu.Unlock()
}

func (d *timedDriver) CtxSetCurrent(c gpu.Context) error {
	defer d.record("CtxSetCurrent", time.Now())
	return d.Driver.CtxSetCurrent(c)
}

func (d *timedDriver) EventRecord(e gpu.Event, s gpu.Stream) error {
	defer d.record("EventRecord", time.Now())
	return d.Driver.EventRecord(e, s)
}

func (d *timedDriver) LaunchKernel(f gpu.Function, grid, block [3]uint32, shared uint32, s gpu.Stream, params []unsafe.Pointer) error {
	defer d.record("LaunchKernel", time.Now())
	return d.Driver.LaunchKernel(f, grid, block, shared, s, params)
}

func (d *timedDriver) StreamSynchronize(s gpu.Stream) error {
	defer d.record("StreamSynchronize", time.Now())
	return d.Driver.StreamSynchronize(s)
}

func (d *timedDriver) EventSynchronize(e gpu.Event) error {
	defer d.record("EventSynchronize", time.Now())
	return d.Driver.EventSynchronize(e)
}

func (d *timedDriver) EventElapsedMs(a, b gpu.Event) (float32, error) {
	defer d.record("EventElapsedMs", time.Now())
	return d.Driver.EventElapsedMs(a, b)
}

// TestSingleItemTimeline prints where one item's time goes through the
// bytes API on the GPU: the median start and end of each driver call from
// the call's start, and of the call's return, over many calls. It checks
// every result against the reference and that the item ran in place with
// one launch and one wait, untimed. A diagnostic for the device machine;
// it runs only with $ECMUL_TIMELINE set.
func TestSingleItemTimeline(t *testing.T) {
	if os.Getenv("ECMUL_TIMELINE") == "" {
		t.Skip("set ECMUL_TIMELINE to run")
	}
	d, err := gpu.DefaultDriver()
	if err != nil {
		t.Skip("no CUDA device")
	}
	image, err := gpu.KernelImage()
	require.NoError(t, err)
	td := &timedDriver{Driver: d}
	defer ecmul.UseGPUDriver(td, image)()
	for _, c := range []*curves.Curve{curves.P224(), curves.P256()} {
		eng, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU})
		require.NoError(t, err)
		rng := newRNG(3)
		L := c.ByteLen()
		k, p := randScalar(rng, c), randPoint(t, rng, c)
		scalar, point := k.FillBytes(make([]byte, L)), c.EncodeSEC1(cp(p), false)
		w := want(t, c, p, k, false)
		wantOut := append(append([]byte{4}, w.X.FillBytes(make([]byte, L))...), w.Y.FillBytes(make([]byte, L))...)
		out, status := make([]byte, 1+2*L), make([]ecmul.Status, 1)
		const runs = 400
		calls := map[string][][2]time.Duration{}
		var order []string
		var total []time.Duration
		for r := range runs {
			td.mu.Lock()
			td.events, td.mark = td.events[:0], time.Now()
			td.mu.Unlock()
			require.NoError(t, eng.ScalarMultBytes(context.Background(), out, status, scalar, point))
			end := time.Since(td.mark)
			require.Equal(t, ecmul.StatusPoint, status[0])
			require.Equal(t, wantOut, out)
			if r < runs/4 { // warm-up
				continue
			}
			total = append(total, end)
			seen := map[string]int{}
			for _, ev := range td.events {
				key := fmt.Sprintf("%s#%d", ev.name, seen[ev.name])
				seen[ev.name]++
				if _, ok := calls[key]; !ok {
					order = append(order, key)
				}
				calls[key] = append(calls[key], [2]time.Duration{ev.start, ev.end})
			}
		}
		eng.Close()
		// one launch and one wait, and no event: the item runs in place, untimed
		require.Len(t, calls["LaunchKernel#0"], len(total))
		require.Len(t, calls["StreamSynchronize#0"], len(total))
		require.NotContains(t, calls, "EventRecord#0")
		t.Logf("%s: one item through ScalarMultBytes, medians of %d calls (µs from the call's start)", c.Name(), len(total))
		for _, key := range order {
			starts, ends := make([]time.Duration, 0, len(calls[key])), make([]time.Duration, 0, len(calls[key]))
			for _, se := range calls[key] {
				starts, ends = append(starts, se[0]), append(ends, se[1])
			}
			t.Logf("  %-22s start %8.1f  end %8.1f  (%d calls)", key, micros(median(starts)), micros(median(ends)), len(starts))
		}
		t.Logf("  %-22s %8.1f", "return", micros(median(total)))
	}
}

func median(v []time.Duration) time.Duration {
	slices.Sort(v)
	return v[len(v)/2]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
