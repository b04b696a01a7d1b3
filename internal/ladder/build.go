package ladder

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/rnsec/ecmul/internal/rns"
)

// Constants are the values one curve's schedule adds or multiplies by.
type Constants struct {
	KB       *big.Int   // b̄ = b·M mod p, the KB register
	Mont     []*big.Int // k̄ for each MontConst
	Plain    []*big.Int // k for each MontConst
	AddMont  []*big.Int // per AddOp: Offset + Σ Coef·k̄, the integer the RNS executor adds
	AddPlain []*big.Int // per AddOp: Σ Coef·k mod p, what the oracle adds
}

// NewSchedule builds the schedule kind for y² = x³ + a·x + b over p with
// the RNS of par, derives the offset of every subtraction, and proves by
// interval analysis that every multiplication input stays at or below
// 9u − 1 in Init, in every iteration of Loop and in Final. The loop's proof
// is by induction on bounds of the registers it carries from one bit to the
// next (read before they are written): starting from their bounds after
// Init, the bounds after one iteration (the two registers of a swap pair
// taking the larger) are joined in until they no longer grow, and then hold
// for every iteration. It fails naming the first operation that breaks a bound.
func NewSchedule(kind Kind, a int64, b *big.Int, par *rns.Params) (*Schedule, *Constants, error) {
	if a < -16 || a > 16 {
		return nil, nil, fmt.Errorf("ladder: a = %d: only small coefficients are supported", a)
	}
	s := &Schedule{Kind: kind, A: a}
	switch kind {
	case Paper:
		s.Init, s.Loop = tableI(int(a))
		s.Swap, s.SwapBit, s.Out = [][2]Reg{{XP, XQ}, {ZP, ZQ}}, 1, []Reg{XP, ZP, XQ, ZQ}
	case CoZ:
		s.Init, s.Loop, s.Final = coZ()
		s.Swap, s.SwapBit, s.Out = [][2]Reg{{XQG, XRG}}, 0, []Reg{coZDen: B, coZXNum: C, coZYNum: D}
	case Comb, CombVarTime:
		s.Init, s.Loop, s.Commit = comb()
		s.Out = []Reg{coZDen: AZ, coZXNum: AX, coZYNum: AY}
	default:
		return nil, nil, fmt.Errorf("ladder: unknown schedule %v", kind)
	}
	pr := &prover{s: s, p: par.P, maxIn: new(big.Int).Sub(par.AddBound, big.NewInt(1)),
		maxMul: new(big.Int).Sub(par.U, big.NewInt(1)), maxMulIn: new(big.Int), maxReg: new(big.Int)}
	if err := pr.prove(); err != nil {
		return nil, nil, err
	}
	s.MaxMulInput, s.MaxRegister = pr.maxMulIn, pr.maxReg
	for i, op := range s.Adds() {
		op.Const = i
	}
	markLazy(s)
	return s, newConstants(s, a, b, par), nil
}

// bounds holds an upper bound per register; nil: not set yet.
type bounds []*big.Int

func (b bounds) clone() bounds { return append(bounds{}, b...) }

// prover runs the interval analysis of NewSchedule.
type prover struct {
	s                *Schedule
	p, maxIn, maxMul *big.Int
	maxMulIn, maxReg *big.Int
}

func (pr *prover) prove() error {
	s := pr.s
	pm1 := new(big.Int).Sub(pr.p, big.NewInt(1))
	b := make(bounds, NumRegs)
	for _, r := range s.inputs() {
		b[r] = pm1
	}
	b, err := pr.walk("init", s.Init, b)
	if err != nil {
		return err
	}
	if err := s.checkCommit(); err != nil {
		return err
	}
	carried := s.carried()
	entry := make(bounds, NumRegs)
	for _, r := range s.inputs() {
		entry[r] = pm1
	}
	for _, r := range carried {
		if b[r] == nil {
			return fmt.Errorf("ladder: init leaves %v unset", r)
		}
		entry[r] = b[r]
	}
	for range 16 {
		pr.swapJoin(entry)
		exit, err := pr.walk("loop", s.Loop, entry.clone())
		if err != nil {
			return err
		}
		pr.swapJoin(exit)
		pr.commitJoin(exit)
		grew := false
		for _, r := range carried {
			if exit[r].Cmp(entry[r]) > 0 {
				entry[r], grew = exit[r], true
			}
		}
		if !grew {
			_, err := pr.walk("final", s.Final, exit)
			return err
		}
	}
	return fmt.Errorf("ladder: the loop's register bounds keep growing")
}

// swapJoin gives both registers of every swap pair the larger bound.
func (pr *prover) swapJoin(b bounds) {
	for _, sw := range pr.s.Swap {
		if b[sw[0]].Cmp(b[sw[1]]) < 0 {
			b[sw[0]] = b[sw[1]]
		} else {
			b[sw[1]] = b[sw[0]]
		}
	}
}

// inputs returns the registers the kernel sets before every use, below p:
// XG and KB, and the comb's table row.
func (s *Schedule) inputs() []Reg {
	if s.Kind.IsComb() {
		return []Reg{XG, KB, TX, TY}
	}
	return []Reg{XG, KB}
}

// commitJoin gives every register the comb's Commit sets the largest bound
// of the values it may take: its own, the sum's, or the start's.
func (pr *prover) commitJoin(b bounds) {
	for _, c := range pr.s.Commit {
		for _, r := range []Reg{c.Sum, c.Start} {
			if b[r].Cmp(b[c.Dst]) > 0 {
				b[c.Dst] = b[r]
			}
		}
	}
}

