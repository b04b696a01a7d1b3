package fp_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

// ops is the number of random operations per check and prime.
func ops() int {
	if testing.Short() {
		return 5000
	}
	return 100000
}

var r256 = new(big.Int).Lsh(big.NewInt(1), 256)

type ref struct {
	f    *fp.Field
	p    *big.Int
	rInv *big.Int // R^{-1} mod p
}

func newRef(t testing.TB, p *big.Int) *ref {
	f, err := fp.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return &ref{f: f, p: p, rInv: new(big.Int).ModInverse(new(big.Int).Mod(r256, p), p)}
}

// value returns the value the element stands for, by math/big.
func (r *ref) value(z *fp.Element) *big.Int {
	v := raw(*z)
	return v.Mul(v, r.rInv).Mod(v, r.p)
}

// raw returns the limbs as an integer.
func raw(l [4]uint64) *big.Int {
	v := new(big.Int)
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[i]))
	}
	return v
}

func limbs(x *big.Int) [4]uint64 {
	var l [4]uint64
	t := new(big.Int).Set(x)
	mask := new(big.Int).SetUint64(^uint64(0))
	for i := range l {
		l[i] = new(big.Int).And(t, mask).Uint64()
		t.Rsh(t, 64)
	}
	return l
}

// elem returns the Montgomery form of v mod p, computed with math/big.
func (r *ref) elem(v *big.Int) fp.Element {
	m := new(big.Int).Mul(v, r256)
	return fp.Element(limbs(m.Mod(m, r.p)))
}

// edges returns the field values every operation is checked on.
func edges(p *big.Int) []*big.Int {
	one := big.NewInt(1)
	var vs []*big.Int
	for _, v := range []*big.Int{
		big.NewInt(0), one, big.NewInt(2), big.NewInt(3),
		new(big.Int).Sub(p, one), new(big.Int).Sub(p, big.NewInt(2)), new(big.Int).Rsh(p, 1),
		new(big.Int).Add(new(big.Int).Rsh(p, 1), one), new(big.Int).Lsh(one, 64), new(big.Int).Sub(new(big.Int).Lsh(one, 64), one),
		new(big.Int).Lsh(one, 128), new(big.Int).Sub(new(big.Int).Lsh(one, 192), one),
		new(big.Int).Mod(r256, p), new(big.Int).Sub(p, new(big.Int).Mod(r256, p)),
	} {
		vs = append(vs, v.Mod(v, p))
	}
	return vs
}

// randValue returns a random value below p, biased towards limbs of all
// zeros or all ones, which exercise the carries.
func randValue(rng *rand.Rand, p *big.Int) *big.Int {
	switch rng.Intn(8) {
	case 0:
		var l [4]uint64
		for i := range l {
			switch rng.Intn(3) {
			case 0:
				l[i] = ^uint64(0)
			case 1:
				l[i] = 0
			default:
				l[i] = rng.Uint64()
			}
		}
		v := raw(l)
		return v.Mod(v, p)
	case 1:
		return new(big.Int).Sub(p, big.NewInt(int64(1+rng.Intn(1000))))
	default:
		return new(big.Int).Rand(rng, p)
	}
}

func primes() map[string]*big.Int {
	m := map[string]*big.Int{}
	for _, c := range curves.All() {
		m[c.Name()] = c.P()
	}
	return m
}

func TestNewRejects(t *testing.T) {
	odd := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 100), big.NewInt(1))
	for _, p := range []*big.Int{
		nil, big.NewInt(0), big.NewInt(-7), big.NewInt(97), // not positive, or below 2^64
		new(big.Int).Lsh(big.NewInt(1), 100),    // even
		new(big.Int).Mul(odd, odd),              // odd composite
		new(big.Int).Add(r256, big.NewInt(297)), // above 2^256
	} {
		if _, err := fp.New(p); err == nil {
			t.Errorf("New(%v) accepted", p)
		}
	}
}

func TestConstants(t *testing.T) {
	for name, p := range primes() {
		r := newRef(t, p)
		one := r.f.One()
		if r.value(&one).Cmp(big.NewInt(1)) != 0 {
			t.Errorf("%s: One is not 1", name)
		}
		r2 := r.f.RSquare()
		want := new(big.Int).Mul(r256, r256)
		if raw(r2).Cmp(want.Mod(want, p)) != 0 {
			t.Errorf("%s: RSquare", name)
		}
		if r.f.P().Cmp(p) != 0 || raw(r.f.Modulus()).Cmp(p) != 0 {
			t.Errorf("%s: modulus", name)
		}
	}
}

