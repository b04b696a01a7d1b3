//go:build amd64 && !purego

#include "textflag.h"

// MULADD4 is mul_amd64.s's: it adds DX·[ptr] (four words) into t0…t5, t5
// taking the top carries, the low halves of the products on the OF chain
// (ADOX) and the high halves on the CF chain (ADCX). The flags must be
// clear on entry; R9 is zero.
#define MULADD4(ptr, t0, t1, t2, t3, t4, t5) \
	MULXQ 0(ptr), AX, BX \
	ADOXQ AX, t0 \
	ADCXQ BX, t1 \
	MULXQ 8(ptr), AX, BX \
	ADOXQ AX, t1 \
	ADCXQ BX, t2 \
	MULXQ 16(ptr), AX, BX \
	ADOXQ AX, t2 \
	ADCXQ BX, t3 \
	MULXQ 24(ptr), AX, BX \
	ADOXQ AX, t3 \
	ADCXQ BX, t4 \
	ADOXQ R9, t4 \
	ADCXQ R9, t5 \
	ADOXQ R9, t5

// REDC is one word step of the Montgomery reduction: t = (t + m·p)/2^64
// with m = t0·pInv mod 2^64. The value is t0…t4 on entry and t1…t5 on
// exit; t5 is cleared first (which clears the flags too).
#define REDC(t0, t1, t2, t3, t4, t5) \
	MOVQ  t0, DX \
	IMULQ pInv+24(FP), DX \
	XORQ  t5, t5 \
	MULADD4(R8, t0, t1, t2, t3, t4, t5)

// func redc5ADX(z *Element, t *[5]uint64, p *[Limbs]uint64, pInv uint64)
TEXT ·redc5ADX(SB), NOSPLIT, $0-32
	MOVQ t+8(FP), SI
	MOVQ p+16(FP), R8
	XORQ R9, R9
	MOVQ 0(SI), CX
	MOVQ 8(SI), R10
	MOVQ 16(SI), R11
	MOVQ 24(SI), R12
	MOVQ 32(SI), R13
	REDC(CX, R10, R11, R12, R13, R14)
	REDC(R10, R11, R12, R13, R14, CX)
	REDC(R11, R12, R13, R14, CX, R10)
	REDC(R12, R13, R14, CX, R10, R11)

	// t = R13, R14, CX, R10 with R11 above them, t < 2p: subtract p
	// unless that borrows, chosen by CMOV rather than a branch.
	MOVQ    R13, AX
	SUBQ    0(R8), AX
	MOVQ    R14, BX
	SBBQ    8(R8), BX
	MOVQ    CX, DX
	SBBQ    16(R8), DX
	MOVQ    R10, SI
	SBBQ    24(R8), SI
	SBBQ    $0, R11
	CMOVQCC AX, R13
	CMOVQCC BX, R14
	CMOVQCC DX, CX
	CMOVQCC SI, R10
	MOVQ    z+0(FP), DI
	MOVQ    R13, 0(DI)
	MOVQ    R14, 8(DI)
	MOVQ    CX, 16(DI)
	MOVQ    R10, 24(DI)
	RET