// checkCommit makes sure Loop leaves the registers Commit sets alone, so
// that a zero digit keeps them as they were.
func (s *Schedule) checkCommit() error {
	for _, c := range s.Commit {
		for _, st := range s.Loop {
			for _, op := range st.Muls {
				if op.Dst == c.Dst {
					return fmt.Errorf("ladder: loop writes %v, which Commit sets", c.Dst)
				}
			}
			for _, op := range st.Adds {
				if op.Dst == c.Dst {
					return fmt.Errorf("ladder: loop writes %v, which Commit sets", c.Dst)
				}
			}
		}
	}
	return nil
}

// carried returns the registers Loop reads before writing them (the
// inputs aside), and every register a swap or a commit reads.
func (s *Schedule) carried() []Reg {
	written := make([]bool, NumRegs)
	seen := make([]bool, NumRegs)
	var out []Reg
	use := func(r Reg) {
		if !written[r] && !seen[r] && !slices.Contains(s.inputs(), r) {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, sw := range s.Swap {
		use(sw[0])
		use(sw[1])
	}
	for _, c := range s.Commit {
		use(c.Dst)
		use(c.Start)
	}
	for _, st := range s.Loop {
		for _, op := range st.Muls {
			use(op.X)
			use(op.Y)
		}
		for _, op := range st.Muls {
			written[op.Dst] = true
		}
		for _, op := range st.Adds {
			for _, tm := range op.Terms {
				use(tm.Src)
			}
		}
		for _, op := range st.Adds {
			written[op.Dst] = true
		}
	}
	return out
}

// walk applies steps to the bounds b, checking every multiplication input
// against 9u − 1 and setting every subtraction's offset, and returns the
// bounds after the last step.
func (pr *prover) walk(name string, steps []Step, b bounds) (bounds, error) {
	pm1 := new(big.Int).Sub(pr.p, big.NewInt(1))
	for si := range steps {
		st := &steps[si]
		next := b.clone()
		for _, op := range st.Muls {
			for _, r := range []Reg{op.X, op.Y} {
				if b[r] == nil {
					return nil, fmt.Errorf("ladder: %s step %d: %v read before it is set", name, si+1, r)
				}
				if b[r].Cmp(pr.maxIn) > 0 {
					return nil, fmt.Errorf("ladder: %s step %d: input %v of %v = %v·%v may reach %d bits, above 9u", name, si+1, r, op.Dst, op.X, op.Y, b[r].BitLen())
				}
				if b[r].Cmp(pr.maxMulIn) > 0 {
					pr.maxMulIn.Set(b[r])
				}
			}
			next[op.Dst] = pr.maxMul
		}
		b = next
		next = b.clone()
		for i := range st.Adds {
			op := &st.Adds[i]
			op.Terms = nonZero(op.Terms)
			hi, off := new(big.Int), new(big.Int)
			for _, tm := range op.Terms {
				if b[tm.Src] == nil {
					return nil, fmt.Errorf("ladder: %s step %d: %v read before it is set", name, si+1, tm.Src)
				}
				c := big.NewInt(int64(tm.Coef))
				if tm.Coef > 0 {
					hi.Add(hi, new(big.Int).Mul(c, b[tm.Src]))
					continue
				}
				// |c|·(O − src) with O the least multiple of p at or above the source's bound
				o := new(big.Int).Add(b[tm.Src], pm1)
				o.Quo(o, pr.p).Mul(o, pr.p)
				c.Neg(c)
				off.Add(off, new(big.Int).Mul(c, o))
			}
			for _, mt := range op.Mont {
				if mt.Coef < 0 {
					return nil, fmt.Errorf("ladder: %s step %d: negative constant coefficient", name, si+1)
				}
				hi.Add(hi, new(big.Int).Mul(big.NewInt(int64(mt.Coef)), pm1))
			}
			hi.Add(hi, off)
			if hi.Cmp(pr.maxIn) > 0 {
				return nil, fmt.Errorf("ladder: %s step %d: %v may reach %d bits, above 9u", name, si+1, op.Dst, hi.BitLen())
			}
			op.Offset = off
			next[op.Dst] = hi
		}
		b = next
		for _, v := range b {
			if v != nil && v.Cmp(pr.maxReg) > 0 {
				pr.maxReg.Set(v)
			}
		}
	}
	return b, nil
}

func nonZero(ts []Term) []Term {
	var out []Term
	for _, tm := range ts {
		if tm.Coef != 0 {
			out = append(out, tm)
		}
	}
	return out
}

func newConstants(s *Schedule, a int64, b *big.Int, par *rns.Params) *Constants {
	p := par.P
	plain := make([]*big.Int, MontConsts)
	plain[ConstNegA] = new(big.Int).Mod(big.NewInt(-a), p)
	plain[ConstB] = new(big.Int).Mod(b, p)
	plain[ConstA] = new(big.Int).Mod(big.NewInt(a), p)
	plain[constOne] = big.NewInt(1)
	c := &Constants{Plain: plain}
	for _, k := range plain {
		c.Mont = append(c.Mont, par.ToMont(k))
	}
	c.KB = c.Mont[ConstB]
	for _, op := range s.Adds() {
		m := new(big.Int).Set(op.Offset)
		pl := new(big.Int)
		for _, mt := range op.Mont {
			m.Add(m, new(big.Int).Mul(big.NewInt(int64(mt.Coef)), c.Mont[mt.Const]))
			pl.Add(pl, new(big.Int).Mul(big.NewInt(int64(mt.Coef)), plain[mt.Const]))
		}
		c.AddMont = append(c.AddMont, m)
		c.AddPlain = append(c.AddPlain, pl.Mod(pl, p))
	}
	return c
}
