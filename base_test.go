package ecmul_test

import (
	"bytes"
	"context"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// baseItems are the scalars of a ScalarBaseMultBytes batch and, per item,
// the reference's k·G: x‖y, or nil for the point at infinity.
type baseItems struct {
	scalars []byte
	wantXY  [][]byte
}

// newBaseItems builds count scalars on c, the edge scalars 0, 1, n−1, n,
// n+1 and 2^(8L)−1 first, then random ones below 2^(8L), with the
// reference's k·G for each.
func newBaseItems(t *testing.T, c *curves.Curve, count int, seed uint64) baseItems {
	t.Helper()
	rng := newRNG(seed)
	L := c.ByteLen()
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*L))
	one := big.NewInt(1)
	ks := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(c.N(), one), c.N(), new(big.Int).Add(c.N(), one), new(big.Int).Sub(top, one)}
	for len(ks) < count {
		ks = append(ks, randBelow(rng, top))
	}
	var b baseItems
	g := ep(c.Generator())
	for _, k := range ks {
		b.scalars = append(b.scalars, k.FillBytes(make([]byte, L))...)
		var xy []byte
		if w := want(t, c, g, k, false); w != nil {
			xy = append(w.X.FillBytes(make([]byte, L)), w.Y.FillBytes(make([]byte, L))...)
		}
		b.wantXY = append(b.wantXY, xy)
	}
	return b
}

// outFormats are the three formats out's length picks, each with the
// encoding of a point x‖y in it: one table for the format tests of
// ScalarBaseMultBytes and ScalarMultBytes alike.
func outFormats(L int) []struct {
	name string
	size int
	enc  func(x, y []byte) []byte
} {
	return []struct {
		name string
		size int
		enc  func(x, y []byte) []byte
	}{
		{"uncompressed", 1 + 2*L, func(x, y []byte) []byte { return append(append([]byte{4}, x...), y...) }},
		{"compressed", 1 + L, func(x, y []byte) []byte { return append([]byte{2 | y[len(y)-1]&1}, x...) }},
		{"x-only", L, func(x, _ []byte) []byte { return x }},
	}
}

// baseCalls are the two bytes calls of k·G, constant time and variable
// time, which take the same arguments and give the same results.
var baseCalls = []struct {
	name string
	call func(e *ecmul.Engine, ctx context.Context, out []byte, status []ecmul.Status, scalars []byte) error
}{
	{"ScalarBaseMultBytes", (*ecmul.Engine).ScalarBaseMultBytes},
	{"ScalarBaseMultVarTimeBytes", (*ecmul.Engine).ScalarBaseMultVarTimeBytes},
}

// requireBase runs b through e.ScalarBaseMultBytes and
// e.ScalarBaseMultVarTimeBytes in every output format and checks each item
// against the reference: StatusPoint and k·G in the format, or
// StatusInfinity and zero bytes; and the same bytes as ScalarMultBytes
// with G as every item's point.
func requireBase(t *testing.T, e *ecmul.Engine, c *curves.Curve, b baseItems) {
	t.Helper()
	for _, bc := range baseCalls {
		for _, f := range outFormats(c.ByteLen()) {
			requireBaseFormat(t, e, c, b, bc.call, bc.name+", "+f.name, f.size, f.enc)
		}
	}
}

// requireBaseFormat is requireBase for one call and one format of out:
// results of size bytes, a point x‖y encoded by enc.
func requireBaseFormat(t *testing.T, e *ecmul.Engine, c *curves.Curve, b baseItems,
	call func(*ecmul.Engine, context.Context, []byte, []ecmul.Status, []byte) error,
	name string, size int, enc func(x, y []byte) []byte) {
	t.Helper()
	L := c.ByteLen()
	n := len(b.wantXY)
	out := bytes.Repeat([]byte{0xee}, n*size)
	status := slices.Repeat([]ecmul.Status{ecmul.StatusResultCheck}, n)
	require.NoError(t, call(e, context.Background(), out, status, b.scalars), name)
	for i, xy := range b.wantXY {
		r := out[i*size : (i+1)*size]
		if xy == nil {
			require.Equal(t, ecmul.StatusInfinity, status[i], "%s item %d", name, i)
			require.Equal(t, make([]byte, size), r, "%s item %d: zero bytes without a point", name, i)
			continue
		}
		require.Equal(t, ecmul.StatusPoint, status[i], "%s item %d", name, i)
		require.Equal(t, enc(xy[:L], xy[L:]), r, "%s item %d", name, i)
	}
	g := c.EncodeSEC1(cp(c.Generator()), false)
	viaMul, mulStatus := make([]byte, len(out)), make([]ecmul.Status, n)
	require.NoError(t, e.ScalarMultBytes(context.Background(), viaMul, mulStatus, b.scalars, bytes.Repeat(g, n)))
	require.Equal(t, mulStatus, status, "%s: the statuses of ScalarMultBytes with G", name)
	require.Equal(t, viaMul, out, "%s: the results of ScalarMultBytes with G", name)
}

