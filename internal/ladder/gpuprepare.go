package ladder

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
)

// The prepare kernel (internal/kernels/prepare.cuh) does on the GPU, before
// the ladder, what PrepareBytes and PackItem do on the host after a point's
// decoding: the Montgomery forms of the base, the check of the curve's
// equation, and the kernel's input in RNS. The host then only decodes the
// SEC1 bytes into words, checks the coordinates against p, prepares the
// scalar and copies words (PrepareRaw, PackRaw).
//
// It reads and writes the input buffer in place, one thread per item:
//
//	reads:  the finish rows (FinishRowAt) as PackRaw writes them: x and y
//	        as plain integers below p, eight words each, then the Fixed
//	        word
//	writes: the same rows as PackFinish writes them: x_G·R and y_G·R mod p
//	        (Montgomery form), and the Fixed word with FixedOffCurve set
//	        where y² ≠ x³ + a·x + b; and, for the co-Z ladder, the
//	        ladder's InputRows() rows: the RNS form of x·M mod p, as
//	        PackItem writes them
//
// Its constants are PrepareConstants, laid out as PrepareLayout says.

// FixedOffCurve is the flag the prepare kernel sets in an item's Fixed
// word when its point is not on the curve; the finish then reports
// OutOffCurve for it. It is never set on the host, which checks the
// equation itself before an item is packed.
const FixedOffCurve Fixed = 1 << 7

// PrepareLayout is where the prepare kernel finds its constants, in words;
// internal/kernels/gen.go writes it into internal/kernels/schedule_gen.cuh.
// Field elements are eight words, least significant first. Channel c of the
// 2n channels, B's n then B̃'s n, is at Chan + c·ChanWords: its modulus m,
// then the weights w_k = 2^(32k) mod m (times the stored form's factor,
// rns.Params.ResidueScales), k < 8, of the words of x·M mod p in its
// residue.
type PrepareLayout struct {
	N      int // the channels of one base
	RowAt  int // the first finish row (FinishRowAt)
	PInv   int // −p^{-1} mod 2^32
	MeMask int // m_e − 1
	P      int // p
	R2     int // R² mod p: the product by it is the Montgomery form
	MR     int // M·R mod p: the product of a plain x by it is x·M mod p
	A      int // a·R mod p
	B      int // b·R mod p
	// the unpack kernel's (wire.go), scalars as ScalarLimbs words
	ByteLen     int // bytes of a coordinate and of a scalar on the wire
	ScalarWords int // the ladder scalar's rows (Setup.ScalarWords)
	Order       int // n
	OrderLess1  int // n − 1
	High        int // n − CoZHigh (ladderLimbs)
	Order2      int // 2n
	Order3      int // 3n
	GX, GY      int // the generator, plain words
	GenScalar   int // the ladder scalar of 1: a rejected item's
	GenFixed    int // the Fixed word of 1
	Chan        int // the first channel
	ChanWords   int // words of one channel: the modulus and eight weights
	Size        int // words of the whole table for N channels
}

// PrepareLayoutFor returns the prepare kernel's constant layout for n
// channels per base.
func PrepareLayoutFor(n int) PrepareLayout {
	const e = finishElementWords
	l := PrepareLayout{N: 0, RowAt: 1, PInv: 2, MeMask: 3, P: 4}
	l.R2 = l.P + e
	l.MR = l.R2 + e
	l.A = l.MR + e
	l.B = l.A + e
	const s = ScalarLimbWords
	l.ByteLen = l.B + e
	l.ScalarWords = l.ByteLen + 1
	l.Order = l.ScalarWords + 1
	l.OrderLess1 = l.Order + s
	l.High = l.OrderLess1 + s
	l.Order2 = l.High + s
	l.Order3 = l.Order2 + s
	l.GX = l.Order3 + s
	l.GY = l.GX + e
	l.GenScalar = l.GY + e
	l.GenFixed = l.GenScalar + s
	l.Chan = l.GenFixed + 1
	l.ChanWords = 1 + e
	l.Size = l.Chan + 2*n*l.ChanWords
	return l
}

// PrepareConstants returns the prepare kernel's constants (PrepareLayout).
func (su *Setup) PrepareConstants() []uint32 {
	h, par := su.host, su.Params
	l := PrepareLayoutFor(par.N)
	w := make([]uint32, l.Size)
	w[l.N] = uint32(par.N)
	w[l.RowAt] = uint32(su.FinishRowAt())
	w[l.PInv] = uint32(-modInverse32(uint32(h.p[0])))
	w[l.MeMask] = uint32(h.meMask)
	putFinishLimbs(w[l.P:], h.p)
	r2 := new(big.Int).Lsh(big.NewInt(1), 512)
	putFinishLimbs(w[l.R2:], limbsOf(r2.Mod(r2, par.P)))
	putFinishLimbs(w[l.MR:], h.toMont)
	putFinishLimbs(w[l.A:], h.eq.A)
	putFinishLimbs(w[l.B:], h.eq.B)
	su.putUnpackConstants(w, l)
	for c, ch := range h.in {
		at := l.Chan + c*l.ChanWords
		w[at] = uint32(ch.m)
		for k, v := range ch.w {
			w[at+1+k] = uint32(v)
		}
	}
	return w
}

