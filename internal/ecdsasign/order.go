package ecdsasign

import (
	"math/bits"

	"github.com/rnsec/ecmul/internal/fp"
)

// order is the arithmetic mod the group order n in four-limb Montgomery
// form (internal/fp), constant time in its values: no branch or address
// depends on a key, a nonce or a signature. n's bit length is a multiple
// of 8 on every curve here, so an L-byte candidate is a candidate nonce
// as it is.
type order struct {
	f    *fp.Field
	n    [fp.Limbs]uint64
	half [fp.Limbs]uint64 // (n − 1)/2: s above it is high
	bits int              // bitlen(n)
	size int              // L, the bytes of a scalar
}

// lessMask returns all ones when a < b, else zero.
func lessMask(a, b [fp.Limbs]uint64) uint64 {
	var borrow uint64
	for i := range fp.Limbs {
		_, borrow = bits.Sub64(a[i], b[i], borrow)
	}
	return -borrow
}

// zeroMask returns all ones when l = 0, else zero.
func zeroMask(l [fp.Limbs]uint64) uint64 {
	d := l[0] | l[1] | l[2] | l[3]
	return ((d | -d) >> 63) - 1
}

// inRange returns all ones when 1 <= l <= n − 1, else zero.
func (o *order) inRange(l [fp.Limbs]uint64) uint64 {
	return ^zeroMask(l) & lessMask(l, o.n)
}

// reduce returns l mod n for l < 2n: n subtracted under a mask.
func (o *order) reduce(l [fp.Limbs]uint64) [fp.Limbs]uint64 {
	var d [fp.Limbs]uint64
	var borrow uint64
	for i := range fp.Limbs {
		d[i], borrow = bits.Sub64(l[i], o.n[i], borrow)
	}
	keep := -borrow // l < n
	for i := range fp.Limbs {
		d[i] = l[i]&keep | d[i]&^keep
	}
	return d
}

// bits2int returns the leftmost bitlen(n) bits of b as an integer (RFC
// 6979 §2.3.2; SEC 1's truncation of a digest), for b of at most 64
// bytes: below 2^bitlen(n), not reduced.
func (o *order) bits2int(b []byte) [fp.Limbs]uint64 {
	if size := (o.bits + 7) / 8; len(b) > size {
		b = b[:size]
	}
	e := fp.LimbsFromBytes(b)
	if excess := len(b)*8 - o.bits; excess > 0 {
		e[0] = e[0]>>excess | e[1]<<(64-excess)
		e[1] = e[1]>>excess | e[2]<<(64-excess)
		e[2] = e[2]>>excess | e[3]<<(64-excess)
		e[3] >>= excess
	}
	return e
}

// signature returns s = k⁻¹·(e + r·d) mod n for k⁻¹ in Montgomery form
// (k⁻¹·R, from invertAll) and d in [1, n − 1], r below n and any e below
// 2^256, and, when lowS, n − s in place of an s above (n − 1)/2: Montgomery
// products and masked selections.
func (o *order) signature(ki *fp.Element, d, r, e [fp.Limbs]uint64, lowS bool) [fp.Limbs]uint64 {
	f := o.f
	var dm, rm, em, t fp.Element
	f.SetLimbs(&dm, d)
	f.SetLimbs(&rm, r)
	f.SetLimbs(&em, e) // e mod n
	f.Mul(&t, &rm, &dm)
	f.Add(&t, &t, &em)
	f.Mul(&t, &t, ki)
	s := f.FromMont(&t)
	if lowS {
		s = o.lowS(s)
	}
	return s
}

// invertAll replaces every nonce of ks (Montgomery form, each in
// [1, n − 1]) by its inverse, in Montgomery form, by Montgomery's trick:
// the running products into pre, one inversion of the last, then two
// products per nonce on the way back. The sequence of operations is fixed
// by len(ks) alone, and a nonce is never 0 mod n, so no product is.
func (o *order) invertAll(ks, pre []fp.Element) {
	f, m := o.f, len(ks)
	if m == 0 {
		return
	}
	pre[0] = ks[0]
	for i := 1; i < m; i++ {
		f.Mul(&pre[i], &pre[i-1], &ks[i])
	}
	var inv, t fp.Element
	f.Inverse(&inv, &pre[m-1]) // (k_0⋯k_{m−1})⁻¹·R
	for i := m - 1; i > 0; i-- {
		f.Mul(&t, &inv, &pre[i-1]) // k_i⁻¹·R
		f.Mul(&inv, &inv, &ks[i])  // (k_0⋯k_{i−1})⁻¹·R
		ks[i] = t
	}
	ks[0] = inv
}

// putBits2Octets writes into dst (L bytes) bits2octets(b) = bits2int(b)
// mod n (RFC 6979 §2.3.4), big-endian: where n's bit length is 8L and b
// has L bytes or more, b's first L are read and dst written in line, as a
// signing fill takes each SHA-256 digest (LimbsFromBytes and PutLimbs,
// whose other lengths put them past the inliner's budget, are calls).
func (o *order) putBits2Octets(dst, b []byte) {
	switch {
	case o.bits == 256 && len(dst) == 32 && len(b) >= 32:
		fp.PutLimbs32(dst, o.reduce(fp.Limbs32(b)))
	case o.bits == 224 && len(dst) == 28 && len(b) >= 28:
		fp.PutLimbs28(dst, o.reduce(fp.Limbs28(b)))
	default:
		fp.PutLimbs(dst, o.reduce(o.bits2int(b)))
	}
}

// putLowS writes into dst the L big-endian bytes of lowS(s), s given as L
// big-endian bytes, read and written in line for L = 32 (secp256k1, whose
// signatures take the rule by default), as a drain takes each signature.
func (o *order) putLowS(dst, s []byte) {
	if len(s) == 32 && len(dst) == 32 {
		fp.PutLimbs32(dst, o.lowS(fp.Limbs32(s)))
		return
	}
	fp.PutLimbs(dst, o.lowS(fp.LimbsFromBytes(s)))
}

// lowS returns n − s when s > (n − 1)/2 and s otherwise, for s below n,
// choosing by a mask; its limbs are held apart, where an array would go
// through memory at each step.
func (o *order) lowS(s [fp.Limbs]uint64) [fp.Limbs]uint64 {
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	n0, b := bits.Sub64(o.n[0], s0, 0)
	n1, b := bits.Sub64(o.n[1], s1, b)
	n2, b := bits.Sub64(o.n[2], s2, b)
	n3, _ := bits.Sub64(o.n[3], s3, b)
	_, c := bits.Sub64(o.half[0], s0, 0)
	_, c = bits.Sub64(o.half[1], s1, c)
	_, c = bits.Sub64(o.half[2], s2, c)
	_, c = bits.Sub64(o.half[3], s3, c)
	high := -c // half < s
	return [fp.Limbs]uint64{s0&^high | n0&high, s1&^high | n1&high, s2&^high | n2&high, s3&^high | n3&high}
}
