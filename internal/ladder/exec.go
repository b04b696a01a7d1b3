package ladder

import (
	"math/big"

	"github.com/rnsec/ecmul/internal/basext"
	"github.com/rnsec/ecmul/internal/rns"
)

// Phase tells an Observer where the ladder is.
type Phase int

const (
	PhaseInit Phase = iota
	PhaseLoop
	PhaseFinal
)

// Observer, when not nil, is called after every step: phase, the scalar bit
// index (−1 in Init) and the step index.
type Observer func(phase Phase, bit, step int)

// executor is one way of computing the schedule's sets.
type executor interface {
	mulSet(ops []MulOp)
	addSet(ops []AddOp)
	// swap exchanges the registers of every pair when mask is 1.
	swap(pairs [][2]Reg, mask uint)
}

// run walks the schedule: Init, then for bits t−1 … 0 a conditional swap,
// the Loop steps and the same swap again, then Final. The swaps are
// data-independent in both executors (masked selects), as in the kernel.
func run(e executor, s *Schedule, k *big.Int, t int, obs Observer) {
	steps := func(phase Phase, bit int, sts []Step) {
		for i, st := range sts {
			e.mulSet(st.Muls)
			e.addSet(st.Adds)
			if obs != nil {
				obs(phase, bit, i)
			}
		}
	}
	steps(PhaseInit, -1, s.Init)
	for bit := t - 1; bit >= 0; bit-- {
		m := k.Bit(bit) ^ 1 ^ s.SwapBit
		e.swap(s.Swap, m)
		steps(PhaseLoop, bit, s.Loop)
		e.swap(s.Swap, m)
	}
	steps(PhaseFinal, -1, s.Final)
}

// RNSExecutor runs the schedule on RNS channels through basext, channel by
// channel as the kernel does: its registers after any step are bit for bit
// those of the kernel. Not safe for concurrent use; make one per goroutine.
type RNSExecutor struct {
	su   *Setup
	mu   *basext.Multiplier
	regs [NumRegs]rns.Element
	tmp  [NumRegs]rns.Element
}

// NewRNSExecutor returns a CPU twin of the kernel using base extension v.
func (su *Setup) NewRNSExecutor(v basext.Variant) *RNSExecutor {
	e := &RNSExecutor{su: su, mu: su.Tables.NewMultiplier(v)}
	for i := range e.regs {
		e.regs[i], e.tmp[i] = su.Params.NewElement(), su.Params.NewElement()
	}
	return e
}

// Reg returns register r.
func (e *RNSExecutor) Reg(r Reg) *rns.Element { return &e.regs[r] }

// Run computes the ladder from the RNS Montgomery form of the base
// x-coordinate (Setup.InputElement) and the ladder scalar k of t+1 bits.
// The result holds the B residues of the schedule's outputs.
func (e *RNSExecutor) Run(xg *rns.Element, k *big.Int, t int, obs Observer) Channels {
	e.regs[XG].Set(xg)
	e.regs[KB].Set(&e.su.KB)
	run(e, e.su.Schedule, k, t, obs)
	out := make(Channels, len(e.su.Schedule.Out))
	for i, r := range e.su.Schedule.Out {
		out[i] = append([]uint32(nil), e.regs[r].B...)
	}
	return out
}

// RunJob runs the Setup's schedule on a prepared job: the ladder from the
// job's base, or the comb (whose base is G) on its scalar.
func (e *RNSExecutor) RunJob(j Job) Channels {
	if e.su.comb != nil {
		return e.RunComb(j.Scalar, nil)
	}
	x := e.su.InputElement(j)
	return e.Run(&x, j.Scalar, e.su.Bits, nil)
}

func (e *RNSExecutor) mulSet(ops []MulOp) {
	for i, op := range ops {
		e.mu.Mul(&e.tmp[i], &e.regs[op.X], &e.regs[op.Y])
	}
	for i, op := range ops {
		e.regs[op.Dst].Set(&e.tmp[i])
	}
}

// addChannel returns (k + Σ coef·src) mod m for residues below m.
func addChannel(k uint32, terms []Term, src func(Reg) uint32, m uint32) uint32 {
	acc := int64(k)
	for _, tm := range terms {
		acc += int64(tm.Coef) * int64(src(tm.Src))
	}
	acc %= int64(m)
	if acc < 0 {
		acc += int64(m)
	}
	return uint32(acc)
}

func (e *RNSExecutor) addSet(ops []AddOp) {
	par := e.su.Params
	for i, op := range ops {
		k := &e.su.AddConsts[op.Const]
		z := &e.tmp[i]
		for j, m := range par.B.Moduli {
			z.B[j] = addChannel(k.B[j], op.Terms, func(r Reg) uint32 { return e.regs[r].B[j] }, m.M)
		}
		for j, m := range par.BT.Moduli {
			z.BT[j] = addChannel(k.BT[j], op.Terms, func(r Reg) uint32 { return e.regs[r].BT[j] }, m.M)
		}
		z.E = addChannel(k.E, op.Terms, func(r Reg) uint32 { return e.regs[r].E }, par.Me())
	}
	for i, op := range ops {
		e.regs[op.Dst].Set(&e.tmp[i])
	}
}

// swap exchanges the pairs when bit is 1 with masks, never a branch on the bit.
func (e *RNSExecutor) swap(pairs [][2]Reg, bit uint) {
	mask := -uint32(bit)
	cswap := func(a, b *rns.Element) {
		for j := range a.B {
			d := (a.B[j] ^ b.B[j]) & mask
			a.B[j] ^= d
			b.B[j] ^= d
		}
		for j := range a.BT {
			d := (a.BT[j] ^ b.BT[j]) & mask
			a.BT[j] ^= d
			b.BT[j] ^= d
		}
		d := (a.E ^ b.E) & mask
		a.E ^= d
		b.E ^= d
	}
	for _, sw := range pairs {
		cswap(&e.regs[sw[0]], &e.regs[sw[1]])
	}
}
