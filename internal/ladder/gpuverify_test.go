package ladder

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/textbook"
)

// verifyCase is one item of TestVerifyRowsOnHost: u2·Q through the
// ladder's outputs, u1·G and r given, and the verdict the textbook's sum
// gives.
type verifyCase struct {
	bc    bytesCase
	u1G   *curves.Point // nil: the point at infinity
	r     *big.Int
	valid bool
}

// verifyCases makes, for every item of bytesCases, cases whose sum R =
// u1·G + u2·Q is a random point (r its x mod n: valid, and r + 1:
// invalid), the point at infinity (u1·G = −u2·Q: invalid), 2·u2·Q (u1·G =
// u2·Q: the formulas' doubling), and u2·Q itself (u1·G at infinity).
func verifyCases(t *testing.T, c *curves.Curve, rng *rand.Rand, cases []bytesCase) []verifyCase {
	var out []verifyCase
	n := c.N()
	rOf := func(p *curves.Point) *big.Int {
		if p == nil {
			return big.NewInt(1)
		}
		return new(big.Int).Mod(p.X, n)
	}
	for i, bc := range cases {
		q := textbook.Mul(c, &curves.Point{X: bc.x, Y: bc.y}, bc.k)
		var u1G *curves.Point
		switch i % 4 {
		case 0:
			u1G = textbook.Mul(c, &curves.Point{X: c.Gx(), Y: c.Gy()}, new(big.Int).Rand(rng, n))
		case 1:
			if q != nil {
				u1G = &curves.Point{X: q.X, Y: new(big.Int).Sub(c.P(), q.Y)}
			}
		case 2:
			u1G = q
		}
		sum := textbook.Add(c, u1G, q)
		r := rOf(sum)
		out = append(out, verifyCase{bc, u1G, r, sum != nil})
		if sum != nil {
			out = append(out, verifyCase{bc, u1G, new(big.Int).Add(r, big.NewInt(1)), false})
		}
	}
	return out
}

// TestVerifyRowsOnHost: the CPU twin of the verify kernel, on the ladder's
// outputs of random points and edge scalars packed as the kernel takes
// them, judges each signature as the textbook's u1·G + u2·Q does, fails
// an item with a zero denominator or spoiled outputs, reports a key the
// prepare kernel found off the curve, and leaves the columns past count as
// they were.
func TestVerifyRowsOnHost(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			su := newSetupKindT(t, c, CoZ)
			rng := rand.New(rand.NewSource(47))
			cases := verifyCases(t, c, rng, bytesCases(t, c, rng, count(24, 12)))
			items, stride := len(cases), len(cases)+3
			in := make([]uint32, su.VerifyInputRows()*stride)
			out := make([]uint32, su.OutputRows()*stride)
			for i := range out {
				out[i] = 0xdeadbeef
			}
			o := su.NewOracle()
			n := c.N()
			var computed []int // the items whose u2·Q the ladder computes (no fixed result)
			for i, vc := range cases {
				var it Item
				require.NoError(t, su.PrepareBytes(&it, vc.bc.scalar, vc.bc.point))
				su.PackFinish(in, stride, i, &it)
				if it.Fixed == FixedNone {
					computed = append(computed, i)
				}
				j, err := su.Prepare(vc.bc.x, vc.bc.y, vc.bc.k)
				require.NoError(t, err)
				putOutputs(t, su, o, rng, out, stride, i, j)
				var x1, y1 [fp.Limbs]uint64
				flags := VerifyFlags(0)
				if vc.u1G == nil {
					flags |= VerifyU1Infinity
				} else {
					x1, y1 = limbsOf(vc.u1G.X), limbsOf(vc.u1G.Y)
				}
				rn := new(big.Int).Add(vc.r, n)
				if rn.Cmp(c.P()) < 0 {
					flags |= VerifyRN
				}
				su.PackVerify(in, stride, i, x1, y1, limbsOf(vc.r), limbsOf(new(big.Int).Mod(rn, new(big.Int).Lsh(big.NewInt(1), 256))), flags)
			}
			nch := su.Params.N
			require.Greater(t, len(computed), 3)
			zeroDen, spoiled, offCurve := computed[0], computed[1], computed[2]
			for r := range nch {
				out[(coZDen*nch+r)*stride+zeroDen] = 0
			}
			for r := range su.OutputRows() {
				out[r*stride+spoiled] = rng.Uint32() % uint32(su.Params.B.Moduli[r%nch].M)
			}
			fixedRow := (su.FinishRowAt() + 2*finishElementWords) * stride
			in[fixedRow+offCurve] |= uint32(FixedOffCurve)
			su.VerifyRowsOnHost(in, out, stride, items)
			for i, vc := range cases {
				got := Outcome(out[i])
				switch {
				case i == offCurve:
					require.Equal(t, OutOffCurve, got, "item %d", i)
				case i == zeroDen || i == spoiled:
					require.Equal(t, OutFailed, got, "item %d", i)
				case vc.valid:
					require.Equal(t, OutValid, got, "item %d", i)
				default:
					require.Equal(t, OutInvalid, got, "item %d", i)
				}
			}
			for i := items; i < stride; i++ {
				require.Equal(t, uint32(0xdeadbeef), out[i], "padding column %d", i)
			}
		})
	}
}
