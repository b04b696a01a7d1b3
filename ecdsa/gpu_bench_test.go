package ecdsa

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/diag"
	"github.com/rnsec/ecmul/internal/curves"
)

// gpuBenchItems is the batch of BenchmarkVerifyGPU, the size at which
// ecmul bench compares ECDSA with k·P.
const gpuBenchItems = 1 << 22

// BenchmarkVerifyGPU splits Verify's time on the gpu backend, per curve,
// into what the engine alone takes and what the host adds, beside the
// bytes API's k·P of as many items (the rate ECDSA is compared with):
//   - kP: ScalarMultBytes of the batch's keys by its u2;
//   - engine: Verify's pipeline with the host's work left out (the scalars
//     written once, the results not read): the GPU's bound;
//   - verify: Verify.
//
// Each reports items/s. It skips without a GPU.
func BenchmarkVerifyGPU(b *testing.B) {
	for _, c := range curves.All() {
		pc, err := ecmul.ParseCurve(c.Name())
		if err != nil {
			b.Fatal(err)
		}
		e, err := ecmul.New(pc, ecmul.Options{Backend: ecmul.GPU})
		if errors.Is(err, diag.ErrNoDevice) {
			b.Skip("no GPU")
		}
		if err != nil {
			b.Fatal(err)
		}
		base := lazyFixture(c)
		var f *hostFixture
		fixture := func(b *testing.B) *hostFixture {
			if f == nil {
				f = base(b).tiled(gpuBenchItems / fixtureItems)
			}
			return f
		}
		ctx := context.Background()
		rate := func(b *testing.B, run func() error) {
			start := time.Now()
			for b.Loop() {
				if err := run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*gpuBenchItems/time.Since(start).Seconds(), "items/s")
		}
		b.Run(c.Name()+"/kP", func(b *testing.B) {
			f := fixture(b)
			L, size := c.ByteLen(), 1+2*c.ByteLen()
			out, status := make([]byte, gpuBenchItems*size), make([]ecmul.Status, gpuBenchItems)
			b.ResetTimer()
			rate(b, func() error {
				return e.ScalarMultBytes(ctx, out, status, f.scalars[gpuBenchItems*L:], f.keys)
			})
		})
		verdicts := make([]Verdict, gpuBenchItems)
		b.Run(c.Name()+"/engine", func(b *testing.B) {
			f := fixture(b)
			bt, err := newBatch(c, verdicts, f.digests, f.sigs, f.keys)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			rate(b, func() error { return bt.run(ctx, e, engineOnly(f, bt.L)) })
		})
		b.Run(c.Name()+"/verify", func(b *testing.B) {
			f := fixture(b)
			b.ResetTimer()
			rate(b, func() error { return Verify(ctx, e, verdicts, f.digests, f.sigs, f.keys) })
			allValid(b, verdicts)
		})
		e.Close()
	}
}

// engineOnly is the host's work of a pipeline over f's items reduced to
// writing each step buffer's scalars on its first use (f's items repeat
// with a period that divides every step) and nothing after the engine.
func engineOnly(f *hostFixture, L int) hostWork {
	filled := make(map[*byte]bool)
	count := len(f.digests)
	return hostWork{
		prepare: func(_ context.Context, st span, scalars []byte) error {
			if m := st.hi - st.lo; !filled[&scalars[0]] {
				copy(scalars[:m*L], f.scalars[st.lo*L:st.hi*L])
				copy(scalars[m*L:2*m*L], f.scalars[(count+st.lo)*L:(count+st.hi)*L])
				filled[&scalars[0]] = true
			}
			return nil
		},
		finish: func(context.Context, []byte, []ecmul.Status, span) error { return nil },
	}
}
