package ladder

import (
	"fmt"
	"math/big"

	"github.com/rnsec/ecmul/rns"
)

// Constants are the values one curve's schedule adds or multiplies by.
type Constants struct {
	KB       *big.Int   // b̄ = b·M mod p, the KB register
	Mont     []*big.Int // k̄ for each MontConst
	Plain    []*big.Int // k for each MontConst
	AddMont  []*big.Int // per AddOp: Offset + Σ Coef·k̄, the integer the RNS executor adds
	AddPlain []*big.Int // per AddOp: Σ Coef·k mod p, what the oracle adds
}

// NewSchedule builds Table I for y² = x³ + a·x + b over p with the RNS of
// par, derives the offset of every subtraction, and proves by interval
// analysis that every multiplication input stays at or below 9u − 1 in Init
// and in every iteration of Loop (by induction: the loop is entered and left
// with its four coordinates at or below 9u − 1). It fails naming the first
// operation that breaks a bound.
func NewSchedule(a int64, b *big.Int, par *rns.Params) (*Schedule, *Constants, error) {
	if a < -16 || a > 16 {
		return nil, nil, fmt.Errorf("ladder: a = %d: only small coefficients are supported", a)
	}
	init, loop := tableI(int(a))
	s := &Schedule{A: a, Init: init, Loop: loop}
	p := par.P
	maxIn := new(big.Int).Sub(par.AddBound, big.NewInt(1))
	maxMul := new(big.Int).Sub(par.U, big.NewInt(1))
	pm1 := new(big.Int).Sub(p, big.NewInt(1))
	s.MaxMulInput, s.MaxRegister = new(big.Int), new(big.Int)

	bound := make([]*big.Int, NumRegs) // nil: not defined yet
	bound[XG], bound[KB] = pm1, pm1

	walk := func(name string, steps []Step) error {
		for si := range steps {
			st := &steps[si]
			next := append([]*big.Int{}, bound...)
			for _, op := range st.Muls {
				for _, r := range []Reg{op.X, op.Y} {
					if bound[r] == nil {
						return fmt.Errorf("ladder: %s step %d: %v read before it is set", name, si+1, r)
					}
					if bound[r].Cmp(maxIn) > 0 {
						return fmt.Errorf("ladder: %s step %d: input %v of %v = %v·%v may reach %d bits, above 9u", name, si+1, r, op.Dst, op.X, op.Y, bound[r].BitLen())
					}
					if bound[r].Cmp(s.MaxMulInput) > 0 {
						s.MaxMulInput.Set(bound[r])
					}
				}
				next[op.Dst] = maxMul
			}
			bound = next
			next = append([]*big.Int{}, bound...)
			for i := range st.Adds {
				op := &st.Adds[i]
				op.Terms = nonZero(op.Terms)
				hi, off := new(big.Int), new(big.Int)
				for _, tm := range op.Terms {
					if bound[tm.Src] == nil {
						return fmt.Errorf("ladder: %s step %d: %v read before it is set", name, si+1, tm.Src)
					}
					c := big.NewInt(int64(tm.Coef))
					if tm.Coef > 0 {
						hi.Add(hi, new(big.Int).Mul(c, bound[tm.Src]))
						continue
					}
					// |c|·(O − src) with O the least multiple of p at or above the source's bound
					o := new(big.Int).Add(bound[tm.Src], pm1)
					o.Quo(o, p).Mul(o, p)
					c.Neg(c)
					off.Add(off, new(big.Int).Mul(c, o))
				}
				for _, mt := range op.Mont {
					if mt.Coef < 0 {
						return fmt.Errorf("ladder: %s step %d: negative constant coefficient", name, si+1)
					}
					hi.Add(hi, new(big.Int).Mul(big.NewInt(int64(mt.Coef)), pm1))
				}
				hi.Add(hi, off)
				if hi.Cmp(maxIn) > 0 {
					return fmt.Errorf("ladder: %s step %d: %v may reach %d bits, above 9u", name, si+1, op.Dst, hi.BitLen())
				}
				op.Offset = off
				next[op.Dst] = hi
			}
			bound = next
			for _, b := range bound {
				if b != nil && b.Cmp(s.MaxRegister) > 0 {
					s.MaxRegister.Set(b)
				}
			}
		}
		return nil
	}
	if err := walk("init", s.Init); err != nil {
		return nil, nil, err
	}
	for _, r := range []Reg{XP, ZP, XQ, ZQ} {
		if bound[r] == nil || bound[r].Cmp(maxIn) > 0 {
			return nil, nil, fmt.Errorf("ladder: init leaves %v unset or above 9u", r)
		}
	}
	// Loop: assume the four coordinates at 9u − 1 (either may arrive in either
	// role after a swap), the work registers undefined.
	for r := range bound {
		if Reg(r) != XG && Reg(r) != KB {
			bound[r] = nil
		}
	}
	for _, r := range []Reg{XP, ZP, XQ, ZQ} {
		bound[r] = maxIn
	}
	if err := walk("loop", s.Loop); err != nil {
		return nil, nil, err
	}
	for _, r := range []Reg{XP, ZP, XQ, ZQ} {
		if bound[r].Cmp(maxIn) > 0 {
			return nil, nil, fmt.Errorf("ladder: loop leaves %v above 9u", r)
		}
	}
	for i, op := range s.Adds() {
		op.Const = i
	}
	return s, newConstants(s, a, b, par), nil
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
