package ecmul_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/gpu"
	"github.com/rnsec/ecmul/gpu/fakecuda"
)

// TestLifecycleCPUBackends: on the cpu and rns-cpu backends a nil context
// means context.Background(), and after Close every call (a second Close,
// an empty batch, a batch) returns ErrClosed and computes nothing.
func TestLifecycleCPUBackends(t *testing.T) {
	c := curves.P224()
	pts := []*ecmul.Point{c.Generator()}
	ks := []*big.Int{big.NewInt(3)}
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU} {
		t.Run(string(b), func(t *testing.T) {
			e, err := ecmul.New(c, ecmul.Options{Backend: b})
			require.NoError(t, err)
			res, err := e.ScalarMult(nil, pts, ks) // documented: a nil ctx is context.Background()
			require.NoError(t, err)
			wx, wy, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), ks[0])
			require.NoError(t, err)
			require.Equal(t, 0, wx.Cmp(res[0].X))
			require.Equal(t, 0, wy.Cmp(res[0].Y))

			require.NoError(t, e.Close())
			require.ErrorIs(t, e.Close(), ecmul.ErrClosed)
			res, err = e.ScalarMult(context.Background(), pts, ks)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Nil(t, res)
			res, err = e.ScalarMult(context.Background(), nil, nil)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Nil(t, res)
			_, err = e.Diagnostics().KernelTimes(pts, ks, 1)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Equal(t, b, e.Backend(), "a closed engine still says what it was")
		})
	}
}

// TestZeroEngine: a zero Engine and a nil *Engine answer every method
// without a panic: ErrNoEngine or a zero value.
func TestZeroEngine(t *testing.T) {
	c := curves.P224()
	pts := []*ecmul.Point{c.Generator()}
	ks := []*big.Int{big.NewInt(3)}
	for name, e := range map[string]*ecmul.Engine{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				res, err := e.ScalarMult(context.Background(), pts, ks)
				require.ErrorIs(t, err, ecmul.ErrNoEngine)
				require.Nil(t, res)
				require.ErrorIs(t, e.Close(), ecmul.ErrNoEngine)
				require.Nil(t, e.Curve())
				require.Empty(t, e.Backend())
				_, ok := e.Diagnostics().LastBatch()
				require.False(t, ok)
				_, err = e.Diagnostics().KernelTimes(pts, ks, 1)
				require.ErrorIs(t, err, ecmul.ErrNoEngine)
			})
		})
	}
}

// TestNewRejectsNegativeOptions: a negative count is an error naming the
// option, not a silent default.
func TestNewRejectsNegativeOptions(t *testing.T) {
	c := curves.P224()
	for name, o := range map[string]ecmul.Options{
		"Workers":           {Backend: ecmul.CPU, Workers: -3},
		"GPU.Devices":       {Backend: ecmul.CPU, GPU: ecmul.GPUOptions{Devices: []int{0, -1}}},
		"GPU.ItemsPerBlock": {Backend: ecmul.CPU, GPU: ecmul.GPUOptions{ItemsPerBlock: -8}},
		"GPU.Chunk":         {Backend: ecmul.CPU, GPU: ecmul.GPUOptions{Chunk: -1}},
	} {
		e, err := ecmul.New(c, o)
		require.ErrorContains(t, err, "Options."+name, name)
		require.Nil(t, e)
	}
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU, Schedule: 7})
	require.ErrorContains(t, err, "Options.Schedule")
	require.Nil(t, e)
	e, err = ecmul.New(new(curves.Curve), ecmul.Options{Backend: ecmul.CPU})
	require.ErrorIs(t, err, curves.ErrUnknownCurve, "the zero Curve")
	require.Nil(t, e)
}

// TestParseMapping: the mappings' names, any case, and a clear error for
// another.
func TestParseMapping(t *testing.T) {
	for s, want := range map[string]ecmul.Mapping{"warp": ecmul.MappingWarp, "BLOCK": ecmul.MappingBlock, "Tile": ecmul.MappingTile, "spread": ecmul.MappingSpread} {
		m, err := ecmul.ParseMapping(s)
		require.NoError(t, err)
		require.Equal(t, want, m)
	}
	_, err := ecmul.ParseMapping("grid")
	require.ErrorContains(t, err, `unknown mapping "grid"`)
}

