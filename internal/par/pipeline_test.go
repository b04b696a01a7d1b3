package par

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pipelineLog checks a pipeline's stages as they run: a slot holds one
// step from its prepare to its finish, each stage follows the one before,
// and the finishes come in order.
type pipelineLog struct {
	t        *testing.T
	mu       sync.Mutex
	owner    []int // the step each slot holds, −1 when free
	stage    map[int]string
	finished []int
	computes atomic.Int32 // computes begun and not returned
}

func newPipelineLog(t *testing.T, slots int) *pipelineLog {
	l := &pipelineLog{t: t, owner: make([]int, slots), stage: map[int]string{}}
	for i := range l.owner {
		l.owner[i] = -1
	}
	return l
}

func (l *pipelineLog) prepare(_ context.Context, step, slot int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[slot] != -1 {
		l.t.Errorf("step %d prepared in slot %d, which step %d holds", step, slot, l.owner[slot])
	}
	l.owner[slot], l.stage[step] = step, "prepared"
	return nil
}

func (l *pipelineLog) compute(_ context.Context, step, slot int) error {
	l.computes.Add(1)
	defer l.computes.Add(-1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[slot] != step || l.stage[step] != "prepared" {
		l.t.Errorf("step %d computed in slot %d (held by %d) at stage %q", step, slot, l.owner[slot], l.stage[step])
	}
	l.stage[step] = "computed"
	return nil
}

func (l *pipelineLog) finish(_ context.Context, step, slot int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[slot] != step || l.stage[step] != "computed" {
		l.t.Errorf("step %d finished in slot %d (held by %d) at stage %q", step, slot, l.owner[slot], l.stage[step])
	}
	l.owner[slot], l.stage[step] = -1, "finished"
	l.finished = append(l.finished, step)
	return nil
}

// TestPipeline: every step is prepared, computed and finished once, in its
// slot alone, the finishes in order, for any number of slots.
func TestPipeline(t *testing.T) {
	for _, slots := range []int{1, 2, 4, 9} {
		for _, count := range []int{0, 1, 3, 8} {
			l := newPipelineLog(t, slots)
			require.NoError(t, Pipeline(context.Background(), count, slots, l.prepare, l.compute, l.finish))
			want := []int{}
			for j := range count {
				want = append(want, j)
			}
			require.Equal(t, want, append([]int{}, l.finished...), "slots %d, count %d", slots, count)
		}
	}
}

// TestPipelineOverlap: with 4 slots, a fourth compute begins while the
// first has not returned (it waits for it), and a fifth only once the
// first step is finished: the host prepares while slots − 1 steps compute.
func TestPipelineOverlap(t *testing.T) {
	const slots = 4
	fourth := make(chan struct{})
	var finished atomic.Int32
	compute := func(_ context.Context, step, _ int) error {
		switch step {
		case 0:
			select {
			case <-fourth:
			case <-time.After(10 * time.Second):
				t.Error("no fourth compute began while the first ran")
			}
		case 3:
			close(fourth)
		case 4:
			if finished.Load() == 0 {
				t.Error("a fifth compute began before a step was finished")
			}
		}
		return nil
	}
	finish := func(context.Context, int, int) error { finished.Add(1); return nil }
	none := func(context.Context, int, int) error { return nil }
	require.NoError(t, Pipeline(context.Background(), 6, slots, none, compute, finish))
	require.Equal(t, int32(6), finished.Load())
}

// TestPipelineErrors: the first error of any stage, or the context's end,
// is Pipeline's; the stages after it see the context canceled, no step
// from it on is finished (after a prepare's error, maybe not those before
// it either), and every compute begun has returned.
func TestPipelineErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, at := range []string{"prepare", "compute", "finish"} {
		l := newPipelineLog(t, 3)
		fail := func(stage string, do Stage) Stage {
			return func(ctx context.Context, step, slot int) error {
				if stage == at && step == 4 {
					return boom
				}
				if step > 6 && ctx.Err() == nil {
					t.Errorf("%s: step %d's %s ran after step 4 failed without the context canceled", at, step, stage)
				}
				return do(ctx, step, slot)
			}
		}
		err := Pipeline(context.Background(), 20, 3, fail("prepare", l.prepare), fail("compute", l.compute), fail("finish", l.finish))
		require.ErrorIs(t, err, boom, at)
		require.Zero(t, l.computes.Load(), "%s: a compute had not returned", at)
		if at == "prepare" { // the steps before it that were computed in time
			require.Equal(t, []int{0, 1, 2, 3}[:len(l.finished)], l.finished, at)
		} else { // the finishes that came before the step's compute returned
			require.Equal(t, []int{0, 1, 2, 3}, l.finished, at)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l := newPipelineLog(t, 3)
	require.ErrorIs(t, Pipeline(ctx, 5, 3, l.prepare, l.compute, l.finish), context.Canceled)
	require.Empty(t, l.finished)
}
