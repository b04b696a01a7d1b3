package ecmul_test

import (
	"context"
	"math/big"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// pub is a curve as the library names it: an ecmul.Curve as it is, a
// *curves.Curve by its name (the zero Curve for nil or an unnamed one).
func pub(c any) ecmul.Curve {
	switch c := c.(type) {
	case ecmul.Curve:
		return c
	case *curves.Curve:
		if c == nil {
			return ecmul.Curve{}
		}
		pc, _ := ecmul.ParseCurve(c.Name())
		return pc
	}
	return ecmul.Curve{}
}

// impl is the implementation of the library's curve c.
func impl(c ecmul.Curve) *curves.Curve {
	k, _ := curves.ByName(c.String())
	return k
}

// ep is p as the library's point (nil stays nil).
func ep(p any) *ecmul.Point {
	switch p := p.(type) {
	case *ecmul.Point:
		return p
	case *curves.Point:
		return (*ecmul.Point)(p)
	}
	return nil
}

// cp is p as package curves' point (nil stays nil).
func cp(p any) *curves.Point {
	switch p := p.(type) {
	case *ecmul.Point:
		return (*curves.Point)(p)
	case *curves.Point:
		return p
	}
	return nil
}

// sched is the library's name of the ladder schedule k.
func sched(k ladder.Kind) diag.Schedule {
	s, err := diag.ParseSchedule(k.String())
	if err != nil {
		panic(err)
	}
	return s
}

// extOf is the library's name of the base extension v.
func extOf(v basext.Variant) diag.Extension {
	x, err := diag.ParseExtension(v.String())
	if err != nil {
		panic(err)
	}
	return x
}

// mappingOf is the mapping of that name, "" being the default.
func mappingOf(name string) diag.Mapping {
	if name == "" {
		return diag.MappingDefault
	}
	m, err := diag.ParseMapping(name)
	if err != nil {
		panic(err)
	}
	return m
}

// scalarMult is e.ScalarMult into a fresh slice of results.
func scalarMult(e *ecmul.Engine, ctx context.Context, pts []*ecmul.Point, ks []*big.Int) ([]ecmul.Result, error) {
	res := make([]ecmul.Result, len(ks))
	err := e.ScalarMult(ctx, res, ks, pts)
	return res, err
}

// scalarBaseMult is e.ScalarBaseMult into a fresh slice of results.
func scalarBaseMult(e *ecmul.Engine, ctx context.Context, ks []*big.Int) ([]ecmul.Result, error) {
	res := make([]ecmul.Result, len(ks))
	err := e.ScalarBaseMult(ctx, res, ks)
	return res, err
}