// TestScalarBaseMultBytes: on every backend and curve, k·G for the edge
// scalars (0, 1, n−1, n, n+1, 2^(8L)−1) and random ones is the reference's,
// in each of out's formats, from ScalarBaseMultBytes and
// ScalarBaseMultVarTimeBytes, and what ScalarMultBytes gives with G.
func TestScalarBaseMultBytes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		requireBase(t, e, c, newBaseItems(t, c, itemCount(bc, 40, 10), 41))
	})
}

// TestScalarBaseMultBytesGPUFake runs ScalarBaseMultBytes and
// ScalarBaseMultVarTimeBytes on the gpu backend over a fake driver of two
// devices, the kernel emulated by the CPU twin: every item right, each on
// its own comb, across several chunks on both devices, with progress
// reaching the total.
func TestScalarBaseMultBytesGPUFake(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			d := devicesDriver(t, c, 2)
			e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 5})
			b := newBaseItems(t, c, 13, 42)
			requireBase(t, e, c, b)
			require.True(t, slices.ContainsFunc(d.FunctionNames(), isComb), "k·G ran on the comb: %v", d.FunctionNames())
			require.True(t, slices.ContainsFunc(d.FunctionNames(), isCombVarTime), "the variable-time k·G ran on its comb: %v", d.FunctionNames())
			n := len(b.wantXY)
			last := 0
			ctx := ecmul.WithProgress(context.Background(), func(done, total int) {
				require.Equal(t, n, total)
				require.Greater(t, done, last)
				last = done
			})
			err := e.ScalarBaseMultBytes(ctx, make([]byte, n*c.ByteLen()), make([]ecmul.Status, n), b.scalars)
			require.NoError(t, err)
			require.Equal(t, n, last, "progress reaches the total")
			// the last batch diag reports is this k·G batch: 13 items in chunks of at most 5
			require.NoError(t, e.ScalarMultBytes(context.Background(), make([]byte, c.ByteLen()), make([]ecmul.Status, 1),
				b.scalars[:c.ByteLen()], c.EncodeSEC1(cp(c.Generator()), false)))
			require.NoError(t, e.ScalarBaseMultBytes(context.Background(), make([]byte, n*c.ByteLen()), make([]ecmul.Status, n), b.scalars))
			st, ok := diag.LastBatch(e)
			require.True(t, ok)
			require.GreaterOrEqual(t, st.Chunks, 3, "diag.LastBatch reports the k·G batch, not the k·P one before it")
		})
	}
}

func isComb(entry string) bool        { return strings.Contains(entry, "_comb_") }
func isCombVarTime(entry string) bool { return strings.Contains(entry, "_combvt_") }

// TestScalarBaseMultBytesGPUFakeNoComb: where the kernel has no comb for
// the Engine's configuration (the tile or spread mapping, Kawamura's
// extension), k·G runs on the ladder with G, and is as right.
func TestScalarBaseMultBytesGPUFakeNoComb(t *testing.T) {
	c := curves.P256()
	for _, cfg := range []struct {
		opts ecmul.Options
		g    diag.Tuning
	}{
		{ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{ChannelBits: 16, Mapping: diag.MappingTile}},
		{ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{ChannelBits: 16, Extension: diag.Kawamura}},
		{ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: diag.MappingSpread}},
	} {
		d := devicesDriver(t, c, 1)
		e := newEngine(t, c, cfg.opts, cfg.g)
		requireBase(t, e, c, newBaseItems(t, c, 8, 43))
		require.False(t, slices.ContainsFunc(d.FunctionNames(), isComb), "%+v: %v", cfg.g, d.FunctionNames())
	}
}

// TestScalarBaseMultVarTimeOnComb: where the kernel has the constant-time
// comb but no variable-time one for the Engine's configuration (the warp
// mapping), ScalarBaseMultVarTimeBytes runs on the comb, with the same
// results.
func TestScalarBaseMultVarTimeOnComb(t *testing.T) {
	c := curves.P224()
	d := devicesDriver(t, c, 1)
	e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Mapping: diag.MappingWarp})
	b := newBaseItems(t, c, 8, 44)
	requireBaseFormat(t, e, c, b, (*ecmul.Engine).ScalarBaseMultVarTimeBytes, "variable time on the warp mapping", 1+2*c.ByteLen(),
		func(x, y []byte) []byte { return append(append([]byte{4}, x...), y...) })
	require.True(t, slices.ContainsFunc(d.FunctionNames(), isComb), "k·G ran on the comb: %v", d.FunctionNames())
	require.False(t, slices.ContainsFunc(d.FunctionNames(), isCombVarTime), "no combvt entry point on the warp mapping: %v", d.FunctionNames())
}

// TestScalarBaseMultBytesLayout: scalars that are not whole, an out or a
// status of another length, are ErrBatchLayout with every status
// StatusNotComputed; an empty batch is no error; a closed Engine is
// ErrClosed, a zero one ErrNoEngine.
func TestScalarBaseMultBytesLayout(t *testing.T) {
	for _, bc := range baseCalls {
		t.Run(bc.name, func(t *testing.T) { testBaseLayout(t, bc.call) })
	}
}

