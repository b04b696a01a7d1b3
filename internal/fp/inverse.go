package fp

import (
	"math/big"
	"math/bits"
)

// Inverse is Bernstein and Yang's safegcd ("Fast constant-time gcd
// computation and modular inversion", TCHES 2019) in the variant whose δ
// starts at 1/2 instead of 1. From f = p, g = a (0 <= a < p) each divstep
// does, when δ > 0 and g is odd, (δ, f, g) → (1 − δ, g, (g − f)/2), and
// otherwise (δ, f, g) → (1 + δ, f, (g + (g mod 2)·f)/2); g reaches 0 and f
// then is ±gcd(p, a) = ±1 for a ≠ 0. Alongside, d and e with d·a ≡ f and
// e·a ≡ g (mod p) follow the same steps, so that d·f is a^{-1} at the end.
//
// A batch runs invBatch divsteps on the low 62 bits of f and g alone (the
// first k steps depend on the low k bits only) and collects them in a 2×2
// matrix, which then moves the full f, g, d and e: 62-bit limbs leave room
// for its 63-bit signed entries in the 128-bit products.
const (
	// invBatches·invBatch = 590 divsteps reach g = 0 for every odd
	// f < 2^256 and 0 <= g <= f: the bound of the δ = 1/2 variant from
	// Wuille's convex-hull analysis, checked in Coq for odd f up to about
	// 2^256.01 (github.com/sipa/safegcd-bounds, coq/hddivsteps), against
	// 724 for δ = 1 by the same method and 741 by the paper's Theorem
	// 11.2. More steps than needed do no harm: once g = 0, f stays.
	invBatches = 10
	invBatch   = 59

	mask62 = 1<<62 - 1
)

// signed62 is the integer Σ l[i]·2^(62i), l[0] … l[3] in [0, 2^62) and the
// top limb signed.
type signed62 [5]int64

// invConsts are the constants of p that Inverse uses.
type invConsts struct {
	p    signed62
	pInv uint64  // p^{-1} mod 2^62
	fix  Element // R³ mod p: Mul by it turns the inverse of the raw limbs a = x·R into x^{-1}·R
}

func newInvConsts(p *big.Int) invConsts {
	var c invConsts
	c.p = to62(Element(toLimbs(p)))
	c.pInv = new(big.Int).ModInverse(p, big.NewInt(1<<62)).Uint64()
	r3 := new(big.Int).Lsh(big.NewInt(1), 3*64*Limbs)
	c.fix = Element(toLimbs(r3.Mod(r3, p)))
	return c
}

// to62 returns x < 2^256 in 62-bit limbs.
func to62(x Element) signed62 {
	return signed62{
		int64(x[0] & mask62),
		int64((x[0]>>62 | x[1]<<2) & mask62),
		int64((x[1]>>60 | x[2]<<4) & mask62),
		int64((x[2]>>58 | x[3]<<6) & mask62),
		int64(x[3] >> 56),
	}
}

// element returns l in [0, 2^256) as 64-bit limbs.
func (l *signed62) element() Element {
	return Element{
		uint64(l[0]) | uint64(l[1])<<62,
		uint64(l[1])>>2 | uint64(l[2])<<60,
		uint64(l[2])>>4 | uint64(l[3])<<58,
		uint64(l[3])>>6 | uint64(l[4])<<56,
	}
}

// Inverse sets z = x^{-1}; the inverse of 0 is 0. It takes a fixed number
// of divsteps without a branch or an index on x: the raw limbs a = x·R are
// inverted, and Mul by R³ mod p turns a^{-1} into x^{-1}·R.
func (f *Field) Inverse(z, x *Element) {
	c := &f.inv
	s := gcdState{f: c.p, g: to62(*x), e: signed62{1}, zeta: -1}
	for range invBatches - 1 {
		s.batch(c)
	}
	a := s.finish(c)
	f.Mul(z, &a, &c.fix)
}

// gcdState is the state between batches: |f|, |g| <= p, d and e in
// (−2p, p), and ζ = −δ − 1/2, which is negative exactly when δ > 0.
type gcdState struct {
	f, g, d, e signed62
	zeta       int64
}

// batch runs invBatch divsteps.
func (s *gcdState) batch(c *invConsts) {
	var t transition
	s.zeta, t = batchMatrix(s.zeta, uint64(s.f[0]), uint64(s.g[0]))
	t.apply(&s.f, &s.g)
	c.applyMod(&t, &s.d, &s.e)
}

