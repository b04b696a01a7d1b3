package ecmul_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/textbook"
)

// bytesItems is a bytes batch and, per item, what ScalarMult gives for it.
type bytesItems struct {
	scalars, points []byte
	want            []ecmul.Status
	wantXY          [][]byte // x‖y for StatusPoint
}

// newBytesItems builds count items on c, compressed or not: random points
// and scalars of every size below 2^(8L), edge scalars, and one bad point
// of each kind, with what they must give from the *big.Int reference.
func newBytesItems(t *testing.T, c *curves.Curve, count int, compressed bool, seed uint64) bytesItems {
	t.Helper()
	rng := newRNG(seed)
	L := c.ByteLen()
	var b bytesItems
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*L))
	edges := []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N(),
		new(big.Int).Add(c.N(), big.NewInt(1)), new(big.Int).Sub(top, big.NewInt(1))}
	g := c.EncodeSEC1(cp(c.Generator()), compressed)
	bad := map[int]struct {
		enc []byte
		st  ecmul.Status
	}{
		1: {append([]byte{5}, g[1:]...), ecmul.StatusBadEncoding},
		3: {append([]byte{g[0]}, bytes.Repeat([]byte{0xff}, len(g)-1)...), ecmul.StatusBadCoordinate},
		5: {append(append([]byte{}, g[:len(g)-1]...), g[len(g)-1]^1), ecmul.StatusNotOnCurve},
	}
	if compressed {
		bad[5] = struct {
			enc []byte
			st  ecmul.Status
		}{append([]byte{2}, textbook.NoPointX(c).FillBytes(make([]byte, L))...), ecmul.StatusNotOnCurve}
	}
	if !compressed {
		bad[7] = struct {
			enc []byte
			st  ecmul.Status
		}{append([]byte{4}, make([]byte, 2*L)...), ecmul.StatusInfinityInput}
	}
	for i := range count {
		k := randBelow(rng, top)
		if i/2 < len(edges) && i%2 == 0 {
			k = edges[i/2]
		}
		p := randPoint(t, rng, c)
		enc := c.EncodeSEC1(cp(p), compressed)
		b.scalars = append(b.scalars, k.FillBytes(make([]byte, L))...)
		if bp, ok := bad[i]; ok {
			b.points = append(b.points, bp.enc...)
			b.want, b.wantXY = append(b.want, bp.st), append(b.wantXY, nil)
			continue
		}
		b.points = append(b.points, enc...)
		w := want(t, c, p, k, false)
		if w == nil {
			b.want, b.wantXY = append(b.want, ecmul.StatusInfinity), append(b.wantXY, nil)
			continue
		}
		b.want = append(b.want, ecmul.StatusPoint)
		b.wantXY = append(b.wantXY, append(w.X.FillBytes(make([]byte, L)), w.Y.FillBytes(make([]byte, L))...))
	}
	return b
}

// requireBytesBatch runs newBytesItems(count, compressed, seed) through
// e.ScalarMultBytes and requires its results (requireBytesResults).
func requireBytesBatch(t *testing.T, e *ecmul.Engine, c *curves.Curve, count int, compressed bool, seed uint64) {
	t.Helper()
	b := newBytesItems(t, c, count, compressed, seed)
	out := make([]byte, len(b.want)*(1+2*c.ByteLen()))
	status := make([]ecmul.Status, len(b.want))
	require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points))
	requireBytesResults(t, c, b, out, status)
}

// requireBytesResults checks out and status against the expectations.
func requireBytesResults(t *testing.T, c *curves.Curve, b bytesItems, out []byte, status []ecmul.Status) {
	t.Helper()
	size := 1 + 2*c.ByteLen()
	for i, w := range b.want {
		require.Equal(t, w, status[i], "item %d", i)
		r := out[i*size : (i+1)*size]
		if w == ecmul.StatusPoint {
			require.Equal(t, byte(4), r[0], "item %d", i)
			require.Equal(t, b.wantXY[i], r[1:], "item %d", i)
		} else {
			require.Equal(t, make([]byte, size), r, "item %d: zero bytes without a point", i)
		}
	}
}

