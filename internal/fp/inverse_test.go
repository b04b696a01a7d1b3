package fp

import (
	"math/big"
	"math/rand"
	"testing"
)

// inversePrimes are chainPrimes and primes at the ends of New's range: the
// largest below 2^256, a Mersenne prime of two limbs and the least above
// 2^64.
func inversePrimes() []*big.Int {
	var ps []*big.Int
	for _, s := range chainPrimes {
		p, _ := new(big.Int).SetString(s, 10)
		ps = append(ps, p)
	}
	one := big.NewInt(1)
	ps = append(ps,
		new(big.Int).Sub(new(big.Int).Lsh(one, 256), big.NewInt(189)),
		new(big.Int).Sub(new(big.Int).Lsh(one, 127), one))
	q := new(big.Int).Add(new(big.Int).Lsh(one, 64), one)
	for !q.ProbablyPrime(20) {
		q.Add(q, big.NewInt(2))
	}
	return append(ps, q)
}

// inverseEdges are values below p that Inverse is checked on: small ones,
// those next to p and p/2, 2^k and its neighbours, and runs of ones
// amid zeros and the reverse.
func inverseEdges(p *big.Int) []*big.Int {
	one := big.NewInt(1)
	pow := func(k int) *big.Int { return new(big.Int).Lsh(one, uint(k)) }
	half := new(big.Int).Rsh(p, 1)
	vs := []*big.Int{
		big.NewInt(0), one, big.NewInt(2), big.NewInt(3),
		new(big.Int).Sub(p, one), new(big.Int).Sub(p, big.NewInt(2)), new(big.Int).Sub(p, big.NewInt(3)),
		half, new(big.Int).Add(half, one),
	}
	for k := 0; k <= 300; k++ {
		vs = append(vs, pow(k), new(big.Int).Sub(pow(k), one), new(big.Int).Add(pow(k), one), new(big.Int).Sub(p, pow(k)))
	}
	all := new(big.Int).Sub(pow(256), one)
	for hi := 8; hi <= 256; hi += 8 {
		for lo := 0; lo < hi; lo += 20 {
			ones := new(big.Int).Sub(pow(hi), pow(lo))
			vs = append(vs, ones, new(big.Int).Xor(all, ones))
		}
	}
	for _, v := range vs {
		v.Mod(v, p)
	}
	return vs
}

// randomRuns returns a value below p made of runs of ones and zeros of
// random lengths, or a uniform one.
func randomRuns(rng *rand.Rand, p *big.Int) *big.Int {
	if rng.Intn(2) == 0 {
		return new(big.Int).Rand(rng, p)
	}
	v := new(big.Int)
	bit := uint(rng.Intn(2))
	for i := 0; i < 256; {
		n := 1 + rng.Intn(64)
		for ; n > 0 && i < 256; n, i = n-1, i+1 {
			v.SetBit(v, i, bit)
		}
		bit ^= 1
	}
	return v.Mod(v, p)
}

// montOf returns the Montgomery form of v mod p, by math/big.
func montOf(p, v *big.Int) Element {
	m := new(big.Int).Lsh(v, 64*Limbs)
	return Element(toLimbs(m.Mod(m, p)))
}

// from62 returns the integer l stands for.
func from62(l *signed62) *big.Int {
	v := big.NewInt(l[4])
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 62).Add(v, big.NewInt(l[i]))
	}
	return v
}

func inverseCount() int {
	if testing.Short() {
		return 2000
	}
	return 20000
}

// TestInverseAgainstBig: Inverse gives the Montgomery form of
// big.Int.ModInverse, and 0 for 0, on the edge values and on random ones of
// every prime.
func TestInverseAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewSource(29))
	for _, p := range inversePrimes() {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		vs := inverseEdges(p)
		for range inverseCount() {
			vs = append(vs, randomRuns(rng, p))
		}
		for _, v := range vs {
			x := montOf(p, v)
			var z, want Element
			f.Inverse(&z, &x)
			if v.Sign() != 0 {
				want = montOf(p, new(big.Int).ModInverse(v, p))
			}
			if z != want {
				t.Fatalf("p = %v: Inverse(%v) = %v, want %v", p, v, f.Big(&z), f.Big(&want))
			}
		}
	}
}

