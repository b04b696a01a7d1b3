package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs batches over several devices, one Engine each with its own
// context, streams, constants and pinned buffers. Chunks go to whichever
// device has room, so a faster or less loaded device takes more; an
// overlapped batch's go an equal share to each device while every device
// takes part, so that a pipeline's step ends no later on one than on
// another. A device whose driver calls fail mid-batch hands its unfinished
// chunks to the others, and the batch still succeeds; that device is then
// left out of later batches while another one is healthy (when none is,
// the next batch tries them all again, so a single device behaves as an
// Engine does). A Pool is safe for concurrent use. Runs take their chunks
// one after the other: a Run starts once the one before has handed out its
// last chunk, and its chunks follow that one's on each GPU, each taking a
// slot as soon as the chunk before it there is finished.
type Pool struct {
	mu      sync.Mutex     // a Run holds it until every device has taken its last chunk
	running sync.WaitGroup // the Runs not yet returned
	engines []*Engine
	faultMu sync.Mutex
	faults  []error // per engine: the fault that took it out, nil while healthy
	done    bool
}

// DeviceStats is one device's share of a Pool's Run.
type DeviceStats struct {
	Device int   // ordinal
	Stats        // its chunks and times; WallMs is the Run's
	Fault  error // the driver error that took the device out of this Run, nil if none
}

// DeviceState says whether a device of a Pool takes part in its next Run.
type DeviceState struct {
	Device int
	Fault  error // the fault that took it out, nil while healthy
}

// Visible lists the ordinals of every device d sees.
func Visible(d Driver) ([]int, error) {
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNoDevice
	}
	ords := make([]int, n)
	for i := range ords {
		ords[i] = i
	}
	return ords, nil
}

// OpenPool opens cfg on each device of ordinals (cfg.Device is ignored),
// or on every visible device when ordinals is empty. On error, everything
// already opened is closed again.
func OpenPool(d Driver, cfg Config, ordinals []int) (*Pool, error) {
	if len(ordinals) == 0 {
		var err error
		if ordinals, err = Visible(d); err != nil {
			return nil, fmt.Errorf("gpu: listing devices: %w", err)
		}
	}
	if err := checkOrdinals(ordinals); err != nil {
		return nil, err
	}
	p := &Pool{faults: make([]error, len(ordinals))}
	for _, ord := range ordinals {
		c := cfg
		c.Device = ord
		e, err := Open(d, c)
		if err != nil {
			p.close()
			return nil, err
		}
		p.engines = append(p.engines, e)
	}
	return p, nil
}

func checkOrdinals(ordinals []int) error {
	seen := map[int]bool{}
	for _, o := range ordinals {
		switch {
		case o < 0:
			return fmt.Errorf("gpu: device %d: ordinals are not negative", o)
		case seen[o]:
			return fmt.Errorf("gpu: device %d listed twice", o)
		}
		seen[o] = true
	}
	return nil
}

// Devices lists the pool's devices and whether each takes part in the next
// Run.
func (p *Pool) Devices() []DeviceState {
	p.faultMu.Lock()
	defer p.faultMu.Unlock()
	out := make([]DeviceState, len(p.engines))
	for i, e := range p.engines {
		out[i] = DeviceState{Device: e.cfg.Device, Fault: p.faults[i]}
	}
	return out
}

