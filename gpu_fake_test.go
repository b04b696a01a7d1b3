package ecmul_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// fakeBatch is a small P-224 batch with one invalid item in the middle.
func fakeBatch(t *testing.T, c *curves.Curve, items int) ([]*ecmul.Point, []*big.Int) {
	rng := rand.New(rand.NewSource(3))
	var pts []*ecmul.Point
	var ks []*big.Int
	for i := range items {
		if i == items/2 {
			pts, ks = append(pts, &ecmul.Point{X: big.NewInt(1), Y: big.NewInt(1)}), append(ks, big.NewInt(5))
			continue
		}
		k := new(big.Int).Rand(rng, c.N())
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k.Add(k, big.NewInt(1)))
		require.NoError(t, err)
		pts, ks = append(pts, &ecmul.Point{X: x, Y: y}), append(ks, new(big.Int).Rand(rng, new(big.Int).Lsh(c.N(), 1)))
	}
	return pts, ks
}

// checkComputed requires every item reported computed to be right.
func checkComputed(t *testing.T, c *curves.Curve, pts []*ecmul.Point, ks []*big.Int, res []ecmul.Result) (computed int) {
	for i, r := range res {
		if r.Err != nil {
			continue
		}
		computed++
		x, y, ok, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
		require.NoError(t, err)
		if !ok {
			require.True(t, r.Infinity, "item %d", i)
			continue
		}
		require.False(t, r.Infinity, "item %d", i)
		require.Equal(t, 0, x.Cmp(r.X), "item %d", i)
		require.Equal(t, 0, y.Cmp(r.Y), "item %d", i)
	}
	return computed
}

// TestGPUBackendOnFakeDriver runs the gpu backend's whole host path (validation,
// preparation, packing, chunks on four streams, CRT, affine conversion) with
// the kernel emulated by the CPU twin.
func TestGPUBackendOnFakeDriver(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 3})
	require.NoError(t, err)
	require.Equal(t, ecmul.GPU, eng.Backend())
	pts, ks := fakeBatch(t, c, 8)
	res, err := scalarMult(eng, context.Background(), pts, ks)
	require.NoError(t, err)
	require.ErrorIs(t, res[4].Err, curves.ErrNotOnCurve)
	require.Equal(t, 7, checkComputed(t, c, pts, ks, res))
	require.ElementsMatch(t, []string{"ecm_ladder_p224_coz_shenoy_pair_c30", "ecm_ladder_p224_coz_shenoy_spread_c30", "ecm_prepare_p224_c30",
		"ecm_unpack_p224_c30", "ecm_finish_p224_c30", "ecm_pack_p224_c30"},
		d.FunctionNames(), "the default kernels: pair, spread for small chunks, the prepare, the finish and the wire kernels around them")

	// the results' coordinates share arrays, but neither changing one in
	// place nor growing it touches another
	want := make([][2]*big.Int, len(res))
	for i, r := range res {
		if r.X != nil {
			want[i] = [2]*big.Int{new(big.Int).Set(r.X), new(big.Int).Set(r.Y)}
		}
	}
	for i, r := range res {
		if r.X == nil {
			continue
		}
		r.X.Sub(r.X, big.NewInt(1))
		r.Y.Lsh(r.Y, 300)
		for j := i + 1; j < len(res); j++ {
			if res[j].X != nil {
				require.Equal(t, 0, want[j][0].Cmp(res[j].X), "item %d after changing item %d", j, i)
				require.Equal(t, 0, want[j][1].Cmp(res[j].Y), "item %d after changing item %d", j, i)
			}
		}
	}
	require.NoError(t, eng.Close())
	require.Zero(t, d.Live(), "Close releases every driver resource")
}

