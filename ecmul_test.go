package ecmul_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/textbook"
)

// backendCase is one engine configuration under test.
type backendCase struct {
	name string
	opts ecmul.Options
	tune diag.Tuning
	rns  bool // the item costs milliseconds: keep counts small
}

// gpuPresent reports whether the gpu backend can be built on this machine;
// when it can, every correctness test runs on it too.
var gpuPresent = sync.OnceValue(func() bool {
	e, err := ecmul.New(pub(curves.P224()), ecmul.Options{Backend: ecmul.GPU})
	if err != nil {
		return false
	}
	e.Close()
	return true
})

func backendCases() []backendCase {
	cs := []backendCase{
		{name: "backend=cpu", opts: ecmul.Options{Backend: ecmul.CPU}},
		{name: "backend=rns-cpu/ext=shenoy", opts: ecmul.Options{Backend: ecmul.RNSCPU}, tune: diag.Tuning{Extension: diag.Shenoy}, rns: true},
		{name: "backend=rns-cpu/ext=kawamura", opts: ecmul.Options{Backend: ecmul.RNSCPU}, tune: diag.Tuning{Extension: diag.Kawamura}, rns: true},
	}
	if gpuPresent() {
		cs = append(cs,
			backendCase{name: "backend=gpu/ext=shenoy", opts: ecmul.Options{Backend: ecmul.GPU}, tune: diag.Tuning{Extension: diag.Shenoy}},
			backendCase{name: "backend=gpu/ext=kawamura", opts: ecmul.Options{Backend: ecmul.GPU}, tune: diag.Tuning{Extension: diag.Kawamura}},
		)
	}
	return cs
}

func curveName(c *curves.Curve) string {
	switch c {
	case curves.P224():
		return "P224"
	case curves.P256():
		return "P256"
	}
	return c.Name()
}

// forEachEngine runs f on every curve and backend, each in its own subtest.
func forEachEngine(t *testing.T, f func(t *testing.T, bc backendCase, e *ecmul.Engine)) {
	for _, c := range curves.All() {
		for _, bc := range backendCases() {
			t.Run("curve="+curveName(c)+"/"+bc.name, func(t *testing.T) {
				e := newEngine(t, c, bc.opts, bc.tune)
				f(t, bc, e)
			})
		}
	}
}

func newEngine(tb testing.TB, c *curves.Curve, opts ecmul.Options, g ...diag.Tuning) *ecmul.Engine {
	tb.Helper()
	var gpu diag.Tuning
	if len(g) > 0 {
		gpu = g[0]
	}
	e, err := diag.New(pub(c), opts, gpu)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, e.Close()) })
	return e
}

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
}

// randBits returns a uniform integer of at most bits bits.
func randBits(rng *rand.Rand, bits int) *big.Int {
	b := make([]byte, (bits+7)/8)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	k := new(big.Int).SetBytes(b)
	return k.Rsh(k, uint(8*len(b)-bits))
}

// randBelow returns an integer in [0, m), with negligible bias.
func randBelow(rng *rand.Rand, m *big.Int) *big.Int {
	return new(big.Int).Mod(randBits(rng, m.BitLen()+64), m)
}

// randScalar returns a scalar in [1, n).
func randScalar(rng *rand.Rand, c *curves.Curve) *big.Int {
	k := randBelow(rng, new(big.Int).Sub(c.N(), big.NewInt(1)))
	return k.Add(k, big.NewInt(1))
}

// randLargeScalar returns a scalar in [n, 2^512).
func randLargeScalar(rng *rand.Rand, c *curves.Curve) *big.Int {
	for {
		k := randBits(rng, 1+rng.IntN(ecmul.MaxScalarBits))
		if k.Cmp(c.N()) >= 0 {
			return k
		}
	}
}

// randPoint returns a random point of the curve, k·G for a random k.
func randPoint(tb testing.TB, rng *rand.Rand, c *curves.Curve) *ecmul.Point {
	tb.Helper()
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), randScalar(rng, c))
	require.NoError(tb, err)
	require.True(tb, ok)
	return &ecmul.Point{X: x, Y: y}
}

