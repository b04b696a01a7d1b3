package ecdsasign

import (
	"bytes"
	"crypto"
	"crypto/hmac"
	"hash"
)

// drbg is RFC 6979's HMAC_DRBG for one signature (§3.2 steps b–h), over
// the HMAC of one hash.
type drbg struct {
	newHash func() hash.Hash
	k, v    []byte
}

// newDRBG seeds the generator with the private key and h1, both as RFC
// 6979's int2octets and bits2octets give them, and extra, the additional
// data of §3.6 (empty for deterministic signatures): steps b–g.
func newDRBG(h crypto.Hash, key, h1, extra []byte) *drbg {
	d := &drbg{newHash: h.New, k: make([]byte, h.Size()), v: bytes.Repeat([]byte{1}, h.Size())}
	d.update(0x00, key, h1, extra)
	d.update(0x01, key, h1, extra)
	return d
}

// update sets K = HMAC_K(V ‖ sep ‖ data…), then V = HMAC_K(V).
func (d *drbg) update(sep byte, data ...[]byte) {
	m := hmac.New(d.newHash, d.k)
	m.Write(d.v)
	m.Write([]byte{sep})
	for _, b := range data {
		m.Write(b)
	}
	d.k = m.Sum(nil)
	m = hmac.New(d.newHash, d.k)
	m.Write(d.v)
	d.v = m.Sum(d.v[:0])
}

// generate fills t with a candidate's bytes (step h.2): V = HMAC_K(V),
// appended until t is full.
func (d *drbg) generate(t []byte) {
	m := hmac.New(d.newHash, d.k)
	for off := 0; off < len(t); {
		m.Reset()
		m.Write(d.v)
		d.v = m.Sum(d.v[:0])
		off += copy(t[off:], d.v)
	}
}

// next moves past a candidate that was refused (step h.3): K =
// HMAC_K(V ‖ 0x00), then V = HMAC_K(V).
func (d *drbg) next() { d.update(0x00) }
