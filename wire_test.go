package ecmul_test

import (
	"bytes"
	"context"
	"math/big"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernelemu"
	"github.com/rnsec/ecmul/internal/kernels"
)

// withWireItems adds to b the items that only the wire kernels decide on
// the device: SEC1 prefixes 0x00, 0x02 and 0x03 on 1+2L bytes, x = p, y = p,
// and, where the curve has one, the point with x = 0 under edge and random
// scalars (which the host rewrites to 2P and k/2 first).
func withWireItems(t *testing.T, c *curves.Curve, b bytesItems) bytesItems {
	t.Helper()
	L := c.ByteLen()
	g := c.EncodeSEC1(cp(c.Generator()), false)
	k := big.NewInt(12345)
	add := func(point []byte, k *big.Int, st ecmul.Status, xy []byte) {
		b.scalars = append(b.scalars, k.FillBytes(make([]byte, L))...)
		b.points = append(b.points, point...)
		b.want, b.wantXY = append(b.want, st), append(b.wantXY, xy)
	}
	for _, prefix := range []byte{0, 2, 3} {
		add(append([]byte{prefix}, g[1:]...), k, ecmul.StatusBadEncoding, nil)
	}
	p := c.P().FillBytes(make([]byte, L))
	add(slices.Concat([]byte{4}, p, g[1+L:]), k, ecmul.StatusBadCoordinate, nil)
	add(slices.Concat([]byte{4}, g[1:1+L], p), k, ecmul.StatusBadCoordinate, nil)
	y := new(big.Int).ModSqrt(c.B(), c.P())
	if y == nil {
		return b
	}
	zeroX := &ecmul.Point{X: big.NewInt(0), Y: y}
	rng := newRNG(3)
	for _, k := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Sub(c.N(), big.NewInt(1)), c.N(), randScalar(rng, c)} {
		w := want(t, c, zeroX, k, false)
		if w == nil {
			add(c.EncodeSEC1(cp(zeroX), false), k, ecmul.StatusInfinity, nil)
			continue
		}
		add(c.EncodeSEC1(cp(zeroX), false), k, ecmul.StatusPoint, append(w.X.FillBytes(make([]byte, L)), w.Y.FillBytes(make([]byte, L))...))
	}
	return b
}

// TestScalarMultBytesWire runs uncompressed bytes batches through the wire
// kernels (the unpack, prepare, ladder, finish and pack kernels emulated by
// their CPU twins) on every curve, in every output format: each item gets
// the reference's result or its bad point's status, and the host touches
// no item but to copy it, a point with x = 0 apart.
func TestScalarMultBytesWire(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			d := devicesDriver(t, c, 1)
			t.Cleanup(ecmul.GPUItemsFrom(1))
			emulate := kernelemu.Launch(d)
			var mu sync.Mutex
			launched := map[string]int{}
			d.OnLaunch = func(fn string, grid, block [3]uint32, params []gpu.HostPtr) error {
				mu.Lock()
				launched[fn]++
				mu.Unlock()
				return emulate(fn, grid, block, params)
			}
			L := c.ByteLen()
			b := withWireItems(t, c, newBytesItems(t, c, 24, false, 41))
			e := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 7})
			for _, f := range outFormats(L) {
				n := len(b.want)
				out := bytes.Repeat([]byte{0xee}, n*f.size)
				status := make([]ecmul.Status, n)
				require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points), f.name)
				require.Equal(t, b.want, status, f.name)
				for i := range n {
					want := make([]byte, f.size)
					if b.want[i] == ecmul.StatusPoint {
						want = f.enc(b.wantXY[i][:L], b.wantXY[i][L:])
					}
					require.Equal(t, want, out[i*f.size:(i+1)*f.size], "%s item %d (%v)", f.name, i, b.want[i])
				}
			}
			unpack, err := kernels.UnpackName(c.Name(), "c30")
			require.NoError(t, err)
			pack, err := kernels.PackName(c.Name(), "c30")
			require.NoError(t, err)
			chunks := 3 * ((len(b.want) + 6) / 7)
			require.Equal(t, chunks, launched[unpack], "an unpack per chunk")
			require.Equal(t, chunks, launched[pack], "a pack per chunk")
		})
	}
}

