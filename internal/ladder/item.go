package ladder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
)

// Item is a prepared scalar multiplication held in fixed-size words: the
// Job of the bytes path, which allocates nothing and never takes a scalar
// through math/big.
type Item struct {
	In     fp.Element  // x_G·M mod p, canonical: the value whose RNS form the kernel takes
	X, Y   fp.Element  // the base, Montgomery form (internal/fp), for the finish
	Scalar ScalarLimbs // the ladder scalar, Bits+1 bits with the top one set
	Fixed  Fixed
}

// ScalarLimbs is a ladder scalar (below 2^(t+3) <= 2^259), least significant
// 64-bit limb first.
type ScalarLimbs [5]uint64

// ErrBytesPath is returned by PrepareBytes on a Setup whose prime or
// order the fixed-size arithmetic does not cover (none of the built-in
// curves).
var ErrBytesPath = errors.New("ladder: this curve has no bytes path")

// bytesPath is what the bytes path needs beyond the host field: the
// multiples of n of the scalar rule as limbs, the item that stands in for a
// bad one, and the decoding errors, made once so that none allocates.
type bytesPath struct {
	n, n2, n3, nm1, high                                   ScalarLimbs // n, 2n, 3n, n − 1, n − CoZHigh
	gen                                                    Item        // the generator times one
	errPrefix, errRange, errCurve, errNoY, errZero, errInf error
}

// initBytesPath builds su's bytes path, and leaves it out when the
// curve's scalars of ByteLen bytes may reach 2n (one subtraction would not
// reduce them) or the RNS is wider than the stack buffers of PackItem.
func (su *Setup) initBytesPath() {
	c := su.Curve
	if su.Params.N > maxInline || c.N().BitLen() > 256 ||
		new(big.Int).Lsh(big.NewInt(1), uint(8*c.ByteLen())).Cmp(new(big.Int).Lsh(c.N(), 1)) > 0 {
		return
	}
	limbs := func(v *big.Int) ScalarLimbs {
		var l ScalarLimbs
		for i := range l {
			l[i] = new(big.Int).Rsh(v, uint(64*i)).Uint64()
		}
		return l
	}
	one := big.NewInt(1)
	bp := &bytesPath{
		n: limbs(c.N()), n2: limbs(new(big.Int).Lsh(c.N(), 1)), n3: limbs(new(big.Int).Mul(c.N(), big.NewInt(3))),
		nm1: limbs(new(big.Int).Sub(c.N(), one)), high: limbs(new(big.Int).Sub(c.N(), big.NewInt(CoZHigh))),
		errPrefix: pointError(c, curves.ErrEncoding, "SEC1 prefix 0x04 with 1+2·%d bytes or 0x02/0x03 with 1+%d bytes expected", c.ByteLen(), c.ByteLen()),
		errRange:  pointError(c, curves.ErrCoordinateRange, "a coordinate is not below p"),
		errCurve:  pointError(c, curves.ErrNotOnCurve, "point is not on the curve"),
		errNoY:    pointError(c, curves.ErrNotOnCurve, "compressed x has no point on the curve"),
		errZero:   pointError(c, curves.ErrInfinity, "(0, 0) is not an affine point (it is a common encoding of the point at infinity)"),
		errInf:    pointError(c, curves.ErrInfinity, "SEC1 encoding 0x00 is the point at infinity, which is not an affine point"),
	}
	su.bytes = bp
	if err := su.PrepareBytes(&bp.gen, []byte{1}, c.EncodeSEC1(c.Generator(), false)); err != nil {
		panic("ladder: the generator does not prepare: " + err.Error())
	}
}

