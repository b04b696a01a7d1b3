package fp

import "math/bits"

// LimbsFromBytes reads a big-endian value of at most 32 bytes into limbs,
// least significant first.
func LimbsFromBytes(b []byte) [Limbs]uint64 {
	var l [Limbs]uint64
	for i, c := range b {
		pos := len(b) - 1 - i // byte position from the least significant end
		l[pos/8] |= uint64(c) << (8 * (pos % 8))
	}
	return l
}

// PutLimbs writes l big-endian into all of dst (at most 32 bytes), dropping
// what does not fit.
func PutLimbs(dst []byte, l [Limbs]uint64) {
	for i := range dst {
		pos := len(dst) - 1 - i
		dst[i] = byte(l[pos/8] >> (8 * (pos % 8)))
	}
}

// Less reports whether a < b, in time independent of the values.
func Less(a, b [Limbs]uint64) bool {
	var borrow uint64
	for i := range Limbs {
		_, borrow = bits.Sub64(a[i], b[i], borrow)
	}
	return borrow == 1
}

// SetBytes sets z to the Montgomery form of the big-endian value b (at most
// 32 bytes) and reports whether that value is below p; z is set either way
// (to the value mod 2^256 reduced by the multiplication), so the caller
// decides without a branch on the data.
func (f *Field) SetBytes(z *Element, b []byte) bool {
	l := LimbsFromBytes(b)
	f.SetLimbs(z, l)
	return Less(l, f.p)
}

// PutBytes writes the canonical value z stands for, big-endian, into all of
// dst (at most 32 bytes; the value must fit).
func (f *Field) PutBytes(dst []byte, z *Element) {
	PutLimbs(dst, f.FromMont(z))
}
