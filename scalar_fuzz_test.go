package ecmul_test

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// fuzzEngines are one cpu and one rns-cpu engine per curve, shared by every
// iteration (an Engine is safe for concurrent use).
var fuzzEngines = sync.OnceValue(func() map[string][2]*ecmul.Engine {
	out := map[string][2]*ecmul.Engine{}
	for _, c := range curves.All() {
		cpu, err := ecmul.New(pub(c), ecmul.Options{Backend: ecmul.CPU, Workers: 1})
		if err != nil {
			panic(err)
		}
		rns, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.RNSCPU, Workers: 1}, diag.Tuning{Extension: diag.Kawamura})
		if err != nil {
			panic(err)
		}
		out[c.Name()] = [2]*ecmul.Engine{cpu, rns}
	}
	return out
})

// expectedErrs are the errors ScalarMult documents for an item, decided
// independently of the package: every one that applies (the item is valid
// when there is none). When several apply, the item may carry any of them.
func expectedErrs(c *curves.Curve, p *ecmul.Point, k *big.Int) []error {
	var errs []error
	switch {
	case k == nil:
		errs = append(errs, ecmul.ErrNilScalar)
	case k.Sign() < 0:
		errs = append(errs, ecmul.ErrScalarNegative)
	case k.BitLen() > ecmul.MaxScalarBits:
		errs = append(errs, ecmul.ErrScalarTooLarge)
	}
	if p == nil {
		return append(errs, ecmul.ErrNilPoint)
	}
	valid := true
	for _, v := range []*big.Int{p.X, p.Y} {
		switch {
		case v == nil:
			errs, valid = append(errs, curves.ErrInfinity), false
		case v.Sign() < 0 || v.Cmp(c.P()) >= 0:
			errs, valid = append(errs, curves.ErrCoordinateRange), false
		}
	}
	if !valid {
		return errs
	}
	if p.X.Sign() == 0 && p.Y.Sign() == 0 {
		return append(errs, curves.ErrInfinity)
	}
	l := new(big.Int).Exp(p.Y, big.NewInt(2), c.P())
	r := new(big.Int).Exp(p.X, big.NewInt(3), nil)
	r.Add(r, new(big.Int).Mul(big.NewInt(c.A()), p.X)).Add(r, c.B()).Mod(r, c.P())
	if l.Cmp(r) != 0 {
		errs = append(errs, curves.ErrNotOnCurve)
	}
	return errs
}

// fuzzPoint builds the item's point from the fuzz input: raw coordinates,
// a valid point found from x, a valid point nudged off the curve, or one of
// the edge shapes (nil point, nil coordinate, (0, 0), a coordinate equal to
// p or negative).
func fuzzPoint(c *curves.Curve, mode uint8, xb, yb []byte) *ecmul.Point {
	x, y := new(big.Int).SetBytes(xb), new(big.Int).SetBytes(yb)
	switch mode & 7 {
	case 0:
		return &ecmul.Point{X: x, Y: y}
	case 1, 2, 3:
		x.Mod(x, new(big.Int).Add(c.P(), big.NewInt(2)))
		ry, err := c.RecoverY(x, len(yb) > 0 && yb[0]&1 == 1)
		if err != nil {
			return &ecmul.Point{X: x, Y: y}
		}
		if mode&7 == 3 {
			ry.Add(ry, y.Rsh(y, 8*max(0, uint(len(yb))-2)))
		}
		return &ecmul.Point{X: x, Y: ry}
	case 4:
		return nil
	case 5:
		return &ecmul.Point{X: x, Y: nil}
	case 6:
		return &ecmul.Point{X: new(big.Int), Y: new(big.Int)}
	default:
		g := ep(c.Generator())
		if len(xb) > 0 && xb[0]&1 == 1 {
			g.X.Neg(g.X)
		} else {
			g.Y.Add(g.Y, c.P())
		}
		return g
	}
}