func pointError(c *curves.Curve, sentinel error, format string, args ...any) error {
	return &curves.PointError{Curve: c.Name(), Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// PrepareBytes decodes a SEC1 point (uncompressed 04‖x‖y or compressed
// 02/03‖x, coordinates FieldBytes long) and a big-endian scalar of at most
// FieldBytes bytes into it, as Prepare does for big integers. The scalar's
// reduction mod n and its ladder multiple run in constant time. A bad point
// gives an error wrapping the curves sentinel (ErrEncoding,
// ErrCoordinateRange, ErrNotOnCurve, ErrInfinity) and leaves it a valid
// Item (the generator times one), so its column stays well formed.
func (su *Setup) PrepareBytes(it *Item, scalar, point []byte) error {
	return su.prepareBytes(it, scalar, point, true)
}

// PrepareBaseBytes prepares the scalar of k·G, G the curve's generator,
// as PrepareBytes does with G's encoding, without decoding G again: on a
// comb Setup for the comb, on a ladder's for the ladder.
func (su *Setup) PrepareBaseBytes(it *Item, scalar []byte) error {
	bp := su.bytes
	if bp == nil {
		return ErrBytesPath
	}
	*it = bp.gen
	if len(scalar) > su.Curve.ByteLen() {
		return fmt.Errorf("scalar is %d bytes, more than the field's %d: %w", len(scalar), su.Curve.ByteLen(), curves.ErrScalar)
	}
	su.prepareScalar(it, scalar, false)
	return nil
}

// PrepareValidBytes is PrepareBytes for a point its caller has already
// validated (curves.Curve.Validate): an uncompressed point's coordinates
// are still checked to be below p, but not against the curve's equation.
func (su *Setup) PrepareValidBytes(it *Item, scalar, point []byte) error {
	return su.prepareBytes(it, scalar, point, false)
}

// prepareBytes is PrepareBytes, checking that an uncompressed point is on
// the curve when onCurve is set.
func (su *Setup) prepareBytes(it *Item, scalar, point []byte, onCurve bool) error {
	h, bp := su.host, su.bytes
	if bp == nil {
		return ErrBytesPath
	}
	if len(scalar) > su.Curve.ByteLen() {
		*it = bp.gen
		return fmt.Errorf("scalar is %d bytes, more than the field's %d: %w", len(scalar), su.Curve.ByteLen(), curves.ErrScalar)
	}
	err := su.decodePoint(it, point, onCurve)
	if err != nil {
		*it = bp.gen
		return err
	}
	halve := it.X.IsZero()
	if halve {
		// the x-only ladder cannot start from x = 0: 2G with k/2 mod n
		su.doubleBase(it)
	}
	su.prepareScalar(it, scalar, halve)
	h.f.Mul(&it.In, &it.X, &h.montM)
	return nil
}

// prepareScalar sets it.Scalar and it.Fixed from a scalar of at most
// FieldBytes bytes: k mod n, halved mod n when the base was doubled (halve,
// a fact about the public point), lifted to the ladder's multiple. This is
// the whole of the bytes path's work on a secret scalar before PackItem,
// and nothing in it branches on the scalar or reads an address that
// depends on it.
func (su *Setup) prepareScalar(it *Item, scalar []byte, halve bool) {
	k := su.bytes.reduce(scalar)
	if halve {
		k = su.bytes.half(k)
	}
	it.Fixed = su.ladderLimbs(&it.Scalar, &k)
}

// decodePoint sets it.X and it.Y from a SEC1 encoding and validates them
// (an uncompressed point against the curve's equation only when onCurve is
// set).
func (su *Setup) decodePoint(it *Item, b []byte, onCurve bool) error {
	h, L, bp := su.host, su.Curve.ByteLen(), su.bytes
	f := h.f
	switch {
	case len(b) == 1+2*L && b[0] == 4:
		okX := h.setBytes(&it.X, b[1:1+L])
		okY := h.setBytes(&it.Y, b[1+L:])
		switch {
		case !okX || !okY:
			return bp.errRange
		case it.X.IsZero() && it.Y.IsZero():
			return bp.errZero
		case onCurve && !h.eq.Holds(&it.X, &it.Y):
			return bp.errCurve
		}
		return nil
	case len(b) == 1+L && (b[0] == 2 || b[0] == 3):
		if !h.setBytes(&it.X, b[1:]) {
			return bp.errRange
		}
		var rhs fp.Element
		h.eq.RHS(&rhs, &it.X)
		if !f.Sqrt(&it.Y, &rhs) {
			return bp.errNoY
		}
		if f.FromMont(&it.Y)[0]&1 != uint64(b[0]&1) {
			f.Neg(&it.Y, &it.Y)
		}
		return nil
	case len(b) == 1 && b[0] == 0:
		return bp.errInf
	}
	return bp.errPrefix
}

// setBytes is fp.Field.SetBytes with the limbs in variables: z gets the
// Montgomery form of the big-endian b (at most 32 bytes), and it reports
// whether that value is below p (the point's coordinates: public).
func (h *hostField) setBytes(z *fp.Element, b []byte) bool {
	l0, l1, l2, l3 := limbsFromBytes(b)
	h.f.SetLimbs(z, [fp.Limbs]uint64{l0, l1, l2, l3})
	return h.belowP(l0, l1, l2, l3)
}

// belowP reports whether the limbs' value is below p.
func (h *hostField) belowP(l0, l1, l2, l3 uint64) bool {
	p := &h.p
	_, c := bits.Sub64(l0, p[0], 0)
	_, c = bits.Sub64(l1, p[1], c)
	_, c = bits.Sub64(l2, p[2], c)
	_, c = bits.Sub64(l3, p[3], c)
	return c == 1
}

// doubleBase replaces the base by its double (y ≠ 0 on these curves).
func (su *Setup) doubleBase(it *Item) {
	f, eq := su.host.f, su.host.eq
	var num, den, lam, x2, y2, t fp.Element
	f.Square(&num, &it.X)
	f.Add(&t, &num, &num)
	f.Add(&num, &t, &num)
	f.Add(&num, &num, &eq.A) // 3x² + a
	f.Double(&den, &it.Y)
	f.Inverse(&den, &den)
	f.Mul(&lam, &num, &den)
	f.Square(&x2, &lam)
	f.Sub(&x2, &x2, &it.X)
	f.Sub(&x2, &x2, &it.X)
	f.Sub(&t, &it.X, &x2)
	f.Mul(&y2, &lam, &t)
	f.Sub(&y2, &y2, &it.Y)
	it.X, it.Y = x2, y2
}

// reduce returns k mod n for a big-endian k of at most FieldBytes bytes:
// one conditional subtraction, since 2^(8·FieldBytes) <= 2n (checked by
// initBytesPath). n < 2^256, so the fifth limb stays zero.
func (bp *bytesPath) reduce(b []byte) ScalarLimbs {
	k0, k1, k2, k3 := limbsFromBytes(b)
	n := &bp.n
	d0, c := bits.Sub64(k0, n[0], 0)
	d1, c := bits.Sub64(k1, n[1], c)
	d2, c := bits.Sub64(k2, n[2], c)
	d3, c := bits.Sub64(k3, n[3], c)
	_, c = bits.Sub64(0, n[4], c)
	keep := -c // k < n: keep k; k >= n: d, chosen by a mask
	return ScalarLimbs{k0&keep | d0&^keep, k1&keep | d1&^keep, k2&keep | d2&^keep, k3&keep | d3&^keep}
}

// limbsFromBytes is fp.LimbsFromBytes for b of at most 32 bytes, reading
// the lengths of the built-in curves' scalars (32 and 28 bytes, a public
// fact) straight from b.
func limbsFromBytes(b []byte) (l0, l1, l2, l3 uint64) {
	switch len(b) {
	case 32:
		return binary.BigEndian.Uint64(b[24:]), binary.BigEndian.Uint64(b[16:]),
			binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[0:])
	case 28:
		return binary.BigEndian.Uint64(b[20:]), binary.BigEndian.Uint64(b[12:]),
			binary.BigEndian.Uint64(b[4:]), uint64(binary.BigEndian.Uint32(b[0:]))
	}
	l := fp.LimbsFromBytes(b)
	return l[0], l[1], l[2], l[3]
}

// half returns k/2 mod n for k < n.
func (c *bytesPath) half(k ScalarLimbs) ScalarLimbs {
	s := addLimbs(k, c.n)
	k = selectLimbs(-(k[0] & 1), s, k) // odd: k + n, even
	for i := range k {
		k[i] >>= 1
		if i+1 < len(k) {
			k[i] |= k[i+1] << 63
		}
	}
	return k
}

// ladderLimbs is ladderScalar on limbs for k < n, without a branch on k:
// it writes the ladder scalar into s and returns the fixed result. The
// comb's and the co-Z ladder's cases work on limbs held in variables (a
// ScalarLimbs, an array, would go through memory at every step).
func (su *Setup) ladderLimbs(s, k *ScalarLimbs) Fixed {
	c := su.bytes
	k0, k1, k2, k3, k4 := k[0], k[1], k[2], k[3], k[4]
	zero := k0 | k1 | k2 | k3 | k4
	zero = ((zero | -zero) >> 63) - 1 // all ones for k = 0
	if su.comb != nil {
		// the comb takes k < n itself; k ≡ 0 gives the point at infinity
		*s = *k
		return Fixed(zero & uint64(FixedInfinity))
	}
	if su.coZ == nil {
		// Paper: k + n, and n more unless that already has t+1 bits
		t := addLimbs(*k, c.n)
		top := t[su.Bits/64] >> (su.Bits % 64) & 1
		*s = selectLimbs(top-1, addLimbs(t, c.n), t)
		return FixedNone
	}
	m := &c.nm1
	negOne := (k0 ^ m[0]) | (k1 ^ m[1]) | (k2 ^ m[2]) | (k3 ^ m[3]) | (k4 ^ m[4])
	negOne = ((negOne | -negOne) >> 63) - 1 // all ones for k = n − 1
	fixed := Fixed(zero&uint64(FixedInfinity) | negOne&uint64(FixedNegBase))
	hi := &c.high
	_, b := bits.Sub64(k0, hi[0], 0)
	_, b = bits.Sub64(k1, hi[1], b)
	_, b = bits.Sub64(k2, hi[2], b)
	_, b = bits.Sub64(k3, hi[3], b)
	_, b = bits.Sub64(k4, hi[4], b)
	below := -b // k < n − CoZHigh: k + 3n, else k + 2n, chosen by a mask
	n2, n3 := &c.n2, &c.n3
	var cy uint64
	s[0], cy = bits.Add64(k0, n3[0]&below|n2[0]&^below, 0)
	s[1], cy = bits.Add64(k1, n3[1]&below|n2[1]&^below, cy)
	s[2], cy = bits.Add64(k2, n3[2]&below|n2[2]&^below, cy)
	s[3], cy = bits.Add64(k3, n3[3]&below|n2[3]&^below, cy)
	s[4], _ = bits.Add64(k4, n3[4]&below|n2[4]&^below, cy)
	return fixed
}

// PackItem writes item i of a batch of stride items, as PackInput does.
func (su *Setup) PackItem(in, scalars []uint32, stride, i int, it *Item) {
	if su.InputRows() > 0 {
		var buf [2*maxInline + 1]uint32
		v := [fp.Limbs]uint64(it.In)
		su.host.residues(buf[:], &v)
		for r, w := range buf[:su.InputRows()] {
			in[r*stride+i] = w
		}
	}
	su.packScalar(scalars, stride, i, &it.Scalar)
}

// packScalar writes item i's ladder scalar into its column of the
// kernel's scalar rows.
func (su *Setup) packScalar(scalars []uint32, stride, i int, s *ScalarLimbs) {
	for w := range su.ScalarWords() {
		scalars[w*stride+i] = uint32(s[w/2] >> (32 * (w % 2)))
	}
}

func addLimbs(a, b ScalarLimbs) ScalarLimbs {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
	return a
}

// subLimbs returns a − b and the borrow (1 when a < b).
func subLimbs(a, b ScalarLimbs) (ScalarLimbs, uint64) {
	var c uint64
	for i := range a {
		a[i], c = bits.Sub64(a[i], b[i], c)
	}
	return a, c
}

// selectLimbs returns a where mask is all ones and b where it is zero.
func selectLimbs(mask uint64, a, b ScalarLimbs) ScalarLimbs {
	for i := range a {
		a[i] = a[i]&mask | b[i]&^mask
	}
	return a
}

// equalMask returns all ones when a == b, else zero.
func equalMask(a, b ScalarLimbs) uint64 {
	var d uint64
	for i := range a {
		d |= a[i] ^ b[i]
	}
	// d == 0 exactly when d|−d has its top bit clear
	return ((d | -d) >> 63) - 1
}
