package ladder

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rnsec/ecmul/internal/curves"
)

// taintRun runs the schedule's register traffic forward, Init, the swap
// before the first pass, three passes of Loop (each followed by its swaps
// and commits, and the comb's next row)
// and Final, marking a register unreduced when a lazy addition writes it and
// reduced when a multiplication or another addition does; it returns the
// first place an unreduced register is read other than by a multiplication
// (an addition, a swap, a commit, an output), or "".
func taintRun(s *Schedule) string {
	unreduced := map[Reg]bool{}
	run := func(phase string, steps []Step) string {
		for _, st := range steps {
			for _, m := range st.Muls {
				delete(unreduced, m.Dst)
			}
			for _, a := range st.Adds {
				for _, t := range a.Terms {
					if unreduced[t.Src] {
						return phase + ": an addition reads " + t.Src.String()
					}
				}
			}
			for _, a := range st.Adds {
				unreduced[a.Dst] = a.Lazy
			}
		}
		return ""
	}
	swap := func() string {
		for _, sw := range s.Swap {
			if unreduced[sw[0]] || unreduced[sw[1]] {
				return "a swap moves " + sw[0].String()
			}
		}
		return ""
	}
	if at := run("init", s.Init); at != "" {
		return at
	}
	if at := swap(); at != "" {
		return "before the loop: " + at
	}
	for range 3 {
		if at := run("loop", s.Loop); at != "" {
			return at
		}
		if at := swap(); at != "" {
			return at
		}
		for _, c := range s.Commit {
			if unreduced[c.Dst] || unreduced[c.Sum] || unreduced[c.Start] {
				return "a commit reads " + c.Dst.String()
			}
		}
		if s.Kind.IsComb() {
			delete(unreduced, TX)
			delete(unreduced, TY)
		}
	}
	if at := run("final", s.Final); at != "" {
		return at
	}
	for _, r := range s.Out {
		if unreduced[r] {
			return "output " + r.String()
		}
	}
	return ""
}

// TestLazyAdditions: on every schedule and curve, no unreduced sum reaches
// anything but a multiplication, and every lazy sum has weight at most
// LazyWeight; the co-Z ladder's loop leaves four of its five sums
// unreduced (A, D twice and LM: XRG is read by the next pass's first sum).
func TestLazyAdditions(t *testing.T) {
	for _, c := range curves.All() {
		for _, k := range append(Kinds(), Comb, CombVarTime) {
			su, err := NewSetupKind(c, k)
			require.NoError(t, err)
			s := su.Schedule
			require.Empty(t, taintRun(s), "%s %s", c.Name(), k)
			for _, op := range s.Adds() {
				if op.Lazy {
					require.LessOrEqual(t, op.weight(), LazyWeight, "%s %s: %s", c.Name(), k, op.Dst)
				}
			}
			if k == CoZ {
				var lazy []Reg
				for _, st := range s.Loop {
					for _, op := range st.Adds {
						if op.Lazy {
							lazy = append(lazy, op.Dst)
						}
					}
				}
				require.Equal(t, []Reg{A, D, D, LM}, lazy, c.Name())
			}
		}
	}
}

// TestTaintRunCatchesWrongLazy: marking the co-Z loop's XRG sum lazy (the
// swap after the pass moves it) is caught, and so are Init's XQG sum and
// the paper ladder's Init sums, which the swap before the first pass moves
// (markLazy leaves them reduced).
func TestTaintRunCatchesWrongLazy(t *testing.T) {
	su, err := NewSetupKind(curves.P256(), CoZ)
	require.NoError(t, err)
	s := su.Schedule
	last := &s.Loop[len(s.Loop)-1].Adds[0]
	require.Equal(t, XRG, last.Dst)
	last.Lazy = true
	require.Equal(t, "a swap moves XQG", taintRun(s))
	last.Lazy = false
	for i := range s.Init {
		for j := range s.Init[i].Adds {
			if op := &s.Init[i].Adds[j]; op.Dst == XQG {
				op.Lazy = true
			}
		}
	}
	require.Equal(t, "before the loop: a swap moves XQG", taintRun(s))
	paper, err := NewSetupKind(curves.P256(), Paper)
	require.NoError(t, err)
	moved := 0
	for i := range paper.Schedule.Init {
		for j := range paper.Schedule.Init[i].Adds {
			if op := &paper.Schedule.Init[i].Adds[j]; paper.Schedule.swaps(op.Dst) {
				require.False(t, op.Lazy, "markLazy: Init's %s sum, which the swap moves", op.Dst)
				op.Lazy = true
				moved++
			}
		}
	}
	require.Positive(t, moved)
	require.Contains(t, taintRun(paper.Schedule), "before the loop: a swap moves")
}