// TestScalarMultBytes: on every backend and curve, uncompressed and
// compressed, the bytes path gives the reference's points, infinity for
// multiples of n, and each bad point its own status.
func TestScalarMultBytes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		for _, compressed := range []bool{false, true} {
			b := newBytesItems(t, c, itemCount(bc, 40, 12), compressed, 11)
			n := len(b.want)
			out := bytes.Repeat([]byte{0xee}, n*(1+2*c.ByteLen()))
			status := make([]ecmul.Status, n)
			var last int
			ctx := ecmul.WithProgress(context.Background(), func(done, total int) {
				require.Equal(t, n, total)
				require.Greater(t, done, last)
				last = done
			})
			err := e.ScalarMultBytes(ctx, out, status, b.scalars, b.points)
			require.NoError(t, err)
			require.Equal(t, n, last, "progress reaches the total")
			requireBytesResults(t, c, b, out, status)
		}
	})
}

// TestScalarMultBytesGPUFake runs the bytes path of the gpu backend over a
// fake driver of two devices, the kernel emulated by the CPU twin: every
// item right, across several chunks on both devices.
func TestScalarMultBytesGPUFake(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			devicesDriver(t, c, 2)
			e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 5})
			for _, compressed := range []bool{false, true} {
				b := newBytesItems(t, c, 23, compressed, 12)
				out := bytes.Repeat([]byte{0xee}, len(b.want)*(1+2*c.ByteLen()))
				status := make([]ecmul.Status, len(b.want))
				require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points))
				requireBytesResults(t, c, b, out, status)
			}
		})
	}
}

// TestScalarMultBytesGPUFails: a batch that fails as a whole (every device
// failing) returns the error and leaves every item without a result
// StatusNotComputed; a bad point has its own status if its chunk was
// reached, StatusNotComputed if not.
func TestScalarMultBytesGPUFails(t *testing.T) {
	c := curves.P224()
	d := devicesDriver(t, c, 2)
	e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 4})
	b := newBytesItems(t, c, 12, false, 13)
	out := make([]byte, len(b.want)*(1+2*c.ByteLen()))
	status := make([]ecmul.Status, len(b.want))
	d.FailAt("LaunchKernel", 0, nil)
	err := e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points)
	d.ClearFailures()
	require.ErrorContains(t, err, "every device failed")
	for i, w := range b.want {
		switch {
		case w >= ecmul.StatusBadEncoding:
			require.Contains(t, []ecmul.Status{w, ecmul.StatusNotComputed}, status[i], "item %d", i)
		default:
			require.Equal(t, ecmul.StatusNotComputed, status[i], "item %d", i)
			require.ErrorContains(t, status[i].Err(), "not computed")
		}
	}
	require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points))
	requireBytesResults(t, c, b, out, status)
}

// TestScalarMultBytesLayout: buffers whose lengths do not describe one batch
// are refused with ErrBytesLayout before anything runs; no length panics.
func TestScalarMultBytesLayout(t *testing.T) {
	c := curves.P256()
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	L := c.ByteLen()
	g := c.EncodeSEC1(cp(c.Generator()), false)
	k := make([]byte, L)
	k[L-1] = 2
	ok := func() (out []byte, st []ecmul.Status, sc, pts []byte) {
		return make([]byte, 2*(1+2*L)), make([]ecmul.Status, 2), append(k, k...), append(g, g...)
	}
	out, st, sc, pts := ok()
	require.NoError(t, e.ScalarMultBytes(nil, out, st, sc, pts), "a nil context is Background")
	require.Equal(t, []ecmul.Status{ecmul.StatusPoint, ecmul.StatusPoint}, st)
	for name, f := range map[string]func(){
		"scalars not whole": func() { sc = sc[:len(sc)-1] },
		"points short":      func() { pts = pts[:len(pts)-1] },
		"points mixed":      func() { pts = append(g, c.EncodeSEC1(cp(c.Generator()), true)...) },
		"out short":         func() { out = out[:len(out)-1] },
		"out long":          func() { out = append(out, 0) },
		"status short":      func() { st = st[:1] },
		"status long":       func() { st = append(st, ecmul.StatusPoint) },
	} {
		out, st, sc, pts = ok()
		f()
		err := e.ScalarMultBytes(context.Background(), out, st, sc, pts)
		require.ErrorIs(t, err, ecmul.ErrBatchLayout, name)
	}
	require.NoError(t, e.ScalarMultBytes(context.Background(), nil, nil, nil, nil), "an empty batch")
	require.NoError(t, e.Close())
	out, st, sc, pts = ok()
	require.ErrorIs(t, e.ScalarMultBytes(context.Background(), out, st, sc, pts), ecmul.ErrClosed)
	var zero ecmul.Engine
	require.ErrorIs(t, zero.ScalarMultBytes(context.Background(), out, st, sc, pts), ecmul.ErrClosed)
}

