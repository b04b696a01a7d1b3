package ctec_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/ctec"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/textbook"
)

// neg returns −p (nil, the point at infinity, for nil).
func neg(c *curves.Curve, p *curves.Point) *curves.Point {
	if p == nil {
		return nil
	}
	return &curves.Point{X: p.X, Y: new(big.Int).Mod(new(big.Int).Neg(p.Y), c.P())}
}

// randomPoint returns k·G for a random k, by the textbook formulas.
func randomPoint(rng *rand.Rand, c *curves.Curve) *curves.Point {
	return textbook.Mul(c, c.Generator(), new(big.Int).Rand(rng, c.N()))
}

// setup is one curve under test and its arithmetic.
type setup struct {
	c  *curves.Curve
	ec *ctec.Curve
}

func setups(t testing.TB) []setup {
	var s []setup
	for _, c := range curves.All() {
		ec, err := ctec.For(c)
		require.NoError(t, err)
		s = append(s, setup{c, ec})
	}
	return s
}

// projective returns p as a projective point with a random Z (the point
// at infinity as (0 : λ : 0)).
func (s setup) projective(rng *rand.Rand, p *curves.Point) *ctec.Point {
	f := s.ec.Field()
	lambda := new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(s.c.P(), big.NewInt(1))), big.NewInt(1))
	var r ctec.Point
	if p == nil {
		f.SetBig(&r.Y, lambda)
		return &r
	}
	f.SetBig(&r.X, new(big.Int).Mul(p.X, lambda))
	f.SetBig(&r.Y, new(big.Int).Mul(p.Y, lambda))
	f.SetBig(&r.Z, lambda)
	return &r
}

func (s setup) affine(p *curves.Point) *ctec.Affine {
	var a ctec.Affine
	s.ec.Field().SetBig(&a.X, p.X)
	s.ec.Field().SetBig(&a.Y, p.Y)
	return &a
}

// value returns the affine point p stands for, through Encode, and checks
// Encode's masks.
func (s setup) value(t *testing.T, p *ctec.Point) *curves.Point {
	t.Helper()
	L := s.c.ByteLen()
	xy := make([]byte, 2*L)
	inf, on := s.ec.Encode(xy, p)
	require.Contains(t, []uint64{0, ^uint64(0)}, inf)
	if inf != 0 {
		require.Zero(t, on, "the point at infinity is not on the curve")
		require.Equal(t, make([]byte, 2*L), xy)
		return nil
	}
	require.Equal(t, ^uint64(0), on)
	return &curves.Point{X: new(big.Int).SetBytes(xy[:L]), Y: new(big.Int).SetBytes(xy[L:])}
}

func requireSame(t *testing.T, want, got *curves.Point, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if want == nil || got == nil {
		require.True(t, want == nil && got == nil, "want %v, got %v: %s", want, got, msg)
		return
	}
	require.Zero(t, want.X.Cmp(got.X), "x: %s", msg)
	require.Zero(t, want.Y.Cmp(got.Y), "y: %s", msg)
}

// TestFormulasAgainstBig: Add, AddAffine, Double and Double4 give what the
// textbook group law gives in math/big, on random points with random Z
// and on every case a complete formula must cover: P + P, P + (−P),
// O + P, P + O, O + O, and 2·O.
func TestFormulasAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	count := 300
	if testing.Short() {
		count = 50
	}
	for _, s := range setups(t) {
		t.Run(s.c.Name(), func(t *testing.T) {
			for i := range count {
				p, q := randomPoint(rng, s.c), randomPoint(rng, s.c)
				switch i % 6 {
				case 1:
					q = p
				case 2:
					q = neg(s.c, p)
				case 3:
					p = nil
				case 4:
					q = nil
				case 5:
					p, q = nil, nil
				}
				var r ctec.Point
				s.ec.Add(&r, s.projective(rng, p), s.projective(rng, q))
				requireSame(t, textbook.Add(s.c, p, q), s.value(t, &r), "Add, case %d", i%6)
				s.ec.Double(&r, s.projective(rng, p))
				requireSame(t, textbook.Add(s.c, p, p), s.value(t, &r), "Double, case %d", i%6)
				s.ec.Double4(&r, s.projective(rng, p))
				requireSame(t, textbook.Mul(s.c, p, big.NewInt(16)), s.value(t, &r), "Double4, case %d", i%6)
				if q != nil {
					s.ec.AddAffine(&r, s.projective(rng, p), s.affine(q))
					requireSame(t, textbook.Add(s.c, p, q), s.value(t, &r), "AddAffine, case %d", i%6)
				}
				// r may alias an input
				r = *s.projective(rng, p)
				s.ec.Add(&r, &r, s.projective(rng, q))
				requireSame(t, textbook.Add(s.c, p, q), s.value(t, &r), "Add into p, case %d", i%6)
				s.ec.Double(&r, &r)
				requireSame(t, textbook.Add(s.c, textbook.Add(s.c, p, q), textbook.Add(s.c, p, q)), s.value(t, &r), "Double in place, case %d", i%6)
			}
		})
	}
}

