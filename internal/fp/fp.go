// Package fp is arithmetic modulo an odd prime p < 2^256 on four 64-bit
// limbs in Montgomery form with R = 2^256. It serves the host-side
// conversions around the RNS kernel (CRT into the field, the batched affine
// conversion, the Montgomery form of the kernel's inputs), where math/big
// costs microseconds and allocations per item.
//
// Every Element a Field produces is canonical, below p, so that IsZero and
// Equal compare values. The arithmetic (Mul, Square, Add, Sub, Neg,
// Reduce5, and Inverse, a fixed number of safegcd divsteps) runs without a
// branch or an index on the values, since it handles the results of scalar
// multiplications (ECDH shared secrets); IsZero, Equal, Sqrt and the
// conversions from math/big do not, and serve public data and checks.
//
// On amd64 with BMI2 and ADX, Mul runs in assembly (mul_amd64.s) with two
// carry chains side by side; the Go code is its reference and runs
// elsewhere (and under the purego build tag).
package fp

import (
	"errors"
	"math/big"
	"math/bits"
)

// Limbs is the number of 64-bit words of an element.
const Limbs = 4

// Element is x·R mod p for the value x it stands for (its Montgomery form),
// least significant limb first, always below p.
type Element [Limbs]uint64

// Field is the prime field GF(p) with its Montgomery constants. It is
// immutable once built and safe for concurrent use.
type Field struct {
	p    [Limbs]uint64
	pInv uint64    // −p^{-1} mod 2^64
	one  Element   // R mod p: the Montgomery form of 1
	r2   Element   // R² mod p: Mul by it moves a canonical value into Montgomery form
	inv  invConsts // Inverse's constants (inverse.go)
	pBig *big.Int
	sqrt sqrtConsts
}

// New returns the field of the odd prime p, 2^64 < p < 2^256. The lower
// bound keeps Reduce5 exact on every five-limb input.
func New(p *big.Int) (*Field, error) {
	if p == nil || p.Sign() <= 0 || p.Bit(0) == 0 || p.BitLen() > 64*Limbs || p.BitLen() <= 64 {
		return nil, errors.New("fp: p must be odd with 2^64 < p < 2^256")
	}
	if !p.ProbablyPrime(20) {
		return nil, errors.New("fp: p is not prime")
	}
	f := &Field{pBig: new(big.Int).Set(p)}
	f.p = toLimbs(p)
	// Newton's iteration for p^{-1} mod 2^64: each step doubles the correct bits.
	inv := f.p[0] // correct to 3 bits for odd p
	for range 6 {
		inv *= 2 - f.p[0]*inv
	}
	f.pInv = -inv
	r := new(big.Int).Lsh(big.NewInt(1), 64*Limbs)
	f.one = Element(toLimbs(new(big.Int).Mod(r, p)))
	f.r2 = Element(toLimbs(new(big.Int).Mod(new(big.Int).Mul(r, r), p)))
	f.inv = newInvConsts(p)
	f.sqrt = newSqrtConsts(f, p)
	return f, nil
}

// toLimbs returns the low 256 bits of a non-negative x as limbs.
func toLimbs(x *big.Int) [Limbs]uint64 {
	var l [Limbs]uint64
	ws := x.Bits()
	if bits.UintSize == 64 {
		for i := 0; i < Limbs && i < len(ws); i++ {
			l[i] = uint64(ws[i])
		}
		return l
	}
	for i := 0; i < 2*Limbs && i < len(ws); i++ {
		l[i/2] |= uint64(ws[i]) << (32 * (i % 2))
	}
	return l
}

// P returns a copy of the modulus.
func (f *Field) P() *big.Int { return new(big.Int).Set(f.pBig) }

// Modulus returns the limbs of p.
func (f *Field) Modulus() [Limbs]uint64 { return f.p }

// One returns the Montgomery form of 1.
func (f *Field) One() Element { return f.one }

// RSquare returns R² mod p: Mul(z, x, RSquare) turns a canonical value x < 2^256
// into its Montgomery form, and Mul(z, x, y) with y = c·R² mod p gives c·x·R mod p.
func (f *Field) RSquare() Element { return f.r2 }

// IsZero reports whether z stands for 0.
func (z *Element) IsZero() bool { return z[0]|z[1]|z[2]|z[3] == 0 }

// Equal reports whether z and x stand for the same value.
func (z *Element) Equal(x *Element) bool {
	return z[0] == x[0] && z[1] == x[1] && z[2] == x[2] && z[3] == x[3]
}

// reduceOnce sets z to (hi, t) − p when (hi, t) >= p and to t otherwise,
// for (hi, t) < 2p.
func (f *Field) reduceOnce(z *Element, t *[Limbs]uint64, hi uint64) {
	subtractOnce(z, t[0], t[1], t[2], t[3], hi, &f.p)
}