// RawItem is an item whose point is still plain words: what the host
// prepares when the GPU runs the prepare kernel.
type RawItem struct {
	X, Y   [fp.Limbs]uint64 // the base, plain integers below p
	Scalar ScalarLimbs      // the ladder scalar
	Fixed  Fixed
}

// PrepareRaw is PrepareBytes for the prepare kernel: it decodes the point
// into plain words and checks its coordinates against p, but leaves the
// curve's equation and the Montgomery forms to the kernel. A compressed
// point, and a point with x = 0 (whose ladder starts from its double),
// take PrepareBytes's whole work and come out in plain words. A bad point
// gives PrepareBytes's error and leaves the item the generator times one.
func (su *Setup) PrepareRaw(it *RawItem, scalar, point []byte) error {
	bp, L := su.bytes, su.Curve.ByteLen()
	if bp == nil {
		return ErrBytesPath
	}
	if len(point) != 1+2*L || point[0] != 4 || len(scalar) > L {
		return su.rawOfPrepared(it, scalar, point)
	}
	x, okX := su.host.plainBytes(point[1 : 1+L])
	y, okY := su.host.plainBytes(point[1+L:])
	xZero := x == [fp.Limbs]uint64{}
	switch {
	case !okX || !okY:
		su.rawGenerator(it)
		return bp.errRange
	case xZero && y == [fp.Limbs]uint64{}:
		su.rawGenerator(it)
		return bp.errZero
	case xZero:
		return su.rawOfPrepared(it, scalar, point)
	}
	it.X, it.Y = x, y
	var item Item
	su.prepareScalar(&item, scalar, false)
	it.Scalar, it.Fixed = item.Scalar, item.Fixed
	return nil
}

// PrepareRawBase is PrepareBaseBytes for the prepare kernel: the
// generator's plain words and the scalar.
func (su *Setup) PrepareRawBase(it *RawItem, scalar []byte) error {
	var item Item
	err := su.PrepareBaseBytes(&item, scalar)
	su.rawOf(it, &item)
	return err
}

// rawOfPrepared prepares the item on the host (PrepareBytes) and turns it
// into plain words.
func (su *Setup) rawOfPrepared(it *RawItem, scalar, point []byte) error {
	var item Item
	err := su.PrepareBytes(&item, scalar, point)
	su.rawOf(it, &item)
	return err
}

// rawGenerator leaves it the generator times one, as a bad point's item.
func (su *Setup) rawGenerator(it *RawItem) { su.rawOf(it, &su.bytes.gen) }

// rawOf sets it to item with its point in plain words.
func (su *Setup) rawOf(it *RawItem, item *Item) {
	f := su.host.f
	it.X, it.Y = f.Canonical(&item.X), f.Canonical(&item.Y)
	it.Scalar, it.Fixed = item.Scalar, item.Fixed
}

// plainBytes returns the limbs of the big-endian b (at most 32 bytes) and
// whether they are below p (the point's coordinates: public).
func (h *hostField) plainBytes(b []byte) ([fp.Limbs]uint64, bool) {
	l0, l1, l2, l3 := limbsFromBytes(b)
	return [fp.Limbs]uint64{l0, l1, l2, l3}, h.belowP(l0, l1, l2, l3)
}

// PackRaw writes item i of a batch of stride items for the prepare kernel:
// its point's plain words and Fixed into its finish rows, and its ladder
// scalar. It allocates nothing.
func (su *Setup) PackRaw(in, scalars []uint32, stride, i int, it *RawItem) {
	su.putFinishRows(in, stride, i, it.X, it.Y, it.Fixed)
	su.packScalar(scalars, stride, i, &it.Scalar)
}

// PrepareRowsOnHost is the CPU twin of the prepare kernel: it prepares the
// first count items of a batch of stride items in the input rows in, as
// the kernel does, in place.
func (su *Setup) PrepareRowsOnHost(in []uint32, stride, count int) {
	h, at := su.host, su.FinishRowAt()
	var buf [2*maxInline + 1]uint32
	for i := range count {
		x := fp.Element(finishLimbs(in, at, stride, i))
		y := fp.Element(finishLimbs(in, at+finishElementWords, stride, i))
		fixed := Fixed(in[(at+2*finishElementWords)*stride+i])
		var X, Y, mont fp.Element
		h.f.SetLimbs(&X, x)
		h.f.SetLimbs(&Y, y)
		if !h.eq.Holds(&X, &Y) {
			fixed |= FixedOffCurve
		}
		su.putFinishRows(in, stride, i, X, Y, fixed)
		if su.InputRows() == 0 {
			continue
		}
		h.f.Mul(&mont, &X, &h.montM)
		v := [fp.Limbs]uint64(mont)
		h.residues(buf[:], &v)
		for r, w := range buf[:su.InputRows()] {
			in[r*stride+i] = w
		}
	}
}
