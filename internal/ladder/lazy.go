package ladder

// LazyWeight is the largest weight 1 + Σ|Coef| of a lazy addition: its sum
// K + Σ|Coef|·(Src or m − Src) of one channel is then below 4·2^30 = 2^32,
// one 32-bit word on 30-bit channels (the kernel's Channel<30>::Acc).
const LazyWeight = 4

// weight returns 1 + Σ|Coef| of op: the channel sum is below weight·m.
func (op *AddOp) weight() int {
	w := 1
	for _, t := range op.Terms {
		w += max(t.Coef, -t.Coef)
	}
	return w
}

// markLazy sets Lazy on every addition whose sum the kernel may leave
// unreduced: its weight is at most LazyWeight, and on every path from it
// (through the loop's next passes, Final and the outputs) its destination
// is read only as a multiplication operand before something writes it
// again. A multiplication reduces any 32-bit residues, and no addition,
// output, swap or commit sees the unreduced word.
func markLazy(s *Schedule) {
	for _, ph := range []struct {
		steps []Step
		phase int
	}{{s.Init, phaseInit}, {s.Loop, phaseLoop}, {s.Final, phaseFinal}} {
		for i := range ph.steps {
			for j := range ph.steps[i].Adds {
				op := &ph.steps[i].Adds[j]
				op.Lazy = op.weight() <= LazyWeight && s.readByMulsOnly(op.Dst, ph.phase, i+1)
			}
		}
	}
}

// LazyPerBit returns how many of Loop's additions are lazy, and how many
// it has.
func (s *Schedule) LazyPerBit() (lazy, adds int) {
	for _, st := range s.Loop {
		for _, op := range st.Adds {
			adds++
			if op.Lazy {
				lazy++
			}
		}
	}
	return lazy, adds
}

const (
	phaseInit = iota
	phaseLoop
	phaseFinal
)

// readByMulsOnly reports whether the value r holds at the start of step i of
// phase is read only by multiplications on every path until r is written.
func (s *Schedule) readByMulsOnly(r Reg, phase, i int) bool {
	switch phase {
	case phaseInit:
		// the rest of Init, the swap before the first pass, then Loop
		ok, killed := scanSteps(s.Init[i:], r)
		if !ok || killed {
			return ok
		}
		return !s.swaps(r) && s.readByMulsOnly(r, phaseLoop, 0)
	case phaseLoop:
		// the rest of this pass, the loop's end, then one whole pass (which
		// covers the rest of every later one) and Final
		ok, killed := scanSteps(s.Loop[i:], r)
		if !ok || killed {
			return ok
		}
		ok, killed = s.loopEnd(r)
		if !ok || killed {
			return ok
		}
		if ok, killed = scanSteps(s.Loop, r); !ok {
			return false
		}
		return killed || s.readByMulsOnly(r, phaseFinal, 0)
	default:
		ok, killed := scanSteps(s.Final[i:], r)
		if !ok || killed {
			return ok
		}
		for _, out := range s.Out {
			if out == r {
				return false
			}
		}
		return true
	}
}

// loopEnd scans what happens between two passes of Loop (and after the
// last): a swap moves r to another name, a commit selects among its Dst,
// Sum and Start (both count as reads other than a multiplication's), the
// comb's next row writes TX and TY.
func (s *Schedule) loopEnd(r Reg) (ok, killed bool) {
	if s.swaps(r) {
		return false, false
	}
	for _, c := range s.Commit {
		if c.Dst == r || c.Sum == r || c.Start == r {
			return false, false
		}
	}
	return true, s.Kind.IsComb() && (r == TX || r == TY)
}

// swaps reports whether a swap of the ladder moves r.
func (s *Schedule) swaps(r Reg) bool {
	for _, sw := range s.Swap {
		if sw[0] == r || sw[1] == r {
			return true
		}
	}
	return false
}

// scanSteps reports whether steps read r only as a multiplication operand
// until they write it, and whether they write it.
func scanSteps(steps []Step, r Reg) (ok, killed bool) {
	for _, st := range steps {
		for _, m := range st.Muls {
			if m.Dst == r {
				killed = true
			}
		}
		if killed {
			return true, true
		}
		for _, a := range st.Adds {
			for _, t := range a.Terms {
				if t.Src == r {
					return false, false
				}
			}
		}
		for _, a := range st.Adds {
			if a.Dst == r {
				return true, true
			}
		}
	}
	return true, false
}
