package ladder

import (
	"bytes"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestUnpackOnHost: the unpack kernel's twin, on a chunk of wire bytes,
// writes for every uncompressed point with x ≠ 0 the rows PrepareRaw and
// PackRaw write (random points, the edge scalars, a point off the curve,
// which the prepare kernel flags), and for every point it rejects (a
// prefix other than 0x04, a coordinate not below p, (0, 0)) the
// generator times one with that Outcome in FixedRejected; on the comb the
// generator with each scalar. It leaves the ladder's own input rows and
// the columns past count as they were.
func TestUnpackOnHost(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range []Kind{CoZ, Comb} {
			t.Run(c.Name()+"/"+kind.String(), func(t *testing.T) {
				su := newSetupKindT(t, c, kind)
				L := c.ByteLen()
				rng := rand.New(rand.NewSource(53))
				var scalars, points [][]byte
				var rejected []Outcome
				for _, bc := range bytesCases(t, c, rng, count(30, 20)) {
					if len(bc.point) != 1+2*L || bc.x.Sign() == 0 {
						continue // compressed: the host's; x = 0: rewritten on the host
					}
					scalars, points, rejected = append(scalars, bc.scalar), append(points, bc.point), append(rejected, OutPoint)
				}
				g := c.EncodeSEC1(c.Generator(), false)
				p := c.P().FillBytes(make([]byte, L))
				for _, bad := range []struct {
					point []byte
					o     Outcome
				}{
					{offCurvePoint(c), OutPoint},
					{slices.Concat([]byte{0}, g[1:]), OutBadEncoding}, {slices.Concat([]byte{3}, g[1:]), OutBadEncoding},
					{slices.Concat([]byte{4}, p, g[1+L:]), OutBadCoordinate}, {slices.Concat([]byte{4}, g[1:1+L], p), OutBadCoordinate},
					{slices.Concat([]byte{5}, p, p), OutBadEncoding}, {make([]byte, 1+2*L), OutBadEncoding},
					{slices.Concat([]byte{4}, make([]byte, 2*L)), OutInfinityInput},
				} {
					scalars, points, rejected = append(scalars, bytes.Repeat([]byte{0xa5}, L)), append(points, bad.point), append(rejected, bad.o)
				}
				count, stride := len(scalars), len(scalars)+3
				wire := slices.Concat(scalars...)
				if kind == CoZ {
					wire = append(wire, slices.Concat(points...)...)
				}
				require.Len(t, wire, count*su.WireInBytes())
				rows, sw := su.GPUInputRows(), su.ScalarWords()
				want, got := make([]uint32, rows*stride), make([]uint32, rows*stride)
				wantSc, gotSc := make([]uint32, sw*stride), make([]uint32, sw*stride)
				for _, w := range [][]uint32{want, got, wantSc, gotSc} {
					for i := range w {
						w[i] = 0xdeadbeef
					}
				}
				for i := range count {
					var raw RawItem
					if kind.IsComb() {
						require.NoError(t, su.PrepareRawBase(&raw, scalars[i]))
					} else if err := su.PrepareRaw(&raw, scalars[i], points[i]); err != nil {
						require.NotEqual(t, OutPoint, rejected[i], "item %d: %v", i, err)
						raw.Fixed |= Fixed(rejected[i]) << FixedRejectedShift
					} else {
						require.Equal(t, OutPoint, rejected[i], "item %d", i)
					}
					su.PackRaw(want, wantSc, stride, i, &raw)
				}
				su.UnpackOnHost(wire, got, gotSc, count, stride)
				require.Equal(t, wantSc, gotSc, "scalar rows")
				for r := range rows {
					require.Equal(t, want[r*stride:(r+1)*stride], got[r*stride:(r+1)*stride], "row %d", r)
				}
				if kind == CoZ {
					fixed := (su.FinishRowAt() + su.FinishRows() - 1) * stride
					for i, o := range rejected {
						require.Equal(t, o, Fixed(got[fixed+i]).rejected(), "item %d", i)
					}
				}
			})
		}
	}
}

