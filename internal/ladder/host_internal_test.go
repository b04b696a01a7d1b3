package ladder

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/rns"
)

func count(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

func newSetupT(t testing.TB, c *curves.Curve) *Setup {
	return newSetupKindT(t, c, DefaultKind)
}

func newSetupKindT(t testing.TB, c *curves.Curve, kind Kind) *Setup {
	return newSetupBitsT(t, c, kind, rns.ChannelBits)
}

func newSetupBitsT(t testing.TB, c *curves.Curve, kind Kind, channelBits int) *Setup {
	su, err := NewSetupBits(c, kind, channelBits)
	require.NoError(t, err)
	require.NotNil(t, su.host, "%s: the field fast path is available", c.Name())
	return su
}

// referenceSetup returns a copy of su that takes the math/big paths.
// packReference writes item col of a batch of stride items as the kernel
// reads it: the element's rows, then the ladder scalar's words.
func packReference(su *Setup, in, scalars []uint32, stride, col int, el rns.Element, k *big.Int) {
	n := su.Params.N
	for r := range n {
		in[r*stride+col] = el.B[r]
		in[(n+r)*stride+col] = el.BT[r]
	}
	in[2*n*stride+col] = el.E
	for w := range su.ScalarWords() {
		scalars[w*stride+col] = scalarWord(k.Bits(), w)
	}
}

// residuesOf returns the B residues of 0 <= x < M.
func residuesOf(t testing.TB, par *rns.Params, x *big.Int) []uint32 {
	el := par.NewElement()
	require.NoError(t, par.ToRNS(&el, x))
	return el.B
}

func TestCRTToFieldMatchesFromRNS(t *testing.T) {
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			t.Run(fmt.Sprintf("%s/%d", c.Name(), bits), func(t *testing.T) {
				su := newSetupBitsT(t, c, DefaultKind, bits)
				par, h, p := su.Params, su.host, c.P()
				rng := rand.New(rand.NewSource(21))
				check := func(r []uint32) {
					t.Helper()
					want := par.FromMont(par.FromRNS(r))
					var el fp.Element
					h.crtToField(&el, r)
					require.Equal(t, 0, limbsBig(h.f.FromMont(&el)).Cmp(want), "residues %v", r)
				}
				one := big.NewInt(1)
				quarter := new(big.Int).Rsh(par.B.M, 2)
				top := new(big.Int).Sub(par.B.M, one) // the largest value ToRNS takes
				if par.BT.M.Cmp(par.B.M) < 0 {
					top.Sub(par.BT.M, one)
				}
				for _, x := range []*big.Int{
					big.NewInt(0), one, new(big.Int).Sub(p, one), p, new(big.Int).Add(p, one),
					new(big.Int).Lsh(p, 1), par.U, new(big.Int).Sub(par.AddBound, one),
					new(big.Int).Sub(quarter, one), top,
				} {
					check(residuesOf(t, par, x))
				}
				for range count(20000, 2000) {
					check(residuesOf(t, par, new(big.Int).Rand(rng, par.AddBound)))
				}
				// residue vectors of any value below M, and words that are not
				// even residues: the same α, so the same result mod p
				r := make([]uint32, par.N)
				for i := range count(20000, 2000) {
					for j, mod := range par.B.Moduli {
						switch {
						case i%3 == 0:
							r[j] = rng.Uint32()
						case i%3 == 1:
							r[j] = mod.M - 1 - uint32(rng.Intn(2))
						default:
							r[j] = uint32(rng.Intn(int(mod.M)))
						}
					}
					check(r)
				}
			})
		}
	}
}

