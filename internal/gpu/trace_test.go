package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/gpu"
)

// TestTrace: between StartTrace and StopTrace, every chunk of a Run over
// two devices is traced once, on its device, with its stages in order on
// the trace's clock and within its Run's span; the Run itself is traced;
// nothing is traced outside a trace, and a closed pool leaks no epoch
// event.
func TestTrace(t *testing.T) {
	f := newPoolFixture(t, 20, 2)
	p, err := gpu.OpenPool(f.d, f.cfg, nil)
	require.NoError(t, err)
	var l drainLog
	_, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)

	gpu.StartTrace()
	st, err := p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	tr := gpu.StopTrace()
	f.requireEach(t, &l)
	require.Len(t, tr.Runs, 1)
	run := tr.Runs[0]
	require.Equal(t, f.cfg.Entry, run.Entry)
	require.Equal(t, len(f.jobs), run.Count)
	require.Len(t, tr.Chunks, st.Chunks, "every chunk once")
	items, devices := 0, map[int]bool{}
	for _, c := range tr.Chunks {
		require.Equal(t, f.cfg.Entry, c.Entry)
		devices[c.Device] = true
		items += c.Hi - c.Lo
		stages := []float64{run.StartMs, c.Start, c.CopiedIn, c.Prepared, c.Laddered, c.Ran, c.Done, run.EndMs}
		for k := 1; k < len(stages); k++ {
			require.LessOrEqual(t, stages[k-1], stages[k]+0.5, "chunk %+v: stage %d before the one before it", c, k)
		}
	}
	require.Equal(t, len(f.jobs), items)
	require.Len(t, devices, 2, "both devices' chunks")

	_, err = p.Run(context.Background(), f.loggedBatch(&l))
	require.NoError(t, err)
	require.Len(t, gpu.StopTrace().Chunks, st.Chunks, "nothing traced after StopTrace")
	require.NoError(t, p.Close())
	require.Zero(t, f.d.Live(), "everything released: %+v", f.d.Resources())
}