// TestGPUBackendFaults fails one driver call at a time under the Engine: the
// batch returns the error, every item is either computed correctly or carries
// an error, nothing leaks, and the engine still works afterwards.
func TestGPUBackendFaults(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	pts, ks := fakeBatch(t, c, 7)
	for _, f := range []struct {
		call    string
		mapping diag.Mapping
	}{
		{"MemcpyHtoDAsync", diag.MappingBlock}, {"LaunchKernel", diag.MappingBlock},
		{"EventSynchronize", diag.MappingBlock}, {"MemcpyDtoHAsync", diag.MappingBlock},
		// small chunks, computed in place in the pinned buffers
		{"LaunchKernel", diag.MappingDefault}, {"StreamSynchronize", diag.MappingDefault},
	} {
		call := f.call
		t.Run(call+"/mapping="+f.mapping.String(), func(t *testing.T) {
			if f.mapping == diag.MappingDefault {
				smallBatchesInPlace(t)
			}
			eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 2, Mapping: f.mapping})
			require.NoError(t, err)
			d.FailAt(call, 2, nil)
			res, err := scalarMult(eng, context.Background(), pts, ks)
			d.ClearFailures()
			var ce *gpu.CUDAError
			require.ErrorAs(t, err, &ce)
			require.Len(t, res, len(pts))
			failed := 0
			for _, r := range res {
				if r.Err != nil {
					failed++
				}
			}
			require.Greater(t, failed, 1, "the items of the failed chunk carry the error")
			checkComputed(t, c, pts, ks, res)

			res, err = scalarMult(eng, context.Background(), pts, ks)
			require.NoError(t, err, "the engine is usable after a fault")
			require.Equal(t, len(pts)-1, checkComputed(t, c, pts, ks, res))
			require.NoError(t, eng.Close())
			require.Zero(t, d.Live())
		})
	}
	for _, call := range []string{"MemAlloc", "MemAllocHost", "ModuleLoadData", "StreamCreate"} {
		t.Run("New/"+call, func(t *testing.T) {
			d.FailAt(call, 1, nil)
			_, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU})
			d.ClearFailures()
			var ce *gpu.CUDAError
			require.ErrorAs(t, err, &ce)
			require.Zero(t, d.Live(), "a failed New releases what it acquired")
		})
	}
}

// TestGPUBackendCancel: a context that ends stops the batch between chunks.
func TestGPUBackendCancel(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 2})
	require.NoError(t, err)
	defer eng.Close()
	pts, ks := fakeBatch(t, c, 9)
	ctx, cancel := context.WithCancel(context.Background())
	launches := 0
	emulate := d.OnLaunch
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []gpu.HostPtr) error {
		if _, err := kernels.ByName(fn); err == nil { // the ladder's launches, one per chunk
			launches++
		}
		cancel()
		return emulate(fn, grid, block, params)
	}
	res, err := scalarMult(eng, ctx, pts, ks)
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, launches, 2, "stops within one chunk of the cancellation")
	require.Less(t, checkComputed(t, c, pts, ks, res), len(pts)-1)
}

// TestGPUBackendWideChannels runs the gpu backend's host path on 30-bit
// channels, every curve and mapping chosen by name, with the kernel emulated by the CPU
// twin of the same channels: the ScalarMult and bytes paths give the
// reference points (and the bytes path each bad point its status).
func TestGPUBackendWideChannels(t *testing.T) {
	for _, c := range curves.All() {
		for _, m := range []diag.Mapping{diag.MappingWarp, diag.MappingBlock, diag.MappingSpread, diag.MappingMma} {
			for _, hostFinish := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/host-finish=%v", c.Name(), m, hostFinish), func(t *testing.T) {
					wideChannels(t, c, m, hostFinish)
				})
			}
		}
	}
}

// wideChannels runs a batch on 30-bit channels with mapping m, finished on
// the GPU or on the host, and checks every result.
func wideChannels(t *testing.T, c *curves.Curve, m diag.Mapping, hostFinish bool) {
	d := faultDriver(t, c)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{ChannelBits: 30, Mapping: m, Chunk: 5, HostFinish: hostFinish})
	require.NoError(t, err)
	defer eng.Close()
	require.Equal(t, 30, diag.ChannelBits(eng))
	pts, ks := fakeBatch(t, c, 12)
	res, err := scalarMult(eng, context.Background(), pts, ks)
	require.NoError(t, err)
	require.Equal(t, 11, checkComputed(t, c, pts, ks, res))
	k, err := kernels.Find(c.Name(), "coz", "shenoy", m.String(), "c30")
	require.NoError(t, err)
	prepare, err := kernels.PrepareName(c.Name(), "c30")
	require.NoError(t, err)
	finish, err := kernels.FinishName(c.Name(), "c30")
	require.NoError(t, err)
	unpack, err := kernels.UnpackName(c.Name(), "c30")
	require.NoError(t, err)
	pack, err := kernels.PackName(c.Name(), "c30")
	require.NoError(t, err)
	want := []string{k.Name(), prepare, unpack, finish, pack}
	if hostFinish {
		want = want[:1]
	}
	require.Equal(t, want, d.FunctionNames())
	kc, ok := diag.KernelOf(eng)
	require.True(t, ok)
	require.Equal(t, hostFinish, kc.FinishEntry == "")
	requireBytesBatch(t, eng, c, 13, false, 14)
}

