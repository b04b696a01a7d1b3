package par

import (
	"context"
	"runtime/trace"
)

// Stage is one stage of a pipeline's step: step is the step's index, slot
// the memory it runs in, below the pipeline's slots.
type Stage func(ctx context.Context, step, slot int) error

// Pipeline runs count steps through three stages, each step in one of
// slots memories that the caller holds: prepare, on one goroutine, step
// after step, each as soon as a slot is free; compute, on a goroutine of
// its own per step, once the step is prepared; finish, on the calling
// goroutine, step after step, once the step is computed. A slot goes to
// the next step once its step is finished, so that the host finishes a
// step while it prepares the next ones and slots − 1 steps compute. The
// first error cancels the context the stages get, and Pipeline returns it
// (or the cause of ctx's end) once every compute started has returned; a
// step computed after it is not finished.
func Pipeline(ctx context.Context, count, slots int, prepare, compute, finish Stage) error {
	if count <= 0 {
		return nil
	}
	slots = max(1, min(slots, count))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	free := make(chan int, slots)
	for s := range slots {
		free <- s
	}
	type started struct {
		step, slot int
		computed   chan error
	}
	queue := make(chan started, slots)
	go func() {
		defer close(queue)
		for j := range count {
			var s int
			select {
			case s = <-free:
			case <-ctx.Done():
				return
			}
			if ctx.Err() != nil { // a slot freed after an error
				return
			}
			if err := region(ctx, "prepare", j, s, prepare); err != nil {
				cancel(err)
				return
			}
			computed := make(chan error, 1)
			go func() { computed <- region(ctx, "compute", j, s, compute) }()
			queue <- started{j, s, computed}
		}
	}()
	for q := range queue {
		err := <-q.computed
		if err == nil && ctx.Err() == nil {
			err = region(ctx, "finish", q.step, q.slot, finish)
		}
		if err != nil {
			cancel(err)
		}
		free <- q.slot
	}
	return context.Cause(ctx) // the first error: each one cancels ctx
}

// region runs stage for step j in slot s as a region of an execution
// trace (runtime/trace) named for the stage, its step logged: go tool
// trace then shows where a pipeline's time went.
func region(ctx context.Context, name string, j, s int, stage Stage) error {
	if !trace.IsEnabled() {
		return stage(ctx, j, s)
	}
	defer trace.StartRegion(ctx, name).End()
	trace.Logf(ctx, name, "step %d", j)
	return stage(ctx, j, s)
}
