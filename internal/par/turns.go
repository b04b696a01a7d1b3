package par

import (
	"context"
	"sync"
)

// Turns orders the entries of a pipeline's steps into a queue they share,
// a GPU's, whatever order their goroutines run in: Wait(j) returns once
// step j − 1 has entered (Enter), so that a step whose compute starts
// while the one before still waits for the queue cannot take its place.
// A compute stage waits for its turn, and enters as soon as it holds its
// place in the queue (for a GPU, when its first chunk is filled), or else
// when it returns.
type Turns struct {
	entered []chan struct{}
	once    []sync.Once
}

// NewTurns returns the turns of count steps.
func NewTurns(count int) *Turns {
	t := &Turns{entered: make([]chan struct{}, count), once: make([]sync.Once, count)}
	for j := range t.entered {
		t.entered[j] = make(chan struct{})
	}
	return t
}

// Wait waits until step j − 1 has entered, or ctx ends (its cause is then
// returned). Step 0 waits for nothing.
func (t *Turns) Wait(ctx context.Context, j int) error {
	if j == 0 {
		return nil
	}
	select {
	case <-t.entered[j-1]:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Enter records that step j has entered the queue, letting step j + 1's
// Wait return; calls after the first do nothing.
func (t *Turns) Enter(j int) {
	t.once[j].Do(func() { close(t.entered[j]) })
}