// TestGPUBackendMmaMapping: the mma and pair mappings run co-Z and the
// combs with Shenoy's extension on 30-bit channels (the width the library
// picks for them) in whole warps of 8 or 16 items, four warps by default;
// every other configuration is refused with an error naming the mapping.
func TestGPUBackendMmaMapping(t *testing.T) {
	c := curves.P256()
	d := fakecuda.New()
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	for _, m := range []struct {
		mapping            diag.Mapping
		schedules          string // what Find says the mapping runs
		perWarp, atMost    int
		defaultItems       int
		tooMany, unaligned int
	}{
		{diag.MappingMma, "the coz, comb and combvt schedules", 8, 128, 32, 136, 12},
		{diag.MappingPair, "the coz, comb and combvt schedules", 16, 256, 64, 272, 20},
	} {
		name := m.mapping.String()
		eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: m.mapping})
		require.NoError(t, err)
		k, ok := diag.KernelOf(eng)
		require.True(t, ok)
		require.Equal(t, diag.Kernel{Entry: "ecm_ladder_p256_coz_shenoy_" + name + "_c30", Mapping: m.mapping, ItemsPerBlock: m.defaultItems, ChannelBits: 30, FinishEntry: "ecm_finish_p256_c30"}, k)
		require.NoError(t, eng.Close())
		only := "the " + name + " mapping runs only " + m.schedules + " with the shenoy extension on 30-bit channels (c30), not "
		for _, bad := range []struct {
			opts diag.Tuning
			ipb  int
			want string
		}{
			{diag.Tuning{ChannelBits: 16}, 0, only + "coz with shenoy on 16-bit channels (c16)"},
			{diag.Tuning{Extension: diag.Kawamura}, 0, only + "coz with kawamura on 16-bit channels (c16)"},
			{diag.Tuning{Schedule: diag.Paper}, 0, only + "paper with shenoy on 30-bit channels (c30)"},
			{diag.Tuning{}, m.unaligned, fmt.Sprintf("%d items per block: the %s mapping runs whole warps of %d items, so a multiple of %d", m.unaligned, name, m.perWarp, m.perWarp)},
			{diag.Tuning{}, m.tooMany, fmt.Sprintf("%d items per block: the %s mapping holds at most %d", m.tooMany, name, m.atMost)},
		} {
			tune := bad.opts
			tune.Mapping, tune.ItemsPerBlock = m.mapping, bad.ipb
			e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, tune)
			require.ErrorContains(t, err, bad.want, "%s: %+v, %d items per block", name, bad.opts, bad.ipb)
			require.Nil(t, e)
		}
	}
}

// TestChannelBitsOption: 0 means 16, only 16 and 30 exist, and 30-bit
// channels take Shenoy's extension only.
func TestChannelBitsOption(t *testing.T) {
	c := curves.P256()
	for _, bad := range []diag.Tuning{
		{ChannelBits: 24},
		{ChannelBits: -16},
		{ChannelBits: 30, Extension: diag.Kawamura},
	} {
		_, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.RNSCPU}, bad)
		require.Error(t, err, "%+v", bad)
	}
	for _, bits := range []int{0, 16, 30} {
		eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.RNSCPU}, diag.Tuning{ChannelBits: bits})
		require.NoError(t, err)
		pts, ks := fakeBatch(t, c, 4)
		res, err := scalarMult(eng, context.Background(), pts, ks)
		require.NoError(t, err)
		require.Equal(t, 3, checkComputed(t, c, pts, ks, res))
		require.NoError(t, eng.Close())
	}
}

// recordingDriver makes the engines of the test run on a fake driver whose
// kernels the CPU twin emulates, and records the entry points launched.
func recordingDriver(t *testing.T) (*fakecuda.Driver, *[]string) {
	d := fakecuda.New()
	emulate := kernelemu.Launch(d)
	launched := new([]string)
	d.OnLaunch = func(fn string, grid, block [3]uint32, params []gpu.HostPtr) error {
		*launched = append(*launched, fn)
		return emulate(fn, grid, block, params)
	}
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	return d, launched
}