// edgeScalars are the scalars every test multiplies by: 0, 1, 2, small
// ones, n − 2, n − 1, n, n + 1, 2^(8L) − 1 (the largest L-byte value,
// above n), a scalar of every bit set below n's top one (high Hamming
// weight), single bits (low), and digit patterns of the four-bit windows:
// every digit 15, alternating 0 and 15, every digit zero but the top or
// the bottom one, and 0x0f…/0xf0… bytes.
func edgeScalars(c *curves.Curve) []*big.Int {
	n := c.N()
	L := c.ByteLen()
	one := big.NewInt(1)
	top := new(big.Int).Lsh(one, uint(8*L))
	ks := []*big.Int{big.NewInt(0), one, big.NewInt(2), big.NewInt(3), big.NewInt(15), big.NewInt(16), big.NewInt(17), big.NewInt(255),
		new(big.Int).Sub(n, big.NewInt(2)), new(big.Int).Sub(n, one), new(big.Int).Set(n), new(big.Int).Add(n, one),
		new(big.Int).Sub(top, one), new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one),
		new(big.Int).Lsh(one, uint(8*L-4)), new(big.Int).Lsh(big.NewInt(15), uint(8*L-4)),
		new(big.Int).Rsh(n, 1), new(big.Int).Add(new(big.Int).Rsh(n, 1), one)}
	for _, b := range []byte{0x0f, 0xf0, 0x11, 0x80, 0x01} {
		pattern := make([]byte, L)
		for i := range pattern {
			pattern[i] = b
		}
		ks = append(ks, new(big.Int).SetBytes(pattern))
	}
	for _, i := range []int{4, 63, 64, 127, 128, 191, 192, 8*L - 5, 8*L - 1} {
		ks = append(ks, new(big.Int).Lsh(one, uint(i)))
	}
	return ks
}

func scalarBytes(c *curves.Curve, k *big.Int) []byte {
	return k.FillBytes(make([]byte, c.ByteLen()))
}

// TestScalarMultAgainstBig: ScalarMult and ScalarBaseMult give the math/big
// textbook k·P on every edge scalar and random ones, for G, −G, random
// points and, on P-256, the points with x = 0.
func TestScalarMultAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	randoms := 20
	if testing.Short() {
		randoms = 4
	}
	for _, s := range setups(t) {
		t.Run(s.c.Name(), func(t *testing.T) {
			g := s.c.Generator()
			points := []*curves.Point{g, neg(s.c, g), randomPoint(rng, s.c), randomPoint(rng, s.c)}
			if x0 := zeroX(s.c); x0 != nil {
				points = append(points, x0, neg(s.c, x0))
			}
			ks := edgeScalars(s.c)
			for range randoms {
				ks = append(ks, new(big.Int).Rand(rng, s.c.N()))
			}
			for _, k := range ks {
				kb := scalarBytes(s.c, k)
				for pi, p := range points {
					var r ctec.Point
					s.ec.ScalarMult(&r, s.affine(p), kb)
					requireSame(t, textbook.Mul(s.c, p, k), s.value(t, &r), "ScalarMult, k = %#x, point %d", k, pi)
				}
				var r ctec.Point
				s.ec.ScalarBaseMult(&r, kb)
				requireSame(t, textbook.Mul(s.c, g, k), s.value(t, &r), "ScalarBaseMult, k = %#x", k)
			}
		})
	}
}

// zeroX returns a point with x = 0, or nil when the curve has none (b is
// not a square mod p): P-256 has two.
func zeroX(c *curves.Curve) *curves.Point {
	y := new(big.Int).ModSqrt(c.B(), c.P())
	if y == nil {
		return nil
	}
	return &curves.Point{X: new(big.Int), Y: y}
}

