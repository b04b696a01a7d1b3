package gpu_test

import (
	"context"
	"errors"
	"math/big"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/par"
)

// gpuItems is the number of random items per curve the kernel is checked
// on: $ECMUL_GPU_ITEMS, else 100000 (2000 with -short).
func gpuItems() int {
	if s := os.Getenv("ECMUL_GPU_ITEMS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 2000
	}
	return 100000
}

func realDriver(t *testing.T) gpu.Driver {
	d, err := gpu.DefaultDriver()
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no CUDA device")
	}
	require.NoError(t, err)
	return d
}

// randomJobs returns random bases (k·G, so valid by construction) with
// random scalars, the first few being the edges 0, 1, n−1, n.
func randomJobs(t *testing.T, su *ladder.Setup, count int, seed int64) ([]ladder.Job, []*big.Int, []*big.Int, []*big.Int) {
	c := su.Curve
	jobs := make([]ladder.Job, count)
	xs, ys, ks := make([]*big.Int, count), make([]*big.Int, count), make([]*big.Int, count)
	par.Do(count, runtime.NumCPU(), 1, func(part, lo, hi int) {
		rng := rand.New(rand.NewSource(seed + int64(part)))
		for i := lo; i < hi; i++ {
			e := new(big.Int).Rand(rng, c.N())
			x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), e.Add(e, big.NewInt(1)))
			if err != nil {
				panic(err)
			}
			if su.Schedule.Kind.IsComb() { // the comb's base is G
				x, y = c.Gx(), c.Gy()
			}
			k := new(big.Int).Rand(rng, new(big.Int).Lsh(c.N(), 1))
			if i < 4 {
				k = []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N()}[i]
			}
			jobs[i], err = su.Prepare(x, y, k)
			if err != nil {
				panic(err)
			}
			xs[i], ys[i], ks[i] = x, y, k
		}
	})
	return jobs, xs, ys, ks
}

// cpuTwin returns the CPU RNS executor's channels for every job, on all cores.
func cpuTwin(su *ladder.Setup, jobs []ladder.Job) []ladder.Channels {
	out := make([]ladder.Channels, len(jobs))
	par.Do(len(jobs), runtime.NumCPU(), 1, func(_, lo, hi int) {
		e := su.NewRNSExecutor(basext.Shenoy)
		for i := lo; i < hi; i++ {
			out[i] = e.RunJob(jobs[i])
		}
	})
	return out
}

// TestKernelMatchesCPUTwin runs every kernel entry point on random items and
// checks its outputs channel for channel against the CPU RNS executor,
// and the affine results against the reference implementation.
func TestKernelMatchesCPUTwin(t *testing.T) {
	d := realDriver(t)
	image, err := gpu.KernelImage()
	require.NoError(t, err)
	count := gpuItems()
	type curveData struct {
		su         *ladder.Setup
		jobs       []ladder.Job
		want       []ladder.Channels
		refX, refY []*big.Int
		refOK      []bool
	}
	data := map[string]*curveData{} // by curve, schedule and channels: the CPU twin and references, once
	// dataFor computes them when the first entry point that needs them runs
	// (entries left out by -run cost nothing)
	dataFor := func(t *testing.T, k kernels.Kernel) *curveData {
		key := k.Curve + k.Schedule + k.Channels
		if cd := data[key]; cd != nil {
			return cd
		}
		c, err := curves.ByName(k.Curve)
		require.NoError(t, err)
		kind, err := ladder.ParseAnyKind(k.Schedule)
		require.NoError(t, err)
		su, err := ladder.NewSetupBits(c, kind, kernels.ChannelBits(k.Channels))
		require.NoError(t, err)
		jobs, xs, ys, ks := randomJobs(t, su, count, 1)
		cd := &curveData{su: su, jobs: jobs, want: cpuTwin(su, jobs),
			refX: make([]*big.Int, count), refY: make([]*big.Int, count), refOK: make([]bool, count)}
		errs := make([]error, count)
		par.Do(count, runtime.NumCPU(), 1, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				cd.refX[i], cd.refY[i], cd.refOK[i], errs[i] = c.ReferenceScalarMult(xs[i], ys[i], ks[i])
			}
		})
		require.NoError(t, errors.Join(errs...))
		data[key] = cd
		return cd
	}
	for _, k := range kernels.Entries() {
		entry := k.Name()
		ipb := 4
		if fixed := k.FixedItemsPerBlock(); fixed > 0 {
			ipb = fixed
		}
		t.Run(entry, func(t *testing.T) {
			cd := dataFor(t, k)
			su, jobs, want, refX, refY, refOK := cd.su, cd.jobs, cd.want, cd.refX, cd.refY, cd.refOK
			n := su.Params.N
			ipb := k.ItemsPerBlock(n, k.Threads(n, ipb)) // the mma mapping's whole warps: 8
			eng, err := gpu.Open(d, gpu.Config{
				Image: image, Entry: entry, Constants: su.KernelConstants(),
				InRows: su.InputRows(), ScalarRows: su.ScalarWords(), OutRows: su.OutputRows(),
				ItemsPerBlock: ipb, BlockThreads: k.Threads(n, ipb), Chunk: 1 << 15,
			})
			require.NoError(t, err)
			defer eng.Close()
			got := make([]ladder.Channels, count)
			_, err = eng.Run(context.Background(), gpu.Batch{
				Count: count,
				Fill: func(lo, hi int, in, sc []uint32) {
					for i := lo; i < hi; i++ {
						su.PackInput(in, sc, hi-lo, i-lo, jobs[i])
					}
				},
				Drain: func(lo, hi int, out []uint32) error {
					for i := lo; i < hi; i++ {
						got[i] = su.UnpackOutput(out, hi-lo, i-lo)
					}
					return nil
				},
			})
			require.NoError(t, err)
			mismatches := 0
			for i := range count {
				for r := range got[i] {
					for j := range got[i][r] {
						if got[i][r][j] != want[i][r][j] {
							if mismatches < 5 {
								t.Errorf("item %d: output row %d channel %d: gpu %d, cpu %d", i, r, j, got[i][r][j], want[i][r][j])
							}
							mismatches++
						}
					}
				}
			}
			require.Zero(t, mismatches, "channels differing from the CPU twin")
			aff, errs := su.Finish(jobs, got)
			for i := range count {
				require.NoError(t, errs[i])
				if !refOK[i] {
					require.True(t, aff[i].Infinity, "item %d", i)
					continue
				}
				require.Equal(t, 0, refX[i].Cmp(aff[i].X), "item %d x", i)
				require.Equal(t, 0, refY[i].Cmp(aff[i].Y), "item %d y", i)
			}
			t.Logf("%s: %d items match the CPU twin channel for channel and the reference", entry, count)
		})
	}
}