func TestInputMatchesReference(t *testing.T) {
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			t.Run(fmt.Sprintf("%s/%d", c.Name(), bits), func(t *testing.T) {
				su := newSetupBitsT(t, c, DefaultKind, bits)
				par, p := su.Params, c.P()
				rng := rand.New(rand.NewSource(22))
				one := big.NewInt(1)
				two256 := new(big.Int).Lsh(one, 256)
				xs := []*big.Int{
					big.NewInt(0), one, big.NewInt(2), new(big.Int).Sub(p, one), p, new(big.Int).Add(p, one),
					new(big.Int).Sub(two256, one), two256, new(big.Int).Neg(one), new(big.Int).Neg(p),
					new(big.Int).Lsh(p, 300), par.B.M,
				}
				for range count(20000, 2000) {
					xs = append(xs, new(big.Int).Rand(rng, p))
				}
				const stride = 3
				n := par.N
				rows := ElementRows(n)
				got, want := make([]uint32, rows*stride), make([]uint32, rows*stride)
				sGot, sWant := make([]uint32, su.ScalarWords()*stride), make([]uint32, su.ScalarWords()*stride)
				for i, x := range xs {
					j := Job{X: x, Y: one, Scalar: su.LadderScalar(big.NewInt(int64(i)))}
					el := par.NewElement()
					require.NoError(t, par.ToRNS(&el, par.ToMont(x)))
					require.True(t, el.Equal(ptr(su.InputElement(j))), "x = %x", x)
					col := i % stride
					su.PackInput(got, sGot, stride, col, j)
					packReference(su, want, sWant, stride, col, el, j.Scalar)
					require.Equal(t, want, got, "x = %x", x)
					require.Equal(t, sWant, sGot)
				}
			})
		}
	}
}

