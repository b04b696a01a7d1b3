package ecmul_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
)

// TestLifecycleCPUBackends: on the cpu and rns-cpu backends a nil context
// means context.Background(), and after Close every call (a second Close,
// an empty batch, a batch) returns ErrClosed and computes nothing.
func TestLifecycleCPUBackends(t *testing.T) {
	c := curves.P224()
	pts := []*ecmul.Point{ep(c.Generator())}
	ks := []*big.Int{big.NewInt(3)}
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU} {
		t.Run(string(b), func(t *testing.T) {
			e, err := ecmul.New(pub(c), ecmul.Options{Backend: b})
			require.NoError(t, err)
			res, err := scalarMult(e, nil, pts, ks) // documented: a nil ctx is context.Background()
			require.NoError(t, err)
			wx, wy, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), ks[0])
			require.NoError(t, err)
			require.Equal(t, 0, wx.Cmp(res[0].X))
			require.Equal(t, 0, wy.Cmp(res[0].Y))

			require.NoError(t, e.Close())
			require.ErrorIs(t, e.Close(), ecmul.ErrClosed)
			res, err = scalarMult(e, context.Background(), pts, ks)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			requireNoneComputed(t, res, ecmul.ErrClosed)
			res, err = scalarMult(e, context.Background(), nil, nil)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Empty(t, res)
			_, err = diag.KernelTimes(e, pts, ks, 1, 1)
			require.ErrorIs(t, err, ecmul.ErrClosed)
			require.Equal(t, b, e.Backend(), "a closed engine still says what it was")
		})
	}
}

// TestZeroEngine: a zero Engine and a nil *Engine answer every method
// without a panic: ErrClosed or a zero value.
func TestZeroEngine(t *testing.T) {
	c := curves.P224()
	pts := []*ecmul.Point{ep(c.Generator())}
	ks := []*big.Int{big.NewInt(3)}
	for name, e := range map[string]*ecmul.Engine{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				res, err := scalarMult(e, context.Background(), pts, ks)
				require.ErrorIs(t, err, ecmul.ErrClosed)
				requireNoneComputed(t, res, ecmul.ErrClosed)
				require.ErrorIs(t, e.Close(), ecmul.ErrClosed)
				require.Equal(t, ecmul.Curve{}, e.Curve())
				require.Empty(t, e.Backend())
				_, ok := diag.LastBatch(e)
				require.False(t, ok)
				_, err = diag.KernelTimes(e, pts, ks, 1, 1)
				require.ErrorIs(t, err, ecmul.ErrClosed)
			})
		})
	}
}

// TestNewRejectsNegativeOptions: a negative count is an error naming the
// option, not a silent default.
func TestNewRejectsNegativeOptions(t *testing.T) {
	c := curves.P224()
	for name, o := range map[string]struct {
		opts ecmul.Options
		gpu  diag.Tuning
	}{
		"Options.Workers":      {ecmul.Options{Backend: ecmul.CPU, Workers: -3}, diag.Tuning{}},
		"Options.Devices":      {ecmul.Options{Backend: ecmul.CPU, Devices: []int{0, -1}}, diag.Tuning{}},
		"Tuning.ItemsPerBlock": {ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{ItemsPerBlock: -8}},
		"Tuning.Chunk":         {ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{Chunk: -1}},
	} {
		e, err := diag.New(pub(c), o.opts, o.gpu)
		require.ErrorContains(t, err, "ecmul: "+name, name)
		require.Nil(t, e)
	}
	e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{Schedule: 7})
	require.ErrorContains(t, err, "Tuning.Schedule")
	require.Nil(t, e)
	e, err = ecmul.New(pub(new(curves.Curve)), ecmul.Options{Backend: ecmul.CPU})
	require.ErrorIs(t, err, curves.ErrUnknownCurve, "the zero Curve")
	require.Nil(t, e)
}

// TestParseMapping: the mappings' names, any case, and a clear error for
// another.
func TestParseMapping(t *testing.T) {
	for s, want := range map[string]diag.Mapping{"warp": diag.MappingWarp, "BLOCK": diag.MappingBlock, "Tile": diag.MappingTile, "spread": diag.MappingSpread, "MMA": diag.MappingMma} {
		m, err := diag.ParseMapping(s)
		require.NoError(t, err)
		require.Equal(t, want, m)
	}
	_, err := diag.ParseMapping("grid")
	require.ErrorContains(t, err, `unknown mapping "grid"`)
}

// TestDiagnosticsOffGPU: off the gpu backend the diagnostics say so.
func TestDiagnosticsOffGPU(t *testing.T) {
	c := curves.P224()
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	defer e.Close()
	_, ok := diag.LastBatch(e)
	require.False(t, ok)
	_, err = diag.KernelTimes(e, []*ecmul.Point{ep(c.Generator())}, []*big.Int{big.NewInt(1)}, 1, 1)
	require.ErrorIs(t, err, diag.ErrNotGPU)
	_, ok = diag.ChunkItems(e, 100)
	require.False(t, ok)
}

