package fakecuda

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rnsec/ecmul/internal/gpu"
)

// queue runs one stream's work in order on its own goroutine, as a GPU
// runs a stream's copies and kernels after the calls that queued them have
// returned (Driver.Async).
type queue struct {
	mu      sync.Mutex
	changed *sync.Cond
	ops     []func()
	closed  bool
	jitter  time.Duration
}

func newQueue(jitter time.Duration) *queue {
	q := &queue{jitter: jitter}
	q.changed = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// run executes the queued work in order, each after a random pause of up
// to q.jitter, so that the streams' work interleaves differently from run
// to run; it ends once the queue is closed and empty.
func (q *queue) run() {
	for {
		q.mu.Lock()
		for len(q.ops) == 0 && !q.closed {
			q.changed.Wait()
		}
		if len(q.ops) == 0 {
			q.mu.Unlock()
			return
		}
		op := q.ops[0]
		q.ops = q.ops[1:]
		q.mu.Unlock()
		if q.jitter > 0 {
			time.Sleep(rand.N(q.jitter))
		}
		op()
	}
}

// push queues op; it never blocks.
func (q *queue) push(op func()) {
	q.mu.Lock()
	q.ops = append(q.ops, op)
	q.mu.Unlock()
	q.changed.Signal()
}

// marker queues a point in the stream and returns a channel closed once
// the work queued before it has run.
func (q *queue) marker() <-chan struct{} {
	done := make(chan struct{})
	q.push(func() { close(done) })
	return done
}

// close lets the goroutine end after the work already queued, as
// cuStreamDestroy lets a stream's pending work finish.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.changed.Signal()
}

// later runs op now, or, for a stream of an Async driver, on the stream's
// queue; op runs without d.mu, which it takes when it touches the fake's
// state. d.mu is held.
func (d *Driver) later(s gpu.Stream, op func()) {
	q := d.queues[s]
	if q == nil {
		d.mu.Unlock()
		defer d.mu.Lock()
		op()
		return
	}
	q.push(op)
}

// drained returns a channel closed once stream s's queued work has run, or
// nil for a stream whose work runs at once. d.mu is held.
func (d *Driver) drained(s gpu.Stream) <-chan struct{} {
	if q := d.queues[s]; q != nil {
		return q.marker()
	}
	return nil
}
