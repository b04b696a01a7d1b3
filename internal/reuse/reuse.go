// Package reuse keeps a batch's large working buffers from one call to the
// next. sync.Pool does not serve them well: the last value each processor
// puts is visible to that processor's Get alone, so a call that starts on
// another processor than the last one ended on finds one buffer short and
// allocates tens of megabytes, whose allocation makes it assist the
// garbage collector over a heap of gigabytes before its work starts.
package reuse

import (
	"sync"
	"weak"
)

// List is a free list of *T that any goroutine takes from. It holds its
// values weakly: a garbage collection frees those no caller holds, as it
// would free values never put back. The zero List is empty and ready.
type List[T any] struct {
	mu   sync.Mutex
	free []weak.Pointer[T]
}

// Get returns the value put last that is still alive, or nil where none is.
func (l *List[T]) Get() *T {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.free) > 0 {
		w := l.free[len(l.free)-1]
		l.free = l.free[:len(l.free)-1]
		if p := w.Value(); p != nil {
			return p
		}
	}
	return nil
}

// Put keeps p for a later Get. A nil p is not kept.
func (l *List[T]) Put(p *T) {
	if p == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	live := l.free[:0] // the values a collection freed are dropped
	for _, w := range l.free {
		if w.Value() != nil {
			live = append(live, w)
		}
	}
	clear(l.free[len(live):])
	l.free = append(live, weak.Make(p))
}
