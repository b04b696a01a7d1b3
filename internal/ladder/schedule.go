// Package ladder holds the Montgomery ladders of ecmul as data: schedules of
// multiplication and addition sets (the co-Z ladder of Hamburg, TCHES 2020,
// at 11 multiplications per bit, and Table I of Antão, Bajard and Sousa at
// 18, both general in a), the proof that every multiplication input stays
// below 9u, and two executors of a schedule: big integers (the oracle) and
// RNS channels through basext (the CPU twin of the CUDA kernel). It also
// turns the ladder's outputs into affine points (one batched inversion,
// y-recovery).
package ladder

import (
	"fmt"
	"math/big"
	"strings"
)

// Reg names one register of the ladder. XP to H are the working variables
// of Table I; XQG to LM are the state of the co-Z ladder (its temporaries
// are A to D); AX to ONE are the fixed-base comb's (its temporaries are A
// to H); XG is the input x-coordinate and KB the curve's b, both read-only
// during the loop.
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
	XQG // co-Z: Z²·(x_Q − x_G)
	XRG // co-Z: Z²·(x_R − x_G)
	YG  // co-Z: 2·Z³·y_G
	LM  // co-Z: Z·λ, λ the slope of the line through Q, G and −R
	AX  // comb: the accumulated point (AX : AY : AZ), projective
	AY
	AZ
	TX // comb: the table row of this window's digit, affine (TX, TY)
	TY
	ONE // comb: 1̄, the Z of a table row taken as it is
	XG
	KB
	NumRegs
)

var regNames = [...]string{"XP", "ZP", "XQ", "ZQ", "A", "B", "C", "D", "E", "F", "H", "XQG", "XRG", "YG", "LM",
	"AX", "AY", "AZ", "TX", "TY", "ONE", "XG", "KB"}

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
	// ConstA is the curve's a mod p.
	ConstA
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
	// Lazy: every channel's sum fits 32 bits and Dst is read only by
	// multiplications before it is written again (markLazy), so the kernel
	// may leave the sum unreduced.
	Lazy bool
}

// Step is one multiplication set followed by one addition set: Type II
// reduces once per set. Every operation of a set reads the registers as they
// were before the set.
type Step struct {
	Muls []MulOp
	Adds []AddOp
}

// Kind names a ladder schedule.
type Kind uint8

const (
	// CoZ is Hamburg's co-Z Montgomery ladder (TCHES 2020, 8M+3S per bit):
	// 11 reductions per bit, the default.
	CoZ Kind = iota
	// Paper is Table I of Antão, Bajard and Sousa: the x-only ladder at 18
	// reductions per bit, kept to reproduce the paper's figures.
	Paper
	// Comb is not a ladder but the fixed-base multiplication k·G: one mixed
	// addition of a table row per window of CombWindow bits (comb.go), the
	// row read as every row of its window is read, kept by masks.
	Comb
	// CombVarTime is the comb for public scalars (the u1·G of ECDSA
	// verification): windows of CombVarTimeWindow bits, the row read at
	// its digit's address alone, in time that depends on the scalar.
	CombVarTime
	numKinds
)

// DefaultKind is the schedule used unless one is asked for.
const DefaultKind = CoZ