// check runs op on the edge pairs and then on n random pairs.
func check(t *testing.T, r *ref, n int, op func(a, b *big.Int) string) {
	t.Helper()
	es := edges(r.p)
	for _, a := range es {
		for _, b := range es {
			if msg := op(a, b); msg != "" {
				t.Fatalf("a=%x b=%x: %s", a, b, msg)
			}
		}
	}
	rng := rand.New(rand.NewSource(int64(r.p.Bit(5)) + 17))
	for range n {
		a, b := randValue(rng, r.p), randValue(rng, r.p)
		if msg := op(a, b); msg != "" {
			t.Fatalf("a=%x b=%x: %s", a, b, msg)
		}
	}
}

func TestArithmeticAgainstBig(t *testing.T) {
	for name, p := range primes() {
		r := newRef(t, p)
		f := r.f
		t.Run(name, func(t *testing.T) {
			want := new(big.Int)
			t.Run("Mul", func(t *testing.T) {
				check(t, r, ops(), func(a, b *big.Int) string {
					x, y := r.elem(a), r.elem(b)
					var z fp.Element
					f.Mul(&z, &x, &y)
					if r.value(&z).Cmp(want.Mul(a, b).Mod(want, p)) != 0 || raw(z).Cmp(p) >= 0 {
						return "Mul"
					}
					f.Mul(&x, &x, &y) // aliasing
					if x != z {
						return "Mul aliased"
					}
					return ""
				})
			})
			t.Run("Square", func(t *testing.T) {
				check(t, r, ops(), func(a, _ *big.Int) string {
					x := r.elem(a)
					var z fp.Element
					f.Square(&z, &x)
					if r.value(&z).Cmp(want.Mul(a, a).Mod(want, p)) != 0 {
						return "Square"
					}
					return ""
				})
			})
			t.Run("AddSubNeg", func(t *testing.T) {
				check(t, r, ops(), func(a, b *big.Int) string {
					x, y := r.elem(a), r.elem(b)
					var s, d, n, dbl fp.Element
					f.Add(&s, &x, &y)
					f.Sub(&d, &x, &y)
					f.Neg(&n, &x)
					f.Double(&dbl, &x)
					switch {
					case r.value(&s).Cmp(want.Add(a, b).Mod(want, p)) != 0 || raw(s).Cmp(p) >= 0:
						return "Add"
					case r.value(&d).Cmp(want.Sub(a, b).Mod(want, p)) != 0 || raw(d).Cmp(p) >= 0:
						return "Sub"
					case r.value(&n).Cmp(want.Neg(a).Mod(want, p)) != 0 || raw(n).Cmp(p) >= 0:
						return "Neg"
					case r.value(&dbl).Cmp(want.Lsh(a, 1).Mod(want, p)) != 0:
						return "Double"
					case (a.Sign() == 0) != x.IsZero():
						return "IsZero"
					case (a.Cmp(b) == 0) != x.Equal(&y):
						return "Equal"
					}
					return ""
				})
			})
			t.Run("Conversions", func(t *testing.T) {
				buf := make([]big.Word, fp.WordsPerElement)
				check(t, r, ops(), func(a, b *big.Int) string {
					var x fp.Element
					f.SetBig(&x, a)
					if x != r.elem(a) {
						return "SetBig"
					}
					if f.Big(&x).Cmp(a) != 0 || raw(f.FromMont(&x)).Cmp(a) != 0 {
						return "Big"
					}
					var z big.Int
					if f.SetBigInt(&z, &x, buf).Cmp(a) != 0 {
						return "SetBigInt"
					}
					// raw limbs anywhere below 2^256, negative and huge values
					wide := new(big.Int).Add(a, new(big.Int).Mul(b, big.NewInt(1+int64(b.Bit(3))*int64(b.Bit(7))<<32)))
					wide.Mod(wide, r256)
					f.SetLimbs(&x, limbs(wide))
					if x != r.elem(wide) {
						return "SetLimbs"
					}
					neg := new(big.Int).Neg(wide)
					f.SetBig(&x, neg)
					if x != r.elem(new(big.Int).Mod(neg, p)) {
						return "SetBig negative"
					}
					huge := new(big.Int).Lsh(wide, 200)
					huge.Add(huge, a)
					f.SetBig(&x, huge)
					if x != r.elem(new(big.Int).Mod(huge, p)) {
						return "SetBig huge"
					}
					return ""
				})
				for _, v := range []int64{0, 1, -1, 7, -3, 1 << 62, -(1 << 62), -1 << 63} {
					var x fp.Element
					f.SetInt64(&x, v)
					if x != r.elem(new(big.Int).Mod(big.NewInt(v), p)) {
						t.Errorf("SetInt64(%d)", v)
					}
					if v >= 0 {
						f.SetUint64(&x, uint64(v))
						if x != r.elem(big.NewInt(v)) {
							t.Errorf("SetUint64(%d)", v)
						}
					}
				}
				var x fp.Element
				f.SetUint64(&x, ^uint64(0))
				if x != r.elem(new(big.Int).SetUint64(^uint64(0))) {
					t.Error("SetUint64(2^64-1)")
				}
			})
			t.Run("MulRaw", func(t *testing.T) {
				// Mul of a raw x < 2^256 by y < p: x·y·R^{-1} mod p.
				rInv := r.rInv
				check(t, r, ops(), func(a, b *big.Int) string {
					wide := new(big.Int).Sub(r256, big.NewInt(1))
					if a.Bit(0) == 1 {
						wide.Sub(wide, a)
					} else {
						wide.Set(a)
					}
					x := fp.Element(limbs(wide))
					y := fp.Element(limbs(b))
					var z fp.Element
					f.Mul(&z, &x, &y)
					w := new(big.Int).Mul(wide, b)
					w.Mul(w, rInv).Mod(w, p)
					if raw(z).Cmp(w) != 0 {
						return "raw Mul"
					}
					return ""
				})
			})
			t.Run("Reduce5", func(t *testing.T) {
				rng := rand.New(rand.NewSource(9))
				n := ops()
				for i := range n + 32 {
					var l [5]uint64
					for j := range l {
						switch {
						case i < 16: // all-ones prefixes and single limbs
							if j <= i%5 {
								l[j] = ^uint64(0)
							}
						case i < 32:
							if j == i%5 {
								l[j] = ^uint64(0) >> (i % 3)
							}
						default:
							l[j] = rng.Uint64()
							if rng.Intn(4) == 0 {
								l[j] = ^uint64(0)
							}
						}
					}
					v := new(big.Int)
					for j := 4; j >= 0; j-- {
						v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l[j]))
					}
					var z fp.Element
					f.Reduce5(&z, &l)
					w := new(big.Int).Mul(v, r.rInv)
					if raw(z).Cmp(w.Mod(w, p)) != 0 {
						t.Fatalf("Reduce5(%x)", v)
					}
				}
			})
			t.Run("Inverse", func(t *testing.T) {
				check(t, r, ops(), func(a, _ *big.Int) string {
					x := r.elem(a)
					var z fp.Element
					f.Inverse(&z, &x)
					if a.Sign() == 0 {
						if !z.IsZero() {
							return "Inverse(0)"
						}
						return ""
					}
					if r.value(&z).Cmp(new(big.Int).ModInverse(a, p)) != 0 {
						return "Inverse"
					}
					return ""
				})
			})
		})
	}
}