// zeroXPoint returns a point with x = 0 when the curve has one (b is a
// square mod p); the ladder cannot start from it and must take a detour.
func zeroXPoint(c *curves.Curve) *ecmul.Point {
	y := new(big.Int).ModSqrt(c.B(), c.P())
	if y == nil {
		return nil
	}
	return &ecmul.Point{X: new(big.Int), Y: y}
}

// want computes k·p with the reference oracles (nil is the point at
// infinity). For P-256 and secp256k1, gnark-crypto must agree; for every
// curve, the textbook formulas must agree when withTextbook is set.
func want(tb testing.TB, c *curves.Curve, p *ecmul.Point, k *big.Int, withTextbook bool) *ecmul.Point {
	tb.Helper()
	x, y, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
	require.NoError(tb, err)
	var w *ecmul.Point
	if ok {
		w = &ecmul.Point{X: x, Y: y}
	}
	if c == curves.P256() || c == curves.Secp256k1() {
		gx, gy, gok, err := c.GnarkScalarMult(p.X, p.Y, k)
		require.NoError(tb, err)
		var g *ecmul.Point
		if gok {
			g = &ecmul.Point{X: gx, Y: gy}
		}
		require.True(tb, cp(w).Equal(cp(g)), "oracles disagree on %v·%v: reference %v, gnark %v", k, p, w, g)
	}
	if withTextbook {
		tw := textbook.Mul(c, cp(p), k)
		require.True(tb, cp(w).Equal(tw), "oracles disagree on %v·%v: reference %v, textbook %v", k, p, w, tw)
	}
	return w
}

// requireResult checks that r is the successful result w (nil: infinity).
func requireResult(tb testing.TB, r ecmul.Result, w *ecmul.Point, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	require.NoError(tb, r.Err, msg)
	if w == nil {
		require.True(tb, r.Infinity, msg)
		require.Nil(tb, r.X, msg)
		require.Nil(tb, r.Y, msg)
		return
	}
	require.False(tb, r.Infinity, msg)
	require.NotNil(tb, r.X, msg)
	require.NotNil(tb, r.Y, msg)
	got := &ecmul.Point{X: r.X, Y: r.Y}
	require.True(tb, cp(got).Equal(cp(w)), "got %v, want %v: %s", got, w, msg)
}

// itemCount trims a test size: rns-cpu items cost milliseconds each.
func itemCount(bc backendCase, cpu, rns int) int {
	n := cpu
	if bc.rns {
		n = rns
	}
	if testing.Short() {
		n = max(1, n/4)
	}
	return n
}

func TestScalarMultRandom(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		rng := newRNG(uint64(c.ByteLen())*7 + uint64(len(c.Name())))
		n := itemCount(bc, 96, 24)
		points := make([]*ecmul.Point, n)
		scalars := make([]*big.Int, n)
		for i := range n {
			points[i] = randPoint(t, rng, c)
			if i%4 == 3 {
				scalars[i] = randLargeScalar(rng, c)
			} else {
				scalars[i] = randScalar(rng, c)
			}
		}
		res, err := scalarMult(e, context.Background(), points, scalars)
		require.NoError(t, err)
		require.Len(t, res, n)
		for i := range n {
			w := want(t, c, points[i], scalars[i], i < 4)
			requireResult(t, res[i], w, "item %d: %v·%v", i, scalars[i], points[i])
		}
	})
}