var kindNames = [...]string{"coz", "paper", "comb", "combvt"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Kinds lists every ladder of k·P, the default first (not the combs,
// whose base is always G).
func Kinds() []Kind { return []Kind{CoZ, Paper} }

// ParseKind returns the ladder named s, in any case: "coz", "paper", or
// "default".
func ParseKind(s string) (Kind, error) {
	if strings.EqualFold(s, "default") {
		return DefaultKind, nil
	}
	for _, k := range Kinds() {
		if strings.EqualFold(s, k.String()) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("ladder: unknown schedule %q (want coz, paper or default)", s)
}

// ParseAnyKind is ParseKind that also takes the combs, "comb" and
// "combvt".
func ParseAnyKind(s string) (Kind, error) {
	for _, k := range []Kind{Comb, CombVarTime} {
		if strings.EqualFold(s, k.String()) {
			return k, nil
		}
	}
	return ParseKind(s)
}

// IsComb reports whether k is one of the fixed-base combs.
func (k Kind) IsComb() bool { return k == Comb || k == CombVarTime }

// Schedule is the whole ladder for one curve. Init sets up the state of the
// ladder scalar's top bit from x_G; Loop is one ladder bit, run after the
// registers of every Swap pair are exchanged when the bit equals SwapBit
// (and exchanged back after it); Final runs once after the last bit; Out
// names the registers the kernel returns, in order.
//
// Paper: the state is (X_P : Z_P), (X_Q : Z_Q) with Q = P + G; Init gives
// (G, 2G), Loop is s_i = 0 (Q ← P+Q, P ← 2P), swapped for s_i = 1.
//
// CoZ: the state is Q and R = Q + G sharing one scale Z (XQG, XRG, YG, LM);
// Init gives (G, 2G), Loop is s_i = 1 (Q ← Q+R, R ← 2R), swapped for s_i = 0.
// The factor H of YG is applied one set late (the next bit's first
// multiplication set, or Final), so that Loop has four multiplication sets.
// Final also forms the common denominator of the affine result and its two
// numerators (see coZ), so that the host inverts and multiplies least.
//
// Comb: Loop is one window; before it the table row of the window's digit
// is loaded into TX, TY, and after it Commit sets the state (see comb).
type Schedule struct {
	Kind    Kind
	A       int64 // the curve's small coefficient a
	Init    []Step
	Loop    []Step
	Final   []Step
	Swap    [][2]Reg
	SwapBit uint
	Commit  []Commit // Comb only
	Out     []Reg
	// Bounds proved by NewSchedule: the largest value of every multiplication
	// input and of every register at the end of a step.
	MaxMulInput *big.Int
	MaxRegister *big.Int
}

// MulsPerBit returns the number of field multiplications of one ladder bit:
// its RNS reductions, since no sum of products is reduced as one.
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
	for _, steps := range [][]Step{s.Init, s.Loop, s.Final} {
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

// coZ returns Hamburg's co-Z Montgomery ladder for y² = x³ + a·x + b, with
// the state Q, R = Q + G (see Schedule). With E = Z²(x_Q − x_R) and
// yR = −2Z³y_R one bit computes F = yR·E, G = E², H = yR² and the new scale
// Z' = Z·F:
//
//	XQG' = H·(H + 2·LM·F)          XRG' = (XRG·G)² + YG·F·G
//	LM'  = XRG·G − H − LM·F         YG'  = YG·F·G·H
//
// Init: yP0 = 4(x³ + a·x + b), LM = 3x² + a, YG = yP0², XRG = LM² − 3x·yP0,
// XQG = 0 (Q = G, R = 2G, Z = 2y_G). A to D are temporaries: A = E then F,
// B = H, C = G then F·G, D = LM·XRG then yR then H + 2·LM·F.
//
// Final gives Q = k·G in affine form up to one division. The line through
// Q, G and −R has slope λ, so x_Q + x_G + x_R = λ², and with XQG = Z²(x_Q − x_G),
// XRG = Z²(x_R − x_G), YG = 2Z³y_G, LM = Zλ:
//
//	3·x_G·Z² = LM² − XQG − XRG                       =: D
//	x_Q = x_G·(LM² + 2·XQG − XRG)/D
//	y_Q = y_G + λ(x_Q − x_G) = y_G·(YG + 2·LM·XQG)/YG
//
// The outputs are the denominator D·YG (in B), x_Q's numerator
// x_G·(LM² + 2·XQG − XRG)·YG (in C) and y_Q/y_G's (YG + 2·LM·XQG)·D (in D):
// x_Q = C/B and y_Q = y_G·D/B.
func coZ() (init, loop, final []Step) {
	init = []Step{
		{ // A = x²; LM = 3x² + a, B = x² + a
			Muls: []MulOp{{A, XG, XG}},
			Adds: []AddOp{
				{Dst: LM, Terms: []Term{t(3, A)}, Mont: []MontTerm{{1, ConstA}}},
				{Dst: B, Terms: []Term{t(1, A)}, Mont: []MontTerm{{1, ConstA}}},
			},
		},
		{ // C = x³ + a·x, D = LM²; A = yP0
			Muls: []MulOp{{C, XG, B}, {D, LM, LM}},
			Adds: []AddOp{{Dst: A, Terms: []Term{t(4, C)}, Mont: []MontTerm{{4, ConstB}}}},
		},
		{ // YG = yP0², C = x·yP0; XRG = LM² − 3x·yP0, XQG = 0, B = H = 1
			Muls: []MulOp{{YG, A, A}, {C, XG, A}},
			Adds: []AddOp{
				{Dst: XRG, Terms: []Term{t(1, D), t(-3, C)}},
				{Dst: XQG},
				{Dst: B, Mont: []MontTerm{{1, constOne}}},
			},
		},
	}
	loop = []Step{
		{Adds: []AddOp{{Dst: A, Terms: []Term{t(1, XQG), t(-1, XRG)}}}}, // E
		{ // G = E², LM·XRG, YG·H (the previous bit's H); D = yR
			Muls: []MulOp{{C, A, A}, {D, LM, XRG}, {YG, YG, B}},
			Adds: []AddOp{{Dst: D, Terms: []Term{t(1, YG), t(2, D)}}},
		},
		{ // F = yR·E, H = yR², XRG·G
			Muls: []MulOp{{A, D, A}, {B, D, D}, {XRG, XRG, C}},
		},
		{ // LM·F, F·G; D = H + 2·LM·F, LM' = XRG·G − H − LM·F
			Muls: []MulOp{{LM, LM, A}, {C, A, C}},
			Adds: []AddOp{
				{Dst: D, Terms: []Term{t(1, B), t(2, LM)}},
				{Dst: LM, Terms: []Term{t(1, XRG), t(-1, B), t(-1, LM)}},
			},
		},
		{ // YG·F·G, (XRG·G)², XQG' = H·D; XRG' = (XRG·G)² + YG·F·G
			Muls: []MulOp{{YG, YG, C}, {A, XRG, XRG}, {XQG, B, D}},
			Adds: []AddOp{{Dst: XRG, Terms: []Term{t(1, A), t(1, YG)}}},
		},
	}
	final = []Step{
		{ // YG·H, LM², LM·XQG; D = LM² − XQG − XRG, C = LM² + 2·XQG − XRG, A = YG + 2·LM·XQG
			Muls: []MulOp{{YG, YG, B}, {C, LM, LM}, {A, LM, XQG}},
			Adds: []AddOp{
				{Dst: D, Terms: []Term{t(1, C), t(-1, XQG), t(-1, XRG)}},
				{Dst: C, Terms: []Term{t(1, C), t(2, XQG), t(-1, XRG)}},
				{Dst: A, Terms: []Term{t(1, YG), t(2, A)}},
			},
		},
		{ // the denominator B = D·YG, C·YG, the y numerator D = A·D
			Muls: []MulOp{{B, D, YG}, {C, C, YG}, {D, A, D}},
		},
		{ // the x numerator C = x_G·C
			Muls: []MulOp{{C, C, XG}},
		},
	}
	return init, loop, final
}

// constOne is 1̄ = M mod p, used once to set Z_P = 1 at the start.
const constOne = numMontConsts

// MontConsts is the number of Montgomery-form constants additions may use.
const MontConsts = int(numMontConsts) + 1
