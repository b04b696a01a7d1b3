package gpu

import (
	"sync"
	"time"
)

// A trace records, between StartTrace and StopTrace, every timed chunk of
// every Engine in the process and every Pool's Run, on one clock: the
// host's, in milliseconds from StartTrace. An Engine's chunk times are its
// events' elapsed times from an event of its own that the host waited for
// (the engine's epoch, taken at its first chunk of the trace), plus the
// host time at which that wait ended: chunks of different engines, devices
// and Runs line up to within that wait's wake-up. Taking an epoch waits
// for the work its stream already holds, once an Engine a trace.
var trace struct {
	mu     sync.Mutex
	gen    int // the number of the trace running or last run; 0: none yet
	on     bool
	start  time.Time
	chunks []TracedChunk
	runs   []TracedRun
}

// TracedChunk is a chunk of a trace: its device and engine's entry point,
// its items (Lo, Hi, within its Run) and its stages' times on the
// trace's clock (ChunkTimes).
type TracedChunk struct {
	Device int
	Entry  string
	ChunkTimes
}

// TracedRun is a Pool's Run in a trace: its engines' entry point, its
// items, and when it began and returned on the trace's clock.
type TracedRun struct {
	Entry          string
	Count          int
	StartMs, EndMs float64
}

// Trace is what StopTrace returns.
type Trace struct {
	Chunks []TracedChunk
	Runs   []TracedRun
}

// StartTrace starts a trace, dropping what an earlier one recorded.
func StartTrace() {
	trace.mu.Lock()
	defer trace.mu.Unlock()
	trace.gen++
	trace.on, trace.start = true, time.Now()
	trace.chunks, trace.runs = nil, nil
}

// StopTrace ends the trace and returns what it recorded: the chunks in
// the order their Runs timed them, the Runs in the order they returned.
func StopTrace() Trace {
	trace.mu.Lock()
	defer trace.mu.Unlock()
	trace.on = false
	return Trace{Chunks: trace.chunks, Runs: trace.runs}
}

// traceClock returns the running trace's number and the time on its
// clock; gen is 0 when no trace runs.
func traceClock() (gen int, ms float64) {
	trace.mu.Lock()
	defer trace.mu.Unlock()
	if !trace.on {
		return 0, 0
	}
	return trace.gen, msSince(trace.start)
}

// traceAdd records a chunk or a Run of trace gen, if it still runs.
func traceAdd(gen int, c *TracedChunk, r *TracedRun) {
	trace.mu.Lock()
	defer trace.mu.Unlock()
	if !trace.on || trace.gen != gen {
		return
	}
	if c != nil {
		trace.chunks = append(trace.chunks, *c)
	}
	if r != nil {
		trace.runs = append(trace.runs, *r)
	}
}

// epoch is an Engine's origin on a trace's clock.
type epoch struct {
	mu  sync.Mutex
	gen int     // the trace it belongs to; 0: none
	ev  Event   // recorded on a slot's stream, and waited for
	at  float64 // the trace's clock when the wait ended
}

// traceEpoch takes e's epoch on slot s's stream, if a trace runs and e has
// none of it yet. A driver call that fails leaves e out of the trace, and
// the batch to find the fault on its own calls.
func (e *Engine) traceEpoch(s *slot) {
	gen, _ := traceClock()
	ep := &e.epoch
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if gen == 0 || ep.gen == gen {
		return
	}
	if ep.ev == 0 {
		ev, err := e.d.EventCreate()
		if err != nil {
			return
		}
		ep.ev = ev
	}
	if e.d.EventRecord(ep.ev, s.stream) != nil || e.d.EventSynchronize(ep.ev) != nil {
		return
	}
	ep.gen, ep.at = traceClock()
}

// traceChunk records slot s's finished chunk, whose times from its Run's
// origin are ct, in the running trace, if e has its epoch: a chunk whose
// copy began before the epoch is left out.
func (e *Engine) traceChunk(s *slot, ct ChunkTimes) {
	ep := &e.epoch
	ep.mu.Lock()
	gen, ev, at := ep.gen, ep.ev, ep.at
	ep.mu.Unlock()
	if now, _ := traceClock(); gen == 0 || gen != now {
		return
	}
	start, err := e.d.EventElapsedMs(ev, s.evStart)
	if err != nil || start < 0 {
		return
	}
	shift := at + float64(start) - ct.Start
	for _, t := range []*float64{&ct.Start, &ct.CopiedIn, &ct.Prepared, &ct.Laddered, &ct.Ran, &ct.Done} {
		*t += shift
	}
	traceAdd(gen, &TracedChunk{Device: e.cfg.Device, Entry: e.cfg.Entry, ChunkTimes: ct}, nil)
}

// releaseEpoch destroys e's epoch event.
func (e *Engine) releaseEpoch() {
	ep := &e.epoch
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.ev != 0 {
		e.d.EventDestroy(ep.ev)
		ep.ev, ep.gen = 0, 0
	}
}
