package ctec

import "github.com/rnsec/ecmul/internal/fp"

// The complete formulas of Renes, Costello and Batina (ePrint 2015/1060):
// Algorithms 4 (addition), 5 (mixed addition) and 6 (doubling) for a = −3,
// 7, 8 and 9 for a = 0. Each is correct for every pair of points of the
// curve, the point at infinity included (a mixed addition's affine point
// excepted, which is never the point at infinity), so the code has no
// case to tell apart. Step numbers are the paper's.

// Add sets r = p + q (Algorithm 4 or 7). r may alias p or q.
func (c *Curve) Add(r, p, q *Point) {
	var s addTerms
	s.products(c.f, p, q)
	c.finishAdd(r, &s)
}

// AddAffine sets r = p + q for an affine q (Algorithm 5 or 8). r may
// alias p.
func (c *Curve) AddAffine(r, p *Point, q *Affine) {
	var s addTerms
	s.mixedProducts(c.f, p, q)
	c.finishAdd(r, &s)
}

// finishAdd finishes an addition from its terms by the formulas of the
// curve's a.
func (c *Curve) finishAdd(r *Point, s *addTerms) {
	if c.aZero {
		c.finishAddA0(r, s)
		return
	}
	c.finishAddA3(r, s)
}

// Double sets r = 2p. r may alias p.
func (c *Curve) Double(r, p *Point) {
	if c.aZero {
		c.doubleA0(r, p)
		return
	}
	c.doubleA3(r, p)
}

// addTerms are the products of an addition's inputs that Algorithms 4
// and 7 (and 5 and 8) share, whatever a: t0 = X_p·X_q, t1 = Y_p·Y_q,
// t2 = Z_p·Z_q, and t3, t4 and y3 the cross terms of X·Y, Y·Z and X·Z.
type addTerms struct{ t0, t1, t2, t3, t4, y3 fp.Element }

// products sets s from p and q: steps 1 to 18 of Algorithms 4 and 7
// (12M + 2m_b + 29a and 12M + 2m_3b + 19a in all, with their finishes).
func (s *addTerms) products(f *fp.Field, p, q *Point) {
	var x3 fp.Element
	f.Mul(&s.t0, &p.X, &q.X)   // 1
	f.Mul(&s.t1, &p.Y, &q.Y)   // 2
	f.Mul(&s.t2, &p.Z, &q.Z)   // 3
	f.Add(&s.t3, &p.X, &p.Y)   // 4
	f.Add(&s.t4, &q.X, &q.Y)   // 5
	f.Mul(&s.t3, &s.t3, &s.t4) // 6
	f.Add(&s.t4, &s.t0, &s.t1) // 7
	f.Sub(&s.t3, &s.t3, &s.t4) // 8
	f.Add(&s.t4, &p.Y, &p.Z)   // 9
	f.Add(&x3, &q.Y, &q.Z)     // 10
	f.Mul(&s.t4, &s.t4, &x3)   // 11
	f.Add(&x3, &s.t1, &s.t2)   // 12
	f.Sub(&s.t4, &s.t4, &x3)   // 13
	f.Add(&x3, &p.X, &p.Z)     // 14
	f.Add(&s.y3, &q.X, &q.Z)   // 15
	f.Mul(&x3, &x3, &s.y3)     // 16
	f.Add(&s.y3, &s.t0, &s.t2) // 17
	f.Sub(&s.y3, &x3, &s.y3)   // 18
}

// mixedProducts sets s from p and an affine q: steps 1 to 11 of
// Algorithms 5 and 8, which are 4 and 7 with Z_q = 1, so that t2 = Z_p,
// t4 = Y_q·Z_p + Y_p and y3 = X_q·Z_p + X_p.
func (s *addTerms) mixedProducts(f *fp.Field, p *Point, q *Affine) {
	f.Mul(&s.t0, &p.X, &q.X)   // 1
	f.Mul(&s.t1, &p.Y, &q.Y)   // 2
	f.Add(&s.t3, &q.X, &q.Y)   // 3
	f.Add(&s.t4, &p.X, &p.Y)   // 4
	f.Mul(&s.t3, &s.t3, &s.t4) // 5
	f.Add(&s.t4, &s.t0, &s.t1) // 6
	f.Sub(&s.t3, &s.t3, &s.t4) // 7
	f.Mul(&s.t4, &q.Y, &p.Z)   // 8
	f.Add(&s.t4, &s.t4, &p.Y)  // 9
	f.Mul(&s.y3, &q.X, &p.Z)   // 10
	f.Add(&s.y3, &s.y3, &p.X)  // 11
	s.t2 = p.Z
}

