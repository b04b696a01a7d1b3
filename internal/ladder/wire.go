package ladder

import "github.com/rnsec/ecmul/internal/fp"

// The wire kernels (internal/kernels/wire.cuh) take the rest of the bytes
// path's per-item work onto the GPU, so that the host only copies a chunk's
// bytes in and out. Around the prepare and finish kernels:
//
//   - unpack, before the prepare kernel, reads a chunk's wire input (the
//     caller's bytes as they came, WireInBytes per item) and writes what
//     PrepareRaw and PackRaw write on the host: each item's finish rows (x
//     and y as plain words below p, then Fixed) and its ladder scalar rows.
//     A point it rejects becomes the generator times one, as PrepareRaw
//     leaves a bad point's item, with the reason in Fixed (FixedRejected);
//     the finish kernel then reports that Outcome and zero bytes;
//   - pack, after the finish kernel, turns each item's result rows into
//     its wire output (WireOutBytes per item).
//
// The wire input of a chunk of count items is count scalars of ByteLen
// bytes, big-endian, then, on the co-Z ladder (the comb's base is G), count
// uncompressed SEC1 points of 1 + 2·ByteLen bytes. The wire output is count
// results of 1 + 2·ByteLen bytes, the point 0x04‖x‖y where the outcome is
// OutPoint and zero bytes otherwise, then count outcome bytes. UnpackOnHost
// and PackOnHost are their CPU twins.
//
// The unpack kernel takes the prepare kernel's constants (PrepareLayout),
// the pack kernel the finish kernel's.

// ScalarLimbWords is the 32-bit words of ScalarLimbs: the unpack kernel's
// scalars.
const ScalarLimbWords = 2 * len(ScalarLimbs{})

// FixedRejected is the bits of an item's Fixed word that hold the Outcome
// of a point the unpack kernel rejected (OutBadEncoding, OutBadCoordinate,
// OutInfinityInput), FixedRejectedShift bits up; zero for an accepted one.
const (
	FixedRejected      Fixed = 7 << FixedRejectedShift
	FixedRejectedShift       = 4
)

// rejected returns the Outcome a rejected point's item has, or OutPoint
// (zero) for an accepted one.
func (f Fixed) rejected() Outcome { return Outcome(f & FixedRejected >> FixedRejectedShift) }

// WireInBytes returns the bytes of one item's wire input: its scalar and,
// on the co-Z ladder, its uncompressed SEC1 point.
func (su *Setup) WireInBytes() int {
	L := su.Curve.ByteLen()
	if su.InputRows() == 0 {
		return L
	}
	return L + 1 + 2*L
}

// WireOutBytes returns the bytes of one item's wire output: its result and
// its outcome byte.
func (su *Setup) WireOutBytes() int { return 2 + 2*su.Curve.ByteLen() }

// putUnpackConstants writes the unpack kernel's constants into w.
func (su *Setup) putUnpackConstants(w []uint32, l PrepareLayout) {
	bp := su.bytes
	w[l.ByteLen] = uint32(su.Curve.ByteLen())
	w[l.ScalarWords] = uint32(su.ScalarWords())
	if bp == nil {
		return
	}
	for _, f := range []struct {
		at int
		v  ScalarLimbs
	}{{l.Order, bp.n}, {l.OrderLess1, bp.nm1}, {l.High, bp.high}, {l.Order2, bp.n2}, {l.Order3, bp.n3}, {l.GenScalar, bp.gen.Scalar}} {
		putScalarWords(w[f.at:], f.v)
	}
	gen := su.host.f
	putFinishLimbs(w[l.GX:], gen.Canonical(&bp.gen.X))
	putFinishLimbs(w[l.GY:], gen.Canonical(&bp.gen.Y))
	w[l.GenFixed] = uint32(bp.gen.Fixed)
}

// putScalarWords writes the ScalarLimbWords words of s, least significant
// first.
func putScalarWords(w []uint32, s ScalarLimbs) {
	for i, v := range s {
		w[2*i], w[2*i+1] = uint32(v), uint32(v>>32)
	}
}