func TestScalarMultEdgeScalars(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		rng := newRNG(99)
		n := c.N()
		one := big.NewInt(1)
		allOnes := new(big.Int).Sub(new(big.Int).Lsh(one, ecmul.MaxScalarBits), one)
		edge := []struct {
			name string
			k    *big.Int
		}{
			{"0", new(big.Int)},
			{"1", big.NewInt(1)},
			{"2", big.NewInt(2)},
			{"3", big.NewInt(3)},
			{"n-2", new(big.Int).Sub(n, big.NewInt(2))},
			{"n-1", new(big.Int).Sub(n, one)},
			{"n", new(big.Int).Set(n)},
			{"n+1", new(big.Int).Add(n, one)},
			{"n+2", new(big.Int).Add(n, big.NewInt(2))},
			{"2n-1", new(big.Int).Sub(new(big.Int).Lsh(n, 1), one)},
			{"2n", new(big.Int).Lsh(n, 1)},
			{"2n+1", new(big.Int).Add(new(big.Int).Lsh(n, 1), one)},
			{"1000n", new(big.Int).Mul(n, big.NewInt(1000))},
			{"2^bitlen(n)", new(big.Int).Lsh(one, uint(n.BitLen()))},
			{"2^bitlen(n)-1", new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen())), one)},
			{"2^256", new(big.Int).Lsh(one, 256)},
			{"2^511", new(big.Int).Lsh(one, 511)},
			{"2^512-1", allOnes},
			{"(2^512-1)-(2^512-1 mod n)", new(big.Int).Sub(allOnes, new(big.Int).Mod(allOnes, n))},
		}
		bases := []struct {
			name string
			p    *ecmul.Point
		}{
			{"G", ep(c.Generator())},
			{"random", randPoint(t, rng, c)},
		}
		if bc.rns && testing.Short() {
			bases = bases[1:]
		}
		if z := zeroXPoint(c); z != nil {
			bases = append(bases, struct {
				name string
				p    *ecmul.Point
			}{"x=0", z})
		}
		var points []*ecmul.Point
		var scalars []*big.Int
		var names []string
		for _, b := range bases {
			for _, s := range edge {
				points = append(points, b.p)
				scalars = append(scalars, s.k)
				names = append(names, s.name+"·"+b.name)
			}
		}
		res, err := scalarMult(e, context.Background(), points, scalars)
		require.NoError(t, err)
		for i := range res {
			p, k := points[i], scalars[i]
			w := want(t, c, p, new(big.Int).Mod(k, n), false)
			requireResult(t, res[i], w, "%s", names[i])
			// Values known without any oracle.
			km := new(big.Int).Mod(k, n)
			switch {
			case km.Sign() == 0:
				require.True(t, res[i].Infinity, names[i])
			case km.Cmp(one) == 0:
				require.Zero(t, res[i].X.Cmp(p.X), names[i])
				require.Zero(t, res[i].Y.Cmp(p.Y), names[i])
				require.NotSame(t, p.X, res[i].X, "%s: the result aliases the input", names[i])
				require.NotSame(t, p.Y, res[i].Y, "%s: the result aliases the input", names[i])
			case km.Cmp(new(big.Int).Sub(n, one)) == 0:
				require.Zero(t, res[i].X.Cmp(p.X), names[i])
				require.Zero(t, res[i].Y.Cmp(new(big.Int).Sub(c.P(), p.Y)), names[i])
			}
		}
	})
}

