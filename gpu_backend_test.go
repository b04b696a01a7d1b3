package ecmul_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/wycheproof"
)

// gpuEngine returns a gpu-backend engine, or skips the test without a GPU.
func gpuEngine(t *testing.T, c *curves.Curve, ext basext.Variant, mapping string) *ecmul.Engine {
	return gpuEngineSchedule(t, c, ladder.DefaultKind, ext, mapping)
}

// gpuEngineSchedule is gpuEngine with a ladder schedule.
func gpuEngineSchedule(t *testing.T, c *curves.Curve, s ladder.Kind, ext basext.Variant, mapping string) *ecmul.Engine {
	t.Helper()
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Schedule: sched(s), Extension: extOf(ext), Mapping: mappingOf(mapping), Chunk: 4096})
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no CUDA device")
	}
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestGPUAgainstReference: random and edge items, mixed with invalid ones,
// through the public API on every curve, schedule, variant and mapping.
func TestGPUAgainstReference(t *testing.T) {
	for _, c := range curves.All() {
		for _, k := range kernels.Entries() {
			if kind, err := ladder.ParseAnyKind(k.Schedule); k.Curve != c.Name() || err != nil || kind.IsComb() {
				continue // the combs compute k·G only: TestScalarBaseMultBytes and TestKernelMatchesCPUTwin
			}
			v, err := basext.ParseVariant(k.Ext)
			require.NoError(t, err)
			s, err := ladder.ParseKind(k.Schedule)
			require.NoError(t, err)
			mapping := k.Mapping
			{
				t.Run(fmt.Sprintf("curve=%s/schedule=%s/ext=%s/mapping=%s", c.Name(), s, v, mapping), func(t *testing.T) {
					eng := gpuEngineSchedule(t, c, s, v, mapping)
					rng := rand.New(rand.NewSource(7))
					var pts []*ecmul.Point
					var ks []*big.Int
					for i := range 10000 {
						e := new(big.Int).Rand(rng, c.N())
						x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), e.Add(e, big.NewInt(1)))
						require.NoError(t, err)
						k := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(1+i%512)))
						pts, ks = append(pts, &ecmul.Point{X: x, Y: y}), append(ks, k)
					}
					one := big.NewInt(1)
					for _, k := range []*big.Int{big.NewInt(0), one, new(big.Int).Sub(c.N(), one), c.N(), new(big.Int).Add(c.N(), one), new(big.Int).Lsh(c.N(), 1)} {
						pts, ks = append(pts, ep(c.Generator())), append(ks, k)
					}
					bad := map[int]error{len(pts): curves.ErrNotOnCurve, len(pts) + 1: curves.ErrInfinity, len(pts) + 2: curves.ErrCoordinateRange}
					pts = append(pts, &ecmul.Point{X: big.NewInt(1), Y: big.NewInt(1)}, &ecmul.Point{X: big.NewInt(0), Y: big.NewInt(0)}, &ecmul.Point{X: c.P(), Y: c.Gy()})
					ks = append(ks, one, one, one)
					res, err := scalarMult(eng, context.Background(), pts, ks)
					require.NoError(t, err)
					for i := range pts {
						if want, ok := bad[i]; ok {
							require.ErrorIs(t, res[i].Err, want, "item %d", i)
							continue
						}
						require.NoError(t, res[i].Err, "item %d", i)
						x, y, ok, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
						require.NoError(t, err)
						if !ok {
							require.True(t, res[i].Infinity, "item %d", i)
							continue
						}
						require.Equal(t, 0, x.Cmp(res[i].X), "item %d", i)
						require.Equal(t, 0, y.Cmp(res[i].Y), "item %d", i)
					}
				})
			}
		}
	}
}

