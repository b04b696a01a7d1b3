package fp

import "math/big"

// sqrtConsts are what Sqrt needs for p: for p ≡ 3 (mod 4) the exponent
// (p+1)/4; otherwise p − 1 = 2^s·q with q odd, the exponent (q−1)/2 and
// z0 = c^q for a quadratic non-residue c, of order 2^s (Tonelli–Shanks).
type sqrtConsts struct {
	threeMod4 bool
	exp       powChain // x^((p+1)/4), or x^((q−1)/2)
	s         int
	z0        Element
	dlog      *dlogTables // when 8 divides s: the discrete log of x^q in windows of 8 bits
}

// dlogTables find k with t = z0^k (t in the group of order 2^s that z0
// generates) one byte of k at a time, lowest first: with the bytes below
// known, (t·z0^(−known))^(2^(s−8(i+1))) is G^(byte i), G = z0^(2^(s−8)).
type dlogTables struct {
	inv  [][256]Element   // inv[i][d] = z0^(−d·2^(8i))
	byte map[Element]uint // G^d → d
}

func newDlogTables(f *Field, z0 Element, s int) *dlogTables {
	d := &dlogTables{inv: make([][256]Element, s/8), byte: make(map[Element]uint, 256)}
	var base Element
	f.Inverse(&base, &z0)
	for i := range d.inv {
		d.inv[i][0] = f.one
		for j := 1; j < 256; j++ {
			f.Mul(&d.inv[i][j], &d.inv[i][j-1], &base)
		}
		for range 8 {
			f.Square(&base, &base)
		}
	}
	g := z0
	for range s - 8 {
		f.Square(&g, &g)
	}
	e := f.one
	for j := range uint(256) {
		d.byte[e] = j
		f.Mul(&e, &e, &g)
	}
	return d
}

func newSqrtConsts(f *Field, p *big.Int) sqrtConsts {
	one := big.NewInt(1)
	if p.Bit(1) == 1 {
		e := new(big.Int).Add(p, one)
		return sqrtConsts{threeMod4: true, exp: newPowChain(e.Rsh(e, 2))}
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
	sc := sqrtConsts{s: s, exp: newPowChain(new(big.Int).Rsh(q, 1))} // q > 1: p > 2^64 is no Fermat prime
	f.SetBig(&sc.z0, new(big.Int).Exp(c, q, p))
	if s%8 == 0 {
		sc.dlog = newDlogTables(f, sc.z0, s)
	}
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
		f.pow(&r, x, &sc.exp)
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
	f.pow(&w, x, &sc.exp)
	f.Mul(&r, x, &w)
	f.Mul(&t, &r, &w)
	if sc.dlog != nil {
		return f.sqrtByLog(z, x, &r, &t)
	}
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

// sqrtByLog finishes Sqrt from r = x^((q+1)/2) and t = x^q: it finds k with
// t = z0^k byte by byte (s − 8(i+1) squarings for byte i, s²/16 in all
// instead of Tonelli–Shanks' s²/2), and for a square x (k even) returns
// r·z0^(−k/2), whose square is x·t·z0^(−k) = x.
func (f *Field) sqrtByLog(z, x, r, t *Element) bool {
	d, s := f.sqrt.dlog, f.sqrt.s
	var k [2]uint64 // s <= 128
	y := *t
	var e Element
	for i := range s / 8 {
		e = y
		for range s - 8*(i+1) {
			f.Square(&e, &e)
		}
		digit, ok := d.byte[e]
		if !ok {
			*z = Element{}
			return false
		}
		f.Mul(&y, &y, &d.inv[i][digit])
		k[i/8] |= uint64(digit) << (8 * (i % 8))
	}
	if k[0]&1 != 0 { // t is not a square in the group: x is not a square
		*z = Element{}
		return false
	}
	half := [2]uint64{k[0]>>1 | k[1]<<63, k[1] >> 1}
	root := *r
	for i := range s / 8 {
		f.Mul(&root, &root, &d.inv[i][half[i/8]>>(8*(i%8))&0xff])
	}
	var sq Element
	f.Square(&sq, &root)
	if !sq.Equal(x) {
		*z = Element{}
		return false
	}
	*z = root
	return true
}
