package ladder_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/basext"
	"github.com/rnsec/ecmul/curves"
	"github.com/rnsec/ecmul/ladder"
)

func setup(t testing.TB, c *curves.Curve) *ladder.Setup {
	su, err := ladder.NewSetup(c)
	require.NoError(t, err)
	return su
}

func randPoint(t testing.TB, c *curves.Curve, rng *rand.Rand) (*big.Int, *big.Int) {
	k := new(big.Int).Rand(rng, c.N)
	x, y, ok, err := c.ReferenceScalarMult(c.Gx, c.Gy, k.Add(k, big.NewInt(1)))
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
		t.Run(c.Name, func(t *testing.T) {
			su := setup(t, c)
			p, a, b := c.P, big.NewInt(c.A), c.B
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
		su := setup(t, c)
		p, a, b := c.P, big.NewInt(c.A), c.B
		xg := new(big.Int).Set(c.Gx)
		o := su.NewOracle()
		o.Run(xg, big.NewInt(1), 0, nil)
		x2 := new(big.Int).Mul(xg, xg)
		wx := new(big.Int).Sub(x2, a)
		wx.Mul(wx, wx).Sub(wx, new(big.Int).Mul(big.NewInt(8), new(big.Int).Mul(b, xg)))
		wz := new(big.Int).Mul(x2, xg)
		wz.Add(wz, new(big.Int).Mul(a, xg)).Add(wz, b).Lsh(wz, 2)
		require.Equal(t, 0, mod(wx, p).Cmp(o.Reg(ladder.XQ)), c.Name)
		require.Equal(t, 0, mod(wz, p).Cmp(o.Reg(ladder.ZQ)), c.Name)
		require.Equal(t, 0, xg.Cmp(o.Reg(ladder.XP)))
		require.Equal(t, int64(1), o.Reg(ladder.ZP).Int64())
	}
}

func TestScheduleShape(t *testing.T) {
	for _, c := range curves.All() {
		su := setup(t, c)
		require.Equal(t, 18, su.Schedule.MulsPerBit(), c.Name)
		require.True(t, su.Schedule.MaxMulInput.Cmp(su.Params.AddBound) < 0)
		require.True(t, su.Schedule.MaxRegister.Cmp(su.Params.AddBound) < 0)
	}
	// A large a would need more than 9u: the builder must refuse, naming the operation.
	su := setup(t, curves.P224())
	_, _, err := ladder.NewSchedule(-9, curves.P224().B, su.Params)
	require.ErrorContains(t, err, "above 9u")
}

// TestRNSMatchesOracleStepByStep walks the RNS executor and the oracle side
// by side: after every step each register of the RNS twin, converted back,
// is below 9u and congruent to the oracle's value times M.
func TestRNSMatchesOracleStepByStep(t *testing.T) {
	for _, c := range curves.All() {
		su := setup(t, c)
		par := su.Params
		for _, v := range basext.Variants {
			t.Run(c.Name+"/"+v.String(), func(t *testing.T) {
				rng := rand.New(rand.NewSource(2))
				x, y := randPoint(t, c, rng)
				k := new(big.Int).Rand(rng, c.N)
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
						got := par.FromRNSExact(e.Reg(r).B)
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
	return ks
}

// TestLadderAgainstReference runs the full CPU path (prepare, RNS ladder,
// CRT, batched inversion, y-recovery) on a batch and compares every item
// with the reference implementation.
func TestLadderAgainstReference(t *testing.T) {
	items := 24
	if testing.Short() {
		items = 6
	}
	for _, c := range curves.All() {
		su := setup(t, c)
		for _, v := range basext.Variants {
			t.Run(fmt.Sprintf("curve=%s/ext=%s", c.Name, v), func(t *testing.T) {
				rng := rand.New(rand.NewSource(3))
				var xs, ys, ks []*big.Int
				for _, k := range edgeScalars(c.N) {
					xs, ys, ks = append(xs, c.Gx), append(ys, c.Gy), append(ks, k)
				}
				for range items {
					x, y := randPoint(t, c, rng)
					xs, ys, ks = append(xs, x), append(ys, y), append(ks, new(big.Int).Rand(rng, new(big.Int).Lsh(c.N, 2)))
				}
				// k = n − 1 on a random point gives −P, and k = 1 gives P itself
				x, y := randPoint(t, c, rng)
				xs, ys, ks = append(xs, x, x), append(ys, y, y), append(ks, new(big.Int).Sub(c.N, big.NewInt(1)), big.NewInt(1))
				jobs := make([]ladder.Job, len(xs))
				proj := make([]ladder.Projective, len(xs))
				e := su.NewRNSExecutor(v)
				for i := range xs {
					var err error
					jobs[i], err = su.Prepare(xs[i], ys[i], ks[i])
					require.NoError(t, err)
					in := su.InputElement(jobs[i])
					proj[i] = su.Projective(e.Run(&in, jobs[i].Scalar, su.Bits, nil))
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
		y := new(big.Int).ModSqrt(new(big.Int).Mod(c.B, c.P), c.P)
		if y == nil {
			continue
		}
		su := setup(t, c)
		x := big.NewInt(0)
		require.True(t, c.IsOnCurve(x, y))
		for _, k := range []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(12345), new(big.Int).Sub(c.N, big.NewInt(1)), c.N} {
			job, err := su.Prepare(x, y, k)
			require.NoError(t, err)
			require.NotZero(t, job.X.Sign())
			o := su.NewOracle()
			pr := o.Run(job.X, job.Scalar, su.Bits, nil)
			res, errs := su.ToAffine([]ladder.Job{job}, []ladder.Projective{pr})
			require.NoError(t, errs[0])
			wx, wy, ok, err := c.ReferenceScalarMult(x, y, k)
			require.NoError(t, err)
			require.Equal(t, !ok, res[0].Infinity)
			if ok {
				require.Equal(t, 0, wx.Cmp(res[0].X), "%s k=%d", c.Name, k)
				require.Equal(t, 0, wy.Cmp(res[0].Y))
			}
		}
	}
}

func TestLadderScalar(t *testing.T) {
	for _, c := range curves.All() {
		su := setup(t, c)
		for _, k := range edgeScalars(c.N) {
			kp := su.LadderScalar(k)
			require.Equal(t, su.Bits+1, kp.BitLen(), "k' has exactly t+1 bits")
			require.Zero(t, new(big.Int).Sub(kp, k).Mod(new(big.Int).Sub(kp, k), c.N).Sign(), "k' ≡ k mod n")
		}
	}
}

func BenchmarkLadder(b *testing.B) {
	c := curves.P224()
	su := setup(b, c)
	rng := rand.New(rand.NewSource(4))
	x, y := randPoint(b, c, rng)
	k := new(big.Int).Rand(rng, c.N)
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
