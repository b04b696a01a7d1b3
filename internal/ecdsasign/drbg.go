package ecdsasign

import (
	"crypto"
	"hash"
	"sync"
)

// drbg is RFC 6979's HMAC_DRBG for one signature (§3.2 steps b–h), over
// the HMAC of one hash. Its HMAC runs on two hash states it keeps, so that
// a signature's nonce allocates nothing; drbgs are reused through
// drbgPool, and wiped between signatures.
type drbg struct {
	h            crypto.Hash
	inner, outer hash.Hash
	size, block  int       // the hash's output and block sizes
	k, v         [64]byte  // K and V, size bytes each
	pad          [128]byte // the key's inner or outer pad, block bytes
	sum          [64]byte  // the inner hash
	sep          [1]byte
	h1           [32]byte // the digest as bits2octets gives it, for seed
}

var drbgPool = sync.Pool{New: func() any { return new(drbg) }}

// seed seeds the generator with the private key and h1, both as RFC
// 6979's int2octets and bits2octets give them, and extra, the additional
// data of §3.6 (empty for deterministic signatures): steps b–g.
func (d *drbg) seed(h crypto.Hash, key, h1, extra []byte) {
	if d.inner == nil || d.h != h {
		d.h, d.inner, d.outer = h, h.New(), h.New()
		d.size, d.block = h.Size(), d.inner.BlockSize()
	}
	clear(d.k[:d.size])
	for i := range d.size {
		d.v[i] = 1
	}
	d.update(0x00, key, h1, extra)
	d.update(0x01, key, h1, extra)
}

// wipe clears K, V and the pads.
func (d *drbg) wipe() {
	clear(d.k[:])
	clear(d.v[:])
	clear(d.pad[:])
	clear(d.sum[:])
	clear(d.h1[:])
}

// mac writes HMAC_K(parts…) into dst (size bytes; it may be K or V: the
// key is read into the pads and every part is read before dst is written).
func (d *drbg) mac(dst []byte, parts [5][]byte) {
	key := d.k[:d.size]
	for i := range d.block {
		var b byte
		if i < len(key) {
			b = key[i]
		}
		d.pad[i] = b ^ 0x36
	}
	d.inner.Reset()
	d.inner.Write(d.pad[:d.block])
	for _, p := range parts {
		d.inner.Write(p)
	}
	s := d.inner.Sum(d.sum[:0])
	for i := range d.block {
		d.pad[i] ^= 0x36 ^ 0x5c
	}
	d.outer.Reset()
	d.outer.Write(d.pad[:d.block])
	d.outer.Write(s)
	d.outer.Sum(dst[:0])
}

// update sets K = HMAC_K(V ‖ sep ‖ data…), then V = HMAC_K(V).
func (d *drbg) update(sep byte, key, h1, extra []byte) {
	d.sep[0] = sep
	d.mac(d.k[:d.size], [5][]byte{d.v[:d.size], d.sep[:], key, h1, extra})
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
