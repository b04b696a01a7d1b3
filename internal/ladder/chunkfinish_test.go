package ladder

import (
	"bytes"
	"math/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestChunkFinishMatchesFinishItems: on every curve, a chunk finished in
// blocks (of 1, 3, 16 and more items than the chunk has), its blocks
// gathered and emitted on several goroutines in a shuffled order, gives
// each item exactly once and exactly what FinishItems gives: random points,
// edge scalars (the fixed results 0 and −G among them), and items whose
// outputs were spoiled (a zero denominator, random words), which fail.
// The paper's schedule has no ChunkFinish.
func TestChunkFinishMatchesFinishItems(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			require.Nil(t, newSetupKindT(t, c, Paper).NewChunkFinish(nil, nil, 0, 16))
			su := newSetupKindT(t, c, CoZ)
			rng := rand.New(rand.NewSource(41))
			cases := bytesCases(t, c, rng, count(70, 30))
			stride := len(cases) + 3
			out := make([]uint32, su.OutputRows()*stride)
			items := make([]Item, len(cases))
			o := su.NewOracle()
			for i, bc := range cases {
				require.NoError(t, su.PrepareBytes(&items[i], bc.scalar, bc.point))
				j, err := su.Prepare(bc.x, bc.y, bc.k)
				require.NoError(t, err)
				putOutputs(t, su, o, rng, out, stride, i, j)
			}
			n := su.Params.N
			zeroDen, spoiled := len(edgeScalars(c))+2, len(edgeScalars(c))+5 // items of random scalars
			for r := range n {
				out[(coZDen*n+r)*stride+zeroDen] = 0
			}
			for r := range su.OutputRows() {
				out[r*stride+spoiled] = rng.Uint32() % uint32(su.Params.B.Moduli[r%n].M)
			}

			type result struct {
				o  Outcome
				xy []byte
			}
			want := make([]result, len(items))
			su.FinishItems(items, out, stride, nil, func(k int, oc Outcome, xy []byte) {
				want[k] = result{oc, bytes.Clone(xy)}
			})
			require.Equal(t, OutFailed, want[zeroDen].o)
			require.Equal(t, OutFailed, want[spoiled].o)
			for _, block := range []int{1, 3, 16, len(items) + 5} {
				got, seen := make([]result, len(items)), make([]int, len(items))
				var mu sync.Mutex
				cf := su.NewChunkFinish(items, out, stride, block)
				onAll := func(do func(b int)) {
					order := rng.Perm(cf.Blocks())
					var wg sync.WaitGroup
					for g := range 3 {
						wg.Go(func() {
							for i := g; i < len(order); i += 3 {
								do(order[i])
							}
						})
					}
					wg.Wait()
				}
				onAll(cf.Gather)
				cf.Invert()
				onAll(func(b int) {
					cf.Emit(b, func(k int, oc Outcome, xy []byte) {
						mu.Lock()
						got[k], seen[k] = result{oc, bytes.Clone(xy)}, seen[k]+1
						mu.Unlock()
					})
				})
				cf.Release()
				for k := range items {
					require.Equal(t, 1, seen[k], "block %d: item %d emitted %d times", block, k, seen[k])
					require.Equal(t, want[k], got[k], "block %d: item %d", block, k)
				}
			}
		})
	}
}
