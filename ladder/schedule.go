// Package ladder holds the x-only Montgomery ladder of ecmul as data: a
// schedule of multiplication and addition sets (Table I of Antão, Bajard and
// Sousa, general in a), the proof that every multiplication input stays
// below 9u, and two executors of that schedule: big integers (the oracle)
// and RNS channels through basext (the CPU twin of the CUDA kernel). It also
// turns the ladder's projective outputs into affine points (one batched
// inversion, y-recovery).
package ladder

import (
	"fmt"
	"math/big"
)

// Reg names one register of the ladder. The first ones are the working
// variables of Table I; XG is the input x-coordinate and KB the curve's b,
// both read-only during the loop.
type Reg uint8

const (
	XP Reg = iota
	ZP
	XQ
	ZQ
	A
	B
	C
	D
	E
	F
	H
	XG
	KB
	NumRegs
)

var regNames = [...]string{"XP", "ZP", "XQ", "ZQ", "A", "B", "C", "D", "E", "F", "H", "XG", "KB"}

func (r Reg) String() string {
	if int(r) < len(regNames) {
		return regNames[r]
	}
	return fmt.Sprintf("R%d", int(r))
}

// MontConst names a field constant that additions add in Montgomery form.
type MontConst uint8

const (
	// ConstNegA is −a (3 for the NIST curves, 0 for secp256k1).
	ConstNegA MontConst = iota
	// ConstB is the curve's b.
	ConstB
	numMontConsts
)

// MulOp is Dst = X·Y·M^{-1} (mod p): one RNS Montgomery multiplication.
type MulOp struct{ Dst, X, Y Reg }

// Term is Coef·Src inside an addition.
type Term struct {
	Coef int
	Src  Reg
}

// MontTerm is Coef·k̄ for a Montgomery-form constant k̄.
type MontTerm struct {
	Coef  int
	Const MontConst
}

// AddOp is Dst = Σ Coef·Src + Σ Coef·k̄ + Offset, where Offset is a multiple
// of p chosen so that every negative term is added as |Coef|·(O − Src) with
// O >= Src: the integer result is never negative and its bound is known.
type AddOp struct {
	Dst    Reg
	Terms  []Term
	Mont   []MontTerm
	Offset *big.Int // a multiple of p, derived by the schedule builder
	Const  int      // index of Offset + Σ Coef·k̄ in Schedule.AddConsts
}

// Step is one multiplication set followed by one addition set: Type II
// reduces once per set. Every operation of a set reads the registers as they
// were before the set.
type Step struct {
	Muls []MulOp
	Adds []AddOp
}

// Schedule is the whole ladder for one curve: Init turns (P = G, Q = G) into
// (P = G, Q = 2G); Loop is one ladder bit for s_i = 0 (Q ← P+Q, P ← 2P).
// For s_i = 1 the executors swap P and Q before and after Loop.
type Schedule struct {
	A    int64 // the curve's small coefficient a
	Init []Step
	Loop []Step
	// Bounds proved by NewSchedule: the largest value of every multiplication
	// input and of every register at the end of a step.
	MaxMulInput *big.Int
	MaxRegister *big.Int
}

// MulsPerBit returns the number of field multiplications of one ladder bit.
func (s *Schedule) MulsPerBit() int {
	n := 0
	for _, st := range s.Loop {
		n += len(st.Muls)
	}
	return n
}

// Adds returns every addition of the schedule, Init first, in order: the
// index of an AddOp in this list is its Const.
func (s *Schedule) Adds() []*AddOp {
	var ops []*AddOp
	for _, steps := range [][]Step{s.Init, s.Loop} {
		for i := range steps {
			for j := range steps[i].Adds {
				ops = append(ops, &steps[i].Adds[j])
			}
		}
	}
	return ops
}

func t(c int, r Reg) Term { return Term{c, r} }

// tableI returns Table I with a as a small coefficient: the NIST curves have
// a = −3 (so C + 3D, E + 3F, E − 3F), secp256k1 has a = 0 (those terms vanish).
func tableI(a int) (init, loop []Step) {
	na := -a // the schedule adds −a·(…)
	init = []Step{
		{ // A = x², B = b·x; C = A − a
			Muls: []MulOp{{A, XG, XG}, {B, KB, XG}},
			Adds: []AddOp{{Dst: C, Terms: []Term{t(1, A)}, Mont: []MontTerm{{1, ConstNegA}}}},
		},
		{ // C = C², A = x·A (= x³); X_Q = C − 8b·x, Z_Q = 4(x³ + a·x + b)
			Muls: []MulOp{{C, C, C}, {A, XG, A}},
			Adds: []AddOp{
				{Dst: XQ, Terms: []Term{t(1, C), t(-8, B)}},
				{Dst: ZQ, Terms: []Term{t(4, A), t(4*a, XG)}, Mont: []MontTerm{{4, ConstB}}},
				{Dst: XP, Terms: []Term{t(1, XG)}},
				{Dst: ZP, Mont: []MontTerm{{1, constOne}}},
			},
		},
	}
	loop = []Step{
		{
			Muls: []MulOp{{A, XP, ZQ}, {B, XQ, ZP}, {C, XP, XQ}, {D, ZP, ZQ}, {E, XP, XP}, {F, ZP, ZP}, {H, KB, ZP}},
			Adds: []AddOp{
				{Dst: ZQ, Terms: []Term{t(1, A), t(-1, B)}},
				{Dst: XQ, Terms: []Term{t(1, A), t(1, B)}},
				{Dst: C, Terms: []Term{t(1, C), t(na, D)}},
				{Dst: A, Terms: []Term{t(1, E), t(na, F)}},
			},
		},
		{
			Muls: []MulOp{{D, D, XQ}, {XQ, C, C}, {ZQ, ZQ, ZQ}, {A, A, A}, {B, F, H}, {E, E, XP}, {F, XP, F}},
			Adds: []AddOp{{Dst: E, Terms: []Term{t(1, E), t(1, B), t(a, F)}}},
		},
		{
			Muls: []MulOp{{D, KB, D}, {ZQ, XG, ZQ}, {B, XP, B}, {ZP, ZP, E}},
			Adds: []AddOp{
				{Dst: XQ, Terms: []Term{t(1, XQ), t(-4, D)}},
				{Dst: XP, Terms: []Term{t(1, A), t(-8, B)}},
				{Dst: ZP, Terms: []Term{t(4, ZP)}},
			},
		},
	}
	return init, loop
}

// constOne is 1̄ = M mod p, used once to set Z_P = 1 at the start.
const constOne = numMontConsts

// MontConsts is the number of Montgomery-form constants additions may use.
const MontConsts = int(numMontConsts) + 1
