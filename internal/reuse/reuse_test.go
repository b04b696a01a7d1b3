package reuse

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGetAcrossGoroutines: every value put is found by a Get on any
// goroutine, the last put first, the goroutines' processors whatever
// they were (sync.Pool would keep one a processor out of reach).
func TestGetAcrossGoroutines(t *testing.T) {
	var l List[[64]byte]
	vals := make([]*[64]byte, 4)
	var wg sync.WaitGroup
	for i := range vals {
		vals[i] = new([64]byte)
		vals[i][0] = byte(i)
	}
	for _, v := range vals {
		wg.Go(func() { l.Put(v) })
		wg.Wait() // in order
	}
	got := make(chan *[64]byte, len(vals))
	for range vals {
		wg.Go(func() { got <- l.Get() })
		wg.Wait()
	}
	close(got)
	want := 3
	for g := range got {
		require.NotNil(t, g)
		require.Equal(t, byte(want), g[0], "the last put first")
		want--
	}
	require.Nil(t, l.Get(), "every value was taken")
	runtime.KeepAlive(vals)
}

// TestCollectedValuesAreDropped: a value no one holds is freed by a
// garbage collection and then neither returned nor counted; one held
// elsewhere stays.
func TestCollectedValuesAreDropped(t *testing.T) {
	var l List[[1 << 16]byte]
	held := new([1 << 16]byte)
	l.Put(held)
	l.Put(new([1 << 16]byte))
	require.Equal(t, 2, l.live())
	runtime.GC()
	require.Equal(t, 1, l.live(), "the value no one held is freed")
	require.Same(t, held, l.Get())
	require.Nil(t, l.Get())
	l.Put(nil)
	require.Zero(t, l.live(), "nil is not kept")
}

// live returns how many values l holds that are still alive.
func (l *List[T]) live() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, w := range l.free {
		if w.Value() != nil {
			n++
		}
	}
	return n
}
