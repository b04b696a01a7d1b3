package race

import "testing"

// SkipSerial skips, under the race detector, a test of one goroutine's
// arithmetic: the detector has nothing to watch there and slows it about
// tenfold, and the run without it checks the same arithmetic.
func SkipSerial(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("one goroutine's arithmetic, nothing for the race detector to watch: the run without it checks it")
	}
}