// finishAddA3 is the part of Algorithms 4 and 5 (a = −3) after the
// products of the inputs: steps 19 to 43 of Algorithm 4. It overwrites s.
func (c *Curve) finishAddA3(r *Point, s *addTerms) {
	f := c.f
	t0, t1, t2, t3, t4, y3 := &s.t0, &s.t1, &s.t2, &s.t3, &s.t4, &s.y3
	var x3, z3 fp.Element
	f.Mul(&z3, &c.b, t2) // 19
	f.Sub(&x3, y3, &z3)  // 20
	f.Add(&z3, &x3, &x3) // 21
	f.Add(&x3, &x3, &z3) // 22
	f.Sub(&z3, t1, &x3)  // 23
	f.Add(&x3, t1, &x3)  // 24
	f.Mul(y3, &c.b, y3)  // 25
	f.Add(t1, t2, t2)    // 26
	f.Add(t2, t1, t2)    // 27
	f.Sub(y3, y3, t2)    // 28
	f.Sub(y3, y3, t0)    // 29
	f.Add(t1, y3, y3)    // 30
	f.Add(y3, t1, y3)    // 31
	f.Add(t1, t0, t0)    // 32
	f.Add(t0, t1, t0)    // 33
	f.Sub(t0, t0, t2)    // 34
	f.Mul(t1, t4, y3)    // 35
	f.Mul(t2, t0, y3)    // 36
	f.Mul(y3, &x3, &z3)  // 37
	f.Add(y3, y3, t2)    // 38
	f.Mul(&x3, t3, &x3)  // 39
	f.Sub(&x3, &x3, t1)  // 40
	f.Mul(&z3, t4, &z3)  // 41
	f.Mul(t1, t3, t0)    // 42
	f.Add(&z3, &z3, t1)  // 43
	r.X, r.Y, r.Z = x3, *y3, z3
}

// doubleA3 is Algorithm 6 (a = −3): 8M + 3S + 2m_b + 21a.
func (c *Curve) doubleA3(r, p *Point) {
	f := c.f
	var t0, t1, t2, t3, x3, y3, z3 fp.Element
	f.Square(&t0, &p.X)    // 1
	f.Square(&t1, &p.Y)    // 2
	f.Square(&t2, &p.Z)    // 3
	f.Mul(&t3, &p.X, &p.Y) // 4
	f.Add(&t3, &t3, &t3)   // 5
	f.Mul(&z3, &p.X, &p.Z) // 6
	f.Add(&z3, &z3, &z3)   // 7
	f.Mul(&y3, &c.b, &t2)  // 8
	f.Sub(&y3, &y3, &z3)   // 9
	f.Add(&x3, &y3, &y3)   // 10
	f.Add(&y3, &x3, &y3)   // 11
	f.Sub(&x3, &t1, &y3)   // 12
	f.Add(&y3, &t1, &y3)   // 13
	f.Mul(&y3, &x3, &y3)   // 14
	f.Mul(&x3, &x3, &t3)   // 15
	f.Add(&t3, &t2, &t2)   // 16
	f.Add(&t2, &t2, &t3)   // 17
	f.Mul(&z3, &c.b, &z3)  // 18
	f.Sub(&z3, &z3, &t2)   // 19
	f.Sub(&z3, &z3, &t0)   // 20
	f.Add(&t3, &z3, &z3)   // 21
	f.Add(&z3, &z3, &t3)   // 22
	f.Add(&t3, &t0, &t0)   // 23
	f.Add(&t0, &t3, &t0)   // 24
	f.Sub(&t0, &t0, &t2)   // 25
	f.Mul(&t0, &t0, &z3)   // 26
	f.Add(&y3, &y3, &t0)   // 27
	f.Mul(&t0, &p.Y, &p.Z) // 28
	f.Add(&t0, &t0, &t0)   // 29
	f.Mul(&z3, &t0, &z3)   // 30
	f.Sub(&x3, &x3, &z3)   // 31
	f.Mul(&z3, &t0, &t1)   // 32
	f.Add(&z3, &z3, &z3)   // 33
	f.Add(&z3, &z3, &z3)   // 34
	r.X, r.Y, r.Z = x3, y3, z3
}

// finishAddA0 is the part of Algorithms 7 and 8 (a = 0) after the
// products of the inputs: steps 19 to 33 of Algorithm 7. It overwrites s.
func (c *Curve) finishAddA0(r *Point, s *addTerms) {
	f := c.f
	t0, t1, t2, t3, t4, y3 := &s.t0, &s.t1, &s.t2, &s.t3, &s.t4, &s.y3
	var x3, z3 fp.Element
	f.Add(&x3, t0, t0)   // 19
	f.Add(t0, &x3, t0)   // 20
	f.Mul(t2, &c.b3, t2) // 21
	f.Add(&z3, t1, t2)   // 22
	f.Sub(t1, t1, t2)    // 23
	f.Mul(y3, &c.b3, y3) // 24
	f.Mul(&x3, t4, y3)   // 25
	f.Mul(t2, t3, t1)    // 26
	f.Sub(&x3, t2, &x3)  // 27
	f.Mul(y3, y3, t0)    // 28
	f.Mul(t1, t1, &z3)   // 29
	f.Add(y3, t1, y3)    // 30
	f.Mul(t0, t0, t3)    // 31
	f.Mul(&z3, &z3, t4)  // 32
	f.Add(&z3, &z3, t0)  // 33
	r.X, r.Y, r.Z = x3, *y3, z3
}

