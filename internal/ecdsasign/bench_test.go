package ecdsasign_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/ecdsasign"
	"github.com/rnsec/ecmul/internal/reuse"
)

// BenchmarkSignHost measures the host's part of Sign per item (the nonce's
// DRBG, s and the checks, on every core) with a k·G that only writes G's x.
func BenchmarkSignHost(b *testing.B) {
	for _, c := range curves.All() {
		b.Run("curve="+c.Name(), func(b *testing.B) {
			const count = 4096
			s, err := ecdsasign.New(c)
			if err != nil {
				b.Fatal(err)
			}
			L := c.ByteLen()
			base := gxBase(c, 0)
			keys := randomKeys(newRand(7), c, count)
			digests, _ := randomDigests(newRand(8), count, allHashes[2:3])
			sigs, errs := make([]byte, count*2*L), make([]error, count)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := s.Sign(context.Background(), sigs, errs, digests, keys, base, ecdsasign.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
	}
}

// BenchmarkSignOverlap signs 2^18 P-256 digests in steps, with a k·G that
// takes 0.5 µs per item of a step on no core (a GPU's share, slept): the
// host's work on the next step's nonces runs beside it. sign=gpu takes
// the signatures from a FirstSign that takes 30 ns per item on no core (a
// GPU at 33 M items/s): the host's share is then the checks and copies.
func BenchmarkSignOverlap(b *testing.B) {
	c := curves.P256()
	const count = 1 << 18
	s, err := ecdsasign.New(c)
	if err != nil {
		b.Fatal(err)
	}
	L := c.ByteLen()
	keys := randomKeys(newRand(7), c, count)
	digests, _ := randomDigests(newRand(8), count, allHashes[2:3])
	sigs, errs := make([]byte, count*2*L), make([]error, count)
	for _, gpu := range []bool{false, true} {
		name, base, opt := "sign=host", gxBase(c, 500*time.Nanosecond), ecdsasign.Options{}
		if gpu {
			name, opt.FirstSign = "sign=gpu", fixedFirstSign(c, 30*time.Nanosecond)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := s.Sign(context.Background(), sigs, errs, digests, keys, base, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*count), "ns/item")
		})
	}
}

// fixedFirstSign returns a FirstSign for the benchmarks that sleeps
// perItem for each item of its call and gives every item the signature
// (r, s) = (G's x, 1), taking and handing back its items as a device does
// (onDevice).
func fixedFirstSign(c *curves.Curve, perItem time.Duration) ecdsasign.FirstSign {
	L := c.ByteLen()
	gx := c.Gx().FillBytes(make([]byte, L))
	return func(_ context.Context, items ecdsasign.FirstItems, _ ecdsasign.Place) (bool, error) {
		time.Sleep(time.Duration(items.Count) * perItem)
		onDevice(items, L, func(_ int, _, _, sig []byte) ecdsasign.FirstOutcome {
			copy(sig, gx)
			clear(sig[L:])
			sig[2*L-1] = 1
			return ecdsasign.FirstSigned
		})
		return true, nil
	}
}

// onDevice runs a call of FirstSign on items as a device's chunks would:
// their inputs put in two ranges from two goroutines, each item signed by
// sign into sig (2L bytes) from them, and taken back from two goroutines.
// It returns the first key the call was given. Its buffers are kept
// between calls, as a device's are.
func onDevice(items ecdsasign.FirstItems, L int, sign func(j int, key, h1, sig []byte) ecdsasign.FirstOutcome) (firstKey string) {
	n := items.Count
	buf := deviceBuffer(4 * n * L)
	defer deviceBuffers.Put(buf)
	keys, h1s, sigs := (*buf)[:n*L], (*buf)[n*L:2*n*L], (*buf)[2*n*L:]
	halves := [][2]int{{0, n / 2}, {n / 2, n}}
	var wg sync.WaitGroup
	for _, r := range halves {
		wg.Go(func() { items.Put(r[0], r[1], keys[r[0]*L:r[1]*L], h1s[r[0]*L:r[1]*L]) })
	}
	wg.Wait()
	for _, r := range halves {
		wg.Go(func() {
			for j := r[0]; j < r[1]; j++ {
				sig := sigs[2*j*L : 2*(j+1)*L]
				items.Take(j, sig, sign(j, keys[j*L:(j+1)*L], h1s[j*L:(j+1)*L], sig))
			}
		})
	}
	wg.Wait()
	return string(keys[:min(L, len(keys))])
}

// deviceBuffers keeps onDevice's buffers between calls.
var deviceBuffers reuse.List[[]byte]

// reserveDeviceBuffers puts count buffers of n bytes in deviceBuffers, so
// that up to count calls of onDevice at once allocate none.
func reserveDeviceBuffers(count, n int) {
	bufs := make([]*[]byte, count)
	for i := range bufs {
		bufs[i] = deviceBuffer(n)
	}
	for _, b := range bufs {
		deviceBuffers.Put(b)
	}
}

// deviceBuffer returns n bytes from deviceBuffers, dropping those too
// short, or new ones.
func deviceBuffer(n int) *[]byte {
	for b := deviceBuffers.Get(); b != nil; b = deviceBuffers.Get() {
		if cap(*b) >= n {
			*b = (*b)[:n]
			return b
		}
	}
	b := make([]byte, n)
	return &b
}

// gxBase returns a k·G for the benchmarks that sleeps perItem for each
// item of its call (a GPU's time, on no host core) and writes G's x.
func gxBase(c *curves.Curve, perItem time.Duration) ecdsasign.BaseMult {
	L := c.ByteLen()
	gx := c.Gx().FillBytes(make([]byte, L))
	return func(_ context.Context, xs []byte, ok []bool, _ []byte) error {
		time.Sleep(time.Duration(len(ok)) * perItem)
		for i := range ok {
			copy(xs[i*L:], gx)
			ok[i] = true
		}
		return nil
	}
}