func TestScalarMultInvalidItems(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		c := impl(e.Curve())
		rng := newRNG(7)
		valid := func() (*ecmul.Point, *big.Int) { return randPoint(t, rng, c), randScalar(rng, c) }
		p := randPoint(t, rng, c)
		offCurve := &ecmul.Point{X: new(big.Int).Set(p.X), Y: new(big.Int).Add(p.Y, big.NewInt(1))}
		offCurve.Y.Mod(offCurve.Y, c.P())
		tooLarge := new(big.Int).Lsh(big.NewInt(1), ecmul.MaxScalarBits) // 513 bits
		largest := new(big.Int).Sub(tooLarge, big.NewInt(1))             // 512 bits: accepted

		type entry struct {
			name string
			p    *ecmul.Point
			k    *big.Int
			err  error // nil: a valid item
		}
		entries := []entry{
			{name: "valid"},
			{name: "nil point", p: nil, k: big.NewInt(5), err: ecmul.ErrNilPoint},
			{name: "valid"},
			{name: "off the curve", p: offCurve, k: big.NewInt(5), err: curves.ErrNotOnCurve},
			{name: "x = p", p: &ecmul.Point{X: new(big.Int).Set(c.P()), Y: new(big.Int).Set(p.Y)}, k: big.NewInt(5), err: curves.ErrCoordinateRange},
			{name: "x = x + p", p: &ecmul.Point{X: new(big.Int).Add(p.X, c.P()), Y: new(big.Int).Set(p.Y)}, k: big.NewInt(5), err: curves.ErrCoordinateRange},
			{name: "y = y + p", p: &ecmul.Point{X: new(big.Int).Set(p.X), Y: new(big.Int).Add(p.Y, c.P())}, k: big.NewInt(5), err: curves.ErrCoordinateRange},
			{name: "x < 0", p: &ecmul.Point{X: new(big.Int).Sub(p.X, c.P()), Y: new(big.Int).Set(p.Y)}, k: big.NewInt(5), err: curves.ErrCoordinateRange},
			{name: "(0, 0)", p: &ecmul.Point{X: new(big.Int), Y: new(big.Int)}, k: big.NewInt(5), err: curves.ErrInfinity},
			{name: "nil x", p: &ecmul.Point{Y: new(big.Int).Set(p.Y)}, k: big.NewInt(5), err: curves.ErrInfinity},
			{name: "valid"},
			{name: "negative scalar", p: p, k: big.NewInt(-1), err: ecmul.ErrScalarNegative},
			{name: "-n", p: p, k: new(big.Int).Neg(c.N()), err: ecmul.ErrScalarNegative},
			{name: "513-bit scalar", p: p, k: tooLarge, err: ecmul.ErrScalarTooLarge},
			{name: "nil scalar", p: p, k: nil, err: ecmul.ErrNilScalar},
			{name: "512-bit scalar", p: p, k: largest},
			{name: "valid"},
		}
		points := make([]*ecmul.Point, len(entries))
		scalars := make([]*big.Int, len(entries))
		for i := range entries {
			if entries[i].name == "valid" {
				entries[i].p, entries[i].k = valid()
			}
			points[i], scalars[i] = entries[i].p, entries[i].k
		}
		res, err := scalarMult(e, context.Background(), points, scalars)
		require.NoError(t, err, "invalid items are not a batch error")
		require.Len(t, res, len(entries))
		for i, en := range entries {
			r := res[i]
			if en.err == nil {
				requireResult(t, r, want(t, c, en.p, en.k, false), "item %d (%s)", i, en.name)
				continue
			}
			require.Error(t, r.Err, "item %d (%s)", i, en.name)
			require.ErrorIs(t, r.Err, en.err, "item %d (%s)", i, en.name)
			require.Nil(t, r.X, "item %d (%s)", i, en.name)
			require.Nil(t, r.Y, "item %d (%s)", i, en.name)
			require.False(t, r.Infinity, "item %d (%s)", i, en.name)
		}
		// The inputs are left as they were.
		require.Zero(t, entries[4].p.X.Cmp(c.P()))
		require.Equal(t, -1, entries[11].k.Sign())
	})
}

func TestScalarMultBatchShapes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, bc backendCase, e *ecmul.Engine) {
		ctx := context.Background()
		t.Run("empty", func(t *testing.T) {
			res, err := scalarMult(e, ctx, nil, nil)
			require.NoError(t, err)
			require.Empty(t, res)
			res, err = scalarMult(e, ctx, []*ecmul.Point{}, []*big.Int{})
			require.NoError(t, err)
			require.Empty(t, res)
		})
		t.Run("length mismatch", func(t *testing.T) {
			g := e.Curve().Generator()
			_, err := scalarMult(e, ctx, []*ecmul.Point{g, g}, []*big.Int{big.NewInt(1)})
			require.ErrorIs(t, err, ecmul.ErrBatchLayout)
			_, err = scalarMult(e, ctx, nil, []*big.Int{big.NewInt(1)})
			require.ErrorIs(t, err, ecmul.ErrBatchLayout)
		})
		t.Run("all invalid", func(t *testing.T) {
			res, err := scalarMult(e, ctx, []*ecmul.Point{nil, e.Curve().Generator()}, []*big.Int{big.NewInt(1), nil})
			require.NoError(t, err)
			require.ErrorIs(t, res[0].Err, ecmul.ErrNilPoint)
			require.ErrorIs(t, res[1].Err, ecmul.ErrNilScalar)
		})
		t.Run("one item", func(t *testing.T) {
			g := e.Curve().Generator()
			res, err := scalarMult(e, ctx, []*ecmul.Point{g}, []*big.Int{big.NewInt(2)})
			require.NoError(t, err)
			requireResult(t, res[0], ep(textbook.Add(impl(e.Curve()), cp(g), cp(g))), "2·G")
		})
	})
}