func limbsBig(l [fp.Limbs]uint64) *big.Int {
	v := new(big.Int)
	for i := fp.Limbs - 1; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// finishCase is a batch with the channels the kernel would return for it.
type finishCase struct {
	jobs []Job
	outs []Channels
}

// lift returns v + k·p for a random k with the result below 9u, as the
// kernel's unreduced outputs are.
func lift(rng *rand.Rand, su *Setup, v *big.Int) *big.Int {
	room := new(big.Int).Sub(su.Params.AddBound, v)
	k := new(big.Int).Rand(rng, room.Quo(room, su.Curve.P()))
	return k.Mul(k, su.Curve.P()).Add(k, v)
}

func channelsOf(t testing.TB, su *Setup, vs ...*big.Int) Channels {
	ch := make(Channels, len(vs))
	for i, v := range vs {
		ch[i] = residuesOf(t, su.Params, v)
	}
	return ch
}

// montOutputs returns the oracle's outputs in RNS Montgomery form, as the
// kernel returns them.
func montOutputs(su *Setup, o Outputs) Outputs {
	for i := range o {
		o[i] = su.Params.ToMont(o[i])
	}
	return o
}

// liftAll returns every output lifted (see lift).
func liftAll(rng *rand.Rand, su *Setup, o Outputs) []*big.Int {
	l := make([]*big.Int, len(o))
	for v := range o {
		l[v] = lift(rng, su, o[v])
	}
	return l
}

// rescale returns the outputs of the same points under another scaling:
// (X : Z) times λ for Paper, the numerators and their denominator times λ
// for CoZ.
func rescale(su *Setup, o Outputs, lam *big.Int) []*big.Int {
	p := su.Curve.P()
	r := make(Outputs, len(o))
	for i := range o {
		r[i] = new(big.Int).Mul(lam, o[i])
		r[i].Mod(r[i], p)
	}
	return r
}

// zeroed returns a copy of o with the output that the finish divides by
// (Z_P or Z_Q for Paper, the denominator for CoZ) replaced by v.
func zeroed(su *Setup, o Outputs, v *big.Int, second bool) []*big.Int {
	i := 1
	switch {
	case su.Schedule.Kind == CoZ:
		i = 0
	case second:
		i = 3
	}
	z := append(Outputs{}, o...)
	z[i] = v
	return z
}

// finishCases builds real results (from the oracle, lifted and rescaled),
// real RNS runs, the two special cases and random garbage.
func finishCases(t testing.TB, su *Setup, rng *rand.Rand, items int) finishCase {
	c := su.Curve
	var fc finishCase
	add := func(j Job, vs ...*big.Int) {
		fc.jobs = append(fc.jobs, j)
		fc.outs = append(fc.outs, channelsOf(t, su, vs...))
	}
	o := su.NewOracle()
	p := c.P()
	for i := range items {
		x, y := c.Gx(), c.Gy()
		if i > 0 {
			k := new(big.Int).Rand(rng, c.N())
			var ok bool
			var err error
			x, y, ok, err = c.ReferenceScalarMult(c.Gx(), c.Gy(), k.Add(k, big.NewInt(1)))
			require.NoError(t, err)
			require.True(t, ok)
		}
		var k *big.Int
		switch i % 5 {
		case 0:
			k = new(big.Int).Sub(c.N(), big.NewInt(1)) // −G: Z_Q = 0, or fixed
		case 1:
			k = new(big.Int).Set(c.N()) // infinity: Z_P = 0, or fixed
		default:
			k = new(big.Int).Rand(rng, c.N())
		}
		j, err := su.Prepare(x, y, k)
		require.NoError(t, err)
		pr := montOutputs(su, o.Run(j.X, j.Scalar, su.Bits, nil))
		add(j, liftAll(rng, su, pr)...)
		// the same point under another scaling
		lam := new(big.Int).Rand(rng, p)
		add(j, rescale(su, pr, lam)...)
		// denominators p and 2p are zero mod p; garbage fails the on-curve check
		add(j, zeroed(su, pr, p, false)...)
		add(j, zeroed(su, pr, new(big.Int).Lsh(p, 1), true)...)
		garbage := make([]*big.Int, su.OutputCount())
		for v := range garbage {
			garbage[v] = new(big.Int).Rand(rng, su.Params.AddBound)
		}
		add(j, garbage...)
		if i < 2 {
			e := su.NewRNSExecutor(basext.Variants[i%len(basext.Variants)])
			in := su.InputElement(j)
			fc.jobs = append(fc.jobs, j)
			fc.outs = append(fc.outs, e.Run(&in, j.Scalar, su.Bits, nil))
		}
	}
	// a base point off the curve: y recovery gives a point off the curve
	bad := Job{X: c.Gx(), Y: new(big.Int).Add(c.Gy(), big.NewInt(1)), Scalar: su.LadderScalar(big.NewInt(3))}
	pr := montOutputs(su, o.Run(bad.X, bad.Scalar, su.Bits, nil))
	add(bad, pr[:]...)
	// a zero denominator with an invalid base fails the check as in ToAffine
	add(bad, zeroed(su, pr, big.NewInt(0), true)...)
	// coordinates given unreduced or negative reduce mod p
	odd := Job{X: new(big.Int).Add(c.Gx(), p), Y: new(big.Int).Sub(c.Gy(), p), Scalar: su.LadderScalar(big.NewInt(5))}
	pr = montOutputs(su, o.Run(odd.X, odd.Scalar, su.Bits, nil))
	add(odd, pr[:]...)
	return fc
}

func requireSameResults(t *testing.T, want, got []Affine, wantErr, gotErr []error) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, wantErr[i], gotErr[i], "item %d", i)
		require.Equal(t, want[i].Infinity, got[i].Infinity, "item %d", i)
		require.Equal(t, want[i].X == nil, got[i].X == nil, "item %d", i)
		if want[i].X != nil {
			require.Equal(t, 0, want[i].X.Cmp(got[i].X), "item %d x", i)
			require.Equal(t, 0, want[i].Y.Cmp(got[i].Y), "item %d y", i)
		}
	}
}

func TestFinishMatchesToAffine(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range Kinds() {
			t.Run(c.Name()+"/"+kind.String(), func(t *testing.T) { testFinishMatchesToAffine(t, newSetupKindT(t, c, kind)) })
		}
	}
}