// TestDiagnosticsOffGPU: off the gpu backend the diagnostics say so.
func TestDiagnosticsOffGPU(t *testing.T) {
	c := curves.P224()
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer e.Close()
	_, ok := e.Diagnostics().LastBatch()
	require.False(t, ok)
	_, err = e.Diagnostics().KernelTimes([]*ecmul.Point{c.Generator()}, []*big.Int{big.NewInt(1)}, 1)
	require.ErrorIs(t, err, ecmul.ErrNotGPU)
	_, ok = e.Diagnostics().ChunkItems(100)
	require.False(t, ok)
}

// TestDiagnosticsChunkItems: on the gpu backend (a fake H100, 132 SMs) a
// tiny batch is one launch, a small one three launches side by side, a
// large one launches whole waves of at most GPUOptions.Chunk items, and a
// batch runs in launches of that size.
func TestDiagnosticsChunkItems(t *testing.T) {
	c := curves.P224()
	restore := ecmul.UseGPUDriver(fakecuda.New(), []byte("fatbin"))
	defer restore()
	const chunk = 1 << 17
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU, GPU: ecmul.GPUOptions{Chunk: chunk}})
	require.NoError(t, err)
	defer e.Close()
	d := e.Diagnostics()
	for _, n := range []int{1, 500} {
		items, ok := d.ChunkItems(n)
		require.True(t, ok)
		require.Equal(t, n, items, "a batch of %d items is one launch", n)
	}
	small, _ := d.ChunkItems(1000)
	require.Equal(t, 334, small, "a batch of 1000 items is three launches")
	big, ok := d.ChunkItems(1 << 22)
	require.True(t, ok)
	require.LessOrEqual(t, big, chunk)
	mid, _ := d.ChunkItems(1 << 16)
	require.Less(t, mid, 1<<16, "a batch of several waves is pipelined")
	require.Zero(t, big%mid, "both are whole waves")
	require.GreaterOrEqual(t, (1<<16+mid-1)/mid, 3)
}

// TestCloseStopsRunningBatch: on the cpu and rns-cpu backends, Close during
// a batch that would run for seconds ends it within about a chunk, with an
// error matching ErrClosed; the items computed before are right and the
// others carry the error (ScalarMult) or StatusNotComputed
// (ScalarMultBytes).
func TestCloseStopsRunningBatch(t *testing.T) {
	c := curves.P224()
	rng := newRNG(24)
	base := randPoint(t, rng, c)
	for _, bc := range []struct {
		name string
		opts ecmul.Options
		n    int // items of several seconds on one worker
	}{
		{"cpu", ecmul.Options{Backend: ecmul.CPU, Workers: 1}, 50000},
		{"rns-cpu", ecmul.Options{Backend: ecmul.RNSCPU, Workers: 1}, 3000},
	} {
		points := make([]*ecmul.Point, bc.n)
		scalars := make([]*big.Int, bc.n)
		for i := range points {
			points[i], scalars[i] = base, randScalar(rng, c)
		}
		// closeDuring runs batch, closes the engine 50 ms in, and returns
		// how long the batch went on after Close returned, and its error.
		closeDuring := func(t *testing.T, e *ecmul.Engine, batch func() error) (time.Duration, error) {
			t.Helper()
			errc := make(chan error, 1)
			go func() { errc <- batch() }()
			time.Sleep(50 * time.Millisecond)
			require.NoError(t, e.Close())
			closed := time.Now()
			err := <-errc
			return time.Since(closed), err
		}
		t.Run(bc.name+"/big", func(t *testing.T) {
			e, err := ecmul.New(c, bc.opts)
			require.NoError(t, err)
			var res []ecmul.Result
			after, err := closeDuring(t, e, func() (err error) {
				res, err = e.ScalarMult(context.Background(), points, scalars)
				return err
			})
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Less(t, after, 2*time.Second, "the batch stops within about a chunk of Close")
			computed := 0
			for i, r := range res {
				if r.Err != nil {
					require.ErrorIs(t, r.Err, ecmul.ErrClosed, "item %d", i)
					require.Nil(t, r.X, "item %d", i)
					continue
				}
				computed++
				requireResult(t, r, want(t, c, points[i], scalars[i], false), "item %d", i)
			}
			require.Less(t, computed, bc.n, "Close stopped the batch")
		})
		t.Run(bc.name+"/bytes", func(t *testing.T) {
			e, err := ecmul.New(c, bc.opts)
			require.NoError(t, err)
			L := c.ByteLen()
			g := c.EncodeSEC1(base, false)
			sc, pts := make([]byte, 0, bc.n*L), make([]byte, 0, bc.n*len(g))
			for i := range bc.n {
				sc, pts = append(sc, scalars[i].FillBytes(make([]byte, L))...), append(pts, g...)
			}
			out, st := make([]byte, bc.n*(1+2*L)), make([]ecmul.Status, bc.n)
			var after time.Duration
			after, err = closeDuring(t, e, func() error { return e.ScalarMultBytes(context.Background(), out, st, sc, pts) })
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Less(t, after, 2*time.Second, "the batch stops within about a chunk of Close")
			computed := 0
			for i, s := range st {
				r := out[i*(1+2*L) : (i+1)*(1+2*L)]
				if s == ecmul.StatusNotComputed {
					require.Equal(t, make([]byte, len(r)), r, "item %d", i)
					continue
				}
				require.Equal(t, ecmul.StatusPoint, s, "item %d", i)
				computed++
				w := want(t, c, base, scalars[i], false)
				require.Equal(t, c.EncodeSEC1(w, false), r, "item %d", i)
			}
			require.Less(t, computed, bc.n, "Close stopped the batch")
		})
	}
}