// TestScalarMultBytesWholeBatchStatus: a call that fails before it
// computes anything (ErrBytesLayout, ErrClosed, ErrNoEngine) sets every
// element of status to StatusNotComputed, so a status slice reused from an
// earlier batch never reads as success; the zero Status is
// StatusNotComputed, with an error.
func TestScalarMultBytesWholeBatchStatus(t *testing.T) {
	var zero ecmul.Status
	require.Equal(t, ecmul.StatusNotComputed, zero)
	require.Error(t, zero.Err(), "the zero Status is not a success")
	c := curves.P256()
	L := c.ByteLen()
	g := c.EncodeSEC1(cp(c.Generator()), false)
	k := bytes.Repeat([]byte{3}, L)
	stale := func(n int) []ecmul.Status {
		st := make([]ecmul.Status, n)
		for i := range st {
			st[i] = ecmul.StatusPoint
		}
		return st
	}
	e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(t, err)
	st := stale(3)
	err = e.ScalarMultBytes(context.Background(), make([]byte, 2*(1+2*L)), st, append(k, k...), append(g, g...))
	require.ErrorIs(t, err, ecmul.ErrBatchLayout)
	require.Equal(t, make([]ecmul.Status, 3), st, "ErrBytesLayout")
	require.NoError(t, e.Close())
	st = stale(2)
	err = e.ScalarMultBytes(context.Background(), make([]byte, 2*(1+2*L)), st, append(k, k...), append(g, g...))
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.Equal(t, make([]ecmul.Status, 2), st, "ErrClosed")
	var none *ecmul.Engine
	st = stale(2)
	err = none.ScalarMultBytes(context.Background(), make([]byte, 2*(1+2*L)), st, append(k, k...), append(g, g...))
	require.ErrorIs(t, err, ecmul.ErrClosed)
	require.Equal(t, make([]ecmul.Status, 2), st, "not made by New")
}

// TestScalarMultBytesCancelledDecodesNothing: on the CPU backends, a bytes
// batch whose context has already ended stops decoding points within the
// first block of items, as ScalarMult stops validating: a bad point past
// it keeps StatusNotComputed, and the call returns the context's error
// quickly.
func TestScalarMultBytesCancelledDecodesNothing(t *testing.T) {
	c := curves.P256()
	L := c.ByteLen()
	const n = 20000
	g := c.EncodeSEC1(cp(c.Generator()), false)
	pts := bytes.Repeat(g, n)
	late := n - 1
	pts[late*len(g)] = 5 // a bad encoding, far past the first block
	sc := bytes.Repeat([]byte{9}, n*L)
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU} {
		t.Run(string(b), func(t *testing.T) {
			e := newEngine(t, c, ecmul.Options{Backend: b, Workers: 1})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			out, st := make([]byte, n*(1+2*L)), make([]ecmul.Status, n)
			err := e.ScalarMultBytes(ctx, out, st, sc, pts)
			require.ErrorIs(t, err, context.Canceled)
			for i, s := range st {
				require.Equal(t, ecmul.StatusNotComputed, s, "item %d", i)
			}
		})
	}
}

