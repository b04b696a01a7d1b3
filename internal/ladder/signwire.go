package ladder

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
)

// A signing batch runs on the comb as bytes, with its nonces derived and
// its signatures finished on the GPU: the sign unpack kernel
// (ecm_signunpack_*) reads, for a chunk of count items, count private keys
// d then count h1 = bits2octets(digest) (ByteLen bytes each, big-endian;
// the host has checked d in [1, n − 1] and reduced h1 mod n), derives each
// item's nonce k as RFC 6979's first candidate over HMAC-SHA-256 (qlen =
// 8·ByteLen: the leftmost ByteLen bytes of the first V), writes k over d
// and does the comb's unpack on it (UnpackWireItem), and keeps k, d and h1
// in the sign rows (SignRowAt, SignRowNonce, SignRowKey, SignRowH1). After
// the comb and its finish, the sign pack kernel (ecm_signpack_*) writes,
// for count items, the signature r‖s (2·ByteLen bytes, big-endian: r =
// x(k·G) mod n, s = k⁻¹·(h1 + r·d) mod n, k inverted by Fermat's little
// theorem, in constant time) then count outcome bytes: OutPoint for a
// signature, whose r or s may still be 0 (the RFC's retry, the host's to
// see), OutRefused for a k outside [1, n − 1] (as likely as 2^−32 on
// P-256: the host derives the next candidate itself), or the finish's
// outcome where k·G is no point, with zero bytes for both. The nonce never
// leaves the GPU. UnpackSignOnHost and PackSignOnHost are the kernels' CPU
// twins.

// The sign rows of an item, from SignRowAt: k, d and h1, eight words each,
// least significant first.
const (
	SignRowNonce = 0
	SignRowKey   = finishElementWords
	SignRowH1    = 2 * finishElementWords
	SignRows     = 3 * finishElementWords
)

// ProveSignArithmetic checks what the sign pack kernel's arithmetic mod n
// relies on for the curve of prime p and order n: x(k·G) < p < 2n, so that
// r = x mod n is x less n at most once, by a mask; n odd and 2^64 < n <
// 2^256, so that Montgomery products with R = 2^256 in eight 32-bit limbs
// (field.cuh's FeField) reduce every product of values below n to below
// n; and n prime, so that k^(n−2) is k⁻¹ for every k in [1, n − 1].
func ProveSignArithmetic(p, n *big.Int) error {
	two64, two256 := new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Lsh(big.NewInt(1), 256)
	switch {
	case p.Cmp(new(big.Int).Lsh(n, 1)) >= 0:
		return fmt.Errorf("p ≥ 2n: r = x mod n needs more than one subtraction")
	case n.Bit(0) == 0 || n.Cmp(two64) <= 0 || n.Cmp(two256) >= 0:
		return fmt.Errorf("n is not odd and between 2^64 and 2^256")
	case !n.ProbablyPrime(32):
		return fmt.Errorf("n is not prime: k^(n−2) is not k⁻¹")
	}
	return nil
}

// SignWireInBytes returns the bytes of one item's wire input in a signing
// batch: its private key and its h1.
func (su *Setup) SignWireInBytes() int { return 2 * su.Curve.ByteLen() }

// SignWireOutBytes returns the bytes of one item's wire output in a
// signing batch: r, s and the outcome.
func (su *Setup) SignWireOutBytes() int { return 2*su.Curve.ByteLen() + 1 }

// SignRowAt returns the input row where an item's sign rows start: after
// the comb's finish rows. The wire output, which the sign pack kernel
// writes over the input rows, ends before it (SignWireOutBytes ≤ 4·SignRowAt).
func (su *Setup) SignRowAt() int { return su.GPUInputRows() }

// SignInputRows returns the input rows per item of a signing batch.
func (su *Setup) SignInputRows() int { return su.SignRowAt() + SignRows }