// subtractOnce sets z to t − p when t = (t0, t1, t2, t3, hi) >= p and to t
// otherwise, for t < 2p, choosing by a mask rather than a branch.
func subtractOnce(z *Element, t0, t1, t2, t3, hi uint64, p *[Limbs]uint64) {
	s0, b := bits.Sub64(t0, p[0], 0)
	s1, b := bits.Sub64(t1, p[1], b)
	s2, b := bits.Sub64(t2, p[2], b)
	s3, b := bits.Sub64(t3, p[3], b)
	_, b = bits.Sub64(hi, 0, b)
	// b = 1: t < p, keep t
	keep := -b
	z[0] = t0&keep | s0&^keep
	z[1] = t1&keep | s1&^keep
	z[2] = t2&keep | s2&^keep
	z[3] = t3&keep | s3&^keep
}

// Mul sets z = x·y·R^{-1} mod p: the Montgomery product, so the Montgomery
// forms of a and b give that of a·b. It is exact for any x < 2^256 and
// y < p (the result is then below p), which also makes it the conversion
// of a raw value x by a precomputed y = c·R² mod p. z may alias x or y.
func (f *Field) Mul(z, x, y *Element) { montMul(z, x, y, &f.p, f.pInv) }

// montMulGeneric is Mul for the modulus p with pInv = −p^{-1} mod 2^64, in
// Go: the reference for the assembly and the code on other architectures.
func montMulGeneric(z, x, y *Element, p *[Limbs]uint64, pInv uint64) {
	// Coarsely integrated operand scanning: per word y_i, t += x·y_i, then
	// t = (t + m·p)/2^64 with m = −t·p^{-1} mod 2^64 clearing the low word.
	// Each step adds the low halves of four products in one carry chain and
	// the high halves in a second one. With x < 2^256 and y < p,
	// t < (x·y + (R−1)·p)/R < 2p at the end; between steps t < 2^257 fits
	// t0…t4, and t5 takes the carry within a step.
	var t0, t1, t2, t3, t4, t5, c uint64
	for i := range Limbs {
		yi := y[i]
		h0, l0 := bits.Mul64(x[0], yi)
		h1, l1 := bits.Mul64(x[1], yi)
		h2, l2 := bits.Mul64(x[2], yi)
		h3, l3 := bits.Mul64(x[3], yi)
		t0, c = bits.Add64(t0, l0, 0)
		t1, c = bits.Add64(t1, l1, c)
		t2, c = bits.Add64(t2, l2, c)
		t3, c = bits.Add64(t3, l3, c)
		t4, t5 = bits.Add64(t4, 0, c)
		t1, c = bits.Add64(t1, h0, 0)
		t2, c = bits.Add64(t2, h1, c)
		t3, c = bits.Add64(t3, h2, c)
		t4, c = bits.Add64(t4, h3, c)
		t5 += c

		m := t0 * pInv
		h0, l0 = bits.Mul64(m, p[0])
		h1, l1 = bits.Mul64(m, p[1])
		h2, l2 = bits.Mul64(m, p[2])
		h3, l3 = bits.Mul64(m, p[3])
		_, c = bits.Add64(t0, l0, 0)
		t1, c = bits.Add64(t1, l1, c)
		t2, c = bits.Add64(t2, l2, c)
		t3, c = bits.Add64(t3, l3, c)
		t4, c = bits.Add64(t4, 0, c)
		t5 += c
		t0, c = bits.Add64(t1, h0, 0)
		t1, c = bits.Add64(t2, h1, c)
		t2, c = bits.Add64(t3, h2, c)
		t3, c = bits.Add64(t4, h3, c)
		t4 = t5 + c
	}
	subtractOnce(z, t0, t1, t2, t3, t4, p)
}

// Square sets z = x²·R^{-1} mod p.
func (f *Field) Square(z, x *Element) { f.Mul(z, x, x) }

// Add sets z = x + y mod p.
func (f *Field) Add(z, x, y *Element) {
	var t [Limbs]uint64
	var c uint64
	t[0], c = bits.Add64(x[0], y[0], 0)
	t[1], c = bits.Add64(x[1], y[1], c)
	t[2], c = bits.Add64(x[2], y[2], c)
	t[3], c = bits.Add64(x[3], y[3], c)
	f.reduceOnce(z, &t, c)
}

// Double sets z = 2x mod p.
func (f *Field) Double(z, x *Element) { f.Add(z, x, x) }

// Sub sets z = x − y mod p.
func (f *Field) Sub(z, x, y *Element) {
	var t [Limbs]uint64
	var b uint64
	t[0], b = bits.Sub64(x[0], y[0], 0)
	t[1], b = bits.Sub64(x[1], y[1], b)
	t[2], b = bits.Sub64(x[2], y[2], b)
	t[3], b = bits.Sub64(x[3], y[3], b)
	// a borrow adds p back, masked rather than branched
	mask := -b
	var c uint64
	t[0], c = bits.Add64(t[0], f.p[0]&mask, 0)
	t[1], c = bits.Add64(t[1], f.p[1]&mask, c)
	t[2], c = bits.Add64(t[2], f.p[2]&mask, c)
	t[3], _ = bits.Add64(t[3], f.p[3]&mask, c)
	*z = Element(t)
}

