package par

import "context"

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
			if err := prepare(ctx, j, s); err != nil {
				cancel(err)
				return
			}
			computed := make(chan error, 1)
			go func() { computed <- compute(ctx, j, s) }()
			queue <- started{j, s, computed}
		}
	}()
	for q := range queue {
		err := <-q.computed
		if err == nil && ctx.Err() == nil {
			err = finish(ctx, q.step, q.slot)
		}
		if err != nil {
			cancel(err)
		}
		free <- q.slot
	}
	return context.Cause(ctx) // the first error: each one cancels ctx
}
