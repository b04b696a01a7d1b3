package ladder_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/crtref"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/race"
	"github.com/rnsec/ecmul/internal/rns"
)

func setup(t testing.TB, c *curves.Curve) *ladder.Setup {
	su, err := ladder.NewSetup(c)
	require.NoError(t, err)
	return su
}

// setupBits builds the ladder of kind for c on channelBits-wide channels.
func setupBits(t testing.TB, c *curves.Curve, kind ladder.Kind, channelBits int) *ladder.Setup {
	su, err := ladder.NewSetupBits(c, kind, channelBits)
	require.NoError(t, err)
	return su
}

func setupKind(t testing.TB, c *curves.Curve, kind ladder.Kind) *ladder.Setup {
	su, err := ladder.NewSetupKind(c, kind)
	require.NoError(t, err)
	return su
}

func randPoint(t testing.TB, c *curves.Curve, rng *rand.Rand) (*big.Int, *big.Int) {
	k := new(big.Int).Rand(rng, c.N())
	x, y, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k.Add(k, big.NewInt(1)))
	require.NoError(t, err)
	require.True(t, ok)
	return x, y
}

func mod(x *big.Int, p *big.Int) *big.Int { return new(big.Int).Mod(x, p) }

// TestLoopIsFormula2 runs one loop step of the oracle on random projective
// inputs and compares it with the paper's formula (2), written out here
// independently of the schedule, for both values of the bit.
func TestLoopIsFormula2(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			su := setupKind(t, c, ladder.Paper)
			p, a, b := c.P(), big.NewInt(c.A()), c.B()
			rng := rand.New(rand.NewSource(1))
			for range 200 {
				xg := new(big.Int).Rand(rng, p)
				var v [4]*big.Int
				for i := range v {
					v[i] = new(big.Int).Rand(rng, p)
				}
				add := func(x1, z1, x2, z2 *big.Int) (*big.Int, *big.Int) {
					// X = −4b·Z1·Z2·(X1·Z2 + X2·Z1) + (X1·X2 − a·Z1·Z2)², Z = x_G·(X1·Z2 − X2·Z1)²
					s := new(big.Int).Add(new(big.Int).Mul(x1, z2), new(big.Int).Mul(x2, z1))
					X := new(big.Int).Mul(big.NewInt(-4), b)
					X.Mul(X, z1).Mul(X, z2).Mul(X, s)
					w := new(big.Int).Sub(new(big.Int).Mul(x1, x2), new(big.Int).Mul(a, new(big.Int).Mul(z1, z2)))
					X.Add(X, w.Mul(w, w))
					d := new(big.Int).Sub(new(big.Int).Mul(x1, z2), new(big.Int).Mul(x2, z1))
					Z := d.Mul(d, d).Mul(d, xg)
					return mod(X, p), mod(Z, p)
				}
				dbl := func(x, z *big.Int) (*big.Int, *big.Int) {
					// X = (X² − a·Z²)² − 8b·X·Z³, Z = 4Z·(X³ + a·X·Z² + b·Z³)
					z2 := new(big.Int).Mul(z, z)
					w := new(big.Int).Sub(new(big.Int).Mul(x, x), new(big.Int).Mul(a, z2))
					X := w.Mul(w, w)
					X.Sub(X, new(big.Int).Mul(big.NewInt(8), new(big.Int).Mul(b, new(big.Int).Mul(x, new(big.Int).Mul(z2, z)))))
					Z := new(big.Int).Mul(x, new(big.Int).Mul(x, x))
					Z.Add(Z, new(big.Int).Mul(a, new(big.Int).Mul(x, z2)))
					Z.Add(Z, new(big.Int).Mul(b, new(big.Int).Mul(z2, z)))
					Z.Mul(Z, z).Mul(Z, big.NewInt(4))
					return mod(X, p), mod(Z, p)
				}
				for bit := range 2 {
					o := su.NewOracle()
					// a 1-bit ladder from a chosen state: run Init on xg, overwrite P and Q, run one bit
					k := big.NewInt(int64(2 + bit)) // bits "1b": one iteration with bit b
					set := false
					o.Run(xg, k, 1, func(ph ladder.Phase, _, step int) {
						if ph == ladder.PhaseInit && step == len(su.Schedule.Init)-1 && !set {
							for i, r := range []ladder.Reg{ladder.XP, ladder.ZP, ladder.XQ, ladder.ZQ} {
								o.Reg(r).Set(v[i])
							}
							set = true
						}
					})
					var wx, wz, vx, vz *big.Int
					if bit == 0 {
						vx, vz = add(v[0], v[1], v[2], v[3]) // Q ← P + Q
						wx, wz = dbl(v[0], v[1])             // P ← 2P
						require.Equal(t, 0, o.Reg(ladder.XQ).Cmp(vx), "X_{P+Q}")
						require.Equal(t, 0, o.Reg(ladder.ZQ).Cmp(vz), "Z_{P+Q}")
					} else {
						vx, vz = add(v[0], v[1], v[2], v[3]) // P ← P + Q
						wx, wz = dbl(v[2], v[3])             // Q ← 2Q
						require.Equal(t, 0, o.Reg(ladder.XP).Cmp(vx), "X_{P+Q}")
						require.Equal(t, 0, o.Reg(ladder.ZP).Cmp(vz), "Z_{P+Q}")
					}
					dx, dz := ladder.XP, ladder.ZP
					if bit == 1 {
						dx, dz = ladder.XQ, ladder.ZQ
					}
					require.Equal(t, 0, o.Reg(dx).Cmp(wx), "X_2P bit %d", bit)
					require.Equal(t, 0, o.Reg(dz).Cmp(wz), "Z_2P bit %d", bit)
				}
			}
		})
	}
}