// TestGPUItemKernelsOnLargeBatches: a batch of at most the latency team's
// size runs the ladder kernel alone, its items prepared and finished on
// the host; a larger one (here: from 9 items, the valid ones of the batch)
// also runs the prepare and finish kernels; both give the reference's
// results.
func TestGPUItemKernelsOnLargeBatches(t *testing.T) {
	c := curves.P256()
	_, launched := recordingDriver(t)
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{})
	require.NoError(t, err)
	defer eng.Close()
	pts, ks := fakeBatch(t, c, 10)
	kc, ok := diag.KernelOf(eng)
	require.True(t, ok)
	prepare, err := kernels.PrepareName(c.Name(), "c30")
	require.NoError(t, err)
	unpack, err := kernels.UnpackName(c.Name(), "c30")
	require.NoError(t, err)
	for _, from := range []int{0, 9} {
		if from > 0 {
			t.Cleanup(ecmul.GPUItemsFrom(from))
		}
		*launched = nil
		res, err := scalarMult(eng, context.Background(), pts, ks)
		require.NoError(t, err)
		require.Equal(t, 9, checkComputed(t, c, pts, ks, res))
		st, ok := diag.LastBatch(eng)
		require.True(t, ok)
		require.Equal(t, from > 0, st.ItemKernels, "diag.Stats.ItemKernels")
		if from == 0 {
			require.NotContains(t, *launched, kc.FinishEntry, "a small batch finishes on the host")
			require.NotContains(t, *launched, prepare)
			require.NotContains(t, *launched, unpack)
		} else {
			require.Contains(t, *launched, kc.FinishEntry, "a large batch finishes on the GPU")
			require.Contains(t, *launched, prepare)
			require.Contains(t, *launched, unpack, "a large batch of uncompressed points goes up as bytes")
		}
	}
}

// TestGPUItemKernelTimes: diag.Stats times the prepare and finish kernels
// of each chunk that runs them, and reports none for a batch the host
// prepares and finishes; either way each chunk is on the timeline, whose
// stages give the kernel time.
func TestGPUItemKernelTimes(t *testing.T) {
	c := curves.P224()
	d := fakecuda.New() // events timed by the wall clock at their records
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 4, Mapping: diag.MappingBlock})
	require.NoError(t, err)
	defer eng.Close()
	pts, ks := fakeBatch(t, c, 10)
	for _, from := range []int{0, 9} {
		if from > 0 {
			t.Cleanup(ecmul.GPUItemsFrom(from))
		}
		res, err := scalarMult(eng, context.Background(), pts, ks)
		require.NoError(t, err)
		require.Equal(t, 9, checkComputed(t, c, pts, ks, res))
		st, ok := diag.LastBatch(eng)
		require.True(t, ok)
		require.Equal(t, 3, st.Chunks, "9 valid items in chunks of 4")
		if from > 0 {
			require.Positive(t, st.PrepareMs, "from %d", from)
			require.Positive(t, st.FinishMs, "from %d", from)
		} else {
			require.Zero(t, st.PrepareMs, "from %d", from)
			require.Zero(t, st.FinishMs, "from %d", from)
		}
		require.Len(t, st.Timeline, st.Chunks, "every chunk is on the timeline")
		kernel := 0.0
		for _, ct := range st.Timeline {
			kernel += ct.Ran - ct.CopiedIn
		}
		require.Positive(t, st.KernelMs)
		require.InDelta(t, kernel, st.KernelMs, 1e-9)
	}
}

