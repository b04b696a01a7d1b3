package gpu

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// span is a chunk of a batch: items [lo, hi).
type span struct{ lo, hi int }

// work hands a batch's chunks to the devices computing it, one at a time
// as each device has room, so a faster device takes more, or, where the
// batch has shares, each device its share while every device takes part.
// A chunk handed to a device is out until the device either passes it to
// Drain (done) or fails before that (given back, to run on another
// device). The batch ends when no chunk is pending or out, or when it
// fails.
type work struct {
	mu      sync.Mutex
	changed *sync.Cond
	pending []span // chunks to hand out; given-back ones are taken first
	out     int    // chunks handed out and neither done nor given back
	alive   int    // devices still taking chunks
	devices int    // the devices that took part at the start
	// share, when set, is the most chunks a device takes while every
	// device takes part (shared): a pipeline's step, one chunk a device,
	// then runs on each, rather than two on a device whose slot came free
	// first, which would end the pipeline a chunk's time later than the
	// others
	share  int
	faults []error
	err    error // the batch's failure; once set, nothing more is handed out
	// taken, when set, runs once every chunk has been handed out (on the
	// goroutine of the take that handed out the last one, after take's
	// lock): the devices' next batch may then start beside this one's last
	// fills
	taken func()
	// handedOut is closed once every chunk has been handed out, even if
	// some come back later
	handedOut chan struct{}
}

// newWork splits count items into chunks of at most chunk items for the
// given number of devices.
func newWork(count, chunk, devices int) *work {
	w := &work{alive: devices, devices: devices, handedOut: make(chan struct{})}
	w.changed = sync.NewCond(&w.mu)
	for lo := 0; lo < count; lo += chunk {
		w.pending = append(w.pending, span{lo, min(lo+chunk, count)})
	}
	// pending is a stack: reversed, the first chunk comes out first
	slices.Reverse(w.pending)
	return w
}

// shared gives each device at most ⌈chunks/devices⌉ of the batch's
// chunks while every device takes part.
func (w *work) shared() {
	w.share = (len(w.pending) + w.devices - 1) / w.devices
}

// take returns the next chunk for a device that has taken *count of the
// batch's chunks, and counts it there. When none is pending for it but
// some are out, it waits for one to come back or for the batch to end if
// wait is set, and otherwise returns ok false with more true. ok and more
// both false: the batch is over (complete or failed).
func (w *work) take(count *int, wait bool) (c span, ok, more bool) {
	w.mu.Lock()
	c, ok, more = w.takeLocked(count, wait)
	first := ok && len(w.pending) == 0 && !w.allHandedOut()
	if first {
		close(w.handedOut)
	}
	w.mu.Unlock()
	if first && w.taken != nil {
		w.taken()
	}
	return c, ok, more
}

// allHandedOut reports whether every chunk has been handed out.
func (w *work) allHandedOut() bool {
	select {
	case <-w.handedOut:
		return true
	default:
		return false
	}
}

// takeLocked is take with w.mu held.
func (w *work) takeLocked(count *int, wait bool) (c span, ok, more bool) {
	for {
		switch {
		case w.err != nil:
			return span{}, false, false
		case len(w.pending) > 0 && !w.shareTaken(*count):
			c = w.pending[len(w.pending)-1]
			w.pending = w.pending[:len(w.pending)-1]
			w.out++
			*count++
			return c, true, true
		case w.out == 0 && len(w.pending) == 0:
			return span{}, false, false
		case !wait:
			return span{}, false, true
		}
		w.changed.Wait()
	}
}

// shareTaken reports whether a device that has taken count chunks has
// taken its share, while every device takes part.
func (w *work) shareTaken(count int) bool {
	return w.share > 0 && w.alive == w.devices && count >= w.share
}

// pendingCount returns the chunks waiting to be taken.
func (w *work) pendingCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

// nonePending reports that no chunk waits to be taken (though one may
// still come back from a failed device).
func (w *work) nonePending() bool { return w.pendingCount() == 0 }

// done records that a chunk reached Drain.
func (w *work) done() {
	w.mu.Lock()
	w.out--
	w.mu.Unlock()
	w.changed.Broadcast()
}

// fail ends the batch with err unless it already failed.
func (w *work) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.changed.Broadcast()
}

// failed returns the batch's failure, if any.
func (w *work) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// giveBack returns chunks that a device took but will not compute, for
// another device to take.
func (w *work) giveBack(chunks ...span) {
	w.mu.Lock()
	w.giveBackLocked(chunks)
	w.mu.Unlock()
	w.changed.Broadcast()
}

// giveBackLocked is giveBack with w.mu held.
func (w *work) giveBackLocked(chunks []span) {
	w.pending = append(w.pending, chunks...)
	w.out -= len(chunks)
}

// deviceFailed takes a failed device out of the batch, giving back the
// chunks it held; when it was the last device, the batch fails.
func (w *work) deviceFailed(err error, held []span) {
	w.mu.Lock()
	w.giveBackLocked(held)
	w.alive--
	w.faults = append(w.faults, err)
	if w.alive == 0 && w.err == nil {
		w.err = everyDeviceFailed(w.faults)
	}
	w.mu.Unlock()
	w.changed.Broadcast()
}

// everyDeviceFailed is the batch's error when no device is left: a single
// device's error as it is, several joined under one message.
func everyDeviceFailed(faults []error) error {
	if len(faults) == 1 {
		return faults[0]
	}
	return fmt.Errorf("gpu: every device failed: %w", errors.Join(faults...))
}
