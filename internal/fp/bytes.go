package fp

import (
	"encoding/binary"
	"math/bits"
)

// LimbsFromBytes reads a big-endian value of at most 32 bytes into limbs,
// least significant first. The 32 and 28 bytes of the curves' scalars and
// coordinates are read in place, without a copy: a batch reads millions.
func LimbsFromBytes(b []byte) [Limbs]uint64 {
	switch len(b) {
	case 32:
		return Limbs32(b)
	case 28:
		return Limbs28(b)
	}
	var buf [8 * Limbs]byte
	copy(buf[len(buf)-len(b):], b)
	return [Limbs]uint64{
		binary.BigEndian.Uint64(buf[24:]), binary.BigEndian.Uint64(buf[16:]),
		binary.BigEndian.Uint64(buf[8:]), binary.BigEndian.Uint64(buf[0:]),
	}
}

// PutLimbs writes l big-endian into all of dst (at most 32 bytes), dropping
// what does not fit; 32 and 28 bytes in place, as LimbsFromBytes reads them.
func PutLimbs(dst []byte, l [Limbs]uint64) {
	switch len(dst) {
	case 32:
		PutLimbs32(dst, l)
		return
	case 28:
		PutLimbs28(dst, l)
		return
	}
	var buf [8 * Limbs]byte
	binary.BigEndian.PutUint64(buf[0:], l[3])
	binary.BigEndian.PutUint64(buf[8:], l[2])
	binary.BigEndian.PutUint64(buf[16:], l[1])
	binary.BigEndian.PutUint64(buf[24:], l[0])
	copy(dst, buf[len(buf)-len(dst):])
}

// Limbs32 is LimbsFromBytes of the first 32 bytes of b, inlined where a
// per-item pass calls it.
func Limbs32(b []byte) [Limbs]uint64 {
	return [Limbs]uint64{binary.BigEndian.Uint64(b[24:]), binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[0:])}
}

// Limbs28 is LimbsFromBytes of the first 28 bytes of b, inlined.
func Limbs28(b []byte) [Limbs]uint64 {
	return [Limbs]uint64{binary.BigEndian.Uint64(b[20:]), binary.BigEndian.Uint64(b[12:]),
		binary.BigEndian.Uint64(b[4:]), uint64(binary.BigEndian.Uint32(b[0:]))}
}

// PutLimbs32 is PutLimbs into the first 32 bytes of dst, inlined.
func PutLimbs32(dst []byte, l [Limbs]uint64) {
	binary.BigEndian.PutUint64(dst[0:], l[3])
	binary.BigEndian.PutUint64(dst[8:], l[2])
	binary.BigEndian.PutUint64(dst[16:], l[1])
	binary.BigEndian.PutUint64(dst[24:], l[0])
}

// PutLimbs28 is PutLimbs into the first 28 bytes of dst, inlined.
func PutLimbs28(dst []byte, l [Limbs]uint64) {
	binary.BigEndian.PutUint32(dst[0:], uint32(l[3]))
	binary.BigEndian.PutUint64(dst[4:], l[2])
	binary.BigEndian.PutUint64(dst[12:], l[1])
	binary.BigEndian.PutUint64(dst[20:], l[0])
}

// AllZero reports whether every byte of b is zero, in time independent of
// their values: eight bytes at a time, then the rest one by one.
func AllZero(b []byte) bool {
	var or uint64
	for ; len(b) >= 8; b = b[8:] {
		or |= binary.LittleEndian.Uint64(b)
	}
	for _, v := range b {
		or |= uint64(v)
	}
	return or == 0
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

// MaxWideBytes is the longest value SetWideBytes reduces.
const MaxWideBytes = 16 * Limbs

// SetWideBytes sets z to the Montgomery form of the big-endian value b mod
// p, for b of at most MaxWideBytes bytes (it reports false, z unset, for a
// longer b): b = hi·2^256 + lo becomes hi·R·R + lo·R, in time that depends
// on len(b) only, with no branch on the value and no address that depends
// on it.
func (f *Field) SetWideBytes(z *Element, b []byte) bool {
	if len(b) > MaxWideBytes {
		return false
	}
	var buf [MaxWideBytes]byte
	copy(buf[len(buf)-len(b):], b)
	var hi, lo Element
	f.SetLimbs(&hi, LimbsFromBytes(buf[:8*Limbs])) // hi·R
	f.Mul(&hi, &hi, &f.r2)                         // (hi·2^256)·R
	f.SetLimbs(&lo, LimbsFromBytes(buf[8*Limbs:])) // lo·R
	f.Add(z, &hi, &lo)
	return true
}