// TestGPUWycheproof runs the Wycheproof ECDH vectors through the gpu
// backend, in the library's default configuration for Shenoy's extension
// (the pair mapping on 30-bit channels) and the warp mapping for Kawamura's:
// every valid and acceptable case whose key decodes matches, every invalid
// case is rejected.
func TestGPUWycheproof(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(wycheproof.Dir(), "ecdh_*.json.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		f, err := wycheproof.Load(path)
		require.NoError(t, err)
		c, err := curves.ByName(f.Curve)
		require.NoError(t, err)
		for _, run := range []struct {
			v        basext.Variant
			gpuItems bool // the prepare and finish kernels, which the default takes on large batches
		}{{basext.Kawamura, false}, {basext.Shenoy, false}, {basext.Shenoy, true}} {
			v := run.v
			t.Run(fmt.Sprintf("%s/%s/gpu-items=%v", filepath.Base(path), v, run.gpuItems), func(t *testing.T) {
				mapping := "warp"
				if v == basext.Shenoy {
					mapping = "" // the default
				}
				if run.gpuItems {
					t.Cleanup(ecmul.GPUItemsFrom(1))
				}
				eng := gpuEngine(t, c, v, mapping)
				var pts []*ecmul.Point
				var ks []*big.Int
				var cases []*wycheproof.Case
				rejected, invalid := 0, 0
				for i := range f.Cases {
					tc := &f.Cases[i]
					raw := tc.Public
					if f.Encoding != "ecpoint" {
						name, point, err := wycheproof.ParseSPKI(tc.Public)
						if err == nil {
							if other, err2 := curves.ByName(name); err2 != nil || other != c {
								err = fmt.Errorf("key for another curve")
							}
						}
						if err != nil {
							if tc.Result == wycheproof.Invalid {
								rejected++
								invalid++
							}
							continue
						}
						raw = point
					}
					p, err := c.DecodeSEC1(raw)
					if err != nil {
						if tc.Result == wycheproof.Invalid {
							rejected++
							invalid++
						}
						continue
					}
					pts, ks, cases = append(pts, ep(p)), append(ks, tc.Private), append(cases, tc)
				}
				res, err := scalarMult(eng, context.Background(), pts, ks)
				require.NoError(t, err)
				matched, valid := 0, 0
				for i, tc := range cases {
					if tc.Result == wycheproof.Invalid {
						invalid++
						if res[i].Err != nil {
							rejected++
						} else {
							t.Errorf("tcId %d (%s): invalid case accepted", tc.TcID, tc.Comment)
						}
						continue
					}
					valid++
					require.NoError(t, res[i].Err, "tcId %d", tc.TcID)
					got := res[i].X.FillBytes(make([]byte, c.ByteLen()))
					if strings.EqualFold(fmt.Sprintf("%x", got), fmt.Sprintf("%x", tc.Shared)) {
						matched++
					} else {
						t.Errorf("tcId %d: shared %x, want %x", tc.TcID, got, tc.Shared)
					}
				}
				t.Logf("wycheproof %s gpu/%s gpu-items=%v: valid+acceptable matched %d/%d, invalid rejected %d/%d",
					filepath.Base(path), v, run.gpuItems, matched, valid, rejected, invalid)
			})
		}
	}
}

// TestGPUBytesOnItemKernels: the bytes API on the prepare and finish
// kernels (which the default runs on batches larger than the latency
// team's), on every curve and both SEC1 forms: random points, edge
// scalars, and bad points among them, a point off the curve included
// (found by the prepare kernel on an uncompressed point), and for
// uncompressed points, which take the wire kernels, the bad prefixes and
// coordinates they reject and the point with x = 0, against the
// references, status for status and byte for byte.
func TestGPUBytesOnItemKernels(t *testing.T) {
	for _, c := range curves.All() {
		for _, compressed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/compressed=%v", c.Name(), compressed), func(t *testing.T) {
				t.Cleanup(ecmul.GPUItemsFrom(1))
				eng := gpuEngine(t, c, basext.Shenoy, "")
				k, ok := diag.KernelOf(eng)
				require.True(t, ok)
				require.NotEmpty(t, k.FinishEntry)
				b := newBytesItems(t, c, 5000, compressed, 29)
				if !compressed {
					b = withWireItems(t, c, b) // decided on the GPU by the unpack kernel
				}
				out := make([]byte, len(b.want)*(1+2*c.ByteLen()))
				status := make([]ecmul.Status, len(b.want))
				require.NoError(t, eng.ScalarMultBytes(context.Background(), out, status, b.scalars, b.points))
				requireBytesResults(t, c, b, out, status)
			})
		}
	}
}

