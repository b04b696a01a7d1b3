package engine

import (
	"context"
	"math/big"
)

// ScalarBaseMult sets res[i] to scalars[i]·G for every i, G the curve's
// generator: ScalarMult with G as every point, computed as
// ScalarBaseMultBytes computes it (the fixed-base comb on the gpu and
// rns-cpu backends). Progress goes to the function ctx carries, the
// invalid scalars counting as answered first.
func (e *Engine) ScalarBaseMult(ctx context.Context, res []Result, scalars []*big.Int) error {
	if err := e.usable(); err != nil {
		failAll(res, err)
		return err
	}
	if len(res) != len(scalars) {
		failAll(res, errLengthMismatch)
		return errLengthMismatch
	}
	e.clearResults(res)
	progress := progressOf(ctx)
	valid := make([]int, 0, len(scalars))
	for i, k := range scalars {
		if err := checkScalar(k); err != nil {
			res[i].Err = err
			continue
		}
		valid = append(valid, i)
	}
	invalid := len(scalars) - len(valid)
	if progress != nil && invalid > 0 {
		progress(invalid, len(scalars))
	}
	c := e.curve
	L, n := c.ByteLen(), c.N()
	in := make([]byte, len(valid)*L)
	for j, i := range valid {
		k := scalars[i]
		if k.Cmp(n) >= 0 {
			k = new(big.Int).Mod(k, n)
		}
		k.FillBytes(in[j*L : (j+1)*L])
	}
	out := make([]byte, len(valid)*(1+2*L))
	status := make([]Status, len(valid))
	var inner func(done, total int)
	if progress != nil {
		inner = func(done, _ int) { progress(invalid+done, len(scalars)) }
	}
	err := e.bytesCall(ctx, status, inner, func() (*bytesBatch, error) {
		return newBaseBatch(e.curve, out, status, in, e.base)
	})
	slab := newResultSlab(len(valid), L)
	for j, i := range valid {
		r := &res[i]
		switch s := status[j]; s {
		case StatusPoint:
			slab.set(r, j, out[j*(1+2*L)+1:(j+1)*(1+2*L)])
		case StatusInfinity:
			r.Infinity = true
		case StatusNotComputed:
			r.Err = err
		default:
			r.Err = s.Err()
		}
	}
	return err
}