// TestInitIsFormula14: Init leaves P = (x_G : 1) and Q = 2G as in (14).
func TestInitIsFormula14(t *testing.T) {
	for _, c := range curves.All() {
		su := setupKind(t, c, ladder.Paper)
		p, a, b := c.P(), big.NewInt(c.A()), c.B()
		xg := new(big.Int).Set(c.Gx())
		o := su.NewOracle()
		o.Run(xg, big.NewInt(1), 0, nil)
		x2 := new(big.Int).Mul(xg, xg)
		wx := new(big.Int).Sub(x2, a)
		wx.Mul(wx, wx).Sub(wx, new(big.Int).Mul(big.NewInt(8), new(big.Int).Mul(b, xg)))
		wz := new(big.Int).Mul(x2, xg)
		wz.Add(wz, new(big.Int).Mul(a, xg)).Add(wz, b).Lsh(wz, 2)
		require.Equal(t, 0, mod(wx, p).Cmp(o.Reg(ladder.XQ)), c.Name())
		require.Equal(t, 0, mod(wz, p).Cmp(o.Reg(ladder.ZQ)), c.Name())
		require.Equal(t, 0, xg.Cmp(o.Reg(ladder.XP)))
		require.Equal(t, int64(1), o.Reg(ladder.ZP).Int64())
	}
}

func TestScheduleShape(t *testing.T) {
	for _, c := range curves.All() {
		for kind, muls := range map[ladder.Kind]int{ladder.Paper: 18, ladder.CoZ: 11} {
			su := setupKind(t, c, kind)
			require.Equal(t, muls, su.Schedule.MulsPerBit(), c.Name())
			require.True(t, su.Schedule.MaxMulInput.Cmp(su.Params.AddBound) < 0)
			require.True(t, su.Schedule.MaxRegister.Cmp(su.Params.AddBound) < 0)
		}
	}
	require.Equal(t, ladder.CoZ, setup(t, curves.P256()).Schedule.Kind, "the co-Z ladder is the default")
	// A large a would need more than 9u: the builder must refuse, naming the operation.
	su := setup(t, curves.P224())
	_, _, err := ladder.NewSchedule(ladder.Paper, -9, curves.P224().B(), su.Params)
	require.ErrorContains(t, err, "above 9u")
	_, _, err = ladder.NewSchedule(ladder.Kind(9), -3, curves.P224().B(), su.Params)
	require.Error(t, err)
	for _, name := range []string{"coz", "paper", "default"} {
		k, err := ladder.ParseKind(name)
		require.NoError(t, err)
		require.True(t, k.String() == name || name == "default" && k == ladder.DefaultKind)
	}
	_, err = ladder.ParseKind("fast")
	require.ErrorContains(t, err, `"fast"`)
}

