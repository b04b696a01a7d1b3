package ladder

import (
	"bytes"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/textbook"
)

// edgeScalars are scalars around 0, n and the top of ByteLen bytes.
func edgeScalars(c *curves.Curve) []*big.Int {
	n := c.N()
	top := new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen()))
	var out []*big.Int
	for _, d := range []int64{0, 1, 2, 3} {
		out = append(out, big.NewInt(d))
	}
	for _, d := range []int64{-6, -5, -4, -3, -2, -1, 0, 1, 2} {
		out = append(out, new(big.Int).Add(n, big.NewInt(d)))
	}
	for _, d := range []int64{-1, -2} {
		out = append(out, new(big.Int).Add(top, big.NewInt(d)))
	}
	return append(out, new(big.Int).Rsh(n, 1), new(big.Int).Add(new(big.Int).Rsh(n, 1), big.NewInt(1)))
}

// bytesCase is one item for the bytes path: its encodings and its big.Int twin.
type bytesCase struct {
	scalar, point []byte
	x, y, k       *big.Int
}

// bytesCases builds random points in both SEC1 forms with random and edge
// scalars, plus the base with x = 0 when the curve has one.
func bytesCases(t *testing.T, c *curves.Curve, rng *rand.Rand, count int) []bytesCase {
	var out []bytesCase
	add := func(x, y, k *big.Int, compressed bool) {
		p := c.EncodeSEC1(&curves.Point{X: x, Y: y}, compressed)
		out = append(out, bytesCase{scalar: k.FillBytes(make([]byte, c.ByteLen())), point: p, x: x, y: y, k: k})
	}
	edges := edgeScalars(c)
	for i := range count {
		m := new(big.Int).Rand(rng, c.N())
		x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), m.Add(m, big.NewInt(1)))
		require.NoError(t, err)
		require.True(t, ok)
		k := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen())))
		if i < len(edges) {
			k = edges[i]
		}
		add(x, y, k, i%2 == 1)
	}
	if y := new(big.Int).ModSqrt(c.B(), c.P()); y != nil {
		for _, k := range edges {
			add(big.NewInt(0), y, k, false)
		}
	}
	return out
}

// TestPrepareBytesMatchesPrepare: on every curve and schedule, the bytes
// path prepares the same ladder scalar, fixed result and kernel input as
// the big.Int path, packs the same words, and finishes to the same points.
func TestPrepareBytesMatchesPrepare(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range Kinds() {
			t.Run(c.Name()+"/"+kind.String(), func(t *testing.T) {
				su := newSetupKindT(t, c, kind)
				rng := rand.New(rand.NewSource(31))
				cases := bytesCases(t, c, rng, count(60, 24))
				n := su.Params.N
				stride := len(cases)
				inA, scA := make([]uint32, ElementRows(n)*stride), make([]uint32, su.ScalarWords()*stride)
				inB, scB := make([]uint32, ElementRows(n)*stride), make([]uint32, su.ScalarWords()*stride)
				out := make([]uint32, su.OutputRows()*stride)
				jobs, items := make([]Job, len(cases)), make([]Item, len(cases))
				o := su.NewOracle()
				for i, bc := range cases {
					j, err := su.Prepare(bc.x, bc.y, bc.k)
					require.NoError(t, err)
					require.NoError(t, su.PrepareBytes(&items[i], bc.scalar, bc.point), "case %d", i)
					it := &items[i]
					require.Equal(t, 0, j.Scalar.Cmp(limbsToBig(it.Scalar[:])), "case %d: k = %v", i, bc.k)
					require.Equal(t, j.Fixed, it.Fixed, "case %d", i)
					require.Equal(t, 0, j.X.Cmp(su.host.f.Big(&it.X)), "case %d", i)
					require.Equal(t, 0, j.Y.Cmp(su.host.f.Big(&it.Y)), "case %d", i)
					jobs[i] = j
					su.PackInput(inA, scA, stride, i, j)
					su.PackItem(inB, scB, stride, i, it)
					putOutputs(t, su, o, rng, out, stride, i, j)
				}
				require.Equal(t, inA, inB, "kernel inputs")
				require.Equal(t, scA, scB, "kernel scalars")

				want, wantErr := su.FinishOutput(jobs, out, stride, nil)
				L := c.ByteLen()
				seen := make([]int, len(cases))
				su.FinishItems(items, out, stride, nil, func(k int, oc Outcome, xy []byte) {
					seen[k]++
					switch {
					case wantErr[k] != nil:
						require.Equal(t, OutFailed, oc, "case %d", k)
					case want[k].Infinity:
						require.Equal(t, OutInfinity, oc, "case %d", k)
					default:
						require.Equal(t, OutPoint, oc, "case %d", k)
						require.Equal(t, want[k].X.FillBytes(make([]byte, L)), xy[:L], "case %d x", k)
						require.Equal(t, want[k].Y.FillBytes(make([]byte, L)), xy[L:], "case %d y", k)
						wx, wy, ok, err := c.ReferenceScalarMult(cases[k].x, cases[k].y, cases[k].k)
						require.NoError(t, err)
						require.True(t, ok)
						require.True(t, bytes.Equal(wx.FillBytes(make([]byte, L)), xy[:L]) && wy.Cmp(new(big.Int).SetBytes(xy[L:])) == 0, "case %d against the reference", k)
					}
				})
				for k, s := range seen {
					require.Equal(t, 1, s, "case %d emitted %d times", k, s)
				}
			})
		}
	}
}