func TestNoAllocs(t *testing.T) {
	f, err := fp.New(curves.P256().P())
	if err != nil {
		t.Fatal(err)
	}
	x, y := f.One(), f.RSquare()
	var z fp.Element
	var l [5]uint64
	v := new(big.Int).Sub(curves.P256().P(), big.NewInt(5))
	buf := make([]big.Word, fp.WordsPerElement)
	var out big.Int
	n := testing.AllocsPerRun(100, func() {
		f.Mul(&z, &x, &y)
		f.Square(&z, &z)
		f.Add(&z, &z, &x)
		f.Sub(&z, &z, &y)
		f.Neg(&z, &z)
		f.Reduce5(&z, &l)
		f.SetBig(&z, v)
		f.SetBigInt(&out, &z, buf)
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

func benchField(b *testing.B) (*fp.Field, fp.Element, fp.Element) {
	f, err := fp.New(curves.P256().P())
	if err != nil {
		b.Fatal(err)
	}
	var x, y fp.Element
	f.SetBig(&x, curves.P256().Gx())
	f.SetBig(&y, curves.P256().Gy())
	return f, x, y
}

func BenchmarkMul(b *testing.B) {
	f, x, y := benchField(b)
	for b.Loop() {
		f.Mul(&x, &x, &y)
	}
}

func BenchmarkAdd(b *testing.B) {
	f, x, y := benchField(b)
	for b.Loop() {
		f.Add(&x, &x, &y)
	}
}

func BenchmarkSub(b *testing.B) {
	f, x, y := benchField(b)
	for b.Loop() {
		f.Sub(&x, &x, &y)
	}
}

func BenchmarkReduce5(b *testing.B) {
	f, x, _ := benchField(b)
	l := [5]uint64{x[0], x[1], x[2], x[3], 12345}
	var z fp.Element
	for b.Loop() {
		f.Reduce5(&z, &l)
		l[0] ^= z[0]
	}
}

func BenchmarkInverse(b *testing.B) {
	for _, c := range curves.All() {
		b.Run(c.Name(), func(b *testing.B) {
			f, err := fp.New(c.P())
			if err != nil {
				b.Fatal(err)
			}
			var x fp.Element
			f.SetBig(&x, c.Gx())
			for b.Loop() {
				f.Inverse(&x, &x)
			}
		})
	}
}

func BenchmarkBigMulMod(b *testing.B) {
	p := curves.P256().P()
	x, y := new(big.Int).Set(curves.P256().Gx()), curves.P256().Gy()
	for b.Loop() {
		x.Mul(x, y).Mod(x, p)
	}
}