// FuzzScalarMult sends one fuzzed item, next to a fixed valid one, through
// Engine.ScalarMult on the cpu backend, or on rns-cpu when the mode says so
// (a few milliseconds per item). Nothing wrong gets through: an item is
// computed exactly when it is valid, decided here from the definitions, and
// then its result is the reference's; an invalid item carries an
// *ItemError with its index, wrapping a documented sentinel that applies,
// and no coordinates; the batch never fails as a whole; the valid neighbour
// is always right; the inputs are left as they were.
func FuzzScalarMult(f *testing.F) {
	f.Add(uint8(0), uint8(1), []byte{3}, []byte{0}, []byte{5}, false)
	f.Add(uint8(1), uint8(0x80|6), []byte{}, []byte{}, []byte{1}, false)
	f.Add(uint8(2), uint8(4), []byte{}, []byte{}, []byte{}, true)
	f.Fuzz(func(t *testing.T, curve, mode uint8, xb, yb, kb []byte, neg bool) {
		if len(xb) > 40 || len(yb) > 40 || len(kb) > 80 {
			return
		}
		all := curves.All()
		c := all[int(curve)%len(all)]
		engines := fuzzEngines()[c.Name()]
		e := engines[0]
		if mode&0x80 != 0 {
			e = engines[1]
		}
		p := fuzzPoint(c, mode, xb, yb)
		var k *big.Int
		if mode&0x40 == 0 {
			k = new(big.Int).SetBytes(kb)
			if neg {
				k.Neg(k)
			}
		}
		var saved []*big.Int
		for _, v := range []*big.Int{pointX(p), pointY(p), k} {
			if v != nil {
				saved = append(saved, new(big.Int).Set(v))
			} else {
				saved = append(saved, nil)
			}
		}
		g := ep(c.Generator())
		res, err := scalarMult(e, context.Background(), []*ecmul.Point{g, p}, []*big.Int{big.NewInt(3), k})
		if err != nil || len(res) != 2 {
			t.Fatalf("the batch failed: %v (%d results)", err, len(res))
		}
		for i, v := range []*big.Int{pointX(p), pointY(p), k} {
			if (v == nil) != (saved[i] == nil) || v != nil && v.Cmp(saved[i]) != 0 {
				t.Fatal("ScalarMult modified its inputs")
			}
		}
		w3x, w3y, _, _ := c.ReferenceScalarMult(c.Gx(), c.Gy(), big.NewInt(3))
		if r := res[0]; r.Err != nil || r.X.Cmp(w3x) != 0 || r.Y.Cmp(w3y) != 0 {
			t.Fatalf("%s %s: the valid neighbour 3·G is wrong: %+v", c.Name(), e.Backend(), r)
		}

		r := res[1]
		if want := expectedErrs(c, p, k); want != nil {
			if !slices.ContainsFunc(want, func(w error) bool { return errors.Is(r.Err, w) }) {
				t.Fatalf("%s %s: item %v·%v: error %v, want one of %v", c.Name(), e.Backend(), k, p, r.Err, want)
			}
			if r.X != nil || r.Y != nil || r.Infinity {
				t.Fatalf("%s %s: invalid item %v·%v has a result %+v", c.Name(), e.Backend(), k, p, r)
			}
			return
		}
		if r.Err != nil {
			t.Fatalf("%s %s: valid item %x·%v rejected: %v", c.Name(), e.Backend(), k, p, r.Err)
		}
		wx, wy, ok, err := c.ReferenceScalarMult(p.X, p.Y, k)
		if err != nil {
			t.Fatalf("%s: reference: %v", c.Name(), err)
		}
		if !ok {
			if !r.Infinity || r.X != nil || r.Y != nil {
				t.Fatalf("%s %s: %x·%v = %+v, want infinity", c.Name(), e.Backend(), k, p, r)
			}
			return
		}
		if r.Infinity || r.X.Cmp(wx) != 0 || r.Y.Cmp(wy) != 0 {
			t.Fatalf("%s %s: %x·%v = %+v, want (%x, %x)", c.Name(), e.Backend(), k, p, r, wx, wy)
		}
	})
}

func pointX(p *ecmul.Point) *big.Int {
	if p == nil {
		return nil
	}
	return p.X
}

func pointY(p *ecmul.Point) *big.Int {
	if p == nil {
		return nil
	}
	return p.Y
}
