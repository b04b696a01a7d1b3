// Package par splits index ranges among goroutines: the one helper the
// module uses to spread per-item host work over the cores.
package par

import "sync"

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