// TestScalarMultWireErrors: the *big.Int API on the wire kernels, which
// checks the curve's equation on the GPU, gives every invalid item the
// error the cpu backend gives it, word for word: a point off the curve, a
// coordinate not below p, (0, 0), a nil point, negative and oversized
// scalars; the valid items among them get the reference's results.
func TestScalarMultWireErrors(t *testing.T) {
	c := curves.P256()
	devicesDriver(t, c, 1)
	t.Cleanup(ecmul.GPUItemsFrom(1))
	rng := newRNG(9)
	pts, ks := make([]*ecmul.Point, 12), make([]*big.Int, 12)
	for i := range pts {
		pts[i], ks[i] = randPoint(t, rng, c), randScalar(rng, c)
	}
	pts[1] = &ecmul.Point{X: c.Gx(), Y: new(big.Int).Add(c.Gy(), big.NewInt(1))}
	pts[3] = &ecmul.Point{X: c.P(), Y: c.Gy()}
	pts[5] = &ecmul.Point{X: big.NewInt(0), Y: big.NewInt(0)}
	pts[7] = nil
	ks[8] = big.NewInt(-1)
	ks[10] = new(big.Int).Lsh(big.NewInt(1), 600)
	gpuEng := newEngine(t, c, ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 5})
	cpuEng := newEngine(t, c, ecmul.Options{Backend: ecmul.CPU})
	got, err := scalarMult(gpuEng, context.Background(), pts, ks)
	require.NoError(t, err)
	want, err := scalarMult(cpuEng, context.Background(), pts, ks)
	require.NoError(t, err)
	for i := range pts {
		if want[i].Err != nil {
			require.Error(t, got[i].Err, "item %d", i)
			require.Equal(t, want[i].Err.Error(), got[i].Err.Error(), "item %d", i)
			continue
		}
		require.NoError(t, got[i].Err, "item %d", i)
		require.Zero(t, want[i].X.Cmp(got[i].X), "item %d", i)
		require.Zero(t, want[i].Y.Cmp(got[i].Y), "item %d", i)
	}
}

// TestScalarMultBytesWireRandom: on batches of random bytes (prefixes 0x00
// to 0x05, coordinates of every size up to 2^(8L) − 1, valid points,
// points off the curve, scalars of any value), the wire kernels give every
// item the cpu backend's status and bytes.
func TestScalarMultBytesWireRandom(t *testing.T) {
	for _, c := range curves.All() {
		t.Run(c.Name(), func(t *testing.T) {
			devicesDriver(t, c, 1)
			t.Cleanup(ecmul.GPUItemsFrom(1))
			L, n := c.ByteLen(), 64
			rng := newRNG(77)
			scalars, points := make([]byte, n*L), make([]byte, n*(1+2*L))
			for i := range n {
				p := points[i*(1+2*L) : (i+1)*(1+2*L)]
				for j := range p {
					p[j] = byte(rng.Uint64())
				}
				switch i % 4 {
				case 0, 1: // a valid point, or one off the curve
					copy(p, c.EncodeSEC1(cp(randPoint(t, rng, c)), false))
					p[2*L] ^= byte(i % 2)
				case 2: // random coordinates, below p or not
					p[0] = 4
				case 3: // any prefix
					p[0] = byte(rng.Uint64() % 6)
				}
				for j := range L {
					scalars[i*L+j] = byte(rng.Uint64())
				}
			}
			run := func(bk ecmul.Backend) ([]byte, []ecmul.Status) {
				e := newEngine(t, c, ecmul.Options{Backend: bk}, diag.Tuning{Chunk: 16})
				out, status := make([]byte, n*(1+2*L)), make([]ecmul.Status, n)
				require.NoError(t, e.ScalarMultBytes(context.Background(), out, status, scalars, points))
				return out, status
			}
			wantOut, wantStatus := run(ecmul.CPU)
			gotOut, gotStatus := run(ecmul.GPU)
			require.Equal(t, wantStatus, gotStatus)
			require.Equal(t, wantOut, gotOut)
			require.Contains(t, gotStatus, ecmul.StatusPoint)
			require.Contains(t, gotStatus, ecmul.StatusNotOnCurve)
			require.Contains(t, gotStatus, ecmul.StatusBadEncoding)
		})
	}
}
