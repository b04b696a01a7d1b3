package gpu_test

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// TestFinishKernelMatchesCPUTwin runs the ladder and then the finish kernel
// of every curve and channel width, for the co-Z ladder and the comb, on
// random items and the edge scalars (the fixed results among them), their
// inputs packed by the host (PackItem) or by the prepare kernel from the
// points' words (PackRaw), and checks every result word against the
// finish's CPU twin (ladder.Setup.FinishRowsOnHost) on the CPU twin's
// outputs, and the points against the reference; the host-packed inputs
// also with every thread of the finish taking kernels.FinishItemsMax items.
func TestFinishKernelMatchesCPUTwin(t *testing.T) {
	d := realDriver(t)
	image, err := gpu.KernelImage()
	require.NoError(t, err)
	count := gpuItems()
	for _, ct := range kernels.Curves {
		for _, w := range kernels.Channels {
			for _, kind := range []ladder.Kind{ladder.CoZ, ladder.Comb} {
				c, err := curves.ByName(ct.Curve)
				require.NoError(t, err)
				su, err := ladder.NewSetupBits(c, kind, kernels.ChannelBits(w))
				require.NoError(t, err)
				for _, run := range []struct {
					raw       bool
					perThread int
				}{{false, kernels.FinishItemsPerThread}, {true, kernels.FinishItemsPerThread}, {false, kernels.FinishItemsMax}} {
					t.Run(fmt.Sprintf("%s_%s_%s/prepare-kernel=%v/items-per-thread=%d", ct.Tag, w, kind, run.raw, run.perThread), func(t *testing.T) {
						finishMatchesTwin(t, d, image, su, w, count, run.raw, run.perThread)
					})
				}
			}
		}
	}
}

// finishMatchesTwin is TestFinishKernelMatchesCPUTwin on one setup, its
// ladder on the warp mapping, its inputs from the prepare kernel when raw
// is set, perThread items to each thread of the finish.
func finishMatchesTwin(t *testing.T, d gpu.Driver, image []byte, su *ladder.Setup, channels string, count int, raw bool, perThread int) {
	c, n := su.Curve, su.Params.N
	k, err := kernels.Find(c.Name(), su.Schedule.Kind.String(), "shenoy", "warp", channels)
	require.NoError(t, err)
	entry, err := kernels.FinishName(c.Name(), channels)
	require.NoError(t, err)
	jobs, xs, ys, ks := randomJobs(t, su, count, 7)
	items, raws := make([]ladder.Item, count), make([]ladder.RawItem, count)
	L := c.ByteLen()
	for i := range items {
		kb := new(big.Int).Mod(ks[i], new(big.Int).Lsh(big.NewInt(1), uint(8*L)))
		scalar, point := kb.FillBytes(make([]byte, L)), c.EncodeSEC1(&curves.Point{X: xs[i], Y: ys[i]}, false)
		require.NoError(t, su.PrepareBytes(&items[i], scalar, point))
		if su.Schedule.Kind.IsComb() {
			require.NoError(t, su.PrepareRawBase(&raws[i], scalar))
		} else {
			require.NoError(t, su.PrepareRaw(&raws[i], scalar, point))
		}
		jobs[i], err = su.Prepare(xs[i], ys[i], kb)
		require.NoError(t, err)
		ks[i] = kb
	}
	// the CPU twin: the ladder's outputs, then the finish on them
	in := make([]uint32, su.GPUInputRows()*count)
	want := make([]uint32, su.OutputRows()*count)
	twin := cpuTwin(su, jobs)
	for i := range items {
		su.PackFinish(in, count, i, &items[i])
		for v := range twin[i] {
			for r := range n {
				want[(v*n+r)*count+i] = twin[i][v][r]
			}
		}
	}
	su.FinishRowsOnHost(in, want, count, count)

	ipb := 4 * k.ItemsPerWarp(n)
	cfg := gpu.Config{
		Image: image, Entry: k.Name(), Constants: su.KernelConstants(),
		InRows: su.GPUInputRows(), ScalarRows: su.ScalarWords(), OutRows: su.OutputRows(),
		ItemsPerBlock: ipb, BlockThreads: k.Threads(n, ipb), Chunk: 1 << 15,
		Finish: &gpu.FinishKernel{Entry: entry, Constants: su.FinishConstants(), ResultRows: su.ResultRows(), ItemsPerThread: perThread},
	}
	if raw {
		prepare, err := kernels.PrepareName(c.Name(), channels)
		require.NoError(t, err)
		cfg.Prepare = &gpu.PrepareKernel{Entry: prepare, Constants: su.PrepareConstants()}
	}
	eng, err := gpu.Open(d, cfg)
	require.NoError(t, err)
	defer eng.Close()
	rows := su.ResultRows()
	got := make([]uint32, rows*count)
	_, err = eng.Run(context.Background(), gpu.Batch{
		Count: count,
		Fill: func(lo, hi int, in, sc []uint32) {
			for i := lo; i < hi; i++ {
				if raw {
					su.PackRaw(in, sc, hi-lo, i-lo, &raws[i])
					continue
				}
				su.PackItem(in, sc, hi-lo, i-lo, &items[i])
				su.PackFinish(in, hi-lo, i-lo, &items[i])
			}
		},
		Drain: func(lo, hi int, out []uint32) error {
			for r := range rows {
				for i := lo; i < hi; i++ {
					got[r*count+i] = out[r*(hi-lo)+i-lo]
				}
			}
			return nil
		},
	})
	require.NoError(t, err)
	mismatches := 0
	for r := range rows {
		for i := range count {
			if got[r*count+i] != want[r*count+i] && mismatches < 5 {
				t.Errorf("item %d: result word %d: gpu %#x, cpu %#x", i, r, got[r*count+i], want[r*count+i])
				mismatches++
			}
		}
	}
	require.Zero(t, mismatches, "result words differing from the CPU twin")
	par.Do(count, runtime.NumCPU(), 1, func(_, lo, hi int) {
		xy := make([]byte, 2*L)
		for i := lo; i < hi; i++ {
			x, y, ok, err := c.ReferenceScalarMult(xs[i], ys[i], ks[i])
			if err != nil || ok != (su.ReadResult(got, count, i, xy) == ladder.OutPoint) ||
				ok && (x.Cmp(new(big.Int).SetBytes(xy[:L])) != 0 || y.Cmp(new(big.Int).SetBytes(xy[L:])) != 0) {
				t.Errorf("item %d: not the reference's k·P", i)
			}
		}
	})
	t.Logf("%s after %s: %d items match the CPU twin word for word and the reference", entry, k.Name(), count)
}
