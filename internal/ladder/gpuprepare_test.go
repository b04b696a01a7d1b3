package ladder

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestPrepareRowsOnHost: the host's raw preparation (PrepareRaw, PackRaw)
// followed by the CPU twin of the prepare kernel gives, word for word, the
// input and scalar rows that PrepareBytes, PackItem and PackFinish give, on
// random points in both SEC1 forms, the bases with x = 0 and the edge
// scalars, for the co-Z ladder and the comb; a point off the curve gets
// FixedOffCurve, its other rows those of its words; every bad encoding gets
// PrepareBytes's error, and the columns past count keep their words.
func TestPrepareRowsOnHost(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range []Kind{CoZ, Comb} {
			t.Run(c.Name()+"/"+kind.String(), func(t *testing.T) {
				su := newSetupKindT(t, c, kind)
				rng := rand.New(rand.NewSource(47))
				cases := bytesCases(t, c, rng, count(30, 20))
				off := offCurvePoint(c)
				cases = append(cases, bytesCase{scalar: []byte{5}, point: off})
				items, stride := len(cases), len(cases)+2
				rows, sw := su.GPUInputRows(), su.ScalarWords()
				want, got := make([]uint32, rows*stride), make([]uint32, rows*stride)
				wantSc, gotSc := make([]uint32, sw*stride), make([]uint32, sw*stride)
				for i := range got {
					got[i], want[i] = 0xdeadbeef, 0xdeadbeef
				}
				for i, bc := range cases {
					var it Item
					var raw RawItem
					var errItem, errRaw error
					if kind.IsComb() {
						errItem, errRaw = su.PrepareBaseBytes(&it, bc.scalar), su.PrepareRawBase(&raw, bc.scalar)
					} else {
						errItem, errRaw = su.PrepareBytes(&it, bc.scalar, bc.point), su.PrepareRaw(&raw, bc.scalar, bc.point)
					}
					if i == len(cases)-1 && kind == CoZ {
						require.ErrorIs(t, errItem, curves.ErrNotOnCurve)
						require.NoError(t, errRaw, "the curve's equation is the kernel's to check")
						// the rows the kernel writes for its words, flagged
						f := su.host.f
						f.SetLimbs(&it.X, raw.X)
						f.SetLimbs(&it.Y, raw.Y)
						f.Mul(&it.In, &it.X, &su.host.montM)
						it.Scalar, it.Fixed = raw.Scalar, raw.Fixed|FixedOffCurve
					} else {
						require.Equal(t, errItem, errRaw, "item %d", i)
					}
					su.PackItem(want, wantSc, stride, i, &it)
					su.PackFinish(want, stride, i, &it)
					su.PackRaw(got, gotSc, stride, i, &raw)
				}
				su.PrepareRowsOnHost(got, stride, items)
				require.Equal(t, wantSc, gotSc, "scalar rows")
				for r := range rows {
					require.Equal(t, want[r*stride:(r+1)*stride], got[r*stride:(r+1)*stride], "row %d", r)
				}
			})
		}
	}
}

// offCurvePoint returns an uncompressed point with coordinates below p
// that is not on c, and not (0, 0).
func offCurvePoint(c *curves.Curve) []byte {
	x, y := new(big.Int).Set(c.Gx()), new(big.Int).Add(c.Gy(), big.NewInt(1))
	return c.EncodeSEC1(&curves.Point{X: x, Y: y}, false)
}

// TestPrepareRawRejects: every bad encoding PrepareBytes rejects,
// PrepareRaw rejects with the same error, and leaves the generator.
func TestPrepareRawRejects(t *testing.T) {
	for _, c := range curves.All() {
		su := newSetupT(t, c)
		L := c.ByteLen()
		pMinus := new(big.Int).Sub(c.P(), big.NewInt(1)).FillBytes(make([]byte, L))
		bad := [][]byte{
			nil, {0}, {4}, {5}, append([]byte{4}, make([]byte, 2*L)...),
			append(append([]byte{4}, c.P().FillBytes(make([]byte, L))...), make([]byte, L)...),
			append(append([]byte{4}, pMinus...), c.P().FillBytes(make([]byte, L))...),
			append([]byte{2}, c.P().FillBytes(make([]byte, L))...),
		}
		gen := su.bytes.gen
		for _, p := range bad {
			var it Item
			var raw RawItem
			errItem, errRaw := su.PrepareBytes(&it, []byte{7}, p), su.PrepareRaw(&raw, []byte{7}, p)
			require.Error(t, errRaw, "%x", p)
			require.Equal(t, errItem, errRaw, "%x", p)
			require.Equal(t, su.host.f.Canonical(&gen.X), raw.X)
			require.Equal(t, su.host.f.Canonical(&gen.Y), raw.Y)
		}
	}
}