// TestNewNamesAnyCase: New takes the backend's and the mapping's names in
// any case, as ParseBackend and ParseMapping do, and refuses an unknown
// mapping on every backend, naming the option.
func TestNewNamesAnyCase(t *testing.T) {
	c := curves.P224()
	for name, want := range map[ecmul.Backend]ecmul.Backend{"CPU": ecmul.CPU, "Rns-Cpu": ecmul.RNSCPU, "AUTO": ecmul.CPU} {
		e, err := ecmul.New(c, ecmul.Options{Backend: name, GPU: ecmul.GPUOptions{Mapping: "WARP"}})
		require.NoError(t, err, name)
		require.Equal(t, want, e.Backend(), name)
		require.NoError(t, e.Close())
	}
	_, err := ecmul.New(c, ecmul.Options{Backend: "tpu"})
	require.ErrorContains(t, err, `ecmul: Options.Backend is "tpu"`)
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU, ecmul.Auto, ecmul.GPU} {
		e, err := ecmul.New(c, ecmul.Options{Backend: b, GPU: ecmul.GPUOptions{Mapping: "bogus"}})
		require.ErrorContains(t, err, `ecmul: Options.GPU.Mapping is "bogus": want warp, block, tile, spread`, b)
		require.Nil(t, e, b)
	}
}

// TestErrorsOnePrefix: the library's errors carry one package prefix at
// most, even where they wrap another package's error.
func TestErrorsOnePrefix(t *testing.T) {
	c := curves.P224()
	var errs []error
	_, err := ecmul.New(new(curves.Curve), ecmul.Options{Backend: ecmul.CPU})
	require.ErrorIs(t, err, curves.ErrUnknownCurve)
	errs = append(errs, err)
	for _, o := range []ecmul.Options{{Backend: "tpu"}, {Backend: ecmul.CPU, GPU: ecmul.GPUOptions{Mapping: "x"}}, {Backend: ecmul.CPU, Schedule: 9}, {Backend: ecmul.CPU, Ext: 9}, {Backend: ecmul.CPU, ChannelBits: 17}} {
		_, err := ecmul.New(c, o)
		errs = append(errs, err)
	}
	restore := ecmul.UseGPUDriver(fakecuda.New(), []byte("fatbin"))
	e, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	restore()
	err = e.Close()
	require.ErrorIs(t, err, ecmul.ErrClosed)
	errs = append(errs, err)
	cpu := newEngine(t, c, ecmul.Options{Backend: ecmul.CPU})
	res, err := cpu.ScalarMult(context.Background(), []*ecmul.Point{{X: c.Gx(), Y: c.Gx()}}, []*big.Int{big.NewInt(1)})
	require.NoError(t, err)
	errs = append(errs, res[0].Err)
	_, err = c.ParseHexCoordinate("zz")
	errs = append(errs, err)
	if g, err := ecmul.New(c, ecmul.Options{Backend: ecmul.GPU}); err == nil {
		g.Close() // a GPU host: no error to read
	} else {
		require.ErrorIs(t, err, gpu.ErrNoDevice)
		errs = append(errs, err)
	}
	for _, err := range errs {
		require.Error(t, err)
		n := 0
		for _, p := range []string{"ecmul: ", "curves: ", "gpu: ", "ladder: ", "rns: ", "basext: "} {
			n += strings.Count(err.Error(), p)
		}
		require.LessOrEqual(t, n, 1, "%q", err.Error())
	}
}