// TestScalarMultAgainstReferences: on random points and scalars, and the
// edge scalars on random points, ScalarMult agrees with Go's
// crypto/elliptic (nistec) for P-224 and P-256 and with gnark-crypto for
// P-256 and secp256k1; ScalarBaseMult with the same on G.
func TestScalarMultAgainstReferences(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	count := 300
	if testing.Short() {
		count = 30
	}
	for _, s := range setups(t) {
		t.Run(s.c.Name(), func(t *testing.T) {
			c := s.c
			check := func(p *curves.Point, k *big.Int) {
				kb := scalarBytes(c, k)
				var r ctec.Point
				s.ec.ScalarMult(&r, s.affine(p), kb)
				got := s.value(t, &r)
				refs := map[string]func(x, y, k *big.Int) (*big.Int, *big.Int, bool, error){"reference": c.ReferenceScalarMult}
				if c != curves.P224() {
					refs["gnark-crypto"] = c.GnarkScalarMult
				}
				for name, ref := range refs {
					x, y, ok, err := ref(p.X, p.Y, k)
					require.NoError(t, err)
					var want *curves.Point
					if ok {
						want = &curves.Point{X: x, Y: y}
					}
					requireSame(t, want, got, "%s, k = %#x, P = %v", name, k, p)
				}
				if p.X.Cmp(c.Gx()) == 0 && p.Y.Cmp(c.Gy()) == 0 {
					s.ec.ScalarBaseMult(&r, kb)
					requireSame(t, got, s.value(t, &r), "ScalarBaseMult, k = %#x", k)
				}
			}
			for _, k := range edgeScalars(c) {
				check(c.Generator(), k)
				check(randomPoint(rng, c), k)
			}
			for range count {
				k := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen())))
				check(randomPoint(rng, c), k)
				check(c.Generator(), k)
			}
		})
	}
}

// TestEncodeMasks: Encode reports the point at infinity in any of its
// projective forms, and a point off the curve (a fault) as not on it.
func TestEncodeMasks(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, s := range setups(t) {
		L := s.c.ByteLen()
		xy := make([]byte, 2*L)
		inf, on := s.ec.Encode(xy, s.projective(rng, nil))
		require.Equal(t, ^uint64(0), inf)
		require.Zero(t, on)
		var p ctec.Point
		s.ec.SetInfinity(&p)
		inf, _ = s.ec.Encode(xy, &p)
		require.Equal(t, ^uint64(0), inf)
		bad := s.projective(rng, randomPoint(rng, s.c))
		s.ec.Field().Add(&bad.X, &bad.X, &bad.Z) // x + 1
		inf, on = s.ec.Encode(xy, bad)
		require.Zero(t, inf)
		require.Zero(t, on, "%s: x + 1 is not on the curve", s.c.Name())
		g := s.ec.Generator()
		require.True(t, s.ec.OnCurve(&g))
		s.ec.FromAffine(&p, &g)
		var q ctec.Point
		s.ec.ScalarBaseMult(&q, scalarBytes(s.c, big.NewInt(1)))
		require.Equal(t, ^uint64(0), s.ec.Equal(&p, &q))
		s.ec.Double(&q, &q)
		require.Zero(t, s.ec.Equal(&p, &q))
	}
}

// TestFor: the three curves have arithmetic, shared; another curve has
// none.
func TestFor(t *testing.T) {
	for _, c := range curves.All() {
		a, err := ctec.For(c)
		require.NoError(t, err)
		b, _ := ctec.For(c)
		require.Same(t, a, b)
		require.Equal(t, c.ByteLen(), a.ScalarBytes())
	}
	_, err := ctec.For(&curves.Curve{})
	require.ErrorIs(t, err, ctec.ErrCurve)
	ec, _ := ctec.For(curves.P256())
	var r ctec.Point
	require.Panics(t, func() { ec.ScalarMult(&r, &ctec.Affine{}, make([]byte, 31)) })
	require.Panics(t, func() { ec.ScalarBaseMult(&r, make([]byte, 33)) })
}

func BenchmarkScalarMult(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	for _, s := range setups(b) {
		p := s.affine(randomPoint(rng, s.c))
		k := scalarBytes(s.c, new(big.Int).Rand(rng, s.c.N()))
		xy := make([]byte, 2*s.c.ByteLen())
		b.Run(fmt.Sprintf("curve=%s/op=mul", s.c.Name()), func(b *testing.B) {
			b.ReportAllocs()
			var r ctec.Point
			for b.Loop() {
				s.ec.ScalarMult(&r, p, k)
				s.ec.Encode(xy, &r)
			}
		})
		b.Run(fmt.Sprintf("curve=%s/op=base", s.c.Name()), func(b *testing.B) {
			b.ReportAllocs()
			var r ctec.Point
			for b.Loop() {
				s.ec.ScalarBaseMult(&r, k)
				s.ec.Encode(xy, &r)
			}
		})
	}
}