// finish runs the last batch and returns d·f = a^{-1} mod p in [0, p)
// (f is ±1 then, or p for a = 0, where d = 0): the row of d is negated
// when f comes out negative.
func (s *gcdState) finish(c *invConsts) Element {
	_, t := batchMatrix(s.zeta, uint64(s.f[0]), uint64(s.g[0]))
	t.apply(&s.f, &s.g)
	neg := s.f[4] >> 63
	t.u, t.v = (t.u^neg)-neg, (t.v^neg)-neg
	c.applyMod(&t, &s.d, &s.e)
	c.addPIfNegative(&s.d) // (−2p, p) → (−p, p)
	c.addPIfNegative(&s.d) // → [0, p)
	return s.d.element()
}

// transition is a batch's matrix: it maps (f, g) to
// ((u·f + v·g)/2^62, (q·f + r·g)/2^62), with |u| + |v| <= 2^62 and
// |q| + |r| <= 2^62.
type transition struct{ u, v, q, r int64 }

// batchMatrix runs invBatch divsteps from ζ on f and g known mod 2^62 and
// returns the next ζ and the batch's transition: the product of those of
// its two halves, scaled from 2^invBatch to 2^62.
func batchMatrix(zeta int64, f, g uint64) (int64, transition) {
	zeta, f, g, a := divsteps(invBatch/2+1, zeta, f, g)
	zeta, _, _, b := divsteps(invBatch/2, zeta, f, g)
	const s = 62 - invBatch
	return zeta, transition{
		(b.u*a.u + b.v*a.q) << s, (b.u*a.v + b.v*a.r) << s,
		(b.q*a.u + b.r*a.q) << s, (b.q*a.v + b.r*a.r) << s,
	}
}

// divsteps runs n <= 30 divsteps from ζ on f and g (their low bits) and
// returns the next ζ, f and g and the matrix that maps (f, g) to 2^n times
// the result. It keeps its rows (u, v) and (q, r) packed as u + v·2^32 and
// q + r·2^32 (entries at most 2^30 in absolute value), which halves their
// work per step.
func divsteps(n int, zeta int64, f, g uint64) (int64, uint64, uint64, transition) {
	uv, qr := int64(1), int64(1)<<32
	odd := -(g & 1)
	for range n {
		pos := uint64(zeta >> 63) // δ > 0
		swap := pos & odd
		// on a swap f and (u, v) take the old g and (q, r), chosen
		// rather than added so that no step waits on the addition
		fNext := f ^ (f^g)&swap
		uvNext := uv ^ (uv^qr)&int64(swap)
		// g ± f and (q, r) ± (u, v) for odd g: minus when δ > 0
		g += (f ^ pos - pos) & odd
		qr += (uv ^ int64(pos) - int64(pos)) & int64(odd)
		f, uv = fNext, uvNext<<1
		// the next parity, from bit 1 before the shift
		odd = uint64(int64(g<<62) >> 63)
		g >>= 1
		// −ζ − 2 on a swap (δ → 1 − δ), ζ − 1 otherwise (δ → 1 + δ)
		zeta = zeta ^ int64(swap) - 1
	}
	u, v := unpack(uv)
	q, r := unpack(qr)
	return zeta, f, g, transition{u, v, q, r}
}

// unpack splits x = lo + hi·2^32 with lo and hi in [−2^31, 2^31).
func unpack(x int64) (lo, hi int64) {
	lo = int64(int32(x))
	return lo, (x - lo) >> 32
}

// apply sets (f, g) to ((u·f + v·g)/2^62, (q·f + r·g)/2^62), where the
// divisions are exact and the quotients below 2^256 in absolute value.
func (t *transition) apply(f, g *signed62) {
	u, v, q, r := t.u, t.v, t.q, t.r
	fh, fl := mulAdd(0, 0, u, f[0])
	fh, fl = mulAdd(fh, fl, v, g[0])
	gh, gl := mulAdd(0, 0, q, f[0])
	gh, gl = mulAdd(gh, gl, r, g[0])
	for i := 1; i < 4; i++ {
		fh, fl = shift62(fh, fl)
		gh, gl = shift62(gh, gl)
		x, y := f[i], g[i]
		fh, fl = mulAdd(fh, fl, u, x)
		fh, fl = mulAdd(fh, fl, v, y)
		gh, gl = mulAdd(gh, gl, q, x)
		gh, gl = mulAdd(gh, gl, r, y)
		f[i-1], g[i-1] = int64(fl&mask62), int64(gl&mask62)
	}
	fh, fl = shift62(fh, fl)
	gh, gl = shift62(gh, gl)
	x, y := f[4], g[4]
	fh, fl = mulAddSigned(fh, fl, u, x)
	fh, fl = mulAddSigned(fh, fl, v, y)
	gh, gl = mulAddSigned(gh, gl, q, x)
	gh, gl = mulAddSigned(gh, gl, r, y)
	f[3], g[3] = int64(fl&mask62), int64(gl&mask62)
	_, fl = shift62(fh, fl)
	_, gl = shift62(gh, gl)
	f[4], g[4] = int64(fl), int64(gl)
}

