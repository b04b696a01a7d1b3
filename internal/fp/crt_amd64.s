//go:build amd64 && !purego

#include "textflag.h"

// COLUMNS adds DX·[ptr+off] (four words) into the columns (CX, R8),
// (R9, R10), (R11, R12), (R13, R14): each column a low word and a high
// word, with no carry between the columns.
#define COLUMNS(ptr, off) \
	MULXQ off+0(ptr), AX, BX \
	ADDQ  AX, CX \
	ADCQ  BX, R8 \
	MULXQ off+8(ptr), AX, BX \
	ADDQ  AX, R9 \
	ADCQ  BX, R10 \
	MULXQ off+16(ptr), AX, BX \
	ADDQ  AX, R11 \
	ADCQ  BX, R12 \
	MULXQ off+24(ptr), AX, BX \
	ADDQ  AX, R13 \
	ADCQ  BX, R14

// func crtSumADX(s *[5]uint64, r *uint32, strideBytes uintptr, first, last *CRTTerm, beta *[Limbs]uint64)
TEXT ·crtSumADX(SB), NOSPLIT, $0-48
	MOVQ  r+8(FP), SI
	MOVQ  first+24(FP), DI
	XORQ  CX, CX
	XORQ  R8, R8
	XORQ  R9, R9
	XORQ  R10, R10
	XORQ  R11, R11
	XORQ  R12, R12
	XORQ  R13, R13
	XORQ  R14, R14
	XORPS X0, X0

loop:
	// frac += float64(r_j) * Frac_j, rounded as Go rounds it
	MOVL     (SI), DX
	XORPS    X1, X1
	CVTSQ2SD DX, X1
	MULSD    0(DI), X1
	ADDSD    X1, X0
	COLUMNS(DI, 8)
	ADDQ     strideBytes+16(FP), SI
	MOVQ     DI, AX
	ADDQ     $40, DI
	CMPQ     AX, last+32(FP)
	JNE      loop

	// β = int64(math.Floor(frac + 0.25))
	MOVQ      $0x3fd0000000000000, AX
	MOVQ      AX, X1
	ADDSD     X1, X0
	ROUNDSD   $1, X0, X0
	CVTTSD2SQ X0, DX
	MOVQ      beta+40(FP), DI
	COLUMNS(DI, 0)

	// S = Σ_l (high_l·2^64 + low_l)·2^(64l)
	MOVQ s+0(FP), DI
	MOVQ CX, 0(DI)
	ADDQ R9, R8
	ADCQ R11, R10
	ADCQ R13, R12
	ADCQ $0, R14
	MOVQ R8, 8(DI)
	MOVQ R10, 16(DI)
	MOVQ R12, 24(DI)
	MOVQ R14, 32(DI)
	RET