// putOutputs writes the kernel's outputs for job j, as the oracle computes
// them (lifted to random representatives), into column i of out, a batch
// of stride items.
func putOutputs(t *testing.T, su *Setup, o *Oracle, rng *rand.Rand, out []uint32, stride, i int, j Job) {
	n := su.Params.N
	pr := montOutputs(su, o.Run(j.X, j.Scalar, su.Bits, nil))
	ch := channelsOf(t, su, liftAll(rng, su, pr)...)
	for v := range ch {
		for r := range n {
			out[(v*n+r)*stride+i] = ch[v][r]
		}
	}
}

func limbsToBig(l []uint64) *big.Int {
	v := new(big.Int)
	for i := len(l) - 1; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

// TestPrepareBytesRejects: every kind of bad point gets the curves
// sentinel that DecodeSEC1 gives it, a scalar longer than the field an
// ErrScalar, and the item is left as the generator times one.
func TestPrepareBytesRejects(t *testing.T) {
	for _, c := range curves.All() {
		su := newSetupT(t, c)
		L := c.ByteLen()
		g := c.EncodeSEC1(c.Generator(), false)
		gc := c.EncodeSEC1(c.Generator(), true)
		pBytes := c.P().FillBytes(make([]byte, L))
		offCurve := bytes.Clone(g)
		offCurve[len(offCurve)-1] ^= 1
		noY := append([]byte{2}, textbook.NoPointX(c).FillBytes(make([]byte, L))...)
		cases := map[string]struct {
			point    []byte
			sentinel error
		}{
			"empty":          {nil, curves.ErrEncoding},
			"infinity":       {[]byte{0}, curves.ErrInfinity},
			"prefix 05":      {append([]byte{5}, g[1:]...), curves.ErrEncoding},
			"hybrid 06":      {append([]byte{6}, g[1:]...), curves.ErrEncoding},
			"short":          {g[:len(g)-1], curves.ErrEncoding},
			"04 compressed":  {append([]byte{4}, gc[1:]...), curves.ErrEncoding},
			"x = p":          {append(append([]byte{4}, pBytes...), g[1+L:]...), curves.ErrCoordinateRange},
			"y = p":          {append(append([]byte{4}, g[1:1+L]...), pBytes...), curves.ErrCoordinateRange},
			"compressed x=p": {append([]byte{3}, pBytes...), curves.ErrCoordinateRange},
			"(0, 0)":         {append([]byte{4}, make([]byte, 2*L)...), curves.ErrInfinity},
			"off the curve":  {offCurve, curves.ErrNotOnCurve},
		}
		cases["no y"] = struct {
			point    []byte
			sentinel error
		}{noY, curves.ErrNotOnCurve}
		for name, tc := range cases {
			var it Item
			err := su.PrepareBytes(&it, []byte{7}, tc.point)
			require.ErrorIs(t, err, tc.sentinel, "%s %s", c.Name(), name)
			_, refErr := c.DecodeSEC1(tc.point)
			require.ErrorIs(t, refErr, tc.sentinel, "%s %s: DecodeSEC1 agrees", c.Name(), name)
			require.Equal(t, su.bytes.gen, it, "%s %s", c.Name(), name)
		}
		var it Item
		require.ErrorIs(t, su.PrepareBytes(&it, make([]byte, L+1), g), curves.ErrScalar)
		require.NoError(t, su.PrepareBytes(&it, nil, g), "an empty scalar is zero")
		require.Equal(t, FixedInfinity, it.Fixed)

		// PrepareValidBytes leaves out the curve equation, and only it
		for name, tc := range cases {
			var it Item
			err := su.PrepareValidBytes(&it, []byte{7}, tc.point)
			if name == "off the curve" {
				require.NoError(t, err, "%s %s", c.Name(), name)
				continue
			}
			require.ErrorIs(t, err, tc.sentinel, "%s %s", c.Name(), name)
			require.Equal(t, su.bytes.gen, it, "%s %s", c.Name(), name)
		}
	}
}

// TestPrepareValidBytesMatches: on valid points, PrepareValidBytes prepares
// what PrepareBytes does.
func TestPrepareValidBytesMatches(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	for _, c := range curves.All() {
		su := newSetupT(t, c)
		for i, bc := range bytesCases(t, c, rng, 40) {
			var want, got Item
			require.NoError(t, su.PrepareBytes(&want, bc.scalar, bc.point), "case %d", i)
			require.NoError(t, su.PrepareValidBytes(&got, bc.scalar, bc.point), "case %d", i)
			require.Equal(t, want, got, "%s case %d", c.Name(), i)
		}
	}
}

// TestBytesPathAllocations: preparing and packing allocate nothing, the
// finish allocates per call, not per item.
func TestBytesPathAllocations(t *testing.T) {
	c := curves.P256()
	su := newSetupT(t, c)
	g := c.EncodeSEC1(c.Generator(), true)
	k := bytes.Repeat([]byte{0xa5}, c.ByteLen())
	var it Item
	require.Zero(t, testing.AllocsPerRun(50, func() { _ = su.PrepareBytes(&it, k, g) }))
	n := su.Params.N
	in, sc := make([]uint32, ElementRows(n)*4), make([]uint32, su.ScalarWords()*4)
	require.Zero(t, testing.AllocsPerRun(50, func() { su.PackItem(in, sc, 4, 1, &it) }))
	if race.Enabled {
		t.Skip("the finish's scratch is pooled, and sync.Pool drops items under the race detector")
	}
	allocs := func(count int) float64 {
		items := make([]Item, count)
		for i := range items {
			items[i] = it
		}
		out := make([]uint32, su.OutputRows()*count)
		emit := func(int, Outcome, []byte) {}
		return testing.AllocsPerRun(5, func() { su.FinishItems(items, out, count, nil, emit) })
	}
	require.Equal(t, allocs(64), allocs(512), "allocations per call, not per item")
}

// TestScalarLimbs checks the constant-time limb helpers against math/big.
func TestScalarLimbs(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	top := new(big.Int).Lsh(big.NewInt(1), 320)
	for range 2000 {
		a, b := new(big.Int).Rand(rng, top), new(big.Int).Rand(rng, top)
		if rng.Intn(4) == 0 {
			b.Set(a)
		}
		la, lb := toScalarLimbs(a), toScalarLimbs(b)
		sum := new(big.Int).Add(a, b)
		sum.Mod(sum, top)
		require.Equal(t, 0, sum.Cmp(limbsToBig(ptr(addLimbs(la, lb))[:])))
		d, borrow := subLimbs(la, lb)
		diff := new(big.Int).Sub(a, b)
		require.Equal(t, a.Cmp(b) < 0, borrow == 1)
		require.Equal(t, 0, diff.Mod(diff, top).Cmp(limbsToBig(d[:])))
		require.Equal(t, a.Cmp(b) == 0, equalMask(la, lb) == ^uint64(0))
		require.Equal(t, la, selectLimbs(^uint64(0), la, lb))
		require.Equal(t, lb, selectLimbs(0, la, lb))
	}
}

func toScalarLimbs(v *big.Int) ScalarLimbs {
	var l ScalarLimbs
	for i := range l {
		l[i] = new(big.Int).Rsh(v, uint(64*i)).Uint64()
	}
	return l
}