// TestRNSMatchesOracleStepByStep walks the RNS executor and the oracle side
// by side: after every step each register of the RNS twin, converted back,
// is below 9u and congruent to the oracle's value times M.
func TestRNSMatchesOracleStepByStep(t *testing.T) {
	race.SkipSerial(t)
	for _, c := range curves.All() {
		for _, kind := range ladder.Kinds() {
			for _, bits := range rns.Widths {
				testRNSMatchesOracleStepByStep(t, setupBits(t, c, kind, bits))
			}
		}
	}
}

func testRNSMatchesOracleStepByStep(t *testing.T, su *ladder.Setup) {
	c := su.Curve
	{
		par := su.Params
		for _, v := range basext.VariantsFor(par) {
			t.Run(fmt.Sprintf("%s/%v/%d/%v", c.Name(), su.Schedule.Kind, par.Bits, v), func(t *testing.T) {
				rng := rand.New(rand.NewSource(2))
				x, y := randPoint(t, c, rng)
				k := new(big.Int).Rand(rng, c.N())
				job, err := su.Prepare(x, y, k)
				require.NoError(t, err)
				type snap [ladder.NumRegs]*big.Int
				var want []snap
				o := su.NewOracle()
				o.Run(job.X, job.Scalar, su.Bits, func(ladder.Phase, int, int) {
					var s snap
					for r := range s {
						s[r] = new(big.Int).Set(o.Reg(ladder.Reg(r)))
					}
					want = append(want, s)
				})
				e := su.NewRNSExecutor(v)
				xe := su.InputElement(job)
				i := 0
				e.Run(&xe, job.Scalar, su.Bits, func(_ ladder.Phase, bit, step int) {
					for r := range ladder.NumRegs {
						got := crtref.Exact(par, e.Reg(r).B)
						if got.Cmp(par.AddBound) >= 0 {
							t.Fatalf("step %d (bit %d, set %d): %v is %d bits, not below 9u", i, bit, step, r, got.BitLen())
						}
						if par.FromMont(got).Cmp(want[i][r]) != 0 {
							t.Fatalf("step %d (bit %d, set %d): %v differs from the oracle", i, bit, step, r)
						}
					}
					i++
				})
				require.Equal(t, len(want), i)
			})
		}
	}
}

func edgeScalars(n *big.Int) []*big.Int {
	one := big.NewInt(1)
	ks := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3),
		new(big.Int).Sub(n, one), new(big.Int).Set(n), new(big.Int).Add(n, one), new(big.Int).Lsh(n, 1),
		new(big.Int).Sub(new(big.Int).Lsh(one, 512), one), new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen())), one),
		new(big.Int).Mul(n, big.NewInt(7))}
	for _, i := range []uint{5, 64, 100, uint(n.BitLen() - 1)} {
		ks = append(ks, new(big.Int).Lsh(one, i))
	}
	// around 0 mod n, where the co-Z ladder's exceptional cases lie
	for d := int64(-8); d <= 8; d++ {
		ks = append(ks, new(big.Int).Add(n, big.NewInt(d)), new(big.Int).Add(new(big.Int).Lsh(n, 1), big.NewInt(d)))
	}
	return ks
}

// TestLadderAgainstReference runs the full CPU path (prepare, RNS ladder,
// CRT, batched inversion, y-recovery) on a batch and compares every item
// with the reference implementation.
func TestLadderAgainstReference(t *testing.T) {
	race.SkipSerial(t)
	items := 24
	if testing.Short() {
		items = 6
	}
	for _, c := range curves.All() {
		for _, kind := range ladder.Kinds() {
			for _, bits := range rns.Widths {
				testLadderAgainstReference(t, setupBits(t, c, kind, bits), items)
			}
		}
	}
}

