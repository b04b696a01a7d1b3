package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Team is a crew of goroutines kept running for the length of a
// latency-bound task, such as a small GPU batch, whose host work comes in
// bursts of tens of microseconds with waits between them. Do splits a burst
// among the members and the caller: a goroutine started for it, or a
// parked one, would first wait for the OS to wake a thread, which can take
// as long as the burst. Between bursts the members spin, for at most
// TeamSpin, then park until the next one. Parts are claimed as members come
// free, and the caller claims them too, so a member that is slow to start
// delays nothing.
//
// A Team's members hold processors while they spin (yielding them every
// TeamYield), so a Team should have fewer members than GOMAXPROCS − 1,
// leaving the caller a processor to come back to from a blocking call (a
// driver call, for one).
type Team struct {
	spin    time.Duration                      // TeamSpin
	jobs    [teamSlots]atomic.Pointer[teamJob] // the bursts under way
	stop    atomic.Bool
	parked  atomic.Int32
	wake    chan struct{}
	members sync.WaitGroup
}

// teamSlots is how many Do calls may run on a team at once: a GPU batch
// fills one chunk while it drains up to three.
const teamSlots = 4

// TeamSpin is how long a member spins without work before it parks.
const TeamSpin = 2 * time.Millisecond

// TeamYield is how often a spinning member lets the scheduler run another
// goroutine on its processor (the garbage collector's workers, the
// program's own): a goroutine that never yields keeps its processor until
// the runtime preempts it, after 10 ms.
const TeamYield = 100 * time.Microsecond

// teamJob is one burst: [0, n) in parts of part items.
type teamJob struct {
	n, part    int
	do         func(lo, hi int)
	next, done atomic.Int64
}

// work runs parts of j until none is left to claim, and reports whether
// it ran any.
func (j *teamJob) work() (ran bool) {
	for {
		lo := int(j.next.Add(int64(j.part))) - j.part
		if lo >= j.n {
			return ran
		}
		hi := min(lo+j.part, j.n)
		j.do(lo, hi)
		j.done.Add(int64(hi - lo))
		ran = true
	}
}

// NewTeam starts a team of the given number of members (none for 0 or
// fewer: Do then runs everything on its caller). Close stops them.
func NewTeam(members int) *Team { return newTeam(members, TeamSpin) }

// newTeam is NewTeam with members that spin for spin before they park.
func newTeam(members int, spin time.Duration) *Team {
	t := &Team{spin: spin, wake: make(chan struct{}, max(members, 0))}
	for range members {
		t.members.Go(t.serve)
	}
	return t
}

// serve is a member's loop: work on the bursts under way, spin while there
// is none, yielding its processor every TeamYield, and park once none came
// for TeamSpin.
func (t *Team) serve() {
	idleSince := time.Now()
	lastYield := idleSince
	for spins := 0; !t.stop.Load(); spins++ {
		if t.workAny() {
			idleSince, spins = time.Now(), 0
			continue
		}
		if spins%256 != 255 {
			continue
		}
		now := time.Now()
		if now.Sub(idleSince) < t.spin {
			if now.Sub(lastYield) >= TeamYield {
				runtime.Gosched()
				lastYield = now
			}
			continue
		}
		t.parked.Add(1)
		if !t.busy() && !t.stop.Load() {
			<-t.wake
		}
		t.parked.Add(-1)
		idleSince = time.Now()
	}
}

// workAny runs parts of every burst under way and reports whether it ran any.
func (t *Team) workAny() (ran bool) {
	for i := range t.jobs {
		if j := t.jobs[i].Load(); j != nil && j.work() {
			ran = true
		}
	}
	return ran
}

// busy reports whether a burst is under way.
func (t *Team) busy() bool {
	for i := range t.jobs {
		if t.jobs[i].Load() != nil {
			return true
		}
	}
	return false
}

// Do runs do(lo, hi) over [0, n) in ranges of at least part items (at
// least 1; the last range may be shorter), on the caller and the members,
// and returns when every call has returned. For n <= part it is one call
// do(0, n) on the caller (n = 0 included). Up to teamSlots calls may run
// at once, the members sharing themselves among them; one more runs its
// parts with fresh goroutines, as Do of this package does.
func (t *Team) Do(n, part int, do func(lo, hi int)) {
	part = max(part, 1)
	if n <= part {
		do(0, n)
		return
	}
	j := &teamJob{n: n, part: part, do: do}
	slot := t.claimSlot(j)
	if slot == nil {
		Do(n, cap(t.wake)+1, part, func(_, lo, hi int) { do(lo, hi) })
		return
	}
	t.wakeUp(int(t.parked.Load()))
	j.work()
	for j.done.Load() < int64(n) {
	}
	slot.Store(nil)
}

// claimSlot puts j in a free slot and returns it, or nil when all are taken.
func (t *Team) claimSlot(j *teamJob) *atomic.Pointer[teamJob] {
	for i := range t.jobs {
		if t.jobs[i].CompareAndSwap(nil, j) {
			return &t.jobs[i]
		}
	}
	return nil
}

// Close stops the members and waits for them to return. Do after Close
// runs every part on its caller.
func (t *Team) Close() {
	t.stop.Store(true)
	t.wakeUp(cap(t.wake))
	t.members.Wait()
}

// wakeUp hands out up to n wake-up tokens to parked members, as many as
// the channel has room for (a token no member takes stays for the next to
// park, which then finds work or parks again).
func (t *Team) wakeUp(n int) {
	for range n {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
}
