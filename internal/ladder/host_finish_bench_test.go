package ladder_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// BenchmarkHostFinish measures the host stages one by one, on the same
// batch as BenchmarkHost: Prepare alone, PackInput alone, and the output
// conversion by Finish (from Channels) and FinishOutput (from the kernel's
// output array), per curve and schedule.
func BenchmarkHostFinish(b *testing.B) {
	for _, c := range curves.All() {
		for _, kind := range ladder.Kinds() {
			benchmarkHostFinish(b, setupKind(b, c, kind))
		}
	}
}

func benchmarkHostFinish(b *testing.B, su *ladder.Setup) {
	c := su.Curve
	{
		const batch = 256
		x, y, jobs, chans := hostBatch(b, su, batch)
		n := su.Params.N
		out := make([]uint32, su.OutputRows()*batch)
		for i := range chans {
			putChannels(su, out, batch, i, chans[i])
		}
		inW := make([]uint32, ladder.ElementRows(n)*batch)
		sc := make([]uint32, su.ScalarWords()*batch)
		perItem := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/item")
		}
		name := "curve=" + c.Name() + "/schedule=" + su.Schedule.Kind.String()
		b.Run(name+"/stage=prepare", func(b *testing.B) {
			for b.Loop() {
				for i := range batch {
					jobs[i], _ = su.Prepare(x, y, jobs[i].Scalar)
				}
			}
			perItem(b)
		})
		b.Run(name+"/stage=pack", func(b *testing.B) {
			for b.Loop() {
				for i := range batch {
					su.PackInput(inW, sc, batch, i, jobs[i])
				}
			}
			perItem(b)
		})
		b.Run(name+"/stage=finish", func(b *testing.B) {
			for b.Loop() {
				su.Finish(jobs, chans)
			}
			perItem(b)
		})
		b.Run(name+"/stage=finish-output", func(b *testing.B) {
			for b.Loop() {
				su.FinishOutput(jobs, out, batch, nil)
			}
			perItem(b)
		})
	}
}

// BenchmarkHostParallel runs the whole host path of a batch (Prepare and
// PackInput per item, then FinishOutput) on GOMAXPROCS goroutines at once,
// each on its own batches, and reports the items per second of them all:
// with -cpu 16, the rate 16 host cores can feed the kernel.
func BenchmarkHostParallel(b *testing.B) {
	for _, c := range curves.All() {
		su := setup(b, c)
		rng := rand.New(rand.NewSource(6))
		const batch = 1024
		x, y := randPoint(b, c, rng)
		ks := make([]*big.Int, batch)
		for i := range ks {
			ks[i] = new(big.Int).Rand(rng, c.N())
		}
		j0, _ := su.Prepare(x, y, ks[0])
		in := su.InputElement(j0)
		ch := su.NewRNSExecutor(basext.Shenoy).Run(&in, j0.Scalar, su.Bits, nil)
		n := su.Params.N
		out := make([]uint32, su.OutputRows()*batch)
		for i := range batch {
			putChannels(su, out, batch, i, ch)
		}
		b.Run("curve="+c.Name(), func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				jobs := make([]ladder.Job, batch)
				inW := make([]uint32, ladder.ElementRows(n)*batch)
				sc := make([]uint32, su.ScalarWords()*batch)
				for pb.Next() {
					for i := range batch {
						jobs[i], _ = su.Prepare(x, y, ks[i])
						su.PackInput(inW, sc, batch, i, jobs[i])
					}
					su.FinishOutput(jobs, out, batch, nil)
				}
			})
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/item")
		})
	}
}
