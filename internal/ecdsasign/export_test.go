package ecdsasign

// SetStepItems sets the most items of one step, FirstSign's steps
// included, and returns a function that restores them; tests that use it
// do not run in parallel.
func SetStepItems(n int) (restore func()) {
	old, oldFirst := stepItems, firstStepItems
	stepItems, firstStepItems = n, n
	return func() { stepItems, firstStepItems = old, oldFirst }
}