// TestInverseAgainstPowChain: Inverse equals Fermat's x^(p−2) by the power
// chain, also when z and x are the same element.
func TestInverseAgainstPowChain(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	for _, p := range inversePrimes() {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		fermat := newPowChain(new(big.Int).Sub(p, big.NewInt(2)))
		for range inverseCount() {
			var x, z, want Element
			f.SetBig(&x, randomRuns(rng, p))
			f.Inverse(&z, &x)
			f.pow(&want, &x, &fermat)
			if z != want {
				t.Fatalf("p = %v: Inverse(%v) = %v, x^(p−2) = %v", p, f.Big(&x), f.Big(&z), f.Big(&want))
			}
			f.Inverse(&x, &x)
			if x != want {
				t.Fatalf("p = %v: Inverse in place differs", p)
			}
		}
	}
}

// refDivsteps runs n divsteps on (2δ, f, g) in math/big.
func refDivsteps(n int, delta2 int, f, g *big.Int) (int, *big.Int, *big.Int) {
	f, g = new(big.Int).Set(f), new(big.Int).Set(g)
	for range n {
		switch {
		case delta2 > 0 && g.Bit(0) == 1:
			delta2 = 2 - delta2
			f, g = g, new(big.Int).Sub(g, f)
		case g.Bit(0) == 1:
			delta2 += 2
			g.Add(g, f)
		default:
			delta2 += 2
		}
		g.Rsh(g, 1)
	}
	return delta2, f, g
}

// TestInverseBatches follows the batches against divsteps in math/big: f,
// g and ζ as the steps make them, limbs in range, d·a ≡ f and e·a ≡ g
// (mod p) with d and e in (−2p, p); g is 0 and f is ±1 (both signs seen)
// after all steps, for a ≠ 0. It logs how many divsteps the inputs needed.
func TestInverseBatches(t *testing.T) {
	rng := rand.New(rand.NewSource(37))
	n := inverseCount() / 20
	most := 0
	for _, p := range inversePrimes() {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &f.inv
		vs := inverseEdges(p)[:40]
		for range n {
			vs = append(vs, randomRuns(rng, p))
		}
		signs := map[int]bool{}
		for _, a := range vs {
			s := gcdState{f: c.p, g: to62(Element(toLimbs(a))), e: signed62{1}, zeta: -1}
			delta2, rf, rg := 1, p, a
			for b := range invBatches {
				s.batch(c)
				delta2, rf, rg = refDivsteps(invBatch, delta2, rf, rg)
				if msg := checkState(&s, p, a, delta2, rf, rg); msg != "" {
					t.Fatalf("p = %v, a = %v, batch %d: %s", p, a, b, msg)
				}
			}
			steps := 0
			for d, ff, g := 1, p, a; g.Sign() != 0; steps++ {
				d, ff, g = refDivsteps(1, d, ff, g)
			}
			most = max(most, steps)
			if a.Sign() != 0 {
				if rg.Sign() != 0 || rf.CmpAbs(big.NewInt(1)) != 0 {
					t.Fatalf("p = %v, a = %v: f = %v, g = %v after %d divsteps", p, a, rf, rg, invBatches*invBatch)
				}
				signs[rf.Sign()] = true
			}
		}
		if !signs[1] || !signs[-1] {
			t.Errorf("p = %v: final f of one sign only", p)
		}
	}
	t.Logf("at most %d divsteps needed, %d run", most, invBatches*invBatch)
}

// checkState compares s with the reference state and checks its ranges.
func checkState(s *gcdState, p, a *big.Int, delta2 int, rf, rg *big.Int) string {
	for _, l := range []*signed62{&s.f, &s.g, &s.d, &s.e} {
		for i := range 4 {
			if l[i] < 0 || l[i] > mask62 {
				return "limb out of range"
			}
		}
	}
	f, g, d, e := from62(&s.f), from62(&s.g), from62(&s.d), from62(&s.e)
	if f.Cmp(rf) != 0 || g.Cmp(rg) != 0 {
		return "f or g differs from the divsteps"
	}
	if int(s.zeta) != -(delta2+1)/2 {
		return "ζ differs from δ"
	}
	lo, hi := new(big.Int).Lsh(p, 1), p
	lo.Neg(lo)
	mod := func(x *big.Int) *big.Int { return x.Mod(x, p) }
	for _, de := range []struct{ v, fg *big.Int }{{d, f}, {e, g}} {
		if de.v.Cmp(lo) <= 0 || de.v.Cmp(hi) >= 0 {
			return "d or e out of (−2p, p)"
		}
		if mod(new(big.Int).Mul(de.v, a)).Cmp(mod(new(big.Int).Set(de.fg))) != 0 {
			return "d·a ≢ f or e·a ≢ g"
		}
	}
	return ""
}

