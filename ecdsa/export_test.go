package ecdsa

// SetSubBatch sets the most items of one step of Verify's pipeline and
// returns a function that restores it; tests that use it do not run in
// parallel.
func SetSubBatch(n int) (restore func()) {
	old := subBatch
	subBatch = n
	return func() { subBatch = old }
}
