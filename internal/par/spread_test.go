package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSpreadCoversEachIndexOnce: every index of [0, n) is handed to exactly
// one call, in ranges of grain items but the last, for many shapes; a
// single range runs on the caller.
func TestSpreadCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 63, 64, 65, 1000, 4097} {
		for _, workers := range []int{0, 1, 2, 3, 16} {
			for _, grain := range []int{0, 1, 64, 256} {
				seen := make([]int, n)
				var mu sync.Mutex
				calls := 0
				Spread(n, workers, grain, func(lo, hi int) {
					mu.Lock()
					defer mu.Unlock()
					calls++
					if g := max(grain, 1); workers > 1 && (lo%g != 0 || hi != min(lo+g, n)) || workers <= 1 && (lo != 0 || hi != n) {
						t.Errorf("n=%d workers=%d grain=%d: range [%d, %d)", n, workers, grain, lo, hi)
					}
					for i := lo; i < hi; i++ {
						seen[i]++
					}
				})
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("n=%d workers=%d grain=%d: index %d seen %d times", n, workers, grain, i, s)
					}
				}
				if want := max(1, (n+max(grain, 1)-1)/max(grain, 1)); workers > 1 && calls != want || workers <= 1 && calls != 1 {
					t.Fatalf("n=%d workers=%d grain=%d: %d calls", n, workers, grain, calls)
				}
			}
		}
	}
}

// TestSpreadYields: a goroutine readied during a Spread runs once the
// range under way is done, where that range took SpreadYield or more, not
// after the pass: on one processor, the one readied in the first range
// runs after it, or, where the race detector's scheduler shuffles the run
// queue, after a range or two of the other worker.
func TestSpreadYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const ranges = 50
	var done atomic.Int64
	ranAfter := make(chan int64, 1)
	Spread(ranges, 2, 1, func(lo, _ int) {
		if lo == 0 {
			go func() { ranAfter <- done.Load() }()
		}
		for t0 := time.Now(); time.Since(t0) < SpreadYield; {
		}
		done.Add(1)
	})
	if got := <-ranAfter; got > 4 {
		t.Fatalf("a goroutine readied in the first range ran after %d of %d ranges", got, ranges)
	}
}

// TestGrain: ranges of about n/(8·workers), never fewer than minGrain or 1.
func TestGrain(t *testing.T) {
	for _, c := range []struct{ n, workers, min, want int }{
		{0, 4, 0, 1}, {1000, 4, 0, 32}, {1000, 4, 100, 100}, {468115, 32, 256, 1829}, {10, 0, 0, 2},
	} {
		if got := Grain(c.n, c.workers, c.min); got != c.want {
			t.Errorf("Grain(%d, %d, %d) = %d, want %d", c.n, c.workers, c.min, got, c.want)
		}
	}
}

// TestHostWorkers: every core but one on a host of more than four, every
// core on a smaller one.
func TestHostWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, want := range map[int]int{1: 1, 4: 4, 5: 4, 32: 31} {
		runtime.GOMAXPROCS(procs)
		if got := HostWorkers(); got != want {
			t.Errorf("GOMAXPROCS %d: HostWorkers %d, want %d", procs, got, want)
		}
	}
}

// TestSpreadNoRangeWaitsForAWorker: while one goroutine is held up in its
// range, the others take every other range: no range is bound to a worker
// that has not come to it.
func TestSpreadNoRangeWaitsForAWorker(t *testing.T) {
	const ranges = 100
	var done atomic.Int64
	othersDone := make(chan struct{})
	Spread(ranges, 4, 1, func(lo, _ int) {
		if lo == 0 {
			select {
			case <-othersDone:
			case <-time.After(10 * time.Second):
				t.Errorf("the other ranges did not finish while range 0 was held up: %d of %d", done.Load(), ranges-1)
			}
			return
		}
		if done.Add(1) == ranges-1 {
			close(othersDone)
		}
	})
}
