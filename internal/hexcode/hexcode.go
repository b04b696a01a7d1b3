// Package hexcode decodes and encodes hex digits eight at a time, by
// arithmetic on a 64-bit word holding one character per byte: no loop over
// the digits, and no branch on a digit's value nor table indexed by one, so
// that a secret scalar's digits leave no trace in the timing or the cache
// (only a field's length and whether the whole field is hex decide a
// branch). Every hex field of the ecmul command's input is decoded here;
// the stream's line formats and gen encode with it.
package hexcode

import (
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
)

// ones has a 1 in each byte; c·ones is c in each byte.
const ones = 0x0101010101010101

// DecodeInto decodes a field of hex digits (no prefix) into dst, right-aligned,
// when it has at most 2·len(dst) digits, all hex.
func DecodeInto(dst, field []byte) bool {
	if len(field) == 0 || len(field) > 2*len(dst) {
		return false
	}
	var bad uint64
	at := len(dst)
	for ; len(field) >= 16; field = field[:len(field)-16] {
		x, y := binary.BigEndian.Uint64(field[len(field)-16:]), binary.BigEndian.Uint64(field[len(field)-8:])
		at -= 8
		binary.BigEndian.PutUint64(dst[at:], uint64(decode8(x))<<32|uint64(decode8(y)))
		bad |= notHex(x) | notHex(y)
	}
	if len(field) >= 8 {
		x := binary.BigEndian.Uint64(field[len(field)-8:])
		at -= 4
		binary.BigEndian.PutUint32(dst[at:], decode8(x))
		bad |= notHex(x)
		field = field[:len(field)-8]
	}
	if r := len(field); r > 0 { // the leading digits, after zeros up to eight
		word := [8]byte{'0', '0', '0', '0', '0', '0', '0', '0'}
		copy(word[8-r:], field)
		x := binary.BigEndian.Uint64(word[:])
		var out [4]byte
		binary.BigEndian.PutUint32(out[:], decode8(x))
		n := (r + 1) / 2
		at -= n
		copy(dst[at:], out[4-n:])
		bad |= notHex(x)
	}
	clear(dst[:at])
	return bad&(0x80*ones) == 0
}

// TrimPrefix returns field without a leading 0x or 0X. Whether there is
// one is found without a branch on the field's bytes: "x" is no hex digit,
// so a prefix is a matter of spelling, not of the value.
func TrimPrefix(field []byte) []byte {
	if len(field) < 2 {
		return field
	}
	prefix := subtle.ConstantTimeByteEq(field[0], '0') & subtle.ConstantTimeByteEq(field[1]|0x20, 'x')
	return field[2*prefix:]
}

// DecodePadded is DecodeInto for a field that may also carry leading zeros
// beyond 2·len(dst) digits, up to maxLen characters in all: it reports
// false for a field of more than maxLen characters, or whose value does
// not fit dst. The zeros are checked by an OR over them, not a branch per
// character.
func DecodePadded(dst, field []byte, maxLen int) bool {
	if len(field) > maxLen {
		return false
	}
	if n := len(field) - 2*len(dst); n > 0 {
		var nonzero byte
		for _, ch := range field[:n] {
			nonzero |= ch ^ '0'
		}
		if nonzero != 0 {
			return false
		}
		field = field[n:]
	}
	return DecodeInto(dst, field)
}

// IndexNonHex returns the offset of the first byte of field that is not a
// hex digit, or -1 when every byte is one. It branches on the bytes: it is
// for saying what is wrong with a field the decoders refused, never for
// deciding whether they accept it.
func IndexNonHex(field []byte) int {
	for i, ch := range field {
		if !('0' <= ch && ch <= '9' || 'a' <= ch|0x20 && ch|0x20 <= 'f') {
			return i
		}
	}
	return -1
}

// QuoteByte shows a byte of a refused field in an error message: quoted
// when it is printable ASCII, as 0xff when it is not (%q would show a lone
// byte as the rune of its value).
func QuoteByte(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return strconv.QuoteRune(rune(b))
	}
	return fmt.Sprintf("0x%02x", b)
}

// notHex has the top bit of each byte of x that is not a hex digit set.
func notHex(x uint64) uint64 {
	// a byte below 0x80 plus 0x80-c has its top bit set when it is >= c
	digit := (x + (0x80-'0')*ones) &^ (x + (0x80-'9'-1)*ones)
	lower := x | 0x20*ones // A-F as a-f
	letter := (lower + (0x80-'a')*ones) &^ (lower + (0x80-'f'-1)*ones)
	return x | ^(digit | letter)
}

// decode8 decodes the eight hex digits of x (the first in the highest
// byte) into four bytes (the first in the highest byte); what it makes of
// other bytes is undefined.
func decode8(x uint64) uint32 {
	n := x&(0x0f*ones) + (x>>6&ones)*9  // each digit's value: bit 6 is set in letters only
	n = (n | n>>4) & 0x00ff00ff00ff00ff // pairs of digits into bytes
	n = (n | n>>8) & 0x0000ffff0000ffff
	return uint32(n | n>>16)
}

// Append appends b as lowercase hex.
func Append(dst, b []byte) []byte {
	at := len(dst)
	dst = slices.Grow(dst, 2*len(b))[:at+2*len(b)]
	out := dst[at:]
	for ; len(b) >= 4; b, out = b[4:], out[8:] {
		binary.LittleEndian.PutUint64(out, encode4(binary.LittleEndian.Uint32(b)))
	}
	for i, c := range b {
		var word [8]byte
		binary.LittleEndian.PutUint64(word[:], encode4(uint32(c)))
		out[2*i], out[2*i+1] = word[0], word[1]
	}
	return dst
}

// encode4 encodes the four bytes of v (the first in the lowest byte) as
// eight lowercase hex digits (the first in the lowest byte).
func encode4(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff                      // one byte in each 16 bits
	n := x>>4&0x000f000f000f000f | (x&0x000f000f000f000f)<<8 // one digit in each byte
	letter := (n + (0x80-10)*ones) >> 7 & ones               // 1 where the digit is 10 or more
	return n + '0'*ones + letter*('a'-'0'-10)
}
