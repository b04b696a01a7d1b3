package ecdsasign

import "testing"

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
