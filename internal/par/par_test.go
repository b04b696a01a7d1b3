package par

import (
	"sync"
	"testing"
)

// TestDoCoversEachIndexOnce: every index of [0, n) is handed to exactly one
// part, parts are contiguous and numbered from 0, for many shapes.
func TestDoCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 63, 64, 65, 1000, 4097} {
		for _, workers := range []int{1, 2, 3, 16} {
			for _, minPart := range []int{0, 1, 64, 256} {
				seen := make([]int, n)
				var mu sync.Mutex
				parts := map[int]bool{}
				Do(n, workers, minPart, func(part, lo, hi int) {
					mu.Lock()
					defer mu.Unlock()
					if parts[part] {
						t.Errorf("part %d twice", part)
					}
					parts[part] = true
					for i := lo; i < hi; i++ {
						seen[i]++
					}
				})
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("n=%d workers=%d minPart=%d: index %d seen %d times", n, workers, minPart, i, s)
					}
				}
				b := Bounds(n, workers, minPart)
				if len(b)-1 > workers && workers > 0 || b[0] != 0 || b[len(b)-1] != n {
					t.Fatalf("n=%d workers=%d minPart=%d: bounds %v", n, workers, minPart, b)
				}
				if len(parts) != len(b)-1 {
					t.Fatalf("n=%d: %d parts ran, %d bounds", n, len(parts), len(b)-1)
				}
			}
		}
	}
}