// doubleA0 is Algorithm 9 (a = 0): 6M + 2S + 1m_3b + 9a.
func (c *Curve) doubleA0(r, p *Point) {
	f := c.f
	var t0, t1, t2, x3, y3, z3 fp.Element
	f.Square(&t0, &p.Y)    // 1
	f.Add(&z3, &t0, &t0)   // 2
	f.Add(&z3, &z3, &z3)   // 3
	f.Add(&z3, &z3, &z3)   // 4
	f.Mul(&t1, &p.Y, &p.Z) // 5
	f.Square(&t2, &p.Z)    // 6
	f.Mul(&t2, &c.b3, &t2) // 7
	f.Mul(&x3, &t2, &z3)   // 8
	f.Add(&y3, &t0, &t2)   // 9
	f.Mul(&z3, &t1, &z3)   // 10
	f.Add(&t1, &t2, &t2)   // 11
	f.Add(&t2, &t1, &t2)   // 12
	f.Sub(&t0, &t0, &t2)   // 13
	f.Mul(&y3, &t0, &y3)   // 14
	f.Add(&y3, &x3, &y3)   // 15
	f.Mul(&t1, &p.X, &p.Y) // 16
	f.Mul(&x3, &t0, &t1)   // 17
	f.Add(&x3, &x3, &x3)   // 18
	r.X, r.Y, r.Z = x3, y3, z3
}

// double4A3 sets p = 16p for a = −3 in Jacobian coordinates, four times
// dbl-2001-b (Bernstein, Lange, Explicit-Formulas Database: 3M + 5S, where
// Algorithm 6 costs 8M + 3S + 2m_b), with the moves from projective
// coordinates and back around them (1S + 2M each way): (X : Y : Z) is
// (X·Z, Y·Z², Z) in Jacobian coordinates (x = X/Z², y = Y/Z³), and
// (X, Y, Z) Jacobian is (X·Z : Y : Z³). A doubling is exact on every
// point but the point at infinity (these curves have no point of order
// two), which the moves turn into (0 : 0 : 0); a mask of Z = 0 then puts
// Y = 1 back, so that (0 : 1 : 0) comes out.
func (c *Curve) double4A3(p *Point) {
	f := c.f
	var x, y, z, t fp.Element
	f.Square(&t, &p.Z)
	f.Mul(&x, &p.X, &p.Z)
	f.Mul(&y, &p.Y, &t)
	z = p.Z
	for range window {
		var delta, gamma, beta, alpha, u, v fp.Element
		f.Square(&delta, &z)
		f.Square(&gamma, &y)
		f.Mul(&beta, &x, &gamma)
		f.Sub(&u, &x, &delta)
		f.Add(&v, &x, &delta)
		f.Mul(&alpha, &u, &v)
		f.Add(&u, &alpha, &alpha)
		f.Add(&alpha, &u, &alpha) // 3(X − δ)(X + δ)
		f.Add(&z, &y, &z)
		f.Square(&z, &z)
		f.Sub(&z, &z, &gamma)
		f.Sub(&z, &z, &delta) // (Y + Z)² − γ − δ = 2YZ
		f.Add(&u, &beta, &beta)
		f.Add(&u, &u, &u) // 4β
		f.Square(&x, &alpha)
		f.Sub(&x, &x, &u)
		f.Sub(&x, &x, &u) // α² − 8β
		f.Sub(&u, &u, &x)
		f.Mul(&y, &alpha, &u)
		f.Square(&gamma, &gamma)
		f.Add(&gamma, &gamma, &gamma)
		f.Add(&gamma, &gamma, &gamma)
		f.Add(&gamma, &gamma, &gamma) // 8γ²
		f.Sub(&y, &y, &gamma)         // α(4β − X3) − 8γ²
	}
	f.Square(&t, &z)
	f.Mul(&p.X, &x, &z)
	f.Mul(&p.Z, &t, &z)
	p.Y = y
	one := f.One()
	selectElement(&p.Y, &one, zeroMask(&p.Z))
}

// Double4 sets r = 16p: four doublings, in Jacobian coordinates for
// a = −3 (double4A3), by Algorithm 9 for a = 0. r may alias p.
func (c *Curve) Double4(r, p *Point) {
	if c.aZero {
		for range window {
			c.doubleA0(r, p)
			p = r
		}
		return
	}
	*r = *p
	c.double4A3(r)
}
