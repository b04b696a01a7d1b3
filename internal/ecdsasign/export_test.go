package ecdsasign

import "sync"

// SetStepItems sets the most items of one step and returns a function
// that restores it; tests that use it do not run in parallel.
func SetStepItems(n int) (restore func()) {
	old := stepItems
	stepItems = n
	return func() { stepItems = old }
}

// DropSteps empties the pool of steps, as two collections would.
func DropSteps() { steps = sync.Pool{} }

// StepItems returns the most items of one step.
func StepItems() int { return stepItems }