func testLadderAgainstReference(t *testing.T, su *ladder.Setup, items int) {
	c := su.Curve
	{
		for _, v := range basext.VariantsFor(su.Params) {
			t.Run(fmt.Sprintf("curve=%s/schedule=%s/bits=%d/ext=%s", c.Name(), su.Schedule.Kind, su.Params.Bits, v), func(t *testing.T) {
				rng := rand.New(rand.NewSource(3))
				var xs, ys, ks []*big.Int
				for _, k := range edgeScalars(c.N()) {
					xs, ys, ks = append(xs, c.Gx()), append(ys, c.Gy()), append(ks, k)
				}
				for range items {
					x, y := randPoint(t, c, rng)
					xs, ys, ks = append(xs, x), append(ys, y), append(ks, new(big.Int).Rand(rng, new(big.Int).Lsh(c.N(), 2)))
				}
				// k = n − 1 on a random point gives −P, and k = 1 gives P itself
				x, y := randPoint(t, c, rng)
				xs, ys, ks = append(xs, x, x), append(ys, y, y), append(ks, new(big.Int).Sub(c.N(), big.NewInt(1)), big.NewInt(1))
				jobs := make([]ladder.Job, len(xs))
				proj := make([]ladder.Outputs, len(xs))
				e := su.NewRNSExecutor(v)
				for i := range xs {
					var err error
					jobs[i], err = su.Prepare(xs[i], ys[i], ks[i])
					require.NoError(t, err)
					in := su.InputElement(jobs[i])
					proj[i] = su.Outputs(e.Run(&in, jobs[i].Scalar, su.Bits, nil))
				}
				res, errs := su.ToAffine(jobs, proj)
				for i := range xs {
					require.NoError(t, errs[i])
					wx, wy, ok, err := c.ReferenceScalarMult(xs[i], ys[i], ks[i])
					require.NoError(t, err)
					if !ok {
						require.True(t, res[i].Infinity, "item %d: k = %x should give infinity", i, ks[i])
						continue
					}
					require.False(t, res[i].Infinity, "item %d", i)
					require.Equal(t, 0, wx.Cmp(res[i].X), "item %d x, k = %x", i, ks[i])
					require.Equal(t, 0, wy.Cmp(res[i].Y), "item %d y, k = %x", i, ks[i])
				}
			})
		}
	}
}

// TestZeroX covers bases with x = 0, where the ladder's differential
// addition degenerates and Prepare substitutes 2G.
func TestZeroX(t *testing.T) {
	for _, c := range curves.All() {
		// y² = b: a point with x = 0 exists when b is a square mod p.
		y := new(big.Int).ModSqrt(new(big.Int).Mod(c.B(), c.P()), c.P())
		if y == nil {
			continue
		}
		for _, kind := range ladder.Kinds() {
			testZeroX(t, setupKind(t, c, kind), y)
		}
	}
}

func testZeroX(t *testing.T, su *ladder.Setup, y *big.Int) {
	c := su.Curve
	{
		x := big.NewInt(0)
		require.True(t, c.IsOnCurve(x, y))
		for _, k := range []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(12345), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N()} {
			job, err := su.Prepare(x, y, k)
			require.NoError(t, err)
			require.NotZero(t, job.X.Sign())
			o := su.NewOracle()
			pr := o.Run(job.X, job.Scalar, su.Bits, nil)
			res, errs := su.ToAffine([]ladder.Job{job}, []ladder.Outputs{pr})
			require.NoError(t, errs[0])
			wx, wy, ok, err := c.ReferenceScalarMult(x, y, k)
			require.NoError(t, err)
			require.Equal(t, !ok, res[0].Infinity)
			if ok {
				require.Equal(t, 0, wx.Cmp(res[0].X), "%s k=%d", c.Name(), k)
				require.Equal(t, 0, wy.Cmp(res[0].Y))
			}
		}
	}
}

