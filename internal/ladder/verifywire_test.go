package ladder

import (
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

// TestUnpackVerifyOnHost: the verify unpack kernel's twin, on a wire input
// that VerifyWire wrote, leaves the rows that UnpackOnHost and PackVerify
// write from the same values, with r + n and its flag where r + n is below
// p (r near n and near p − n), u1·G at infinity flagged with no
// coordinates, and the columns past count as they were; the verify pack
// kernel's twin gives each outcome as one byte.
func TestUnpackVerifyOnHost(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			su := newSetupKindT(t, c, CoZ)
			L, n, p := c.ByteLen(), c.N(), c.P()
			rng := rand.New(rand.NewSource(59))
			var scalars, points [][]byte
			for _, bc := range bytesCases(t, c, rng, count(30, 20)) {
				if len(bc.point) == 1+2*L && bc.x.Sign() != 0 { // the wire's keys
					scalars, points = append(scalars, bc.scalar), append(points, bc.point)
				}
			}
			count, stride := len(scalars), len(scalars)+3
			gap := new(big.Int).Sub(p, n) // r below it has r + n below p
			rs := make([]*big.Int, count)
			for i := range rs {
				switch i % 4 {
				case 0:
					rs[i] = new(big.Int).Rand(rng, n)
				case 1:
					rs[i] = new(big.Int).Sub(n, big.NewInt(int64(1+i))) // r + n above p, where p − n is small
				case 2:
					rs[i] = new(big.Int).Sub(gap, big.NewInt(1)) // r + n = p − 1, where gap > 0
				default:
					rs[i] = new(big.Int).Mod(gap, n) // r + n = p, not below it
				}
				rs[i].Mod(rs[i], n)
			}
			wire := make([]byte, count*su.VerifyWireInBytes())
			copy(wire, slices.Concat(scalars...))
			copy(wire[count*L:], slices.Concat(points...))
			w := su.VerifyWire()
			want, got := make([]uint32, su.VerifyInputRows()*stride), make([]uint32, su.VerifyInputRows()*stride)
			wantSc, gotSc := make([]uint32, su.ScalarWords()*stride), make([]uint32, su.ScalarWords()*stride)
			for _, s := range [][]uint32{want, got, wantSc, gotSc} {
				for i := range s {
					s[i] = 0xdeadbeef
				}
			}
			su.UnpackOnHost(wire, want, wantSc, count, stride)
			for i := range count {
				u1G := c.EncodeSEC1(c.Generator(), false)[1:]
				infinity := i%3 == 2
				w.Put(wire, count, i, u1G, infinity, rs[i].FillBytes(make([]byte, L)))
				var x1, y1, rn [fp.Limbs]uint64
				flags := VerifyFlags(0)
				if infinity {
					flags |= VerifyU1Infinity
				} else {
					x1, y1 = limbsOf(c.Gx()), limbsOf(c.Gy())
				}
				if sum := new(big.Int).Add(rs[i], n); sum.Cmp(p) < 0 {
					rn, flags = limbsOf(sum), flags|VerifyRN
				}
				su.PackVerify(want, stride, i, x1, y1, limbsOf(rs[i]), rn, flags)
			}
			su.UnpackVerifyOnHost(wire, got, gotSc, count, stride)
			require.Equal(t, wantSc, gotSc, "scalar rows")
			for r := range su.VerifyInputRows() {
				require.Equal(t, want[r*stride:(r+1)*stride], got[r*stride:(r+1)*stride], "row %d", r)
			}
			flagged := 0
			for i := range count {
				if got[(su.VerifyRowAt()+VerifyRowFlags)*stride+i]&uint32(VerifyRN) != 0 {
					flagged++
				}
			}
			require.Positive(t, flagged, "some r + n below p")

			out := make([]uint32, stride)
			for i := range out {
				out[i] = uint32(OutValid) + uint32(i%3)
			}
			bytes := make([]byte, count+1)
			su.PackVerifyOnHost(out, count, bytes)
			for i := range count {
				require.Equal(t, byte(out[i]), bytes[i], "item %d", i)
			}
			require.Zero(t, bytes[count], "past count")
		})
	}
}

// TestAddN: r + n and whether it is below p, against math/big, on every
// curve, for r around p − n, around the smallest r that the leading bytes
// (VerifyWire.high) refuse at once, near n and at random.
func TestAddN(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, c := range curves.All() {
		su, err := NewSetup(c)
		require.NoError(t, err)
		w, L := su.VerifyWire(), c.ByteLen()
		pn := new(big.Int).Sub(c.P(), c.N())
		require.Less(t, w.high, L, "%s: p − n is above zero", c.Name())
		edge := new(big.Int).Lsh(big.NewInt(1), uint(8*(L-w.high))) // the smallest r with a leading byte
		var rs []*big.Int
		for _, base := range []*big.Int{pn, edge, c.N(), big.NewInt(0)} {
			for d := int64(-2); d <= 2; d++ {
				if r := new(big.Int).Add(base, big.NewInt(d)); r.Sign() >= 0 && r.Cmp(c.N()) < 0 {
					rs = append(rs, r)
				}
			}
		}
		for range 200 {
			rs = append(rs, new(big.Int).Rand(rng, c.N()), new(big.Int).Rand(rng, new(big.Int).Mul(pn, big.NewInt(2))))
		}
		for _, r := range rs {
			sum := new(big.Int).Add(r, c.N())
			below := sum.Cmp(c.P()) < 0
			want := make([]byte, L)
			if below {
				sum.FillBytes(want)
			}
			rn := slices.Repeat([]byte{0xa5}, L)
			require.Equal(t, below, w.AddN(rn, r.FillBytes(make([]byte, L))), "%s: r = %x", c.Name(), r)
			require.Equal(t, want, rn, "%s: r = %x", c.Name(), r)
		}
	}
}
