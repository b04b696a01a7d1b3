package fp

import "math/big"

// sqrtConsts are what Sqrt needs for p: for p ≡ 3 (mod 4) the exponent
// (p+1)/4; otherwise p − 1 = 2^s·q with q odd, the exponent (q−1)/2 and
// z0 = c^q for a quadratic non-residue c, of order 2^s (Tonelli–Shanks).
type sqrtConsts struct {
	threeMod4 bool
	exp       [Limbs]uint64 // (p+1)/4, or (q−1)/2
	s         int
	z0        Element
}

func newSqrtConsts(f *Field, p *big.Int) sqrtConsts {
	one := big.NewInt(1)
	if p.Bit(1) == 1 {
		e := new(big.Int).Add(p, one)
		return sqrtConsts{threeMod4: true, exp: toLimbs(e.Rsh(e, 2))}
	}
	q := new(big.Int).Sub(p, one)
	s := 0
	for q.Bit(0) == 0 {
		q.Rsh(q, 1)
		s++
	}
	c := big.NewInt(2)
	for big.Jacobi(c, p) != -1 {
		c.Add(c, one)
	}
	sc := sqrtConsts{s: s, exp: toLimbs(new(big.Int).Rsh(q, 1))}
	f.SetBig(&sc.z0, new(big.Int).Exp(c, q, p))
	return sc
}

// Sqrt sets z to a square root of x and reports whether x is a square mod
// p; z is 0 when it is not. p ≡ 3 (mod 4) takes one exponentiation by
// (p+1)/4; other primes take Tonelli–Shanks, whose number of steps depends
// on x: like the rest of this package, Sqrt is for public values (the y of
// a compressed public point), not secrets.
func (f *Field) Sqrt(z, x *Element) bool {
	sc := &f.sqrt
	var r Element
	if sc.threeMod4 {
		f.Exp(&r, x, sc.exp)
		var r2 Element
		f.Square(&r2, &r)
		if !r2.Equal(x) {
			*z = Element{}
			return false
		}
		*z = r
		return true
	}
	if x.IsZero() {
		*z = Element{}
		return true
	}
	// r = x^((q+1)/2), t = x^q, c of order 2^m; invariant r² = x·t
	var w, t, c, tt, b Element
	f.Exp(&w, x, sc.exp)
	f.Mul(&r, x, &w)
	f.Mul(&t, &r, &w)
	c = sc.z0
	for m := sc.s; !t.Equal(&f.one); {
		// the least i with t^(2^i) = 1: t has order 2^i
		i := 0
		for tt = t; !tt.Equal(&f.one); i++ {
			if i == m-1 {
				*z = Element{}
				return false // t has order 2^m: x is not a square
			}
			f.Square(&tt, &tt)
		}
		b = c
		for range m - i - 1 {
			f.Square(&b, &b)
		}
		f.Mul(&r, &r, &b)
		f.Square(&c, &b)
		f.Mul(&t, &t, &c)
		m = i
	}
	*z = r
	return true
}