func TestLadderScalar(t *testing.T) {
	for _, c := range curves.All() {
		for _, kind := range ladder.Kinds() {
			testLadderScalar(t, setupKind(t, c, kind))
		}
	}
}

func testLadderScalar(t *testing.T, su *ladder.Setup) {
	c := su.Curve
	{
		for _, k := range edgeScalars(c.N()) {
			kp := su.LadderScalar(k)
			require.Equal(t, su.Bits+1, kp.BitLen(), "k' has exactly t+1 bits")
			require.Zero(t, new(big.Int).Sub(kp, k).Mod(new(big.Int).Sub(kp, k), c.N()).Sign(), "k' ≡ k mod n")
		}
	}
}

func BenchmarkLadder(b *testing.B) {
	c := curves.P224()
	su := setup(b, c)
	rng := rand.New(rand.NewSource(4))
	x, y := randPoint(b, c, rng)
	k := new(big.Int).Rand(rng, c.N())
	job, err := su.Prepare(x, y, k)
	require.NoError(b, err)
	for _, v := range basext.Variants {
		b.Run("curve=P224/backend=rns-cpu/ext="+v.String(), func(b *testing.B) {
			e := su.NewRNSExecutor(v)
			in := su.InputElement(job)
			for b.Loop() {
				e.Run(&in, job.Scalar, su.Bits, nil)
			}
		})
	}
}

// coZState returns the co-Z registers XQG, XRG, YG, LM of Q = j·G and
// R = Q + G at scale z, from affine points (math/big, independent of the
// schedule): Z²(x_Q − x_G), Z²(x_R − x_G), 2Z³y_G and Z·λ, λ the slope of
// the line through Q and G (the tangent when Q = G).
func coZState(t *testing.T, c *curves.Curve, j, z *big.Int) [4]*big.Int {
	p := c.P()
	xq, yq, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), j)
	require.NoError(t, err)
	require.True(t, ok)
	xr, _, ok, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), new(big.Int).Add(j, big.NewInt(1)))
	require.NoError(t, err)
	require.True(t, ok)
	var lam *big.Int
	if xq.Cmp(c.Gx()) == 0 {
		num := new(big.Int).Mul(c.Gx(), c.Gx())
		num.Mul(num, big.NewInt(3)).Add(num, big.NewInt(c.A()))
		den := new(big.Int).Lsh(c.Gy(), 1)
		lam = num.Mul(num, den.ModInverse(den, p))
	} else {
		num := new(big.Int).Sub(yq, c.Gy())
		den := new(big.Int).Sub(xq, c.Gx())
		lam = num.Mul(num, den.ModInverse(den.Mod(den, p), p))
	}
	z2 := new(big.Int).Mul(z, z)
	z3 := new(big.Int).Mul(z2, z)
	return [4]*big.Int{
		mod(new(big.Int).Mul(z2, new(big.Int).Sub(xq, c.Gx())), p),
		mod(new(big.Int).Mul(z2, new(big.Int).Sub(xr, c.Gx())), p),
		mod(new(big.Int).Mul(z3, new(big.Int).Lsh(c.Gy(), 1)), p),
		mod(new(big.Int).Mul(z, lam), p),
	}
}

// coZStateRegs are the co-Z ladder's state, which Final leaves as the
// last bit left it (but for YG's deferred factor H, which it applies).
var coZStateRegs = [4]ladder.Reg{ladder.XQG, ladder.XRG, ladder.YG, ladder.LM}

// coZRegs returns the co-Z state of an oracle that has run.
func coZRegs(o *ladder.Oracle) [4]*big.Int {
	var s [4]*big.Int
	for i, r := range coZStateRegs {
		s[i] = new(big.Int).Set(o.Reg(r))
	}
	return s
}

