package ecmul

import (
	"context"
	"math/big"
)

// ScalarBaseMult returns scalars[i]·G for every i, G the curve's
// generator: ScalarMult with G as every point, computed as
// ScalarBaseMultBytes computes it (the fixed-base comb on the gpu and
// rns-cpu backends). A missing or negative scalar, or one of more than 512
// bits, gets its own *ItemError and the others are computed all the same;
// scalars are reduced mod n, and a multiple of n gives the point at
// infinity. The error is ScalarMult's: non-nil only when the batch as a
// whole failed, the items without a result then carrying it too.
func (e *Engine) ScalarBaseMult(ctx context.Context, scalars []*big.Int) ([]Result, error) {
	return e.ScalarBaseMultProgress(ctx, scalars, nil)
}

// ScalarBaseMultProgress is ScalarBaseMult with progress reports, as
// ScalarMultProgress makes them (the invalid scalars count as answered
// first).
func (e *Engine) ScalarBaseMultProgress(ctx context.Context, scalars []*big.Int, progress func(done, total int)) ([]Result, error) {
	if err := e.usable(); err != nil {
		return nil, err
	}
	res := make([]Result, len(scalars))
	valid := make([]int, 0, len(scalars))
	for i, k := range scalars {
		if err := checkScalar(k); err != nil {
			res[i].Err = &ItemError{Index: i, Err: err}
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
	err := e.ScalarBaseMultBytesProgress(ctx, out, status, in, inner)
	for j, i := range valid {
		r := &res[i]
		switch s := status[j]; s {
		case StatusPoint:
			xy := out[j*(1+2*L)+1 : (j+1)*(1+2*L)]
			r.X, r.Y = new(big.Int).SetBytes(xy[:L]), new(big.Int).SetBytes(xy[L:])
		case StatusInfinity:
			r.Infinity = true
		case StatusNotComputed:
			if err != nil {
				r.Err = &ItemError{Index: i, Err: err}
			}
		default:
			r.Err = &ItemError{Index: i, Err: s.Err()}
		}
	}
	return res, err
}