// Neg sets z = −x mod p.
func (f *Field) Neg(z, x *Element) {
	d := x[0] | x[1] | x[2] | x[3]
	nonZero := -((d | -d) >> 63) // all ones unless x = 0, which stays 0
	var b uint64
	z[0], b = bits.Sub64(f.p[0]&nonZero, x[0], 0)
	z[1], b = bits.Sub64(f.p[1]&nonZero, x[1], b)
	z[2], b = bits.Sub64(f.p[2]&nonZero, x[2], b)
	z[3], _ = bits.Sub64(f.p[3]&nonZero, x[3], b)
}

// Reduce5 sets z = t·R^{-1} mod p for a five-limb t = Σ t[i]·2^(64i)
// (Montgomery reduction). With p > 2^64 every t < 2^320 is below p·R: each
// of the four word steps t = (t + m·p)/2^64 keeps t < 2^257, and at the end
// t < t_in/R + p < 2^64 + p < 2p, so one conditional subtraction makes it
// canonical.
func (f *Field) Reduce5(z *Element, t *[5]uint64) {
	t0, t1, t2, t3, t4 := t[0], t[1], t[2], t[3], t[4]
	var t5, c uint64
	p := &f.p
	for range Limbs {
		m := t0 * f.pInv
		h0, l0 := bits.Mul64(m, p[0])
		h1, l1 := bits.Mul64(m, p[1])
		h2, l2 := bits.Mul64(m, p[2])
		h3, l3 := bits.Mul64(m, p[3])
		_, c = bits.Add64(t0, l0, 0)
		t1, c = bits.Add64(t1, l1, c)
		t2, c = bits.Add64(t2, l2, c)
		t3, c = bits.Add64(t3, l3, c)
		t4, t5 = bits.Add64(t4, 0, c)
		t0, c = bits.Add64(t1, h0, 0)
		t1, c = bits.Add64(t2, h1, c)
		t2, c = bits.Add64(t3, h2, c)
		t3, c = bits.Add64(t4, h3, c)
		t4 = t5 + c
	}
	subtractOnce(z, t0, t1, t2, t3, t4, p)
}

// FromMont returns the canonical limbs of the value z stands for.
func (f *Field) FromMont(z *Element) [Limbs]uint64 {
	var r Element
	f.Reduce5(&r, &[5]uint64{z[0], z[1], z[2], z[3], 0})
	return r
}

// SetLimbs sets z to the Montgomery form of the raw value l mod p, for any l < 2^256.
func (f *Field) SetLimbs(z *Element, l [Limbs]uint64) {
	x := Element(l)
	f.Mul(z, &x, &f.r2)
}

// SetUint64 sets z to the Montgomery form of v.
func (f *Field) SetUint64(z *Element, v uint64) { f.SetLimbs(z, [Limbs]uint64{v}) }

// SetInt64 sets z to the Montgomery form of v mod p.
func (f *Field) SetInt64(z *Element, v int64) {
	if v >= 0 {
		f.SetUint64(z, uint64(v))
		return
	}
	f.SetUint64(z, uint64(-(v+1))+1)
	f.Neg(z, z)
}

// SetBig sets z to the Montgomery form of x mod p, for any x (negative or
// not below p included); the usual case 0 <= x < 2^256 needs no math/big
// arithmetic and does not allocate.
func (f *Field) SetBig(z *Element, x *big.Int) {
	if x.Sign() < 0 || x.BitLen() > 64*Limbs {
		x = new(big.Int).Mod(x, f.pBig)
	}
	f.SetLimbs(z, toLimbs(x))
}

// Big returns the canonical value z stands for as a new big.Int.
func (f *Field) Big(z *Element) *big.Int {
	return f.SetBigInt(new(big.Int), z, nil)
}

// WordsPerElement is the number of big.Word a canonical value needs.
const WordsPerElement = Limbs * 64 / bits.UintSize

// SetBigInt sets r to the canonical value z stands for and returns r. When
// buf has room for WordsPerElement words, r takes buf[:WordsPerElement]
// (capacity capped, so later growth of r reallocates instead of writing
// past it) as its storage and nothing is allocated.
func (f *Field) SetBigInt(r *big.Int, z *Element, buf []big.Word) *big.Int {
	l := f.FromMont(z)
	var ws []big.Word
	if len(buf) >= WordsPerElement {
		ws = buf[:WordsPerElement:WordsPerElement]
	} else {
		ws = make([]big.Word, WordsPerElement)
	}
	if bits.UintSize == 64 {
		for i := range Limbs {
			ws[i] = big.Word(l[i])
		}
	} else {
		for i := range 2 * Limbs {
			ws[i] = big.Word(l[i/2] >> (32 * (i % 2)))
		}
	}
	return r.SetBits(ws)
}
