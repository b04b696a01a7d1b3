package ladder

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/rnsec/ecmul/internal/fp"
)

// The finish kernel (internal/kernels/finish.cuh) does on the GPU what
// FinishItems does on the host, for the co-Z ladder and the comb: the CRT of
// the three outputs, the inversion of the denominator, the affine point, the
// selection of fixed results, the on-curve check and the big-endian bytes.
// One thread finishes one item, in eight 32-bit limbs of Montgomery
// arithmetic with R = 2^256 (the same R as internal/fp), with one Fermat
// inversion per item; every item runs the same steps.
//
// It reads three things, all 32-bit little-endian words:
//
//	constants: FinishConstants, laid out as FinishLayout says
//	inputs:    FinishRows() rows from row FinishRowAt() of the input buffer
//	           (after the ladder's own input rows): x_G and y_G in
//	           Montgomery form, eight words each, then the item's Fixed
//	outputs:   the ladder's OutputRows() rows, which it replaces, column by
//	           column, by ResultRows() rows: x‖y big-endian, ByteLen bytes
//	           each, four bytes a word (byte 4r + b of x‖y is byte b of word
//	           r, little-endian), then the item's Outcome
//
// Each thread reads its own column whole before it writes it, so the
// results can overwrite the outputs in place.

// FinishLayout is where the finish kernel finds its constants, in words;
// internal/kernels/gen.go writes it into internal/kernels/schedule_gen.cuh.
// Every field element is eight words, least significant first; channel j's
// CRT term is its float64 weight in the estimate β (low word first) and then
// its eight words of weight in the sum, at CRT + j·CRTTerm.
type FinishLayout struct {
	N       int // the B channels
	RowAt   int // the first finish row of the input buffer
	ByteLen int // bytes of a coordinate
	UnitY   int // 1 when the y numerator is y itself (the comb), 0 when it is y/y_G
	PInv    int // −p^{-1} mod 2^32
	P       int // p
	One     int // R mod p
	A       int // a·R mod p
	B       int // b·R mod p
	Exp     int // p − 2, the exponent of the inversion
	NegM    int // −R² mod p, the weight of β
	// the group order n, for the sign pack kernel's s = k⁻¹·(h1 + r·d)
	OrderInv int // −n^{-1} mod 2^32
	Order    int // n
	OrderR2  int // R² mod n: a value's Montgomery form mod n is its product with it
	OrderExp int // n − 2, the exponent of k's inversion
	CRT      int // the first CRT term
	CRTTerm  int // words of one CRT term
	Size     int // words of the whole table for N channels (FinishLayoutFor)
}

// finishElementWords is the words of one field element in the finish's
// constants and rows.
const finishElementWords = 2 * fp.Limbs

// FinishLayoutFor returns the finish's constant layout for n channels.
func FinishLayoutFor(n int) FinishLayout {
	const e = finishElementWords
	l := FinishLayout{N: 0, RowAt: 1, ByteLen: 2, UnitY: 3, PInv: 4, OrderInv: 5, P: 6}
	l.One = l.P + e
	l.A = l.One + e
	l.B = l.A + e
	l.Exp = l.B + e
	l.NegM = l.Exp + e
	l.Order = l.NegM + e
	l.OrderR2 = l.Order + e
	l.OrderExp = l.OrderR2 + e
	l.CRT = l.OrderExp + e
	l.CRTTerm = 2 + e
	l.Size = l.CRT + n*l.CRTTerm
	return l
}

// FinishOnGPU reports whether the setup's finish runs on the GPU: the
// co-Z ladder and the comb, whose outputs are a denominator and two
// numerators (affineCoZ); the paper's x-only ladder finishes on the host.
func (su *Setup) FinishOnGPU() bool { return su.Schedule.Kind != Paper && su.bytes != nil }

// FinishRowAt returns the input row where the finish's rows start: after
// the ladder's.
func (su *Setup) FinishRowAt() int { return su.InputRows() }

// FinishRows returns the input rows the finish reads per item: x_G, y_G
// and Fixed.
func (su *Setup) FinishRows() int { return 2*finishElementWords + 1 }

// GPUInputRows returns the input rows per item of a batch whose finish
// runs on the GPU: the ladder's, then the finish's.
func (su *Setup) GPUInputRows() int { return su.FinishRowAt() + su.FinishRows() }

// ResultRows returns the rows the finish writes per item: the point's
// bytes, then its Outcome.
func (su *Setup) ResultRows() int { return su.resultWords() + 1 }

// resultWords returns the words of a result's bytes, x‖y.
func (su *Setup) resultWords() int { return 2 * su.Curve.ByteLen() / 4 }

