package ecdsa

import (
	"context"
	"testing"

	"github.com/rnsec/ecmul"
	"github.com/rnsec/ecmul/internal/curves"
	"github.com/rnsec/ecmul/internal/reuse"
)

// TestVerifyReusesStepBuffers: a call of Verify after another takes its
// step buffer (three slices) from stepBuffers, where a call that finds the
// list empty allocates it.
func TestVerifyReusesStepBuffers(t *testing.T) {
	c := curves.P256()
	f := newHostFixture(t, c, 64, 3)
	e, err := ecmul.New(ecmul.P256(), ecmul.Options{Backend: ecmul.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	verdicts := make([]Verdict, len(f.digests))
	verify := func() {
		if err := Verify(context.Background(), e, verdicts, f.digests, f.sigs, f.keys); err != nil {
			t.Fatal(err)
		}
		allValid(t, verdicts)
	}
	verify() // the engine's first call; its step buffer put back
	pooled := testing.AllocsPerRun(3, verify)
	fresh := testing.AllocsPerRun(3, func() {
		stepBuffers = reuse.List[stepBuffer]{} // as after a collection
		verify()
	})
	t.Logf("allocations per call: %.1f with a kept step buffer, %.1f without", pooled, fresh)
	if fresh-pooled < 2 { // 3, less one collection's worth of misses
		t.Errorf("a call with a kept step buffer allocated %.1f times, one without %.1f", pooled, fresh)
	}
}
