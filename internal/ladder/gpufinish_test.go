package ladder

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestFinishConstants: every word of the finish kernel's table, on every
// curve, channel width and schedule with a GPU finish, is what math/big
// says it must be.
func TestFinishConstants(t *testing.T) {
	for _, c := range curves.All() {
		for _, bits := range []int{16, 30} {
			for _, kind := range []Kind{CoZ, Comb} {
				su, err := NewSetupBits(c, kind, bits)
				require.NoError(t, err)
				require.True(t, su.FinishOnGPU())
				w := su.FinishConstants()
				l := FinishLayoutFor(su.Params.N)
				require.Len(t, w, l.Size)
				p := c.P()
				R := new(big.Int).Lsh(big.NewInt(1), 256)
				mont := func(v *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Mul(v, R), p) }
				elem := func(at int) *big.Int {
					v := new(big.Int)
					for k := finishElementWords - 1; k >= 0; k-- {
						v.Lsh(v, 32).Or(v, big.NewInt(int64(w[at+k])))
					}
					return v
				}
				require.Equal(t, uint32(su.Params.N), w[l.N])
				require.Equal(t, uint32(su.InputRows()), w[l.RowAt])
				require.Equal(t, uint32(c.ByteLen()), w[l.ByteLen])
				require.Equal(t, kind.IsComb(), w[l.UnitY] == 1)
				require.Equal(t, uint32(1<<32-1), w[l.PInv]*uint32(p.Uint64()), "p·p' ≡ −1 mod 2^32")
				require.Zero(t, elem(l.P).Cmp(p))
				require.Zero(t, elem(l.One).Cmp(mont(big.NewInt(1))))
				require.Zero(t, elem(l.A).Cmp(mont(new(big.Int).Mod(big.NewInt(c.A()), p))))
				require.Zero(t, elem(l.B).Cmp(mont(c.B())))
				require.Zero(t, elem(l.Exp).Cmp(new(big.Int).Sub(p, big.NewInt(2))))
				require.Zero(t, elem(l.NegM).Cmp(new(big.Int).Mod(new(big.Int).Neg(new(big.Int).Mul(R, R)), p)))
				mInv := new(big.Int).ModInverse(su.Params.B.M, p)
				for j := range su.Params.N {
					at := l.CRT + j*l.CRTTerm
					require.Equal(t, su.Params.CRTFraction(j), math.Float64frombits(uint64(w[at])|uint64(w[at+1])<<32))
					want := new(big.Int).Mul(su.Params.CRTLift(j), mInv)
					want.Mul(want, R).Mul(want, R).Mod(want, p)
					require.Zero(t, elem(at+2).Cmp(want), "channel %d", j)
				}
			}
		}
		su, err := NewSetupBits(c, Paper, 30)
		require.NoError(t, err)
		require.False(t, su.FinishOnGPU(), "the paper's ladder finishes on the host")
	}
}

// TestFinishRowsOnHost: the CPU twin of the finish kernel, on the ladder's
// outputs of random points and edge scalars packed as the kernel takes
// them, gives the reference's k·P, the point at infinity for k ≡ 0, a
// failure with zero bytes for a zero denominator and for spoiled outputs,
// and leaves the columns past count as they were.
func TestFinishRowsOnHost(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			su := newSetupKindT(t, c, CoZ)
			rng := rand.New(rand.NewSource(43))
			cases := bytesCases(t, c, rng, count(40, 30))
			items, stride := len(cases), len(cases)+3
			in := make([]uint32, su.GPUInputRows()*stride)
			out := make([]uint32, su.OutputRows()*stride)
			for i := range out {
				out[i] = 0xdeadbeef
			}
			o := su.NewOracle()
			for i, bc := range cases {
				var it Item
				require.NoError(t, su.PrepareBytes(&it, bc.scalar, bc.point))
				su.PackFinish(in, stride, i, &it)
				j, err := su.Prepare(bc.x, bc.y, bc.k)
				require.NoError(t, err)
				putOutputs(t, su, o, rng, out, stride, i, j)
			}
			n := su.Params.N
			zeroDen, spoiled := len(edgeScalars(c))+2, len(edgeScalars(c))+5 // items of random scalars
			for r := range n {
				out[(coZDen*n+r)*stride+zeroDen] = 0
			}
			for r := range su.OutputRows() {
				out[r*stride+spoiled] = rng.Uint32() % uint32(su.Params.B.Moduli[r%n].M)
			}
			su.FinishRowsOnHost(in, out, stride, items)
			L := c.ByteLen()
			xy := make([]byte, 2*L)
			for i, bc := range cases {
				o := su.ReadResult(out, stride, i, xy)
				if i == zeroDen || i == spoiled {
					require.Equal(t, OutFailed, o, "item %d", i)
					require.Equal(t, make([]byte, 2*L), xy, "item %d: a failure's bytes are zero", i)
					continue
				}
				x, y, ok, err := c.ReferenceScalarMult(bc.x, bc.y, bc.k)
				require.NoError(t, err)
				if !ok {
					require.Equal(t, OutInfinity, o, "item %d", i)
					continue
				}
				require.Equal(t, OutPoint, o, "item %d", i)
				require.Equal(t, x.FillBytes(make([]byte, L)), xy[:L], "item %d: x", i)
				require.Equal(t, y.FillBytes(make([]byte, L)), xy[L:], "item %d: y", i)
			}
			for r := range su.OutputRows() {
				for i := items; i < stride; i++ {
					require.Equal(t, uint32(0xdeadbeef), out[r*stride+i], "padding row %d column %d", r, i)
				}
			}
		})
	}
}
