package ladder_test

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ladder"
)

// BenchmarkHost measures the host work around the kernel per item: preparing
// and packing the input, and turning the kernel's channels into an affine point.
func BenchmarkHost(b *testing.B) {
	c := curves.P224()
	su := setup(b, c)
	rng := rand.New(rand.NewSource(5))
	const batch = 256
	jobs := make([]ladder.Job, batch)
	chans := make([]ladder.Channels, batch)
	e := su.NewRNSExecutor(basext.Shenoy)
	x, y := randPoint(b, c, rng)
	for i := range jobs {
		jobs[i], _ = su.Prepare(x, y, new(big.Int).Rand(rng, c.N()))
	}
	in := su.InputElement(jobs[0])
	ch := e.Run(&in, jobs[0].Scalar, su.Bits, nil)
	for i := range chans {
		chans[i] = ch
	}
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
