package engine

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu/fakecuda"
	"github.com/rnsec/ecmul/internal/kernelemu"
)

// fakeBatch is a small batch with one invalid item in the middle.
func fakeBatch(t *testing.T, c *curves.Curve, items int) ([]*Point, []*big.Int) {
	rng := rand.New(rand.NewSource(3))
	var pts []*Point
	var ks []*big.Int
	for i := range items {
		if i == items/2 {
			pts, ks = append(pts, &Point{X: big.NewInt(1), Y: big.NewInt(1)}), append(ks, big.NewInt(5))
			continue
		}
		k := new(big.Int).Rand(rng, c.N())
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), k.Add(k, big.NewInt(1)))
		require.NoError(t, err)
		pts, ks = append(pts, &Point{X: x, Y: y}), append(ks, new(big.Int).Rand(rng, new(big.Int).Lsh(c.N(), 1)))
	}
	return pts, ks
}

// checkComputed asserts that every item reported computed is right, and
// returns how many were.
func checkComputed(t *testing.T, c *curves.Curve, pts []*Point, ks []*big.Int, res []Result) (computed int) {
	for i, r := range res {
		if r.Err != nil {
			continue
		}
		computed++
		x, y, ok, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
		assert.NoError(t, err)
		if !ok {
			assert.True(t, r.Infinity, "item %d", i)
			continue
		}
		assert.False(t, r.Infinity, "item %d", i)
		assert.Equal(t, 0, x.Cmp(r.X), "item %d", i)
		assert.Equal(t, 0, y.Cmp(r.Y), "item %d", i)
	}
	return computed
}

// TestGPUSmallBatchesOnTeam: with cores to spare (four processors, four
// workers), small batches' host work runs on the engine's spinning team:
// batches from several callers at once, on the *big.Int and the bytes API,
// each get their own correct results and item errors, and Close stops the
// team's members and releases every driver resource. With
// GPUConfig.NoSpin no team starts, and the same holds.
func TestGPUSmallBatchesOnTeam(t *testing.T) {
	for _, noSpin := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoSpin=%v", noSpin), func(t *testing.T) { testGPUSmallBatchesOnTeam(t, noSpin) })
	}
}

// testGPUSmallBatchesOnTeam is TestGPUSmallBatchesOnTeam with the team
// (noSpin false) or, as GPUConfig.NoSpin asks, without one.
func testGPUSmallBatchesOnTeam(t *testing.T, noSpin bool) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	c := curves.P224()
	d := fakecuda.New()
	d.OnLaunch = kernelemu.Launch(d)
	t.Cleanup(UseGPUDriver(d, []byte("fatbin")))
	t.Cleanup(ItemKernelsFrom(1)) // the prepare and finish kernels on small batches too
	before := runtime.NumGoroutine()
	eng, err := New(c, Options{Backend: GPU, Workers: 4}, GPUConfig{Chunk: 50, NoSpin: noSpin})
	require.NoError(t, err)
	pts, ks := fakeBatch(t, c, 130) // three chunks, two on the team's members and the caller
	L := c.ByteLen()
	scalars, points := make([]byte, len(ks)*L), make([]byte, 0, len(pts)*(1+2*L))
	for i := range pts {
		new(big.Int).Mod(ks[i], c.N()).FillBytes(scalars[i*L : (i+1)*L])
		points = append(points, 4)
		points = append(points, pts[i].X.FillBytes(make([]byte, L))...)
		points = append(points, pts[i].Y.FillBytes(make([]byte, L))...)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 2 {
				res := make([]Result, len(pts))
				assert.NoError(t, eng.ScalarMult(context.Background(), res, ks, pts))
				assert.ErrorIs(t, res[len(pts)/2].Err, curves.ErrNotOnCurve)
				assert.Equal(t, len(pts)-1, checkComputed(t, c, pts, ks, res))

				out, status := make([]byte, len(pts)*(1+2*L)), make([]Status, len(pts))
				assert.NoError(t, eng.ScalarMultBytes(context.Background(), out, status, scalars, points))
				for i, r := range res {
					switch {
					case r.Err != nil:
						assert.ErrorIs(t, status[i].Err(), curves.ErrNotOnCurve, "item %d", i)
						continue
					case r.Infinity:
						assert.Equal(t, StatusInfinity, status[i], "item %d", i)
						continue
					}
					assert.Equal(t, StatusPoint, status[i], "item %d", i)
					assert.Equal(t, c.EncodeSEC1(&curves.Point{X: r.X, Y: r.Y}, false), out[i*(1+2*L):(i+1)*(1+2*L)], "item %d", i)
				}
			}
		})
	}
	wg.Wait()
	r, _ := eng.gpuRunner()
	require.Equal(t, !noSpin, r.team != nil, "the team started")
	require.NoError(t, eng.Close())
	require.Zero(t, d.Live(), "Close releases every driver resource")
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before, "Close stops the team's members")
}
