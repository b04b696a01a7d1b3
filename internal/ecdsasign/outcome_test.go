package ecdsasign

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rnsec/ecmul/internal/curves"
)

// TestAllSigned checks allSigned, which reads eight outcomes a word,
// against a look at each outcome: every length to 20, each outcome in
// turn set to every other value.
func TestAllSigned(t *testing.T) {
	others := []FirstOutcome{FirstNoPoint, FirstRefused, firstFailed, firstOnHost, firstAgain, FirstSigned + 0x80}
	for n := range 21 {
		f := make([]FirstOutcome, n)
		for i := range f {
			f[i] = FirstSigned
		}
		if !allSigned(f) {
			t.Fatalf("%d outcomes, all signed: allSigned is false", n)
		}
		for j := range n {
			for _, o := range others {
				f[j] = o
				if allSigned(f) {
					t.Fatalf("%d outcomes, outcome %d is %#x: allSigned is true", n, j, o)
				}
			}
			f[j] = FirstSigned
		}
	}
}

// BenchmarkTakeFirst: the drain's share of signing on the host, item by
// item, as a GPU's signatures come back (takeFirst), on secp256k1 with and
// without the low-s rule.
func BenchmarkTakeFirst(b *testing.B) {
	s, err := New(curves.Secp256k1())
	if err != nil {
		b.Fatal(err)
	}
	const n = 1 << 16
	L := s.ScalarBytes()
	from := make([]byte, n*2*L)
	for i := range from {
		from[i] = byte(i*13) | 1
	}
	for _, lowS := range []bool{false, true} {
		bt := &batch{o: s.o, sigs: make([]byte, n*2*L), errs: make([]error, n), opt: Options{LowS: lowS}}
		st := &step{n: n, firsts: make([]FirstOutcome, n)}
		b.Run(fmt.Sprintf("lowS=%v", lowS), func(b *testing.B) {
			for b.Loop() {
				for j := range n {
					bt.takeFirst(st, j, from[j*2*L:(j+1)*2*L], FirstSigned)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
		})
	}
}

// BenchmarkPutFirst: the fill's share of signing on the host, item by item,
// as a step's keys and h1s go into a GPU's buffers (putFirst), on P-256
// and P-224, over batches of 2^20 items (out of cache, as a GPU's steps
// are) of SHA-256 digests cycling through 1,024.
func BenchmarkPutFirst(b *testing.B) {
	for _, c := range []*curves.Curve{curves.P256(), curves.P224()} {
		s, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		const n, pool = 1 << 20, 1024
		L := s.ScalarBytes()
		rng := rand.New(rand.NewPCG(7, 7))
		digests, pooled := make([][]byte, n), make([]byte, 32*pool)
		for i := range pooled {
			pooled[i] = byte(rng.Uint32())
		}
		for i := range digests {
			digests[i] = pooled[i%pool*32 : i%pool*32+32]
		}
		keys := make([]byte, n*L)
		for i := 0; i < n; i++ {
			keys[i*L+L-1] = byte(i) | 1 // in [1, n − 1]
		}
		bt := &batch{o: s.o, digests: digests, keys: keys, sigs: make([]byte, n*2*L), errs: make([]error, n)}
		st := &step{n: n, firsts: make([]FirstOutcome, n)}
		k, h1 := make([]byte, n*L), make([]byte, n*L)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				bt.putFirst(st, 0, n, k, h1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
		})
	}
}
