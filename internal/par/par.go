// Package par splits index ranges among goroutines: the one place the
// module spreads per-item host work over the cores, in fixed parts (Do, and
// DoAllCores on every core), in ranges claimed as workers free up, with a
// yield every SpreadYield (Spread, and SpreadHost on every core but one), or
// in chunks of a goroutine each (Chunks); a batch into a pipeline's
// steps (StepBounds), and the order in which the steps enter a queue they
// share (Turns).
package par

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Bounds splits [0, n) into p near-equal parts, p = min(workers,
// max(1, n/minPart)), and returns their p+1 bounds: part i is
// [b[i], b[i+1]). For n = 0 it returns [0, 0].
func Bounds(n, workers, minPart int) []int {
	p := max(1, min(workers, n/max(minPart, 1)))
	b := make([]int, p+1)
	for i := range b {
		b[i] = i * n / p
	}
	return b
}

// Do runs do(part, lo, hi) on every part of Bounds(n, workers, minPart),
// concurrently when there are several, and returns when all have returned.
// A single part (n = 0 included) runs on the calling goroutine.
func Do(n, workers, minPart int, do func(part, lo, hi int)) {
	b := Bounds(n, workers, minPart)
	if len(b) == 2 {
		do(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range len(b) - 1 {
		wg.Go(func() { do(p, b[p], b[p+1]) })
	}
	wg.Wait()
}

// allCoresMinPart is the fewest items a part of BoundsAllCores holds:
// below it, a goroutine costs more than the work it takes over.
const allCoresMinPart = 256

// BoundsAllCores splits [0, n) among all cores, runtime.GOMAXPROCS(0), in
// parts of at least 256 items, and returns the bounds as Bounds does.
func BoundsAllCores(n int) []int { return Bounds(n, runtime.GOMAXPROCS(0), allCoresMinPart) }

// DoAllCores runs do(part, lo, hi) on every part of BoundsAllCores(n), as
// Do does.
func DoAllCores(n int, do func(part, lo, hi int)) {
	Do(n, runtime.GOMAXPROCS(0), allCoresMinPart, do)
}

// Chunks runs do on consecutive chunks [lo, hi) of [0, n), at most chunk
// long, on up to workers goroutines at once, handing out chunks in order.
// Once ctx ends or a do fails, no further chunk starts; it returns the first
// error of a do, or the cause of ctx's end.
func Chunks(ctx context.Context, n, chunk, workers int, do func(lo, hi int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for lo := 0; lo < n; lo += chunk {
		if gctx.Err() != nil {
			break
		}
		hi := min(lo+chunk, n)
		g.Go(func() error {
			if gctx.Err() != nil {
				return context.Cause(ctx)
			}
			return do(lo, hi)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return context.Cause(ctx)
}
