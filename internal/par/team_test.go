package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// coverOnce runs t.Do over [0, n) in parts of part and fails unless every
// index was handed out exactly once, in ranges of at least part items but
// for the last.
func coverOnce(tb testing.TB, t *Team, n, part int) {
	tb.Helper()
	seen := make([]atomic.Int32, n)
	t.Do(n, part, func(lo, hi int) {
		if lo < 0 || hi > n || lo > hi || lo == hi && n > 0 || hi-lo < part && hi < n {
			tb.Errorf("n %d part %d: bad range [%d, %d)", n, part, lo, hi)
			return
		}
		for i := lo; i < hi; i++ {
			seen[i].Add(1)
		}
	})
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			tb.Fatalf("n %d part %d: index %d handed out %d times", n, part, i, c)
		}
	}
}

// TestTeamCoversEachIndexOnce: every index of [0, n) goes to exactly one
// part, for teams of no members up to more members than parts.
func TestTeamCoversEachIndexOnce(t *testing.T) {
	for _, members := range []int{0, 1, 3, 40} {
		tm := NewTeam(members)
		for _, n := range []int{0, 1, 15, 16, 17, 342, 1000} {
			for _, part := range []int{0, 1, 16, 500} {
				coverOnce(t, tm, n, part)
			}
		}
		tm.Close()
	}
}

// TestTeamParksAndWakes: members that parked after TeamSpin without work
// take part in the next Do, which still covers every index once; Close
// returns with members parked.
func TestTeamParksAndWakes(t *testing.T) {
	tm := NewTeam(3)
	defer tm.Close()
	for range 3 {
		coverOnce(t, tm, 1000, 4)
		deadline := time.Now().Add(10 * TeamSpin)
		for tm.parked.Load() < 3 && time.Now().Before(deadline) {
			time.Sleep(TeamSpin / 4)
		}
		if p := tm.parked.Load(); p != 3 {
			t.Fatalf("%d of 3 members parked after %v without work", p, 10*TeamSpin)
		}
	}
	var ran atomic.Int32 // a parked member wakes for a burst that waits for it
	deadline := time.Now().Add(10 * time.Second)
	tm.Do(2, 1, func(lo, hi int) {
		ran.Add(1)
		for ran.Load() < 2 && time.Now().Before(deadline) {
		}
	})
	if ran.Load() < 2 {
		t.Fatal("no parked member woke for the burst")
	}
}

// TestTeamOverlappingCalls: Do calls from more goroutines at once than
// the team has slots (those in slots run on the team, the others on fresh
// goroutines) each cover their range once.
func TestTeamOverlappingCalls(t *testing.T) {
	tm := NewTeam(2)
	defer tm.Close()
	var wg sync.WaitGroup
	for range teamSlots + 2 {
		wg.Go(func() {
			for range 50 {
				coverOnce(t, tm, 300, 7)
			}
		})
	}
	wg.Wait()
}

// TestTeamDoAfterClose: a closed team's Do runs everything on its caller.
func TestTeamDoAfterClose(t *testing.T) {
	tm := NewTeam(3)
	tm.Close()
	coverOnce(t, tm, 500, 8)
}

// TestTeamYields: members spinning on every processor still let another
// goroutine run within a few TeamYield, not after the runtime's 10 ms
// preemption: a 1 ms sleep of the test's goroutine, whose wake-up needs a
// processor, overshoots by well under 5 ms at least once in five tries.
func TestTeamYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	tm := newTeam(2, time.Minute)
	defer tm.Close()
	best := time.Hour
	for range 5 {
		coverOnce(t, tm, 64, 1) // the members are awake and spinning
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		best = min(best, time.Since(t0)-time.Millisecond)
	}
	if best > 5*time.Millisecond {
		t.Fatalf("a 1 ms sleep beside spinning members overshot by %v at best", best)
	}
}