// FinishConstants returns the finish kernel's constants (FinishLayout).
func (su *Setup) FinishConstants() []uint32 {
	h, par := su.host, su.Params
	l := FinishLayoutFor(par.N)
	w := make([]uint32, l.Size)
	w[l.N] = uint32(par.N)
	w[l.RowAt] = uint32(su.FinishRowAt())
	w[l.ByteLen] = uint32(su.Curve.ByteLen())
	if h.unitY {
		w[l.UnitY] = 1
	}
	w[l.PInv] = uint32(-modInverse32(uint32(h.p[0])))
	putFinishLimbs(w[l.P:], h.p)
	putFinishLimbs(w[l.One:], h.f.One())
	putFinishLimbs(w[l.A:], h.eq.A)
	putFinishLimbs(w[l.B:], h.eq.B)
	putFinishLimbs(w[l.Exp:], limbsOf(new(big.Int).Sub(par.P, big.NewInt(2))))
	putFinishLimbs(w[l.NegM:], h.negM)
	n := su.Curve.N()
	w[l.OrderInv] = uint32(-modInverse32(uint32(n.Uint64())))
	putFinishLimbs(w[l.Order:], limbsOf(n))
	putFinishLimbs(w[l.OrderR2:], limbsOf(new(big.Int).Mod(new(big.Int).Lsh(big.NewInt(1), 512), n)))
	putFinishLimbs(w[l.OrderExp:], limbsOf(new(big.Int).Sub(n, big.NewInt(2))))
	for j, t := range h.crt {
		at := l.CRT + j*l.CRTTerm
		bits := math.Float64bits(t.Frac)
		w[at], w[at+1] = uint32(bits), uint32(bits>>32)
		putFinishLimbs(w[at+2:], t.W)
	}
	return w
}

// modInverse32 returns x^{-1} mod 2^32 for odd x: Newton's iteration, each
// step doubling the correct bits from the three of x itself.
func modInverse32(x uint32) uint32 {
	inv := x
	for range 4 {
		inv *= 2 - x*inv
	}
	return inv
}

// putFinishLimbs writes four 64-bit limbs as eight 32-bit words.
func putFinishLimbs(w []uint32, l [fp.Limbs]uint64) {
	for i, v := range l {
		w[2*i], w[2*i+1] = uint32(v), uint32(v>>32)
	}
}

// finishLimbs reads eight 32-bit words, column i of rows from row, into
// four 64-bit limbs.
func finishLimbs(rows []uint32, row, stride, i int) (l fp.Element) {
	for k := range l {
		lo, hi := rows[(row+2*k)*stride+i], rows[(row+2*k+1)*stride+i]
		l[k] = uint64(lo) | uint64(hi)<<32
	}
	return l
}

// putFinishLimbsAt writes four 64-bit limbs as eight 32-bit words into
// column i of rows from row: finishLimbs's inverse.
func putFinishLimbsAt(rows []uint32, row, stride, i int, l [fp.Limbs]uint64) {
	for k, limb := range l {
		rows[(row+2*k)*stride+i] = uint32(limb)
		rows[(row+2*k+1)*stride+i] = uint32(limb >> 32)
	}
}

// PackFinish writes item i's finish rows (x_G, y_G, Fixed) into its column
// of the input rows of a batch of stride items. It allocates nothing.
func (su *Setup) PackFinish(in []uint32, stride, i int, it *Item) {
	su.putFinishRows(in, stride, i, it.X, it.Y, it.Fixed)
}

// putFinishRows writes x, y and fixed into item i's finish rows.
func (su *Setup) putFinishRows(in []uint32, stride, i int, x, y [fp.Limbs]uint64, fixed Fixed) {
	at := su.FinishRowAt()
	putFinishLimbsAt(in, at, stride, i, x)
	putFinishLimbsAt(in, at+finishElementWords, stride, i, y)
	in[(at+2*finishElementWords)*stride+i] = uint32(fixed)
}

// ReadResult reads item i's result from the finish's result rows of a
// batch of stride items: its outcome, and x‖y into xy (2·ByteLen bytes),
// which holds meaningless bytes unless the outcome is OutPoint.
func (su *Setup) ReadResult(out []uint32, stride, i int, xy []byte) Outcome {
	words := su.resultWords()
	for r := range words {
		binary.LittleEndian.PutUint32(xy[4*r:], out[r*stride+i])
	}
	return Outcome(out[words*stride+i])
}

// FinishRowsOnHost is the CPU twin of the finish kernel: it finishes the
// first count items of a batch of stride items, reading the ladder's
// outputs from out and the finish rows from in, and writes their results
// into out as the kernel does (ResultRows rows, in place). A failed
// check's bytes are zero, and so are those of an item whose Fixed word has
// FixedOffCurve, whose outcome is OutOffCurve, or a rejected point's
// Outcome in FixedRejected, which is its outcome.
func (su *Setup) FinishRowsOnHost(in, out []uint32, stride, count int) {
	items := make([]Item, count)
	at := su.FinishRowAt()
	for i := range items {
		items[i].X = finishLimbs(in, at, stride, i)
		items[i].Y = finishLimbs(in, at+finishElementWords, stride, i)
		items[i].Fixed = Fixed(in[(at+2*finishElementWords)*stride+i])
	}
	words := su.resultWords()
	su.FinishItems(items, out, stride, nil, func(k int, o Outcome, xy []byte) {
		switch fixed := items[k].Fixed; {
		case fixed.rejected() != OutPoint:
			o, xy = fixed.rejected(), nil
		case fixed&FixedOffCurve != 0:
			o, xy = OutOffCurve, nil
		}
		for r := range words {
			var w uint32
			if xy != nil {
				w = binary.LittleEndian.Uint32(xy[4*r:])
			}
			out[r*stride+k] = w
		}
		out[words*stride+k] = uint32(o)
	})
}
