package gpu_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/fp"
	"github.com/rnsec/ecmul/internal/gpu"
	"github.com/rnsec/ecmul/internal/kernels"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/textbook"
)

// TestVerifyKernelMatchesCPUTwin runs the co-Z ladder and then the verify
// kernel of every curve and channel width on random items, their inputs
// packed by the host, each with a u1·G and an r that make a valid or (every
// third item) an invalid signature, or with u1·G at infinity (every fifth):
// every outcome word must be the CPU twin's (ladder.Setup.VerifyRowsOnHost
// on the CPU twin's ladder outputs), and valid exactly where the signature
// is.
func TestVerifyKernelMatchesCPUTwin(t *testing.T) {
	d := realDriver(t)
	image, err := gpu.KernelImage()
	require.NoError(t, err)
	count := gpuItems()
	for _, ct := range kernels.Curves {
		for _, w := range kernels.Channels {
			c, err := curves.ByName(ct.Curve)
			require.NoError(t, err)
			su, err := ladder.NewSetupBits(c, ladder.CoZ, kernels.ChannelBits(w))
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%s_%s", ct.Tag, w), func(t *testing.T) {
				verifyMatchesTwin(t, d, image, su, w, count)
			})
		}
	}
}

// verifyMatchesTwin is TestVerifyKernelMatchesCPUTwin on one setup, its
// ladder on the warp mapping.
func verifyMatchesTwin(t *testing.T, d gpu.Driver, image []byte, su *ladder.Setup, channels string, count int) {
	c, n := su.Curve, su.Params.N
	k, err := kernels.Find(c.Name(), "coz", "shenoy", "warp", channels)
	require.NoError(t, err)
	entry, err := kernels.VerifyName(c.Name(), channels)
	require.NoError(t, err)
	jobs, xs, ys, ks := randomJobs(t, su, count, 11)
	items := make([]ladder.Item, count)
	L := c.ByteLen()
	in := make([]uint32, su.VerifyInputRows()*count)
	sc := make([]uint32, su.ScalarWords()*count)
	rng := rand.New(rand.NewSource(13))
	valid := make([]bool, count)
	for i := range items {
		kb := new(big.Int).Mod(ks[i], new(big.Int).Lsh(big.NewInt(1), uint(8*L)))
		require.NoError(t, su.PrepareBytes(&items[i], kb.FillBytes(make([]byte, L)), c.EncodeSEC1(&curves.Point{X: xs[i], Y: ys[i]}, false)))
		jobs[i], err = su.Prepare(xs[i], ys[i], kb)
		require.NoError(t, err)
		su.PackItem(in, sc, count, i, &items[i])
		su.PackFinish(in, count, i, &items[i])
		valid[i] = packSignature(t, su, in, count, i, xs[i], ys[i], kb, rng)
	}
	want := make([]uint32, su.OutputRows()*count)
	twin := cpuTwin(su, jobs)
	for i := range items {
		for v := range twin[i] {
			for r := range n {
				want[(v*n+r)*count+i] = twin[i][v][r]
			}
		}
	}
	su.VerifyRowsOnHost(in, want, count, count)

	ipb := 4 * k.ItemsPerWarp(n)
	eng, err := gpu.Open(d, gpu.Config{
		Image: image, Entry: k.Name(), Constants: su.KernelConstants(),
		InRows: su.VerifyInputRows(), ScalarRows: su.ScalarWords(), OutRows: su.OutputRows(),
		ItemsPerBlock: ipb, BlockThreads: k.Threads(n, ipb), Chunk: 1 << 15,
		Finish: &gpu.FinishKernel{Entry: entry, Constants: su.FinishConstants(), ResultRows: 1, ItemsPerThread: 1},
	})
	require.NoError(t, err)
	defer eng.Close()
	rows := su.VerifyInputRows()
	got := make([]uint32, count)
	_, err = eng.Run(context.Background(), gpu.Batch{
		Count: count,
		Fill: func(lo, hi int, inc, scc []uint32) {
			for r := range rows {
				copy(inc[r*(hi-lo):(r+1)*(hi-lo)], in[r*count+lo:r*count+hi])
			}
			for r := range su.ScalarWords() {
				copy(scc[r*(hi-lo):(r+1)*(hi-lo)], sc[r*count+lo:r*count+hi])
			}
		},
		Drain: func(lo, hi int, out []uint32) error {
			copy(got[lo:hi], out[:hi-lo])
			return nil
		},
	})
	require.NoError(t, err)
	mismatches := 0
	for i := range count {
		if got[i] != want[i] && mismatches < 5 {
			t.Errorf("item %d: gpu outcome %d, cpu %d", i, got[i], want[i])
			mismatches++
		}
		if want[i] != uint32(ladder.OutValid) != !valid[i] && mismatches < 5 {
			t.Errorf("item %d: outcome %d, the signature valid: %v", i, want[i], valid[i])
			mismatches++
		}
	}
	require.Zero(t, mismatches)
	t.Logf("%s after %s: %d outcomes match the CPU twin and the signatures", entry, k.Name(), count)
}

// packSignature writes item i's verify rows for a signature on u2·Q, Q =
// (x, y): u1·G of a random u1 (at infinity for every fifth item), r the x
// of the sum mod n, plus one for every third item; it reports whether the
// signature is valid.
func packSignature(t *testing.T, su *ladder.Setup, in []uint32, count, i int, x, y, u2 *big.Int, rng *rand.Rand) bool {
	c := su.Curve
	n, g := c.N(), &curves.Point{X: c.Gx(), Y: c.Gy()}
	q := textbook.Mul(c, &curves.Point{X: x, Y: y}, u2)
	var u1G *curves.Point
	if i%5 != 4 {
		u1G = textbook.Mul(c, g, new(big.Int).Add(new(big.Int).Rand(rng, new(big.Int).Sub(n, big.NewInt(1))), big.NewInt(1)))
	}
	sum := textbook.Add(c, u1G, q)
	r := big.NewInt(1)
	if sum != nil {
		r.Mod(sum.X, n)
	}
	if i%3 == 2 {
		r.Add(r, big.NewInt(1)).Mod(r, n)
	}
	limbs := func(v *big.Int) (l [fp.Limbs]uint64) {
		b := v.FillBytes(make([]byte, 8*fp.Limbs))
		for k := range l {
			l[k] = binary.BigEndian.Uint64(b[len(b)-8*(k+1):])
		}
		return l
	}
	var x1, y1 [fp.Limbs]uint64
	var flags ladder.VerifyFlags
	if u1G == nil {
		flags |= ladder.VerifyU1Infinity
	} else {
		x1, y1 = limbs(u1G.X), limbs(u1G.Y)
	}
	rn := new(big.Int).Add(r, n)
	if rn.Cmp(c.P()) < 0 {
		flags |= ladder.VerifyRN
	} else {
		rn.SetInt64(0)
	}
	su.PackVerify(in, count, i, x1, y1, limbs(r), limbs(rn), flags)
	return sum != nil && (sum.X.Cmp(r) == 0 || sum.X.Cmp(new(big.Int).Add(r, n)) == 0)
}