// TestPackOnHost: the pack kernel's twin writes each result as 0x04‖x‖y
// where its outcome is OutPoint and zero bytes otherwise, whatever words
// the result rows hold, then the outcomes, one byte each.
func TestPackOnHost(t *testing.T) {
	for _, c := range curves.All() {
		su := newSetupT(t, c)
		L, rr := c.ByteLen(), su.ResultRows()
		rng := rand.New(rand.NewSource(59))
		outcomes := []Outcome{OutPoint, OutInfinity, OutFailed, OutOffCurve, OutBadEncoding, OutBadCoordinate, OutInfinityInput, OutPoint}
		count, stride := len(outcomes), len(outcomes)+1
		out := make([]uint32, rr*stride)
		for i := range out {
			out[i] = rng.Uint32()
		}
		for i, o := range outcomes {
			out[(rr-1)*stride+i] = uint32(o)
		}
		wire := bytes.Repeat([]byte{0xee}, count*su.WireOutBytes()+5)
		su.PackOnHost(out, count, stride, wire)
		var xy [64]byte
		for i, o := range outcomes {
			require.Equal(t, o, su.ReadResult(out, stride, i, xy[:2*L]))
			want := make([]byte, 1+2*L)
			if o == OutPoint {
				want = slices.Concat([]byte{4}, xy[:2*L])
			}
			require.Equal(t, want, wire[i*(1+2*L):(i+1)*(1+2*L)], "%s item %d", c.Name(), i)
			require.Equal(t, byte(o), wire[count*(1+2*L)+i])
		}
		require.Equal(t, bytes.Repeat([]byte{0xee}, 5), wire[count*su.WireOutBytes():], "past the chunk")
	}
}

// TestFinishRowsRejected: the finish's twin reports a rejected point's
// Outcome and zero bytes, whatever the ladder left in its columns.
func TestFinishRowsRejected(t *testing.T) {
	c := curves.P256()
	su := newSetupT(t, c)
	rng := rand.New(rand.NewSource(67))
	cases := []Outcome{OutPoint, OutBadEncoding, OutBadCoordinate, OutInfinityInput}
	stride := len(cases)
	in, out := make([]uint32, su.GPUInputRows()*stride), make([]uint32, su.OutputRows()*stride)
	o := su.NewOracle()
	for i, rej := range cases {
		var it Item
		require.NoError(t, su.PrepareBaseBytes(&it, []byte{2}))
		it.Fixed |= Fixed(rej) << FixedRejectedShift
		su.PackFinish(in, stride, i, &it)
		j, err := su.Prepare(c.Gx(), c.Gy(), big.NewInt(2))
		require.NoError(t, err)
		putOutputs(t, su, o, rng, out, stride, i, j)
	}
	su.FinishRowsOnHost(in, out, stride, stride)
	L := c.ByteLen()
	xy := make([]byte, 2*L)
	for i, rej := range cases {
		got := su.ReadResult(out, stride, i, xy)
		if rej == OutPoint {
			require.Equal(t, OutPoint, got, "2G")
			require.NotEqual(t, make([]byte, 2*L), xy)
			continue
		}
		require.Equal(t, rej, got)
		require.Equal(t, make([]byte, 2*L), xy, "a rejected point's bytes are zero")
	}
}

// TestRewriteZeroX: the host's rewrite of a point with x = 0 gives 2P and
// k/2 mod n, whose product is k·P (math/big reference), for edge and random
// scalars; it leaves every other point, and a point with x = 0 off the
// curve, as they were.
func TestRewriteZeroX(t *testing.T) {
	c := curves.P256()
	su := newSetupT(t, c)
	L := c.ByteLen()
	y := new(big.Int).ModSqrt(c.B(), c.P())
	require.NotNil(t, y, "P-256 has a point with x = 0")
	rng := rand.New(rand.NewSource(61))
	for _, k := range append(edgeScalars(c), new(big.Int).Rand(rng, c.N())) {
		scalar := k.FillBytes(make([]byte, L))
		point := c.EncodeSEC1(&curves.Point{X: big.NewInt(0), Y: y}, false)
		require.True(t, su.RewriteZeroX(scalar, point))
		p2, err := c.DecodeSEC1(point)
		require.NoError(t, err)
		require.NotZero(t, p2.X.Sign())
		wx, wy, wok, err := c.ReferenceScalarMult(big.NewInt(0), y, k)
		require.NoError(t, err)
		gx, gy, gok, err := c.ReferenceScalarMult(p2.X, p2.Y, new(big.Int).SetBytes(scalar))
		require.NoError(t, err)
		require.Equal(t, wok, gok, "k = %v", k)
		if wok {
			require.Zero(t, wx.Cmp(gx), "k = %v", k)
			require.Zero(t, wy.Cmp(gy), "k = %v", k)
		}
	}
	for _, point := range [][]byte{
		c.EncodeSEC1(c.Generator(), false),
		slices.Concat([]byte{4}, make([]byte, L), new(big.Int).Add(y, big.NewInt(1)).FillBytes(make([]byte, L))),
		slices.Concat([]byte{4}, make([]byte, 2*L)),
	} {
		scalar, before := bytes.Repeat([]byte{7}, L), slices.Clone(point)
		require.False(t, su.RewriteZeroX(scalar, point))
		require.Equal(t, before, point)
		require.Equal(t, bytes.Repeat([]byte{7}, L), scalar)
	}
}
