package ecmul_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// TestScalarMultProgress: on every backend (gpu over the fake driver) the
// progress calls of a batch with invalid items come one at a time, with
// done growing to the batch's length and the same total each time, and the
// results are those of ScalarMult.
func TestScalarMultProgress(t *testing.T) {
	c := curves.P224()
	faultDriver(t, c)
	fc := newFaultCase(t, c, 40, 0)
	require.NotEmpty(t, fc.bad)
	for _, o := range []ecmul.Options{
		{Backend: ecmul.CPU},
		{Backend: ecmul.RNSCPU},
		{Backend: ecmul.GPU},
	} {
		t.Run(o.Backend.String(), func(t *testing.T) {
			e, err := diag.New(pub(c), o, diag.Tuning{Chunk: 7}) // the gpu backend's chunk; the others ignore it
			require.NoError(t, err)
			defer e.Close()
			var inside atomic.Int32
			var calls []int
			ctx := ecmul.WithProgress(context.Background(), func(done, total int) {
				require.Equal(t, int32(1), inside.Add(1), "calls overlap")
				defer inside.Add(-1)
				require.Equal(t, len(fc.pts), total)
				if len(calls) > 0 {
					require.Greater(t, done, calls[len(calls)-1])
				}
				calls = append(calls, done)
			})
			res, err := scalarMult(e, ctx, fc.pts, fc.ks)
			require.NoError(t, err)
			require.Equal(t, len(fc.pts)-len(fc.bad), requireHonest(t, fc, res, err))
			require.Greater(t, len(calls), 1, "several reports for a batch of several chunks")
			require.Equal(t, len(fc.pts), calls[len(calls)-1])
			res, err = scalarMult(e, ecmul.WithProgress(context.Background(), func(int, int) { t.Error("a call for an empty batch") }), nil, nil)
			require.NoError(t, err)
			require.Empty(t, res)
		})
	}
}

// TestScalarMultProgressCancelled: a batch that fails as a whole reports
// fewer items than it has.
func TestScalarMultProgressCancelled(t *testing.T) {
	c := curves.P224()
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer e.Close()
	fc := newFaultCase(t, c, 8, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	last := 0
	_, err = scalarMult(e, ecmul.WithProgress(ctx, func(done, _ int) { last = done }), fc.pts, fc.ks)
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, last, len(fc.pts))
}