// TestScalarMultCancelled checks that a batch whose context ends reports
// the context's error, and that every item it reports computed is right.
func TestScalarMultCancelled(t *testing.T) {
	c := curves.P224()
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			rng := newRNG(5)
			n := 5000 // about 0.15 ms each
			if bc.rns {
				n = 400 // about 3 ms each
			}
			opts := bc.opts
			opts.Workers = 1
			e := newEngine(t, c, opts, bc.tune)
			points := make([]*ecmul.Point, n)
			scalars := make([]*big.Int, n)
			base := randPoint(t, rng, c)
			for i := range n {
				points[i], scalars[i] = base, randScalar(rng, c)
			}
			points[3] = nil    // an invalid item keeps its own error
			late := n - 1      // past the first block of validation
			points[late] = nil // unless validation stopped before it

			t.Run("before", func(t *testing.T) {
				// With one worker, the first block of items is validated
				// before the context is looked at, and no later one.
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				res, err := scalarMult(e, ctx, points, scalars)
				require.ErrorIs(t, err, context.Canceled)
				require.Len(t, res, n)
				for i, r := range res {
					require.Error(t, r.Err, "item %d", i)
					if i == 3 {
						require.ErrorIs(t, r.Err, ecmul.ErrNilPoint)
						continue
					}
					require.ErrorIs(t, r.Err, context.Canceled, "item %d", i)
					require.NotErrorIs(t, r.Err, ecmul.ErrNilPoint, "item %d: validated after the context ended", i)
					require.Nil(t, r.X, "item %d", i)
					require.False(t, r.Infinity, "item %d", i)
				}
			})

			t.Run("during", func(t *testing.T) {
				if bc.opts.Backend == ecmul.GPU {
					t.Skip("a GPU may finish the whole batch before the context ends")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go func() {
					time.Sleep(20 * time.Millisecond)
					cancel()
				}()
				start := time.Now()
				res, err := scalarMult(e, ctx, points, scalars)
				elapsed := time.Since(start)
				require.ErrorIs(t, err, context.Canceled, "the batch took %v", elapsed)
				require.Len(t, res, n)
				computed := 0
				for i, r := range res {
					if i == 3 {
						require.ErrorIs(t, r.Err, ecmul.ErrNilPoint)
						continue
					}
					if i == late && errors.Is(r.Err, ecmul.ErrNilPoint) {
						continue // validated before the context ended
					}
					if r.Err != nil {
						require.ErrorIs(t, r.Err, context.Canceled, "item %d", i)
						require.Nil(t, r.X, "item %d", i)
						require.False(t, r.Infinity, "item %d", i)
						continue
					}
					computed++
					requireResult(t, r, want(t, c, points[i], scalars[i], false), "item %d", i)
				}
				require.Less(t, computed, n-2, "cancelled after %v, yet every item was computed", elapsed)
				t.Logf("cancelled after 20ms: %d of %d items computed, returned after %v", computed, n-2, elapsed)
			})
		})
	}
}

// TestScalarMultConcurrent uses one engine from several goroutines.
func TestScalarMultConcurrent(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			c := curves.Secp256k1()
			e := newEngine(t, c, bc.opts, bc.tune)
			const goroutines = 4
			per := itemCount(bc, 32, 4)
			var wg sync.WaitGroup
			errs := make([]error, goroutines)
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := newRNG(uint64(100 + g))
					points := make([]*ecmul.Point, per)
					scalars := make([]*big.Int, per)
					for i := range per {
						points[i], scalars[i] = randPoint(t, rng, c), randScalar(rng, c)
					}
					res, err := scalarMult(e, context.Background(), points, scalars)
					if err != nil {
						errs[g] = err
						return
					}
					for i, r := range res {
						x, y, _, _ := c.ReferenceScalarMult(points[i].X, points[i].Y, scalars[i])
						if r.Err != nil || r.X.Cmp(x) != 0 || r.Y.Cmp(y) != 0 {
							errs[g] = fmt.Errorf("goroutine %d item %d: got (%v, %v, %v), want (%v, %v)", g, i, r.X, r.Y, r.Err, x, y)
							return
						}
					}
				}()
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
		})
	}
}

