package par

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTurnsOrder: steps whose goroutines start in reverse order enter in
// step order, each entering once (Enter twice is harmless).
func TestTurnsOrder(t *testing.T) {
	const count = 8
	turns := NewTurns(count)
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for j := count - 1; j >= 0; j-- {
		wg.Go(func() {
			if err := turns.Wait(context.Background(), j); err != nil {
				t.Error(err)
			}
			mu.Lock()
			order = append(order, j)
			mu.Unlock()
			turns.Enter(j)
			turns.Enter(j)
		})
		time.Sleep(time.Millisecond) // step j − 1's goroutine starts after step j's
	}
	wg.Wait()
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, order)
}

// TestTurnsWaitEnds: a step waiting for one that never enters returns its
// context's cause when the context ends.
func TestTurnsWaitEnds(t *testing.T) {
	turns := NewTurns(2)
	boom := errors.New("boom")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel(boom) }()
	require.ErrorIs(t, turns.Wait(ctx, 1), boom)
}