// requireSameScale checks that got is the co-Z state want at some scale:
// the Z² of the x differences and the Z³ of YG give one Z, which must also
// scale the slope.
func requireSameScale(t *testing.T, p *big.Int, want, got [4]*big.Int, msg string) {
	t.Helper()
	inv := func(x *big.Int) *big.Int { return new(big.Int).ModInverse(x, p) }
	z2 := mod(new(big.Int).Mul(got[1], inv(want[1])), p) // want is at scale 1
	z3 := mod(new(big.Int).Mul(got[2], inv(want[2])), p)
	z := mod(new(big.Int).Mul(z3, inv(z2)), p)
	require.NotZero(t, z.Sign(), msg)
	require.Equal(t, 0, mod(new(big.Int).Mul(z, z), p).Cmp(z2), "%s: Z² and Z³ agree", msg)
	require.Equal(t, 0, mod(new(big.Int).Mul(want[0], z2), p).Cmp(got[0]), "%s: XQG", msg)
	require.Equal(t, 0, mod(new(big.Int).Mul(want[3], z), p).Cmp(got[3]), "%s: LM", msg)
}

// TestCoZInitAndLoop checks the co-Z schedule against affine arithmetic:
// Init leaves (Q, R) = (G, 2G), and one bit from any (j·G, (j+1)·G) at a
// random scale gives (2j+1)·G, (2j+2)·G for bit 1 and 2j·G, (2j+1)·G for
// bit 0, at some scale.
func TestCoZInitAndLoop(t *testing.T) {
	for _, c := range curves.All() {
		su := setupKind(t, c, ladder.CoZ)
		p, one := c.P(), big.NewInt(1)
		o := su.NewOracle()
		o.Run(c.Gx(), one, 0, nil)
		init := coZRegs(o)
		requireSameScale(t, p, coZState(t, c, one, one), init, c.Name()+" init")
		require.Zero(t, init[0].Sign(), "XQG = 0: Q = G")

		rng := rand.New(rand.NewSource(5))
		for range 40 {
			j := new(big.Int).Rand(rng, new(big.Int).Rsh(c.N(), 2))
			j.Add(j, one)
			z := new(big.Int).Rand(rng, p)
			start := coZState(t, c, j, z)
			for bit := range 2 {
				k := big.NewInt(int64(2 + bit)) // one iteration with this bit
				o.Run(c.Gx(), k, 1, func(ph ladder.Phase, _, step int) {
					if ph == ladder.PhaseInit && step == len(su.Schedule.Init)-1 {
						for i, r := range coZStateRegs {
							o.Reg(r).Set(start[i])
						}
						o.Reg(ladder.B).SetInt64(1) // the deferred factor of YG
					}
				})
				got := coZRegs(o)
				next := new(big.Int).Lsh(j, 1)
				next.Add(next, big.NewInt(int64(bit)))
				requireSameScale(t, p, coZState(t, c, next, one), got, fmt.Sprintf("%s j=%x bit %d", c.Name(), j, bit))
			}
		}
	}
}

// TestCoZScalarsProof: the proof of the co-Z ladder scalars holds for every
// curve and fails for a ladder one bit shorter, where k' cannot have its top
// bit for every k.
func TestCoZScalarsProof(t *testing.T) {
	for _, c := range curves.All() {
		su := setupKind(t, c, ladder.CoZ)
		require.Equal(t, c.N().BitLen()+1, su.Bits)
		require.NoError(t, ladder.ProveCoZScalars(c.N(), su.Bits))
		require.Error(t, ladder.ProveCoZScalars(c.N(), su.Bits-1))
	}
}

// TestParseKind: the schedules' names in any case, "default", and an error
// with one prefix for anything else.
func TestParseKind(t *testing.T) {
	for s, want := range map[string]ladder.Kind{"coz": ladder.CoZ, "CoZ": ladder.CoZ, "PAPER": ladder.Paper, "paper": ladder.Paper, "Default": ladder.DefaultKind} {
		k, err := ladder.ParseKind(s)
		require.NoError(t, err, s)
		require.Equal(t, want, k, s)
	}
	_, err := ladder.ParseKind("xonly")
	require.EqualError(t, err, `ladder: unknown schedule "xonly" (want coz, paper or default)`)
}