// TestStatusErr: each failure status maps to its sentinel, a bad point's
// also to ErrInvalidPoint, the two successes to nil.
func TestStatusErr(t *testing.T) {
	for s := ecmul.StatusBadEncoding; s <= ecmul.StatusInfinityInput; s++ {
		require.ErrorIs(t, s.Err(), ecmul.ErrInvalidPoint, "%v", s)
	}
	require.NotErrorIs(t, ecmul.StatusResultCheck.Err(), ecmul.ErrInvalidPoint)
	require.NoError(t, ecmul.StatusPoint.Err())
	require.NoError(t, ecmul.StatusInfinity.Err())
	require.ErrorIs(t, ecmul.StatusBadEncoding.Err(), curves.ErrEncoding)
	require.ErrorIs(t, ecmul.StatusBadCoordinate.Err(), curves.ErrCoordinateRange)
	require.ErrorIs(t, ecmul.StatusNotOnCurve.Err(), curves.ErrNotOnCurve)
	require.ErrorIs(t, ecmul.StatusInfinityInput.Err(), curves.ErrInfinity)
	require.Error(t, ecmul.Status(200).Err())
	require.Equal(t, "infinity", ecmul.StatusInfinity.String())
}

// TestScalarMultBytesAllocations: the gpu backend's bytes path allocates
// per chunk, not per item (the fake driver's kernel left undone: only the
// host's work is counted). Each pair of batches runs as three chunks
// (below a wave): on the spread kernel, in place in the pinned buffers
// (800 and 3,000 items), and on the main kernel, through copies (4,096 and
// 8,192 items).
func TestScalarMultBytesAllocations(t *testing.T) {
	c := curves.P256()
	g := c.EncodeSEC1(cp(c.Generator()), true)
	allocs := bytesAllocs(t, c, func(e *ecmul.Engine, n int, sc []byte) func() {
		pts := bytes.Repeat(g, n)
		out, st := make([]byte, n*(1+2*c.ByteLen())), make([]ecmul.Status, n)
		return func() { _ = e.ScalarMultBytes(context.Background(), out, st, sc, pts) }
	})
	for _, pair := range [][2]int{{800, 3000}, {4096, 8192}} {
		small, large := allocs(pair[0]), allocs(pair[1])
		require.InDelta(t, small, large, 8, "allocations do not grow with the batch: %v for %d items, %v for %d", small, pair[0], large, pair[1])
	}
}

// FuzzScalarMultBytes feeds the bytes API buffers of any lengths and
// contents on the cpu backend and on the gpu backend over a fake driver:
// it never panics, refuses inconsistent lengths with ErrBytesLayout, and
// otherwise gives every item the outcome the reference gives: the status of
// its point's decoding error, or the reference's k·P (checked against
// gnark-crypto too, and on the cpu backend, whose arithmetic is the
// reference's, against the textbook formulas), the point at infinity
// included.
func FuzzScalarMultBytes(f *testing.F) {
	c := curves.P256()
	L := c.ByteLen()
	g := c.EncodeSEC1(cp(c.Generator()), false)
	gc := c.EncodeSEC1(cp(c.Generator()), true)
	f.Add(bytes.Repeat([]byte{7}, L), g, false)
	f.Add(bytes.Repeat([]byte{0xff}, 2*L), append(append([]byte{}, gc...), gc...), true)
	f.Add([]byte{1, 2, 3}, []byte{4, 5}, false)
	f.Add(make([]byte, L), append([]byte{4}, make([]byte, 2*L)...), true)
	// random points and edge scalars, valid and not, both encodings
	rng := newRNG(7)
	nm1 := new(big.Int).Sub(c.N(), big.NewInt(1)).FillBytes(make([]byte, L))
	for _, compressed := range []bool{false, true} {
		var sc, pts []byte
		for i, k := range [][]byte{nm1, make([]byte, L), c.N().FillBytes(make([]byte, L)), randScalar(rng, c).FillBytes(make([]byte, L))} {
			p := c.EncodeSEC1(cp(randPoint(f, rng, c)), compressed)
			if i == 2 {
				p[len(p)-1] ^= 1 // off the curve, or another x
			}
			sc, pts = append(sc, k...), append(pts, p...)
		}
		f.Add(sc, pts, compressed)
	}
	cpu, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU})
	require.NoError(f, err)
	devicesDriver(f, c, 2)
	gpuEng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 2})
	require.NoError(f, err)
	f.Cleanup(func() { cpu.Close(); gpuEng.Close() })
	f.Fuzz(func(t *testing.T, scalars, points []byte, onGPU bool) {
		if len(scalars) > 8*L || len(points) > 8*(1+2*L) {
			return // the emulated kernel takes milliseconds an item
		}
		e := cpu
		if onGPU {
			e = gpuEng
		}
		n := len(scalars) / L
		out := make([]byte, n*(1+2*L))
		status := make([]ecmul.Status, n)
		err := e.ScalarMultBytes(context.Background(), out, status, scalars, points)
		if err != nil {
			require.ErrorIs(t, err, ecmul.ErrBatchLayout)
			return
		}
		size := len(points) / max(n, 1)
		for i, st := range status {
			r := out[i*(1+2*L) : (i+1)*(1+2*L)]
			p, derr := c.DecodeSEC1(points[i*size : (i+1)*size])
			if derr != nil {
				require.ErrorIs(t, st.Err(), errors.Unwrap(derr), "item %d: status %v of %v", i, st, derr)
				require.ErrorIs(t, st.Err(), ecmul.ErrInvalidPoint, "item %d: status %v", i, st)
				require.Equal(t, make([]byte, len(r)), r, "item %d (%v)", i, st)
				continue
			}
			w := want(t, c, ep(p), new(big.Int).SetBytes(scalars[i*L:(i+1)*L]), !onGPU)
			if w == nil {
				require.Equal(t, ecmul.StatusInfinity, st, "item %d", i)
				require.Equal(t, make([]byte, len(r)), r, "item %d (%v)", i, st)
				continue
			}
			require.Equal(t, ecmul.StatusPoint, st, "item %d", i)
			require.Equal(t, c.EncodeSEC1(cp(w), false), r, "item %d", i)
		}
	})
}