// active returns the indexes of the engines that take part in the next
// Run: the healthy ones, or all of them (their faults forgotten) when none
// is healthy.
func (p *Pool) active() []int {
	p.faultMu.Lock()
	defer p.faultMu.Unlock()
	var idx []int
	for i, f := range p.faults {
		if f == nil {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		clear(p.faults)
		for i := range p.engines {
			idx = append(idx, i)
		}
	}
	return idx
}

// Run computes a batch as Engine.Run does, its chunks shared among the
// pool's devices; a batch of fewer than Config.Chunk items per device is cut
// into chunks of whole waves, pipelineDepth or more per device (chunkFor),
// which the devices take as each has room; an overlapped batch's chunks go
// an equal share to each device while every device takes part. It fails
// only when every device taking part failed, or a Drain failed, or
// ctx ended; Stats.Devices says how each device did. The next Run starts
// once this one has handed out its last chunk, its fills beside this one's
// last. Fill may run more than once for a chunk (again on another device
// after a fault); Drain runs at most once for each item.
func (p *Pool) Run(ctx context.Context, b Batch) (Stats, error) {
	p.mu.Lock()
	unlock := sync.OnceFunc(p.mu.Unlock)
	defer unlock()
	if p.done {
		return Stats{}, ErrClosed
	}
	for _, e := range p.engines {
		if err := e.checkBatch(b); err != nil {
			return Stats{}, err
		}
	}
	p.running.Add(1)
	defer p.running.Done()
	start := time.Now()
	gen, traceStart := traceClock()
	active := p.active()
	w := newWork(b.Count, p.chunkOn(b.Count, active, b.overlapsOthers()), len(active))
	if b.overlapsOthers() {
		w.shared()
	}
	shares := make([]DeviceStats, len(active))
	// the next Run starts once the batch's last chunk is taken, its fill
	// beside the last ones of this Run, or once every device has handed
	// over (found no chunk to take) or returned; a device that has handed
	// over still takes the chunks that a failing one gives back, into
	// slots the next Run lets go
	w.taken = unlock
	var left atomic.Int32
	left.Store(int32(len(active)))
	runOn := func(i, ei int) {
		e := p.engines[ei]
		handover := sync.OnceFunc(func() {
			if left.Add(-1) == 0 {
				unlock()
			}
		})
		st, fault := e.runOn(ctx, b, w, handover)
		shares[i] = DeviceStats{Device: e.cfg.Device, Stats: st, Fault: fault}
		if fault != nil { // a Run begun before the fault does not clear it
			p.faultMu.Lock()
			p.faults[ei] = fault
			p.faultMu.Unlock()
		}
		handover()
	}
	if len(active) == 1 {
		runOn(0, active[0]) // on this goroutine: no wake-up of another thread
	} else {
		var wg sync.WaitGroup
		for i, ei := range active {
			wg.Go(func() { runOn(i, ei) })
		}
		wg.Wait()
	}
	total := Stats{Devices: shares, WallMs: msSince(start)}
	for i := range shares {
		shares[i].WallMs = total.WallMs
		total.add(shares[i].Stats)
	}
	if gen != 0 {
		_, end := traceClock()
		traceAdd(gen, nil, &TracedRun{Entry: p.engines[active[0]].cfg.Entry, Count: b.Count, StartMs: traceStart, EndMs: end})
	}
	return total, w.failed()
}

// ChunkFor returns the size of the first chunk of a batch of count items
// on the devices that take part in the next Run (chunkFor): the launch a
// kernel-only measurement should time to compare with that Run.
func (p *Pool) ChunkFor(count int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.chunkOn(count, p.active(), false)
}

// chunkOn is chunkFor for the devices active: their first one's chunk and wave.
func (p *Pool) chunkOn(count int, active []int, overlapped bool) int {
	lead := p.engines[active[0]]
	return chunkFor(count, lead.cfg.Chunk, len(active), lead.wave, overlapped)
}

// pipelineDepth is how many chunks, at least, a device's share of a batch
// of several waves is cut into, and how many a share of at most a wave is
// cut into: the host fills and drains one while the GPU computes the
// others, all of them at once for a small share (one per slot, a slot left
// for the next batch's first chunk).
const pipelineDepth = 3

// minSplitChunk is the fewest items of a chunk cut from a share of at most
// a wave: below it, a launch's fixed costs outweigh the host work it
// overlaps.
const minSplitChunk = 256

// chunkFor is the chunk size of a batch of count items shared by devices
// devices whose wave, the items each runs at once (multiprocessors ×
// resident blocks × items per block), is wave, 0 if unknown. Chunks hold at
// most chunk items, rounded down to whole waves when chunk spans several. A
// device's share too short for pipelineDepth such chunks is cut into
// pipelineDepth chunks of whole waves, so that the host's work overlaps the
// kernel's and no launch adds a partial wave to those the share needs. A
// share of at most a wave is cut into pipelineDepth chunks of at least
// minSplitChunk items, which run side by side on the GPU while the host
// fills and drains the others (the kernel's time hardly depends on how much
// of a wave it runs), or else is one chunk; every device gets a part of a
// small batch.
// An overlapped batch (Batch.overlapsOthers), whose caller's other batches
// overlap its fills and drains with their kernels as its own chunks would,
// is instead one chunk per device where chunk holds a device's share, or
// else the fewest equal chunks that do: a pipeline's step then keeps the
// slots for as few chunks as it can, the next step's chunks take the
// others while its last ones finish, and no device is left with a short
// chunk while another still runs a full one.
func chunkFor(count, chunk, devices, wave int, overlapped bool) int {
	per := max(1, (count+devices-1)/devices)
	if overlapped {
		pieces := (per + chunk - 1) / chunk
		return (per + pieces - 1) / pieces
	}
	if wave > 0 && per <= wave && per >= pipelineDepth*minSplitChunk {
		return min(chunk, (per+pipelineDepth-1)/pipelineDepth)
	}
	if wave <= 0 || per <= wave {
		return min(chunk, per)
	}
	if chunk > wave {
		chunk -= chunk % wave
	}
	third := (per + pipelineDepth - 1) / pipelineDepth
	return min(chunk, (third+wave-1)/wave*wave, per)
}

// KernelTimes runs Engine.KernelTimes on every device that takes part in
// the next Run, all at once, and returns each device's times in the order
// of Devices (nil for a device left out).
func (p *Pool) KernelTimes(count int, fill func(in, scalars []uint32), launches, reps int) ([][]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil, ErrClosed
	}
	p.running.Wait() // the slots' buffers are free

	times := make([][]float64, len(p.engines))
	errs := make([]error, len(p.engines))
	var wg sync.WaitGroup
	for _, ei := range p.active() {
		wg.Go(func() { times[ei], errs[ei] = p.engines[ei].KernelTimes(count, fill, launches, reps) })
	}
	wg.Wait()
	return times, errors.Join(errs...)
}

// Close closes every device's Engine. The Pool cannot be used afterwards.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.done = true
	p.running.Wait() // Runs past their last chunk, which have let go of mu
	return p.close()
}

func (p *Pool) close() error {
	var errs []error
	for _, e := range slices.Backward(p.engines) {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}