func TestNewGPUWithoutDevice(t *testing.T) {
	if _, err := gpu.DefaultDriver(); err == nil {
		t.Skip("a CUDA driver is present")
	}
	for _, c := range curves.All() {
		e, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.GPU})
		require.ErrorIs(t, err, ecmul.ErrNoDevice, c.Name())
		require.Nil(t, e)

		for _, b := range []ecmul.Backend{ecmul.Auto, ecmul.Backend(0)} {
			e, err = ecmul.New(pub(c), ecmul.Options{Backend: b})
			require.NoError(t, err, c.Name())
			require.Equal(t, ecmul.CPU, e.Backend(), c.Name())
			res, err := scalarMult(e, context.Background(), []*ecmul.Point{ep(c.Generator())}, []*big.Int{big.NewInt(1)})
			require.NoError(t, err)
			requireResult(t, res[0], ep(c.Generator()), "%s: 1·G", c.Name())
			require.NoError(t, e.Close())
		}
	}
}

func TestNew(t *testing.T) {
	_, err := ecmul.New(pub(nil), ecmul.Options{Backend: ecmul.CPU})
	require.Error(t, err)
	_, err = ecmul.New(pub(curves.P224()), ecmul.Options{Backend: ecmul.Backend(9)})
	require.Error(t, err)
	for _, b := range []ecmul.Backend{ecmul.CPU, ecmul.RNSCPU} {
		e, err := ecmul.New(pub(curves.P256()), ecmul.Options{Backend: b})
		require.NoError(t, err)
		require.Equal(t, b, e.Backend())
		require.Equal(t, ecmul.P256(), e.Curve())
		require.NoError(t, e.Close())
	}
}

// TestNewRejectsUnknownExt: an Extension that is no base extension must be
// refused by New, like an unknown backend, rather than give every item a
// fault.
func TestNewRejectsUnknownExt(t *testing.T) {
	for _, b := range []ecmul.Backend{ecmul.RNSCPU, ecmul.GPU} {
		e, err := diag.New(pub(curves.P224()), ecmul.Options{Backend: b}, diag.Tuning{Extension: diag.Extension(7)})
		require.Error(t, err, b)
		require.Nil(t, e, b)
	}
}

// BenchmarkLadder measures whole batches through Engine.ScalarMult and
// reports scalar multiplications per second.
func BenchmarkLadder(b *testing.B) {
	backends := []struct {
		name  string
		opts  ecmul.Options
		batch int
	}{
		{"cpu", ecmul.Options{Backend: ecmul.CPU}, 1024},
		{"rns-cpu", ecmul.Options{Backend: ecmul.RNSCPU}, 128},
	}
	if gpuPresent() {
		backends = append(backends, struct {
			name  string
			opts  ecmul.Options
			batch int
		}{"gpu", ecmul.Options{Backend: ecmul.GPU}, 1 << 16})
	}
	for _, c := range curves.All() {
		for _, bk := range backends {
			b.Run("curve="+curveName(c)+"/backend="+bk.name, func(b *testing.B) {
				e := newEngine(b, c, bk.opts)
				rng := newRNG(1)
				bases := make([]*ecmul.Point, 64)
				for i := range bases {
					bases[i] = randPoint(b, rng, c)
				}
				points := make([]*ecmul.Point, bk.batch)
				scalars := make([]*big.Int, bk.batch)
				for i := range bk.batch {
					points[i], scalars[i] = bases[i%len(bases)], randScalar(rng, c)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					res, err := scalarMult(e, context.Background(), points, scalars)
					if err != nil {
						b.Fatal(err)
					}
					if res[0].Err != nil {
						b.Fatal(res[0].Err)
					}
				}
				b.ReportMetric(float64(b.N*bk.batch)/b.Elapsed().Seconds(), "ops/s")
				b.ReportMetric(float64(bk.batch), "items/op")
			})
		}
	}
}

// TestNewRejectsFinishItemsOutOfRange: the finish kernel's items per thread
// must be 0 (the library's) or 1 to diag.MaxFinishItemsPerThread.
func TestNewRejectsFinishItemsOutOfRange(t *testing.T) {
	for _, n := range []int{-1, diag.MaxFinishItemsPerThread + 1} {
		e, err := diag.New(pub(curves.P224()), ecmul.Options{Backend: ecmul.RNSCPU}, diag.Tuning{FinishItemsPerThread: n})
		require.ErrorContains(t, err, "FinishItemsPerThread", n)
		require.Nil(t, e, n)
	}
}
