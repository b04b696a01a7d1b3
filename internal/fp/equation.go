package fp

import "math/big"

// Equation is a short Weierstrass equation y² = x³ + a·x + b over a Field,
// its coefficients in Montgomery form. It serves both the validation of
// input points and the check of computed results.
type Equation struct {
	F    *Field
	A, B Element
}

// NewEquation returns y² = x³ + a·x + b over f.
func NewEquation(f *Field, a int64, b *big.Int) *Equation {
	e := &Equation{F: f}
	f.SetInt64(&e.A, a)
	f.SetBig(&e.B, b)
	return e
}

// Holds reports whether (x, y) satisfies the equation.
func (e *Equation) Holds(x, y *Element) bool {
	var lhs, rhs Element
	e.F.Square(&lhs, y)
	e.RHS(&rhs, x)
	return lhs.Equal(&rhs)
}

// RHS sets z = x³ + a·x + b.
func (e *Equation) RHS(z, x *Element) {
	f := e.F
	var r Element
	f.Square(&r, x)
	f.Add(&r, &r, &e.A) // x² + a
	f.Mul(&r, &r, x)    // x³ + a·x
	f.Add(z, &r, &e.B)
}