func TestInverseNoAllocs(t *testing.T) {
	f, err := New(inversePrimes()[1])
	if err != nil {
		t.Fatal(err)
	}
	x := f.RSquare()
	if n := testing.AllocsPerRun(100, func() { f.Inverse(&x, &x) }); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// to62Big returns v, |v| < 2^300, in 62-bit limbs.
func to62Big(v *big.Int) signed62 {
	var l signed62
	m := big.NewInt(mask62)
	for i := range 4 {
		l[i] = new(big.Int).And(new(big.Int).Rsh(v, uint(62*i)), m).Int64()
	}
	l[4] = new(big.Int).Rsh(v, 248).Int64()
	return l
}

// TestApplyModRange checks applyMod on its whole contract, not only on what
// divsteps reach: for d and e anywhere in (−2p, p), their ends included,
// and rows with |u| + |v| up to 2^62, the results are ((u·d + v·e)/2^62,
// (q·d + r·e)/2^62) mod p, in (−2p, p) and with limbs in range.
func TestApplyModRange(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	two62 := int64(1) << 62
	randRow := func() (int64, int64) {
		switch rng.Intn(4) {
		case 0: // at the bound, signs mixed
			a := rng.Int63n(two62 + 1)
			b := two62 - a
			if rng.Intn(2) == 0 {
				a = -a
			}
			if rng.Intn(2) == 0 {
				b = -b
			}
			return a, b
		case 1:
			return []int64{two62, -two62, 0}[rng.Intn(3)], 0
		default:
			a := rng.Int63n(two62/2+1) - two62/4
			return a, rng.Int63n(two62/2+1) - two62/4
		}
	}
	for _, p := range inversePrimes() {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &f.inv
		lo := new(big.Int).Neg(new(big.Int).Lsh(p, 1))
		ends := []*big.Int{
			new(big.Int).Add(lo, big.NewInt(1)), new(big.Int).Add(lo, big.NewInt(2)), new(big.Int).Neg(p),
			big.NewInt(-1), big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p, big.NewInt(1)),
		}
		pick := func() *big.Int {
			if rng.Intn(2) == 0 {
				return ends[rng.Intn(len(ends))]
			}
			return new(big.Int).Add(lo, new(big.Int).Rand(rng, new(big.Int).Mul(p, big.NewInt(3))))
		}
		inv62 := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 62), p)
		for range inverseCount() {
			var tr transition
			tr.u, tr.v = randRow()
			tr.q, tr.r = randRow()
			dv, ev := pick(), pick()
			d, e := to62Big(dv), to62Big(ev)
			c.applyMod(&tr, &d, &e)
			for _, row := range []struct {
				a, b int64
				got  *signed62
			}{{tr.u, tr.v, &d}, {tr.q, tr.r, &e}} {
				want := new(big.Int).Mul(big.NewInt(row.a), dv)
				want.Add(want, new(big.Int).Mul(big.NewInt(row.b), ev)).Mul(want, inv62).Mod(want, p)
				got := from62(row.got)
				if got.Cmp(lo) <= 0 || got.Cmp(p) >= 0 || to62Big(got) != *row.got {
					t.Fatalf("p = %v: (%d·%v + %d·%v)/2^62 = %v, out of range", p, row.a, dv, row.b, ev, got)
				}
				if new(big.Int).Mod(got, p).Cmp(want) != 0 {
					t.Fatalf("p = %v: (%d·%v + %d·%v)/2^62 = %v, want %v mod p", p, row.a, dv, row.b, ev, got, want)
				}
			}
		}
	}
}

// TestAddPIfNegative: twice on d in (−2p, p), it leaves d mod p.
func TestAddPIfNegative(t *testing.T) {
	rng := rand.New(rand.NewSource(43))
	for _, p := range inversePrimes() {
		f, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		lo := new(big.Int).Neg(new(big.Int).Lsh(p, 1))
		vs := []*big.Int{new(big.Int).Add(lo, big.NewInt(1)), new(big.Int).Neg(p), new(big.Int).Sub(big.NewInt(1), p), big.NewInt(-1), big.NewInt(0), new(big.Int).Sub(p, big.NewInt(1))}
		for range 1000 {
			vs = append(vs, new(big.Int).Add(lo, new(big.Int).Rand(rng, new(big.Int).Mul(p, big.NewInt(3)))))
		}
		for _, v := range vs {
			d := to62Big(v)
			f.inv.addPIfNegative(&d)
			f.inv.addPIfNegative(&d)
			if want := new(big.Int).Mod(v, p); d != to62Big(want) {
				t.Fatalf("p = %v: %v gave %v, want %v", p, v, from62(&d), want)
			}
		}
	}
}
