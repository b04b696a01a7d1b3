package ladder_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
	"github.com/rnsec/ecmul/internal/rns"
)

// BenchmarkHost measures the host work around the kernel per item: preparing
// and packing the input, and turning the kernel's channels into an affine point.
func BenchmarkHost(b *testing.B) {
	su := setup(b, curves.P224())
	const batch = 256
	x, y, jobs, chans := hostBatch(b, su, batch)
	n := su.Params.N
	inW := make([]uint32, ladder.ElementRows(n)*batch)
	sc := make([]uint32, su.ScalarWords()*batch)
	b.Run("stage=prepare+pack", func(b *testing.B) {
		for b.Loop() {
			for i := range batch {
				j, _ := su.Prepare(x, y, jobs[i].Scalar)
				su.PackInput(inW, sc, batch, i, j)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/item")
	})
	b.Run("stage=crt+affine", func(b *testing.B) {
		proj := make([]ladder.Outputs, batch)
		for b.Loop() {
			for i := range batch {
				proj[i] = su.Outputs(chans[i])
			}
			su.ToAffine(jobs, proj)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/item")
	})
}

// hostBatch is the batch that BenchmarkHost and BenchmarkHostFinish time,
// built the same way for both: batch jobs on one random point of su's curve
// (rng seeded 5) with random scalars, and for every item the channels the
// CPU executor gives for the first job.
func hostBatch(b *testing.B, su *ladder.Setup, batch int) (x, y *big.Int, jobs []ladder.Job, chans []ladder.Channels) {
	c := su.Curve
	rng := rand.New(rand.NewSource(5))
	jobs = make([]ladder.Job, batch)
	x, y = randPoint(b, c, rng)
	for i := range jobs {
		jobs[i], _ = su.Prepare(x, y, new(big.Int).Rand(rng, c.N()))
	}
	in := su.InputElement(jobs[0])
	ch := su.NewRNSExecutor(basext.Shenoy).Run(&in, jobs[0].Scalar, su.Bits, nil)
	chans = make([]ladder.Channels, batch)
	for i := range chans {
		chans[i] = ch
	}
	return x, y, jobs, chans
}

// putChannels writes ch as item i of out, the kernel's output array for a
// batch of batch items (output v's channel r in row v·n+r), as the host
// benchmarks fill it in place of the kernel.
func putChannels(su *ladder.Setup, out []uint32, batch, i int, ch ladder.Channels) {
	n := su.Params.N
	for v := range su.OutputCount() {
		for r := range n {
			out[(v*n+r)*batch+i] = ch[v][r]
		}
	}
}

// BenchmarkHostBytes measures the bytes path's host work per item on one
// core (GOMAXPROCS 1, set here: -cpu does not reach b.Loop's first run), on
// the default 30-bit channels, for k·P (co-Z ladder: PrepareBytes of an
// uncompressed point) and k·G (comb: PrepareBaseBytes), stage by stage and
// together: prepare, pack (PackItem), finish (FinishItems over the whole
// batch: gather with the CRT, one batched inversion, the on-curve check,
// bytes out) and all three. The kernel's outputs are the CPU executor's
// for a few items, repeated.
func BenchmarkHostBytes(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range []*curves.Curve{curves.P256(), curves.P224()} {
		for _, kind := range []ladder.Kind{ladder.CoZ, ladder.Comb} {
			benchmarkHostBytes(b, setupBits(b, c, kind, rns.WideChannelBits))
		}
	}
}

func benchmarkHostBytes(b *testing.B, su *ladder.Setup) {
	c := su.Curve
	const batch, distinct = 1024, 8
	L := c.ByteLen()
	rng := rand.New(rand.NewSource(7))
	x, y := randPoint(b, c, rng)
	comb := su.Schedule.Kind.IsComb()
	if comb {
		x, y = c.Gx(), c.Gy()
	}
	point := c.EncodeSEC1(&curves.Point{X: x, Y: y}, false)
	scalars := make([][]byte, batch)
	for i := range scalars {
		scalars[i] = new(big.Int).Rand(rng, c.N()).FillBytes(make([]byte, L))
	}
	e := su.NewRNSExecutor(basext.Shenoy)
	out := make([]uint32, su.OutputRows()*batch)
	for i := range distinct {
		k := new(big.Int).SetBytes(scalars[i])
		j, err := su.Prepare(x, y, k)
		require.NoError(b, err)
		var ch ladder.Channels
		if comb {
			ch = e.RunComb(k, nil)
		} else {
			in := su.InputElement(j)
			ch = e.Run(&in, j.Scalar, su.Bits, nil)
		}
		for i2 := i; i2 < batch; i2 += distinct {
			putChannels(su, out, batch, i2, ch)
		}
	}
	items := make([]ladder.Item, batch)
	inW := make([]uint32, su.InputRows()*batch)
	sc := make([]uint32, su.ScalarWords()*batch)
	prepare := func(i int) {
		var err error
		if comb {
			err = su.PrepareBaseBytes(&items[i], scalars[i])
		} else {
			err = su.PrepareBytes(&items[i], scalars[i], point)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	var sink byte
	good := 0
	emit := func(_ int, o ladder.Outcome, xy []byte) {
		if o == ladder.OutPoint {
			good++
			sink ^= xy[0]
		}
	}
	for i := range batch {
		prepare(i)
	}
	su.FinishItems(items, out, batch, nil, emit)
	require.Equal(b, batch, good, "every result passes its check")
	perItem := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/item")
		b.ReportMetric(0, "ns/op")
	}
	name := fmt.Sprintf("curve=%s/schedule=%s", c.Name(), su.Schedule.Kind)
	b.Run(name+"/stage=prepare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range batch {
				prepare(i)
			}
		}
		perItem(b)
	})
	b.Run(name+"/stage=pack", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range batch {
				su.PackItem(inW, sc, batch, i, &items[i])
			}
		}
		perItem(b)
	})
	b.Run(name+"/stage=finish", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			su.FinishItems(items, out, batch, nil, emit)
		}
		perItem(b)
	})
	b.Run(name+"/stage=all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range batch {
				prepare(i)
				su.PackItem(inW, sc, batch, i, &items[i])
			}
			su.FinishItems(items, out, batch, nil, emit)
		}
		perItem(b)
	})
	_ = sink
}
