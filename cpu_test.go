package ecmul_test

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
)

// cpuEdgeScalars are the scalars the cpu backend is checked on: 0, 1, 2,
// n − 2, n − 1, n, n + 1, 2^(8L) − 1 (the largest L-byte value), every
// bit set below n's top one, single bits, and the fixed window's digit
// patterns (every byte 0x0f, 0xf0, 0x11; the top digit alone).
func cpuEdgeScalars(c *curves.Curve) []*big.Int {
	n, L := c.N(), c.ByteLen()
	one := big.NewInt(1)
	ks := []*big.Int{big.NewInt(0), one, big.NewInt(2), big.NewInt(15), big.NewInt(16),
		new(big.Int).Sub(n, big.NewInt(2)), new(big.Int).Sub(n, one), new(big.Int).Set(n), new(big.Int).Add(n, one),
		new(big.Int).Sub(new(big.Int).Lsh(one, uint(8*L)), one),
		new(big.Int).Sub(new(big.Int).Lsh(one, uint(n.BitLen()-1)), one),
		new(big.Int).Lsh(big.NewInt(15), uint(8*L-4)), new(big.Int).Lsh(one, 64), new(big.Int).Lsh(one, 200)}
	for _, b := range []byte{0x0f, 0xf0, 0x11} {
		ks = append(ks, new(big.Int).SetBytes(bytes.Repeat([]byte{b}, L)))
	}
	return ks
}

// TestCPUBackendEdgeCases: the cpu backend's k·P, through the bytes API
// (uncompressed and compressed points in, every output format out) and
// the *big.Int API (scalars up to 512 bits, reduced mod n), and its k·G
// (ScalarBaseMultBytes, ScalarBaseMultVarTimeBytes, ScalarBaseMult) give
// the references' results on the edge scalars and random ones, on G, −G,
// random points and, on P-256, the points with x = 0.
func TestCPUBackendEdgeCases(t *testing.T) {
	rng := newRNG(17)
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			e := newEngine(t, c, ecmul.Options{Backend: ecmul.CPU, Workers: 2})
			L := c.ByteLen()
			g := ep(c.Generator())
			negG := &ecmul.Point{X: g.X, Y: new(big.Int).Sub(c.P(), g.Y)}
			points := []*ecmul.Point{g, negG, randPoint(t, rng, c), randPoint(t, rng, c)}
			if z := zeroXPoint(c); z != nil {
				points = append(points, z, &ecmul.Point{X: z.X, Y: new(big.Int).Sub(c.P(), z.Y)})
			}
			ks := cpuEdgeScalars(c)
			for range 8 {
				ks = append(ks, randScalar(rng, c))
			}
			var pts []*ecmul.Point
			var scalars []*big.Int
			for _, p := range points {
				for _, k := range ks {
					pts, scalars = append(pts, p), append(scalars, k)
				}
			}
			wants := make([]*ecmul.Point, len(pts))
			for i := range pts {
				wants[i] = want(t, c, pts[i], scalars[i], i%7 == 0)
			}
			// the *big.Int API, with the scalars also lifted by multiples of n above 2^(8L)
			wide := make([]*big.Int, len(scalars))
			for i, k := range scalars {
				wide[i] = new(big.Int).Add(k, new(big.Int).Mul(c.N(), new(big.Int).Lsh(big.NewInt(int64(i+1)), 128)))
			}
			for _, ks := range [][]*big.Int{scalars, wide} {
				res, err := scalarMult(e, context.Background(), pts, ks)
				require.NoError(t, err)
				for i := range res {
					requireResult(t, res[i], wants[i], "ScalarMult item %d, k = %x", i, ks[i])
				}
			}
			// the bytes API, uncompressed and compressed in, every format out
			sc := make([]byte, len(scalars)*L)
			for i, k := range scalars {
				new(big.Int).Mod(k, new(big.Int).Lsh(big.NewInt(1), uint(8*L))).FillBytes(sc[i*L : (i+1)*L])
			}
			for _, compressed := range []bool{false, true} {
				var in []byte
				for _, p := range pts {
					in = append(in, c.EncodeSEC1(cp(p), compressed)...)
				}
				for _, f := range outFormats(L) {
					out, st := make([]byte, len(pts)*f.size), make([]ecmul.Status, len(pts))
					require.NoError(t, e.ScalarMultBytes(context.Background(), out, st, sc, in))
					for i, w := range wants {
						r := out[i*f.size : (i+1)*f.size]
						if w == nil {
							require.Equal(t, ecmul.StatusInfinity, st[i], "item %d", i)
							require.Equal(t, make([]byte, f.size), r, "item %d", i)
							continue
						}
						require.Equal(t, ecmul.StatusPoint, st[i], "item %d", i)
						require.Equal(t, f.enc(w.X.FillBytes(make([]byte, L)), w.Y.FillBytes(make([]byte, L))), r, "%s, compressed %v, item %d", f.name, compressed, i)
					}
				}
			}
			// k·G, on the comb
			base := sc[:len(ks)*L] // the first point is G
			out, st := make([]byte, len(ks)*(1+2*L)), make([]ecmul.Status, len(ks))
			for _, call := range []func(context.Context, []byte, []ecmul.Status, []byte) error{e.ScalarBaseMultBytes, e.ScalarBaseMultVarTimeBytes} {
				require.NoError(t, call(context.Background(), out, st, base))
				for i := range ks {
					w := wants[i]
					if w == nil {
						require.Equal(t, ecmul.StatusInfinity, st[i], "k·G item %d", i)
						continue
					}
					require.Equal(t, ecmul.StatusPoint, st[i], "k·G item %d", i)
					require.Equal(t, c.EncodeSEC1(cp(w), false), out[i*(1+2*L):(i+1)*(1+2*L)], "k·G item %d", i)
				}
			}
			res, err := scalarBaseMult(e, context.Background(), wide[:len(ks)])
			require.NoError(t, err)
			for i := range res {
				requireResult(t, res[i], wants[i], "ScalarBaseMult item %d", i)
			}
		})
	}
}