// TestBaseKernelTimes: diag.BaseKernelTimes times the comb that k·G
// batches run on alone, the variable-time one with varTime; a negative
// scalar is an item error; where the kernel has no comb for the
// configuration it returns ErrNoComb, and on another backend ErrNotGPU.
func TestBaseKernelTimes(t *testing.T) {
	c := curves.P224()
	d, launched := recordingDriver(t)
	d.ElapsedMs = 2 // what every pair of events reports
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{})
	require.NoError(t, err)
	defer eng.Close()
	ks := []*big.Int{big.NewInt(0), big.NewInt(5), new(big.Int).Sub(c.N(), big.NewInt(1)), new(big.Int).Lsh(c.N(), 1)}
	for varTime, want := range map[bool]string{false: "ecm_ladder_p224_comb_shenoy_pair_c30", true: "ecm_ladder_p224_combvt_shenoy_pair_c30"} {
		*launched = nil
		ts, err := diag.BaseKernelTimes(eng, varTime, ks, 1, 2)
		require.NoError(t, err)
		require.Equal(t, [][]float64{{2, 2}}, ts, "varTime %v", varTime)
		require.Equal(t, []string{want, want, want, want}, *launched, "varTime %v: the comb alone, behind an untimed launch, twice", varTime)
		*launched = nil
		ts, err = diag.BaseKernelTimes(eng, varTime, ks, 4, 1)
		require.NoError(t, err)
		require.Equal(t, [][]float64{{2}}, ts, "varTime %v", varTime)
		require.Equal(t, []string{want, want, want, want}, *launched, "varTime %v: four launches, one span", varTime)
	}
	_, err = diag.BaseKernelTimes(eng, false, []*big.Int{big.NewInt(1), big.NewInt(-1)}, 1, 1)
	require.ErrorIs(t, err, ecmul.ErrInvalidScalar)
	require.ErrorContains(t, err, "item 1")

	tile, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{ChannelBits: 16, Mapping: diag.MappingTile})
	require.NoError(t, err)
	defer tile.Close()
	_, err = diag.BaseKernelTimes(tile, true, ks, 1, 1)
	require.ErrorIs(t, err, diag.ErrNoComb, "the tile mapping has no comb")

	cpu, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer cpu.Close()
	_, err = diag.BaseKernelTimes(cpu, false, ks, 1, 1)
	require.ErrorIs(t, err, diag.ErrNotGPU)
}

// TestGPUAsyncDriver runs the gpu backend on a fake driver that runs each
// stream's copies, kernels and event records later, in order, on the
// stream's own goroutine (fakecuda.Driver.Async), as a GPU does: the
// engine's waits, the reuse of a slot's buffers and the drains must then
// hold by their synchronisation alone. Batches of the *big.Int and bytes
// APIs, on the copy and in-place paths, with and without the item
// kernels, over several rounds give the reference's results.
func TestGPUAsyncDriver(t *testing.T) {
	c := curves.P224()
	d := fakecuda.New()
	d.Async, d.AsyncJitter = true, 50*time.Microsecond
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(ecmul.UseGPUDriver(d, []byte("fatbin")))
	pts, ks := fakeBatch(t, c, 23)
	for _, mapping := range []diag.Mapping{diag.MappingBlock, diag.MappingDefault} {
		for _, from := range []int{0, 1} {
			t.Run(fmt.Sprintf("mapping=%s/gpu-items-from=%d", mapping, from), func(t *testing.T) {
				if from > 0 {
					t.Cleanup(ecmul.GPUItemsFrom(from))
				}
				eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 3, Mapping: mapping})
				require.NoError(t, err)
				defer eng.Close()
				for range 4 {
					res, err := scalarMult(eng, context.Background(), pts, ks)
					require.NoError(t, err)
					require.Equal(t, len(pts)-1, checkComputed(t, c, pts, ks, res))
					requireBytesBatch(t, eng, c, 19, false, 7)
				}
			})
		}
	}
}

// TestFinishItemsPerThreadSetsTheGrid: diag.Tuning.FinishItemsPerThread is
// the items each thread of the finish launch takes (one block for 129
// items at the library's 16 a thread, two at one a thread), and the results
// stay right.
func TestFinishItemsPerThreadSetsTheGrid(t *testing.T) {
	c := curves.P224()
	d := faultDriver(t, c)
	emu := d.OnLaunch
	for _, tc := range []struct{ perThread, blocks int }{{0, 1}, {1, 2}} {
		var grids []uint32
		d.OnLaunch = func(fn string, g, b [3]uint32, params []unsafe.Pointer) error {
			if strings.HasPrefix(fn, "ecm_finish_") {
				grids = append(grids, g[0])
			}
			return emu(fn, g, b, params)
		}
		eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 129, FinishItemsPerThread: tc.perThread})
		require.NoError(t, err)
		pts, ks := fakeBatch(t, c, 129)
		res, err := scalarMult(eng, context.Background(), pts, ks)
		require.NoError(t, err)
		require.Equal(t, 128, checkComputed(t, c, pts, ks, res), "%+v", tc)
		require.Equal(t, []uint32{uint32(tc.blocks)}, grids, "%+v", tc)
		require.NoError(t, eng.Close())
	}
}
