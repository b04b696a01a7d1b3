package ecdsasign

import "github.com/rnsec/ecmul/internal/reuse"

// SetStepItems sets the most items of one step and returns a function
// that restores it; tests that use it do not run in parallel.
func SetStepItems(n int) (restore func()) {
	old := stepItems
	stepItems = n
	return func() { stepItems = old }
}

// DropSteps empties the list of steps, as a collection would.
func DropSteps() { steps = reuse.List[step]{} }

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

// PooledSecrets takes every step from the pool and returns how many there
// were, and how many hold a nonzero byte of a nonce or an inverse.
func PooledSecrets() (pooled, dirty int) {
	for {
		st := steps.Get()
		if st == nil {
			return pooled, dirty
		}
		pooled++
		var or byte
		for _, b := range st.scalars {
			or |= b
		}
		for _, e := range append(st.kinv, st.pre...) {
			for _, l := range e {
				or |= byte(l | l>>8 | l>>16 | l>>24 | l>>32 | l>>40 | l>>48 | l>>56)
			}
		}
		if or != 0 {
			dirty++
		}
	}
}
