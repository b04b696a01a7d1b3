package ladder

import (
	"math/big"
	"math/bits"

	"github.com/rnsec/ecmul/internal/fp"
)

// A verify batch can come as bytes, as the bytes path's batches do (wire.go),
// so that the host only copies them: the verify unpack kernel
// (ecm_verifyunpack_*) does the unpack kernel's work on the wire input of
// the ladder (the u2 scalars, then the keys, uncompressed) and writes each
// item's verify rows from the rest of the wire input, which is, for a chunk
// of count items:
//
//	count u1·G   2·ByteLen bytes each, x‖y big-endian (zero bytes where
//	             it is the point at infinity)
//	count r      ByteLen bytes each, big-endian
//	count r + n  ByteLen bytes each, big-endian (zero bytes where r + n is
//	             not below p)
//	count flags  one byte each, VerifyFlags
//
// The verify pack kernel (ecm_verifypack_*) writes each item's Outcome as
// one byte. UnpackVerifyOnHost and PackVerifyOnHost are their CPU twins;
// VerifyWire writes the rest of the input on the host.

// VerifyWireOutBytes is the bytes of one item's wire output in a verify
// batch: its Outcome.
const VerifyWireOutBytes = 1

// VerifyWireInBytes returns the bytes of one item's wire input in a verify
// batch: the ladder's (WireInBytes), u1·G, r, r + n and the flags.
func (su *Setup) VerifyWireInBytes() int { return su.WireInBytes() + 4*su.Curve.ByteLen() + 1 }

// VerifyWirePointAt returns where the u1·G of a verify batch's wire input
// begin, in bytes per item of the chunk: after the ladder's input.
func (su *Setup) VerifyWirePointAt() int { return su.WireInBytes() }

// VerifyWire writes the part of a verify batch's wire input after the
// ladder's: it knows n and p.
type VerifyWire struct {
	size int              // ByteLen
	n, p [fp.Limbs]uint64 // as limbs, least significant first
	// high is how many leading bytes of p − n, written in ByteLen bytes,
	// are zero (all of them where n ≥ p): an r with one of those bytes
	// non-zero is above p − n, so r + n is not below p. p − n is below
	// 2^130 on these curves, and nearly every r has such a byte.
	high int
}

// VerifyWire returns the writer of su's verify wire input.
func (su *Setup) VerifyWire() VerifyWire {
	L := su.Curve.ByteLen()
	pn := new(big.Int).Sub(su.Curve.P(), su.Curve.N())
	high := L
	if pn.Sign() > 0 {
		high = L - (pn.BitLen()+7)/8
	}
	return VerifyWire{size: L, n: fp.LimbsFromBytes(su.Curve.N().FillBytes(make([]byte, L))),
		p: fp.LimbsFromBytes(su.Curve.P().FillBytes(make([]byte, L))), high: high}
}

// Put writes item i's u1·G (x‖y, 2·ByteLen bytes, read only where
// u1Infinity is false), r (ByteLen bytes, below n), r + n and flags into
// wire, the wire input of a chunk of count items. It allocates nothing.
func (w VerifyWire) Put(wire []byte, count, i int, u1G []byte, u1Infinity bool, r []byte) {
	L := w.size
	xy := wire[count*(1+3*L)+i*2*L : count*(1+3*L)+(i+1)*2*L]
	if u1Infinity {
		clear(xy)
	} else {
		copy(xy, u1G[:2*L])
	}
	w.PutSignature(wire, count, i, u1Infinity, r)
}

// PutSignature is Put without u1·G, which the device writes where it
// computes u1·G itself (gpu.PreChain): item i's r, r + n and flags.
func (w VerifyWire) PutSignature(wire []byte, count, i int, u1Infinity bool, r []byte) {
	L := w.size
	rest := wire[count*(1+3*L):]
	var flags VerifyFlags
	if u1Infinity {
		flags |= VerifyU1Infinity
	}
	copy(rest[count*2*L+i*L:count*2*L+(i+1)*L], r)
	if w.AddN(rest[count*3*L+i*L:count*3*L+(i+1)*L], r) {
		flags |= VerifyRN
	}
	rest[count*4*L+i] = byte(flags)
}

// AddN writes r + n into rn (ByteLen bytes each, big-endian) and reports
// whether it is below p, where x(R) = r + n also verifies; rn is zero
// where it is not.
func (w VerifyWire) AddN(rn, r []byte) bool {
	for _, b := range r[:w.high] {
		if b != 0 { // r > p − n
			clear(rn)
			return false
		}
	}
	rl := fp.LimbsFromBytes(r)
	var sum [fp.Limbs]uint64
	var carry uint64
	for k := range fp.Limbs {
		sum[k], carry = bits.Add64(rl[k], w.n[k], carry)
	}
	if carry == 0 && fp.Less(sum, w.p) {
		fp.PutLimbs(rn, sum)
		return true
	}
	clear(rn)
	return false
}

// UnpackVerifyOnHost is the CPU twin of the verify unpack kernel: it
// unpacks the first count items of a chunk of count items from wire into
// the input rows (in, scalars) of a batch of stride items, as
// UnpackOnHost, and writes their verify rows.
func (su *Setup) UnpackVerifyOnHost(wire []byte, in, scalars []uint32, count, stride int) {
	for i := range count {
		su.UnpackVerifyWireItem(wire, in, scalars, count, stride, i)
	}
}

// UnpackVerifyWireItem is UnpackVerifyOnHost on item i alone.
func (su *Setup) UnpackVerifyWireItem(wire []byte, in, scalars []uint32, count, stride, i int) {
	L := su.Curve.ByteLen()
	rest := wire[count*(1+3*L):]
	field := func(at int) [fp.Limbs]uint64 { return fp.LimbsFromBytes(rest[at : at+L]) }
	su.UnpackWireItem(wire, in, scalars, count, stride, i)
	su.PackVerify(in, stride, i, field(i*2*L), field(i*2*L+L), field(count*2*L+i*L), field(count*3*L+i*L),
		VerifyFlags(rest[count*4*L+i]))
}

// PackVerifyOnHost is the CPU twin of the verify pack kernel: it writes
// the Outcome of each of the first count items of a chunk, from row 0 of
// its output column, as byte i of wire.
func (su *Setup) PackVerifyOnHost(out []uint32, count int, wire []byte) {
	for i := range count {
		wire[i] = byte(out[i])
	}
}