// TestScalarMultBytesFormats: out's length picks the results' format, on
// every backend (the gpu one over the fake driver): uncompressed SEC1,
// compressed SEC1 (0x02 or 0x03 by y's parity, then x) or x alone, each
// matching the *big.Int reference item for item, zero bytes where an item
// has no point; an out of any other length is ErrBatchLayout.
func TestScalarMultBytesFormats(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			devicesDriver(t, c, 1)
			L := c.ByteLen()
			b := newBytesItems(t, c, 21, false, 31)
			for _, bk := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU, ecmul.GPU} {
				e := newEngine(t, c, ecmul.Options{Backend: bk}, diag.Tuning{Chunk: 8})
				for _, f := range outFormats(L) {
					n := len(b.want)
					out := bytes.Repeat([]byte{0xee}, n*f.size)
					status := make([]ecmul.Status, n)
					require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points), "%v %s", bk, f.name)
					require.Equal(t, b.want, status, "%v %s", bk, f.name)
					for i := range n {
						r := out[i*f.size : (i+1)*f.size]
						want := make([]byte, f.size)
						if b.want[i] == ecmul.StatusPoint {
							want = f.enc(b.wantXY[i][:L], b.wantXY[i][L:])
						}
						require.Equal(t, want, r, "%v %s item %d (%v)", bk, f.name, i, b.want[i])
					}
				}
				n := len(b.want)
				for _, size := range []int{L - 1, L + 2, 2 * L, 2 + 2*L} {
					err := e.ScalarMultBytes(context.Background(), make([]byte, n*size), make([]ecmul.Status, n), b.scalars, b.points)
					require.ErrorIs(t, err, ecmul.ErrBatchLayout, "%v: %d bytes per result", bk, size)
				}
			}
		})
	}
}

// bytesAllocs is the setup the allocation tests of the bytes path share:
// it skips in short mode and under the race detector, puts c on one fake
// device whose kernel is left undone (only the host's work is counted),
// and returns the allocations per run of the call op makes on a gpu
// engine of chunk n, with n scalars of 7s (op builds its buffers outside
// the call it returns).
func bytesAllocs(t *testing.T, c *curves.Curve, op func(e *ecmul.Engine, n int, sc []byte) func()) func(n int) float64 {
	t.Helper()
	if testing.Short() {
		t.Skip("allocation counts over large batches")
	}
	if race.Enabled {
		t.Skip("a chunk's items are pooled, and sync.Pool drops items under the race detector")
	}
	d := devicesDriver(t, c, 1)
	d.OnLaunch = nil
	return func(n int) float64 {
		e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU, Workers: 2}, diag.Tuning{Chunk: n})
		sc := bytes.Repeat([]byte{7}, n*c.ByteLen())
		return testing.AllocsPerRun(5, op(e, n, sc))
	}
}
