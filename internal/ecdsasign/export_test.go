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

// CurrentStepItems returns the most items of one step as set now.
func CurrentStepItems() int { return stepItems }

// SetRampItems sets the first and last step of a ramped batch and returns
// a function that restores it; tests that use it do not run in parallel.
func SetRampItems(n int) (restore func()) {
	old := rampItems
	rampItems = n
	return func() { rampItems = old }
}

// RampItems returns the first and last step of a ramped batch as set now.
func RampItems() int { return rampItems }
