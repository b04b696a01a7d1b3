package ecdsasign

import (
	"fmt"
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
