package par

import (
	"context"
	"errors"
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

// TestDoAllCores: the all-cores split covers each index once, in parts of
// at least 256 items unless there is a single part.
func TestDoAllCores(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 511, 512, 10000} {
		seen := make([]int, n)
		var mu sync.Mutex
		DoAllCores(n, func(_, lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d: index %d seen %d times", n, i, s)
			}
		}
		b := BoundsAllCores(n)
		for p := range len(b) - 1 {
			if len(b) > 2 && b[p+1]-b[p] < 256 {
				t.Fatalf("n=%d: part %d is %d items", n, p, b[p+1]-b[p])
			}
		}
	}
}

// TestChunks: every index is handed out once, in chunks of at most the
// size asked, at most workers at a time; an error or a cancelled context
// stops the handing out.
func TestChunks(t *testing.T) {
	for _, n := range []int{0, 1, 7, 64, 1000} {
		var mu sync.Mutex
		seen := make([]int, n)
		running, most := 0, 0
		err := Chunks(context.Background(), n, 9, 3, func(lo, hi int) error {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			if hi-lo > 9 || hi <= lo {
				t.Errorf("chunk [%d, %d)", lo, hi)
			}
			mu.Lock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			running--
			mu.Unlock()
			return nil
		})
		if err != nil || most > 3 {
			t.Fatalf("n=%d: %v, %d at once", n, err, most)
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d: index %d seen %d times", n, i, s)
			}
		}
	}
	boom := errors.New("boom")
	calls := 0
	err := Chunks(context.Background(), 100, 1, 1, func(lo, hi int) error {
		calls++
		if lo == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls > 5 {
		t.Fatalf("%v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Chunks(ctx, 100, 1, 1, func(lo, hi int) error { t.Error("ran after cancel"); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
