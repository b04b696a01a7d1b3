package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Spread runs do(lo, hi) over [0, n) in ranges of grain items (at least
// 1; the last may be shorter), claimed in order by the caller and by up to
// workers − 1 fresh goroutines as each comes free, and returns when every
// call has returned. For n <= grain or workers <= 1 it is one call do(0,
// n) on the caller.
//
// It is for per-item passes that share the cores with latency-bound
// work, such as a GPU pipeline's next launch: a goroutine that has run
// for SpreadYield since it last yielded its processor yields it between
// two ranges (runtime.Gosched), so a goroutine readied meanwhile waits
// about SpreadYield and a range, not the whole pass; and a goroutine slow
// to start, whose thread the OS wakes late, delays nothing, since the
// others claim its ranges.
func Spread(n, workers, grain int, do func(lo, hi int)) {
	grain = max(grain, 1)
	ranges := (n + grain - 1) / grain
	if ranges <= 1 || workers <= 1 {
		do(0, n)
		return
	}
	var next atomic.Int64
	work := func() {
		yielded := time.Now()
		for {
			r := int(next.Add(1)) - 1
			if r >= ranges {
				return
			}
			do(r*grain, min((r+1)*grain, n))
			if now := time.Now(); now.Sub(yielded) >= SpreadYield {
				runtime.Gosched()
				yielded = now
			}
		}
	}
	var wg sync.WaitGroup
	for range min(workers, ranges) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// SpreadYield is how long a goroutine of Spread runs ranges before it
// yields its processor: a yield after every range cost the bytes API's
// host path 7% in fills and drains of short ranges, and 50 µs is short
// beside the milliseconds a GPU's launch waited without any.
const SpreadYield = 50 * time.Microsecond

// spreadRanges is how many ranges per worker Grain aims at: enough that
// the workers that start first take over those of the late ones.
const spreadRanges = 8

// Grain returns the range size for Spread of n items on workers: about
// n / (8·workers), so that each worker claims several ranges, and at
// least minGrain, below which a range costs more to claim than its items'
// work.
func Grain(n, workers, minGrain int) int {
	per := spreadRanges * max(workers, 1)
	return max(minGrain, (n+per-1)/per, 1)
}

// HostWorkers is how many goroutines a host pass beside a GPU pipeline
// runs on: every core but one on a host of more than four, every core on
// a smaller one. The core left over is for the goroutines that drive the
// GPUs: one readied while the pass runs (by a mutex handed over, a chunk
// come back) is taken up by the idle processor at once, where it could
// otherwise wait behind a processor whose goroutine is blocked in a driver
// call until the runtime takes that processor back, up to milliseconds.
func HostWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n > 4 {
		n--
	}
	return n
}

// SpreadHost is Spread on HostWorkers() goroutines, in ranges of
// Grain(n, HostWorkers(), 256).
func SpreadHost(n int, do func(lo, hi int)) {
	w := HostWorkers()
	Spread(n, w, Grain(n, w, allCoresMinPart), do)
}