func testFinishMatchesToAffine(t *testing.T, su *Setup) {
	{
		{
			rng := rand.New(rand.NewSource(23))
			fc := finishCases(t, su, rng, count(12, 5))
			proj := make([]Outputs, len(fc.outs))
			for i := range fc.outs {
				proj[i] = su.Outputs(fc.outs[i])
			}
			want, wantErr := su.ToAffine(fc.jobs, proj)
			var valid, inf, faults int
			for i := range want {
				switch {
				case wantErr[i] != nil:
					faults++
				case want[i].Infinity:
					inf++
				default:
					valid++
				}
			}
			require.Positive(t, valid)
			require.Positive(t, inf)
			require.Positive(t, faults)

			got, gotErr := su.Finish(fc.jobs, fc.outs)
			requireSameResults(t, want, got, wantErr, gotErr)

			// the same from a kernel output array, columns shuffled
			n := su.Params.N
			stride := len(fc.jobs) + 3
			out := make([]uint32, su.OutputRows()*stride)
			cols := rng.Perm(stride)[:len(fc.jobs)]
			for k, col := range cols {
				for v := range su.OutputCount() {
					for j := range n {
						out[(v*n+j)*stride+col] = fc.outs[k][v][j]
					}
				}
			}
			got, gotErr = su.FinishOutput(fc.jobs, out, stride, cols)
			requireSameResults(t, want, got, wantErr, gotErr)
			got, gotErr = su.FinishOutput(fc.jobs[:1], out[cols[0]:], stride, nil)
			requireSameResults(t, want[:1], got[:1], wantErr[:1], gotErr[:1])

			// results do not share storage: growing one leaves the others
			for i := range got {
				if got[i].X != nil {
					y := new(big.Int).Set(got[i].Y)
					got[i].X.Lsh(got[i].X, 70)
					require.Equal(t, 0, y.Cmp(got[i].Y))
				}
			}
			got, gotErr = su.Finish(nil, nil)
			require.Empty(t, got)
			require.Empty(t, gotErr)
		}
	}
}

// TestFinishZeroY covers a base with y ≡ 0, which ToAffine cannot invert.
func TestFinishZeroY(t *testing.T) {
	c := curves.P256()
	su := newSetupKindT(t, c, Paper)
	j := Job{X: c.Gx(), Y: new(big.Int).Set(c.P()), Scalar: su.LadderScalar(big.NewInt(7))}
	pr := montOutputs(su, su.NewOracle().Run(j.X, j.Scalar, su.Bits, nil))
	good, err := su.Prepare(c.Gx(), c.Gy(), big.NewInt(7))
	require.NoError(t, err)
	ch := channelsOf(t, su, pr[:]...)
	res, errs := su.Finish([]Job{j, good}, []Channels{ch, ch})
	require.ErrorIs(t, errs[0], ErrResultCheck)
	require.NoError(t, errs[1])
	wx, wy, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(7))
	require.NoError(t, err)
	require.Equal(t, 0, wx.Cmp(res[1].X))
	require.Equal(t, 0, wy.Cmp(res[1].Y))
}

func TestHostAllocations(t *testing.T) {
	c := curves.P224()
	su := newSetupT(t, c)
	rng := rand.New(rand.NewSource(24))
	x, y := c.Gx(), c.Gy()
	j, err := su.Prepare(x, y, new(big.Int).Rand(rng, c.N()))
	require.NoError(t, err)
	n := su.Params.N
	in := make([]uint32, ElementRows(n)*4)
	sc := make([]uint32, su.ScalarWords()*4)
	require.Zero(t, testing.AllocsPerRun(50, func() { su.PackInput(in, sc, 4, 1, j) }))
	if race.Enabled {
		t.Skip("the finish's scratch is pooled, and sync.Pool drops items under the race detector")
	}

	pr := montOutputs(su, su.NewOracle().Run(j.X, j.Scalar, su.Bits, nil))
	ch := channelsOf(t, su, pr[:]...)
	allocs := func(items int) float64 {
		jobs := make([]Job, items)
		outs := make([]Channels, items)
		for i := range jobs {
			jobs[i], outs[i] = j, ch
		}
		return testing.AllocsPerRun(5, func() {
			_, errs := su.Finish(jobs, outs)
			require.NoError(t, errs[0])
		})
	}
	small, large := allocs(64), allocs(512)
	require.Equal(t, small, large, "allocations per call, not per item")
	require.LessOrEqual(t, large, 10.0)
}