// applyMod sets (d, e) to ((u·d + v·e)/2^62, (q·d + r·e)/2^62) mod p, in
// (−2p, p) for d and e there. Each row adds m·p: first u·p for negative d
// and v·p for negative e (for the first row), which puts the sum in
// (−2^62·p, 2^62·p), then less k·p, k in [0, 2^62), that clears its low 62
// bits.
func (c *invConsts) applyMod(t *transition, d, e *signed62) {
	u, v, q, r := t.u, t.v, t.q, t.r
	sd, se := d[4]>>63, e[4]>>63
	md, me := u&sd+v&se, q&sd+r&se
	d0, e0 := uint64(d[0]), uint64(e[0])
	md -= int64((c.pInv*(uint64(u)*d0+uint64(v)*e0) + uint64(md)) & mask62)
	me -= int64((c.pInv*(uint64(q)*d0+uint64(r)*e0) + uint64(me)) & mask62)

	dh, dl := mulAdd(0, 0, u, d[0])
	dh, dl = mulAdd(dh, dl, v, e[0])
	dh, dl = mulAdd(dh, dl, md, c.p[0])
	eh, el := mulAdd(0, 0, q, d[0])
	eh, el = mulAdd(eh, el, r, e[0])
	eh, el = mulAdd(eh, el, me, c.p[0])
	for i := 1; i < 4; i++ {
		dh, dl = shift62(dh, dl)
		eh, el = shift62(eh, el)
		x, y, pi := d[i], e[i], c.p[i]
		dh, dl = mulAdd(dh, dl, u, x)
		dh, dl = mulAdd(dh, dl, v, y)
		dh, dl = mulAdd(dh, dl, md, pi)
		eh, el = mulAdd(eh, el, q, x)
		eh, el = mulAdd(eh, el, r, y)
		eh, el = mulAdd(eh, el, me, pi)
		d[i-1], e[i-1] = int64(dl&mask62), int64(el&mask62)
	}
	dh, dl = shift62(dh, dl)
	eh, el = shift62(eh, el)
	x, y, p4 := d[4], e[4], c.p[4]
	dh, dl = mulAddSigned(dh, dl, u, x)
	dh, dl = mulAddSigned(dh, dl, v, y)
	dh, dl = mulAdd(dh, dl, md, p4)
	eh, el = mulAddSigned(eh, el, q, x)
	eh, el = mulAddSigned(eh, el, r, y)
	eh, el = mulAdd(eh, el, me, p4)
	d[3], e[3] = int64(dl&mask62), int64(el&mask62)
	_, dl = shift62(dh, dl)
	_, el = shift62(eh, el)
	d[4], e[4] = int64(dl), int64(el)
}

// addPIfNegative adds p to d when d < 0.
func (c *invConsts) addPIfNegative(d *signed62) {
	neg := d[4] >> 63
	var carry int64
	for i := range 4 {
		carry += d[i] + c.p[i]&neg
		d[i] = carry & mask62
		carry >>= 62
	}
	d[4] += carry + c.p[4]&neg
}

// mulAdd returns the signed 128-bit (hi, lo) + a·l for a limb 0 <= l < 2^63.
func mulAdd(hi, lo uint64, a, l int64) (uint64, uint64) {
	h, t := bits.Mul64(uint64(a), uint64(l))
	h -= uint64(l) & uint64(a>>63)
	lo, carry := bits.Add64(lo, t, 0)
	hi, _ = bits.Add64(hi, h, carry)
	return hi, lo
}

// mulAddSigned is mulAdd for a signed l.
func mulAddSigned(hi, lo uint64, a, l int64) (uint64, uint64) {
	h, t := bits.Mul64(uint64(a), uint64(l))
	h -= uint64(l)&uint64(a>>63) + uint64(a)&uint64(l>>63)
	lo, carry := bits.Add64(lo, t, 0)
	hi, _ = bits.Add64(hi, h, carry)
	return hi, lo
}

// shift62 returns the signed 128-bit (hi, lo) shifted right by 62 bits.
func shift62(hi, lo uint64) (uint64, uint64) {
	return uint64(int64(hi) >> 62), lo>>62 | hi<<2
}