func testBaseLayout(t *testing.T, call func(*ecmul.Engine, context.Context, []byte, []ecmul.Status, []byte) error) {
	c := curves.P256()
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	L := c.ByteLen()
	k := make([]byte, L)
	k[L-1] = 2
	ok := func() (out []byte, st []ecmul.Status, sc []byte) {
		return make([]byte, 2*(1+2*L)), []ecmul.Status{ecmul.StatusPoint, ecmul.StatusPoint}, append(k, k...)
	}
	for name, f := range map[string]func(out *[]byte, st *[]ecmul.Status, sc *[]byte){
		"scalars not whole": func(_ *[]byte, _ *[]ecmul.Status, sc *[]byte) { *sc = (*sc)[:len(*sc)-1] },
		"out short":         func(out *[]byte, _ *[]ecmul.Status, _ *[]byte) { *out = (*out)[:len(*out)-1] },
		"out long":          func(out *[]byte, _ *[]ecmul.Status, _ *[]byte) { *out = append(*out, 0) },
		"status short":      func(_ *[]byte, st *[]ecmul.Status, _ *[]byte) { *st = (*st)[:1] },
		"status long":       func(_ *[]byte, st *[]ecmul.Status, _ *[]byte) { *st = append(*st, ecmul.StatusPoint) },
	} {
		out, st, sc := ok()
		f(&out, &st, &sc)
		require.ErrorIs(t, call(e, context.Background(), out, st, sc), ecmul.ErrBatchLayout, name)
		require.Equal(t, make([]ecmul.Status, len(st)), st, name)
	}
	require.NoError(t, call(e, context.Background(), nil, nil, nil), "an empty batch")
	out, st, sc := ok()
	require.NoError(t, call(e, nil, out, st, sc), "a nil context is Background")
	require.Equal(t, []ecmul.Status{ecmul.StatusPoint, ecmul.StatusPoint}, st)
	require.NoError(t, e.Close())
	out, st, sc = ok()
	require.ErrorIs(t, call(e, context.Background(), out, st, sc), ecmul.ErrClosed)
	require.Equal(t, make([]ecmul.Status, 2), st)
	var zero ecmul.Engine
	require.ErrorIs(t, call(&zero, context.Background(), out, st, sc), ecmul.ErrClosed)
	var none *ecmul.Engine
	require.ErrorIs(t, call(none, context.Background(), out, st, sc), ecmul.ErrClosed)
}

// TestScalarBaseMultBytesAllocations: on the gpu backend (the fake
// driver's kernel left undone: only the host's work is counted),
// ScalarBaseMultBytes allocates per chunk, not per item, as
// ScalarMultBytes does.
func TestScalarBaseMultBytesAllocations(t *testing.T) {
	c := curves.P256()
	allocs := bytesAllocs(t, c, func(e *ecmul.Engine, n int, sc []byte) func() {
		out, st := make([]byte, n*(1+c.ByteLen())), make([]ecmul.Status, n)
		return func() { _ = e.ScalarBaseMultBytes(context.Background(), out, st, sc) }
	})
	small, large := allocs(800), allocs(3000)
	require.InDelta(t, small, large, 8, "allocations do not grow with the batch: %v for 800 items, %v for 3000", small, large)
}

// TestScalarBaseMult: on every backend and curve, the *big.Int form gives
// the reference's k·G for the edge and random scalars, an *ItemError
// matching ErrInvalidScalar for a missing, negative or 513-bit one, and
// progress up to the total; on a closed Engine ErrClosed and no results.
func TestScalarBaseMult(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		L := c.ByteLen()
		b := newBaseItems(t, c, itemCount(bc, 24, 8), 44)
		var ks []*big.Int
		for i := range b.wantXY {
			ks = append(ks, new(big.Int).SetBytes(b.scalars[i*L:(i+1)*L]))
		}
		bad := map[int]bool{len(ks): true, len(ks) + 1: true, len(ks) + 2: true}
		ks = append(ks, nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 512))
		last := 0
		res, err := scalarBaseMult(e, ecmul.WithProgress(context.Background(), func(done, total int) {
			require.Equal(t, len(ks), total)
			require.Greater(t, done, last)
			last = done
		}), ks)
		require.NoError(t, err)
		require.Equal(t, len(ks), last, "progress reaches the total")
		for i, r := range res {
			if bad[i] {
				require.ErrorIs(t, r.Err, ecmul.ErrInvalidScalar, "item %d", i)
				continue
			}
			require.NoError(t, r.Err, "item %d", i)
			xy := b.wantXY[i]
			if xy == nil {
				require.True(t, r.Infinity, "item %d", i)
				continue
			}
			require.Equal(t, new(big.Int).SetBytes(xy[:L]), r.X, "item %d x", i)
			require.Equal(t, new(big.Int).SetBytes(xy[L:]), r.Y, "item %d y", i)
		}
	})
	e, err := ecmul.New(ecmul.P256(), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	res, err := scalarBaseMult(e, context.Background(), []*big.Int{big.NewInt(1)})
	require.ErrorIs(t, err, ecmul.ErrClosed)
	requireNoneComputed(t, res, ecmul.ErrClosed)
}