func TestHostFieldConstants(t *testing.T) {
	for _, c := range curves.All() {
		su := newSetupT(t, c)
		h, par := su.host, su.Params
		require.Equal(t, par.N, len(h.crt))
		require.Equal(t, 2*par.N, len(h.in))
		for j, mod := range append(append([]rns.Modulus{}, par.B.Moduli...), par.BT.Moduli...) {
			require.Equal(t, uint64(mod.M), h.in[j].m, fmt.Sprint(j))
			for _, s := range []uint64{0, 1, h.in[j].m - 1, h.in[j].m, 1 << 51, ^uint64(0), ^uint64(0) - 1} {
				require.Equal(t, s%h.in[j].m, barrett(s, h.in[j].m, h.in[j].recip))
			}
		}
	}
}

func TestLadderScalarMatchesDivision(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range Kinds() {
			testLadderScalarMatchesDivision(t, newSetupKindT(t, c, kind))
		}
	}
}

func testLadderScalarMatchesDivision(t *testing.T, su *Setup) {
	c := su.Curve
	{
		n := c.N()
		want := func(k *big.Int) *big.Int {
			kp := new(big.Int).Mod(k, n)
			if su.Schedule.Kind == CoZ {
				c := int64(3)
				if new(big.Int).Sub(n, kp).Cmp(big.NewInt(CoZHigh)) <= 0 {
					c = 2
				}
				return kp.Add(kp, new(big.Int).Mul(n, big.NewInt(c)))
			}
			kp.Add(kp, n)
			if kp.BitLen() <= su.Bits {
				kp.Add(kp, n)
			}
			return kp
		}
		one := big.NewInt(1)
		top := new(big.Int).Lsh(one, uint(su.Bits+3))
		ks := []*big.Int{
			big.NewInt(0), one, new(big.Int).Sub(n, one), n, new(big.Int).Add(n, one), new(big.Int).Lsh(n, 1),
			new(big.Int).Sub(new(big.Int).Lsh(n, 4), one), new(big.Int).Lsh(n, 4), new(big.Int).Sub(top, one), top,
			new(big.Int).Neg(one), new(big.Int).Neg(n), new(big.Int).Lsh(n, 200),
		}
		rng := rand.New(rand.NewSource(25))
		for i := range count(20000, 2000) {
			k := new(big.Int).Rand(rng, new(big.Int).Lsh(one, uint(rng.Intn(su.Bits+6))))
			if i%7 == 0 {
				k.Neg(k)
			}
			ks = append(ks, k)
		}
		for _, k := range ks {
			got := su.LadderScalar(k)
			require.Equal(t, 0, want(k).Cmp(got), "%s k = %x", c.Name(), k)
			require.Equal(t, su.Bits+1, got.BitLen())
		}
		k := new(big.Int).Rand(rng, n)
		require.Equal(t, 1.0, testing.AllocsPerRun(20, func() { su.LadderScalar(k) }))
	}
}

// TestFinishConcurrent shares one Setup among goroutines, as the backends do.
func TestFinishConcurrent(t *testing.T) {
	c := curves.Secp256k1()
	su := newSetupT(t, c)
	fc := finishCases(t, su, rand.New(rand.NewSource(26)), 3)
	want, wantErr := su.Finish(fc.jobs, fc.outs)
	done := make(chan [2]any)
	for range 4 {
		go func() {
			got, gotErr := su.Finish(fc.jobs, fc.outs)
			done <- [2]any{got, gotErr}
		}()
	}
	for range 4 {
		r := <-done
		requireSameResults(t, want, r[0].([]Affine), wantErr, r[1].([]error))
	}
}

func BenchmarkCRTToField(b *testing.B) {
	for _, c := range curves.All() {
		for _, bits := range rns.Widths {
			su := newSetupBitsT(b, c, DefaultKind, bits)
			r := residuesOf(b, su.Params, new(big.Int).Sub(su.Params.AddBound, big.NewInt(12345)))
			b.Run(fmt.Sprintf("curve=%s/channel-bits=%d", c.Name(), bits), func(b *testing.B) {
				var z fp.Element
				for b.Loop() {
					su.host.crtToField(&z, r)
				}
			})
		}
	}
}