// TestDiagnosticsChunkItems: on the gpu backend (a fake H100, 132 SMs, whose
// occupancy counts threads alone: a wave of the pair mapping's blocks of 64
// items is 135,168 items) a tiny batch is one launch, a small one three
// launches side by side, a large one launches whole waves of at most
// GPUOptions.Chunk items, and a batch of several waves runs in launches of
// that size.
func TestDiagnosticsChunkItems(t *testing.T) {
	c := curves.P224()
	restore := ecmul.UseGPUDriver(fakecuda.New(), []byte("fatbin"))
	defer restore()
	const chunk = 1 << 18
	e, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: chunk})
	require.NoError(t, err)
	defer e.Close()
	for _, n := range []int{1, 500} {
		items, ok := diag.ChunkItems(e, n)
		require.True(t, ok)
		require.Equal(t, n, items, "a batch of %d items is one launch", n)
	}
	small, _ := diag.ChunkItems(e, 1000)
	require.Equal(t, 334, small, "a batch of 1000 items is three launches")
	big, ok := diag.ChunkItems(e, 1<<22)
	require.True(t, ok)
	require.LessOrEqual(t, big, chunk)
	mid, _ := diag.ChunkItems(e, 1<<19)
	require.Less(t, mid, 1<<19, "a batch of several waves is pipelined")
	require.Zero(t, big%mid, "both are whole waves")
	require.GreaterOrEqual(t, (1<<19+mid-1)/mid, 3)
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
			e, err := ecmul.New(pub(c), bc.opts)
			require.NoError(t, err)
			var res []ecmul.Result
			after, err := closeDuring(t, e, func() (err error) {
				res, err = scalarMult(e, context.Background(), points, scalars)
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
			e, err := ecmul.New(pub(c), bc.opts)
			require.NoError(t, err)
			L := c.ByteLen()
			g := c.EncodeSEC1(cp(base), false)
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
				require.Equal(t, c.EncodeSEC1(cp(w), false), r, "item %d", i)
			}
			require.Less(t, computed, bc.n, "Close stopped the batch")
		})
	}
}

// TestNewNamesAnyCase: the names of the mapping are read in any case, by
// diag.ParseMapping, into values New takes; New refuses a value that names
// nothing on every backend, naming the option.
func TestNewNamesAnyCase(t *testing.T) {
	c := curves.P224()
	for b, want := range map[ecmul.Backend]ecmul.Backend{ecmul.CPU: ecmul.CPU, ecmul.RNSCPU: ecmul.RNSCPU, ecmul.Auto: ecmul.CPU} {
		name := b.String()
		m, err := diag.ParseMapping("WARP")
		require.NoError(t, err)
		e, err := diag.New(pub(c), ecmul.Options{Backend: b}, diag.Tuning{Mapping: m})
		require.NoError(t, err, name)
		require.Equal(t, want, e.Backend(), name)
		require.NoError(t, e.Close())
	}
	_, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.Backend(9)})
	require.ErrorContains(t, err, `ecmul: Options.Backend is Backend(9)`)
	_, err = diag.ParseMapping("bogus")
	require.EqualError(t, err, `ecmul/diag: unknown mapping "bogus" (want default, warp, block, tile, spread, mma, pair, in any case)`)
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU, ecmul.Auto, ecmul.GPU} {
		e, err := diag.New(pub(c), ecmul.Options{Backend: b}, diag.Tuning{Mapping: 9})
		require.ErrorContains(t, err, `ecmul/diag: Tuning.Mapping is Mapping(9): want one of default, warp, block, tile, spread, mma`, b)
		require.Nil(t, e, b)
	}
}

// TestErrorsOnePrefix: the library's errors carry one package prefix at
// most, even where they wrap another package's error.
func TestErrorsOnePrefix(t *testing.T) {
	c := curves.P224()
	var errs []error
	_, err := ecmul.New(pub(new(curves.Curve)), ecmul.Options{Backend: ecmul.CPU})
	require.ErrorIs(t, err, curves.ErrUnknownCurve)
	errs = append(errs, err)
	_, err = ecmul.New(pub(c), ecmul.Options{Backend: 9})
	errs = append(errs, err)
	for _, g := range []diag.Tuning{{Schedule: 9}, {Extension: 9}, {ChannelBits: 17}} {
		_, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.CPU}, g)
		errs = append(errs, err)
	}
	_, err = diag.New(pub(c), ecmul.Options{Backend: ecmul.CPU}, diag.Tuning{Mapping: 9})
	errs = append(errs, err)
	for _, parse := range []func(string) error{
		func(s string) error { _, err := diag.ParseSchedule(s); return err },
		func(s string) error { _, err := diag.ParseExtension(s); return err },
		func(s string) error { _, err := ecmul.ParseCurve(s); return err },
		func(s string) error { _, err := diag.ParseMapping(s); return err },
	} {
		errs = append(errs, parse("x"))
	}
	restore := ecmul.UseGPUDriver(fakecuda.New(), []byte("fatbin"))
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	restore()
	err = e.Close()
	require.ErrorIs(t, err, ecmul.ErrClosed)
	errs = append(errs, err)
	cpu := newEngine(t, c, ecmul.Options{Backend: ecmul.CPU})
	res, err := scalarMult(cpu, context.Background(), []*ecmul.Point{{X: c.Gx(), Y: c.Gx()}}, []*big.Int{big.NewInt(1)})
	require.NoError(t, err)
	errs = append(errs, res[0].Err)
	_, err = c.ParseHexCoordinate("zz")
	errs = append(errs, err)
	if g, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU}); err == nil {
		g.Close() // a GPU host: no error to read
	} else {
		require.ErrorIs(t, err, gpu.ErrNoDevice)
		errs = append(errs, err)
	}
	for _, err := range errs {
		require.Error(t, err)
		n := 0
		for _, p := range []string{"ecmul: ", "ecmul/diag: ", "curves: ", "gpu: ", "ladder: ", "rns: ", "basext: "} {
			n += strings.Count(err.Error(), p)
		}
		require.LessOrEqual(t, n, 1, "%q", err.Error())
	}
}

// requireNoneComputed checks that no result of a call that failed before
// it started, with err, is reported computed, each carrying err.
func requireNoneComputed(t *testing.T, res []ecmul.Result, err error) {
	t.Helper()
	for i, r := range res {
		require.ErrorIs(t, r.Err, err, "item %d", i)
		require.Nil(t, r.X, "item %d", i)
		require.False(t, r.Infinity, "item %d", i)
	}
}
