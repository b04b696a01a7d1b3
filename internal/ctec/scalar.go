package ctec

import "github.com/rnsec/ecmul/internal/fp"

// window is the width of the scalar's digits, in bits: a digit is half a
// byte of the scalar.
const window = 4

// table holds the first sixteen multiples of a point, table[d] = d·P,
// table[0] the point at infinity.
type table [1 << window]Point

// affineTable holds d·Q for d = 1 … 15 at [d−1], in affine form: one
// window of the comb.
type affineTable [1<<window - 1]Affine

// newTable sets t to the multiples of p: seven doublings and seven mixed
// additions.
func (c *Curve) newTable(t *table, p *Affine) {
	c.SetInfinity(&t[0])
	c.FromAffine(&t[1], p)
	for d := 2; d < len(t); d += 2 {
		c.Double(&t[d], &t[d/2])
		c.AddAffine(&t[d+1], &t[d], p)
	}
}

// lookup sets r to t[d] by a pass over every entry, each kept or dropped
// by a mask: no address depends on d.
func (t *table) lookup(r *Point, d uint64) {
	*r = Point{}
	for j := range t {
		m := byteMask(uint64(j), d)
		e := &t[j]
		for l := range fp.Limbs {
			r.X[l] |= e.X[l] & m
			r.Y[l] |= e.Y[l] & m
			r.Z[l] |= e.Z[l] & m
		}
	}
}

// lookup sets r to t[d−1] for d = 1 … 15, and to zero coordinates for
// d = 0, by a pass over every entry.
func (t *affineTable) lookup(r *Affine, d uint64) {
	*r = Affine{}
	for j := range t {
		m := byteMask(uint64(j+1), d)
		e := &t[j]
		for l := range fp.Limbs {
			r.X[l] |= e.X[l] & m
			r.Y[l] |= e.Y[l] & m
		}
	}
}

// ScalarMult sets r = k·p for the big-endian scalar k of exactly
// ScalarBytes bytes, any value (k ≥ n included: the result is then
// (k mod n)·p). From the top, each four-bit digit d of k costs four
// doublings of the accumulator (Double4) and the addition of table[d]
// (the point at infinity for d = 0), read whole: the work and the
// addresses are the same for every k. It panics on another length.
func (c *Curve) ScalarMult(r *Point, p *Affine, k []byte) {
	if len(k) != c.size {
		panic("ctec: ScalarMult: the scalar is not ScalarBytes long")
	}
	var t table
	c.newTable(&t, p)
	var acc, e Point
	t.lookup(&acc, uint64(k[0]>>4))
	for i, b := range k {
		if i > 0 {
			c.Double4(&acc, &acc)
			t.lookup(&e, uint64(b>>4))
			c.Add(&acc, &acc, &e)
		}
		c.Double4(&acc, &acc)
		t.lookup(&e, uint64(b&0xf))
		c.Add(&acc, &acc, &e)
	}
	*r = acc
}

// ScalarBaseMult sets r = k·G, G the curve's generator, for k as
// ScalarMult takes it, on a comb: window w of the precomputed table holds
// d·16^w·G, so each digit costs one mixed addition of its entry, read
// whole, and no doubling. The sum is computed for a zero digit too (with
// zero coordinates in place of an entry) and dropped by a mask. It panics
// on another length.
func (c *Curve) ScalarBaseMult(r *Point, k []byte) {
	if len(k) != c.size {
		panic("ctec: ScalarBaseMult: the scalar is not ScalarBytes long")
	}
	tables := c.base()
	var acc, sum Point
	var e Affine
	c.SetInfinity(&acc)
	w := len(tables) - 1
	for _, b := range k {
		for _, d := range [2]uint64{uint64(b >> 4), uint64(b & 0xf)} {
			tables[w].lookup(&e, d)
			c.AddAffine(&sum, &acc, &e)
			Select(&acc, &sum, ^byteMask(d, 0))
			w--
		}
	}
	*r = acc
}

// base returns the comb's table, built on first use: 2·ScalarBytes
// windows of fifteen affine points. None is the point at infinity, since
// d·16^w < n for every window's d and w on these curves.
func (c *Curve) base() []affineTable {
	c.baseOnce.Do(func() {
		f := c.f
		tables := make([]affineTable, 2*c.size)
		var q, m Point
		c.FromAffine(&q, &c.gen)
		for w := range tables {
			m = q
			for d := range tables[w] {
				if d > 0 {
					c.Add(&m, &m, &q)
				}
				var zi fp.Element
				f.Inverse(&zi, &m.Z)
				if zi.IsZero() {
					panic("ctec: " + c.curve.Name() + ": a multiple of G in the comb's table is the point at infinity")
				}
				f.Mul(&tables[w][d].X, &m.X, &zi)
				f.Mul(&tables[w][d].Y, &m.Y, &zi)
			}
			for range window {
				c.Double(&q, &q)
			}
		}
		c.baseTable = tables
	})
	return c.baseTable
}