// Nonce6979 returns RFC 6979's first candidate nonce (§3.2, steps b–h)
// over HMAC-SHA-256 for the private key d and h1 = bits2octets(digest),
// both L = len(d) bytes, qlen = 8L ≤ 256: the leftmost L bytes of the first
// V generated. It is the twin of the sign unpack kernel's derivation, in
// plain crypto/hmac: it is not constant time.
func Nonce6979(d, h1 []byte) []byte {
	if len(d) != len(h1) || len(d) > sha256.Size {
		panic(fmt.Sprintf("ladder: Nonce6979 of %d and %d bytes", len(d), len(h1)))
	}
	v := make([]byte, sha256.Size)
	for i := range v {
		v[i] = 1
	}
	k := make([]byte, sha256.Size)
	mac := func(key []byte, parts ...[]byte) []byte {
		m := hmac.New(sha256.New, key)
		for _, p := range parts {
			m.Write(p)
		}
		return m.Sum(nil)
	}
	for _, sep := range []byte{0x00, 0x01} {
		k = mac(k, v, []byte{sep}, d, h1)
		v = mac(k, v)
	}
	v = mac(k, v)
	return v[:len(d)]
}

// UnpackSignOnHost is the CPU twin of the sign unpack kernel: it unpacks
// the first count items of a chunk of count items from wire, which it
// rewrites as the kernel does (k over d), into the input rows (in,
// scalars) of a signing batch of stride items.
func (su *Setup) UnpackSignOnHost(wire []byte, in, scalars []uint32, count, stride int) {
	for i := range count {
		su.UnpackSignWireItem(wire, in, scalars, count, stride, i)
	}
}

// UnpackSignWireItem is UnpackSignOnHost on item i alone.
func (su *Setup) UnpackSignWireItem(wire []byte, in, scalars []uint32, count, stride, i int) {
	L := su.Curve.ByteLen()
	d, h1 := wire[i*L:(i+1)*L], wire[count*L+i*L:count*L+(i+1)*L]
	su.putSignRow(in, stride, i, SignRowKey, d)
	su.putSignRow(in, stride, i, SignRowH1, h1)
	copy(d, Nonce6979(d, h1))
	su.UnpackWireItem(wire, in, scalars, count, stride, i)
	su.putSignRow(in, stride, i, SignRowNonce, d)
}

// putSignRow writes the big-endian value v of ByteLen bytes into item i's
// eight sign rows from SignRowAt + row, least significant word first.
func (su *Setup) putSignRow(in []uint32, stride, i, row int, v []byte) {
	putFinishLimbsAt(in, su.SignRowAt()+row, stride, i, fp.LimbsFromBytes(v))
}

// signRow reads item i's value in the eight sign rows from SignRowAt + row.
func (su *Setup) signRow(in []uint32, stride, i, row int) *big.Int {
	var b [4 * finishElementWords]byte
	fp.PutLimbs(b[:], finishLimbs(in, su.SignRowAt()+row, stride, i))
	return new(big.Int).SetBytes(b[:])
}

// PackSignOnHost is the CPU twin of the sign pack kernel: it writes the
// wire output of the first count items of a chunk of count items from the
// finish's result rows (out) and the sign rows (in) of a batch of stride
// items, into wire.
func (su *Setup) PackSignOnHost(out, in []uint32, count, stride int, wire []byte) {
	for i := range count {
		su.PackSignWireItem(out, in, count, stride, i, wire)
	}
}

// PackSignWireItem is PackSignOnHost on item i alone, in math/big.
func (su *Setup) PackSignWireItem(out, in []uint32, count, stride, i int, wire []byte) {
	L, n := su.Curve.ByteLen(), su.Curve.N()
	var buf [2 * 32]byte
	xy := buf[:2*L]
	o := su.ReadResult(out, stride, i, xy)
	k := su.signRow(in, stride, i, SignRowNonce)
	rec := wire[i*2*L : (i+1)*2*L]
	clear(rec)
	switch {
	case k.Sign() == 0 || k.Cmp(n) >= 0:
		o = OutRefused
	case o == OutPoint:
		r := new(big.Int).Mod(new(big.Int).SetBytes(xy[:L]), n)
		s := new(big.Int).Mul(r, su.signRow(in, stride, i, SignRowKey))
		s.Add(s, su.signRow(in, stride, i, SignRowH1))
		s.Mul(s, new(big.Int).ModInverse(k, n))
		s.Mod(s, n)
		r.FillBytes(rec[:L])
		s.FillBytes(rec[L:])
	}
	wire[count*2*L+i] = byte(o)
}