// UnpackItem is the unpack kernel's work on one item: it prepares it from
// its scalar (ByteLen bytes) and, on the co-Z ladder, its uncompressed
// point (1 + 2·ByteLen bytes), as PrepareRaw does, except for what the
// kernel leaves to others: the curve's equation (the prepare kernel) and a
// point with x = 0 (RewriteZeroX, on the host before the copy), which it
// takes as any other point. A point it rejects leaves the generator times
// one, with its Outcome in FixedRejected.
func (su *Setup) UnpackItem(it *RawItem, scalar, point []byte) {
	var item Item
	su.prepareScalar(&item, scalar, false)
	if su.InputRows() == 0 { // the comb: every item's base is G
		su.rawGenerator(it)
		it.Scalar, it.Fixed = item.Scalar, item.Fixed
		return
	}
	L := su.Curve.ByteLen()
	x, okX := su.host.plainBytes(point[1 : 1+L])
	y, okY := su.host.plainBytes(point[1+L:])
	reject := OutPoint
	switch {
	case point[0] != 4:
		reject = OutBadEncoding
	case !okX || !okY:
		reject = OutBadCoordinate
	case x == [fp.Limbs]uint64{} && y == [fp.Limbs]uint64{}:
		reject = OutInfinityInput
	}
	if reject != OutPoint {
		su.rawGenerator(it)
		it.Fixed |= Fixed(reject) << FixedRejectedShift
		return
	}
	it.X, it.Y, it.Scalar, it.Fixed = x, y, item.Scalar, item.Fixed
}

// UnpackOnHost is the CPU twin of the unpack kernel: it unpacks the first
// count items of the wire input of a chunk of count items into the input
// and scalar rows of a batch of stride items, as the kernel does.
func (su *Setup) UnpackOnHost(wire []byte, in, scalars []uint32, count, stride int) {
	for i := range count {
		su.UnpackWireItem(wire, in, scalars, count, stride, i)
	}
}

// UnpackWireItem is UnpackOnHost on item i alone.
func (su *Setup) UnpackWireItem(wire []byte, in, scalars []uint32, count, stride, i int) {
	L := su.Curve.ByteLen()
	var point []byte
	if su.InputRows() > 0 {
		at := count*L + i*(1+2*L)
		point = wire[at : at+1+2*L]
	}
	var it RawItem
	su.UnpackItem(&it, wire[i*L:(i+1)*L], point)
	su.PackRaw(in, scalars, stride, i, &it)
}

// PackOnHost is the CPU twin of the pack kernel: it writes the wire output
// of the first count items of a chunk of count items from the finish's
// result rows of a batch of stride items.
func (su *Setup) PackOnHost(out []uint32, count, stride int, wire []byte) {
	for i := range count {
		su.PackWireItem(out, count, stride, i, wire)
	}
}

// PackWireItem is PackOnHost on item i alone.
func (su *Setup) PackWireItem(out []uint32, count, stride, i int, wire []byte) {
	L := su.Curve.ByteLen()
	var buf [2 * 32]byte
	xy := buf[:2*L]
	o := su.ReadResult(out, stride, i, xy)
	rec := wire[i*(1+2*L) : (i+1)*(1+2*L)]
	clear(rec)
	if o == OutPoint {
		rec[0] = 4
		copy(rec[1:], xy)
	}
	wire[count*(1+2*L)+i] = byte(o)
}

// RewriteZeroX rewrites, in place, an item whose point is on the curve with
// x = 0, which the co-Z ladder cannot start from, into the same product
// with the base 2P and the scalar k/2 mod n, as PrepareBytes does; it
// reports whether it did. Any other item it leaves as it is, the ones the
// unpack or prepare kernel rejects included. The scalar's halving runs in
// constant time; whether a point has x = 0 is public.
func (su *Setup) RewriteZeroX(scalar, point []byte) bool {
	L := su.Curve.ByteLen()
	if su.bytes == nil || len(point) != 1+2*L || point[0] != 4 || !fp.AllZero(point[1:1+L]) {
		return false
	}
	var it Item
	if su.decodePoint(&it, point, true) != nil {
		return false
	}
	su.doubleBase(&it)
	k := su.bytes.half(su.bytes.reduce(scalar)) // below n, four limbs
	fp.PutLimbs(scalar, [fp.Limbs]uint64{k[0], k[1], k[2], k[3]})
	su.host.f.PutBytes(point[1:1+L], &it.X)
	su.host.f.PutBytes(point[1+L:], &it.Y)
	return true
}
