package ecdsasign

import (
	"crypto"
	"encoding"
	"encoding/binary"
	"hash"
	"sync"
)

// drbg is RFC 6979's HMAC_DRBG for one signature (§3.2 steps b–h), over
// the HMAC of one hash. Its HMAC runs on two hash states it keeps, so that
// a signature's nonce allocates nothing, and each key's padded blocks are
// hashed once, when K is set: every HMAC under that key starts from the
// saved states. drbgs are reused through drbgPool, and wiped between
// signatures.
type drbg struct {
	h                  crypto.Hash
	inner, outer       keyedHash
	size, block        int       // the hash's output and block sizes
	k, v               [64]byte  // K and V, size bytes each
	pad                [128]byte // the key's inner or outer pad, block bytes
	innerKey, outerKey [256]byte // the states after K's inner and outer pads
	innerLen, outerLen int       // their lengths
	sum                [64]byte  // the inner hash
	sep                [1]byte
	h1                 [32]byte // the digest as bits2octets gives it, for seed

	// the states after the pads of K = 0, every signature's first key:
	// public, computed once for the hash and kept across wipes
	zeroInner, zeroOuter [256]byte
}

// keyedHash is a hash whose state can be saved and restored, as those of
// every hash of hash.go are.
type keyedHash interface {
	hash.Hash
	encoding.BinaryAppender
	encoding.BinaryUnmarshaler
}

var drbgPool = sync.Pool{New: func() any { return new(drbg) }}

// seed seeds the generator with the private key and h1, both as RFC
// 6979's int2octets and bits2octets give them, and extra, the additional
// data of §3.6 (empty for deterministic signatures): steps b–g.
func (d *drbg) seed(h crypto.Hash, key, h1, extra []byte) {
	if d.inner == nil || d.h != h {
		d.h, d.inner, d.outer = h, h.New().(keyedHash), h.New().(keyedHash)
		d.size, d.block = h.Size(), d.inner.BlockSize()
		clear(d.k[:d.size])
		d.keyed()
		copy(d.zeroInner[:], d.innerKey[:d.innerLen])
		copy(d.zeroOuter[:], d.outerKey[:d.outerLen])
	}
	clear(d.k[:d.size])
	copy(d.innerKey[:], d.zeroInner[:d.innerLen]) // K = 0's keyed states
	copy(d.outerKey[:], d.zeroOuter[:d.outerLen])
	for i := range d.size {
		d.v[i] = 1
	}
	d.update(0x00, key, h1, extra)
	d.update(0x01, key, h1, extra)
}

// wipe clears K, V, the pads and the keyed states.
func (d *drbg) wipe() {
	clear(d.k[:])
	clear(d.v[:])
	clear(d.pad[:])
	clear(d.innerKey[:])
	clear(d.outerKey[:])
	clear(d.sum[:])
	clear(d.h1[:])
}

// keyed saves the states of the inner and outer hashes after K's padded
// blocks, for every HMAC under K.
func (d *drbg) keyed() {
	clear(d.pad[copy(d.pad[:d.block], d.k[:d.size]):d.block])
	xorPad(d.pad[:d.block], 0x36)
	d.innerLen = d.saveAfter(d.inner, d.innerKey[:0])
	xorPad(d.pad[:d.block], 0x36^0x5c)
	d.outerLen = d.saveAfter(d.outer, d.outerKey[:0])
}

// xorPad xors every byte of pad, a whole number of 8-byte words, with c,
// a word at a time.
func xorPad(pad []byte, c byte) {
	w := uint64(c) * 0x0101010101010101
	for i := 0; i < len(pad); i += 8 {
		binary.LittleEndian.PutUint64(pad[i:], binary.LittleEndian.Uint64(pad[i:])^w)
	}
}

// saveAfter hashes the pad on a fresh state of h and appends that state
// to dst, whose capacity holds it; it returns its length.
func (d *drbg) saveAfter(h keyedHash, dst []byte) int {
	h.Reset()
	h.Write(d.pad[:d.block])
	st, err := h.AppendBinary(dst)
	if err != nil || &st[0] != &dst[:1][0] {
		panic("ecdsasign: a hash state that does not fit its buffer")
	}
	return len(st)
}

// mac writes HMAC_K(parts…) into dst (size bytes; it may be K or V: every
// part is read before dst is written; where dst is K, keyed must follow).
func (d *drbg) mac(dst []byte, parts [5][]byte) {
	restore(d.inner, d.innerKey[:d.innerLen])
	for _, p := range parts {
		d.inner.Write(p)
	}
	s := d.inner.Sum(d.sum[:0])
	restore(d.outer, d.outerKey[:d.outerLen])
	d.outer.Write(s)
	d.outer.Sum(dst[:0])
}

// restore sets h to a state saved by saveAfter.
func restore(h keyedHash, state []byte) {
	if err := h.UnmarshalBinary(state); err != nil {
		panic("ecdsasign: a saved hash state does not restore: " + err.Error())
	}
}

// update sets K = HMAC_K(V ‖ sep ‖ data…), then V = HMAC_K(V).
func (d *drbg) update(sep byte, key, h1, extra []byte) {
	d.sep[0] = sep
	d.mac(d.k[:d.size], [5][]byte{d.v[:d.size], d.sep[:], key, h1, extra})
	d.keyed()
	d.mac(d.v[:d.size], [5][]byte{d.v[:d.size]})
}

// generate fills t with a candidate's bytes (step h.2): V = HMAC_K(V),
// appended until t is full.
func (d *drbg) generate(t []byte) {
	for off := 0; off < len(t); {
		d.mac(d.v[:d.size], [5][]byte{d.v[:d.size]})
		off += copy(t[off:], d.v[:d.size])
	}
}

// next moves past a candidate that was refused (step h.3): K =
// HMAC_K(V ‖ 0x00), then V = HMAC_K(V).
func (d *drbg) next() { d.update(0x00, nil, nil, nil) }