// TestGPUConcurrent shares one engine between goroutines.
func TestGPUConcurrent(t *testing.T) {
	c := curves.P224()
	eng := gpuEngine(t, c, basext.Shenoy, "warp")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			k := big.NewInt(int64(g + 2))
			res, err := scalarMult(eng, context.Background(), []*ecmul.Point{ep(c.Generator())}, []*big.Int{k})
			if err != nil {
				errs <- err
				return
			}
			x, _, _, _ := c.ReferenceScalarMult(c.Gx(), c.Gy(), k)
			if res[0].Err != nil || x.Cmp(res[0].X) != 0 {
				errs <- fmt.Errorf("goroutine %d: wrong result", g)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestGPUMissingKernelImage: a bad image is a clear error, not a crash.
func TestGPUMissingKernelImage(t *testing.T) {
	if _, err := gpu.DefaultDriver(); err != nil {
		t.Skip("no CUDA device")
	}
	t.Setenv(gpu.KernelImageEnv, filepath.Join(t.TempDir(), "missing.fatbin"))
	_, err := ecmul.New(pub(curves.P224()), ecmul.Options{Backend: ecmul.GPU})
	require.ErrorIs(t, err, os.ErrNotExist)
}

// gpuBatch returns n valid items (a pool of random points, random scalars).
func gpuBatch(t *testing.T, c *curves.Curve, n int) ([]*ecmul.Point, []*big.Int) {
	rng := rand.New(rand.NewSource(11))
	pool := make([]*ecmul.Point, 64)
	for i := range pool {
		e := new(big.Int).Rand(rng, c.N())
		x, y, _, err := c.ReferenceScalarMult(c.Gx(), c.Gy(), e.Add(e, big.NewInt(1)))
		require.NoError(t, err)
		pool[i] = &ecmul.Point{X: x, Y: y}
	}
	pts, ks := make([]*ecmul.Point, n), make([]*big.Int, n)
	for i := range pts {
		pts[i], ks[i] = pool[i%len(pool)], new(big.Int).Rand(rng, c.N())
	}
	return pts, ks
}

// TestGPURealChunking: on the real device, a batch of several chunks and a
// ragged tail is computed in full and every item is right; absurd chunk and
// block sizes are refused before anything is allocated.
func TestGPURealChunking(t *testing.T) {
	c := curves.P224()
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: 1000})
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no CUDA device")
	}
	require.NoError(t, err)
	defer eng.Close()
	pts, ks := gpuBatch(t, c, 3*1000+7)
	res, err := scalarMult(eng, context.Background(), pts, ks)
	require.NoError(t, err)
	for i := range pts {
		x, y, _, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
		require.NoError(t, err)
		require.NoError(t, res[i].Err, "item %d", i)
		require.True(t, x.Cmp(res[i].X) == 0 && y.Cmp(res[i].Y) == 0, "item %d", i)
	}
	for _, g := range []diag.Tuning{{Chunk: 1 << 40}, {ItemsPerBlock: 1 << 20}} {
		_, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, g)
		require.Error(t, err, "%+v", g)
	}
}

// TestGPURealCancel: on the real device, a context that ends halfway
// through a batch of 64 chunks stops it within about one chunk: the call
// returns soon after the deadline, with the context's error, some items
// computed and right, and the rest carrying the context's error.
func TestGPURealCancel(t *testing.T) {
	c := curves.P224()
	const chunk = 4096
	eng, err := diag.New(pub(c), ecmul.Options{Backend: ecmul.GPU}, diag.Tuning{Chunk: chunk})
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no CUDA device")
	}
	require.NoError(t, err)
	defer eng.Close()
	pts, ks := gpuBatch(t, c, 64*chunk)
	// the time of one chunk and of the whole batch on this device
	t0 := time.Now()
	_, err = scalarMult(eng, context.Background(), pts[:chunk], ks[:chunk])
	require.NoError(t, err)
	perChunk := time.Since(t0)
	t0 = time.Now()
	_, err = scalarMult(eng, context.Background(), pts, ks)
	require.NoError(t, err)
	whole := time.Since(t0)

	ctx, cancel := context.WithTimeout(context.Background(), whole/2)
	defer cancel()
	t0 = time.Now()
	res, err := scalarMult(eng, ctx, pts, ks)
	late := time.Since(t0) - whole/2
	require.ErrorIs(t, err, context.DeadlineExceeded)
	computed := 0
	for i, r := range res {
		if r.Err != nil {
			require.ErrorIs(t, r.Err, context.DeadlineExceeded, "item %d", i)
			require.Nil(t, r.X, "item %d", i)
			continue
		}
		computed++
		x, y, _, err := c.ReferenceScalarMult(pts[i].X, pts[i].Y, ks[i])
		require.NoError(t, err)
		require.True(t, x.Cmp(r.X) == 0 && y.Cmp(r.Y) == 0, "item %d", i)
	}
	t.Logf("one chunk %v, whole batch %v; cancelled at %v, returned %v later with %d of %d items computed",
		perChunk, whole, whole/2, late, computed, len(pts))
	require.Positive(t, computed, "the deadline fell after some chunks were done")
	require.Less(t, computed, len(pts), "the batch stopped early")
	require.Less(t, late, 3*perChunk+20*time.Millisecond, "stops within about one chunk")
}
