//go:build amd64 && !purego

#include "textflag.h"

// MULADD4 adds DX·[ptr] (four words) into t0…t5, t5 taking the top
// carries: the low halves of the products ride the OF chain (ADOX) and the
// high halves the CF chain (ADCX), so the two carry chains run side by
// side. The flags must be clear on entry; R9 is zero.
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

// STEP is one word of the coarsely integrated operand scanning in
// montMulADX (see montMulGeneric for the bounds): t += x·y[off/8], then
// t = (t + m·p)/2^64 with m = t0·pInv mod 2^64. The running value is
// t0…t4 on entry and t1…t5 on exit; t5 is cleared first (which clears the
// flags too).
#define STEP(off, t0, t1, t2, t3, t4, t5) \
	MOVQ  off(DI), DX \
	XORQ  t5, t5 \
	MULADD4(SI, t0, t1, t2, t3, t4, t5) \
	MOVQ  t0, DX \
	IMULQ pInv+32(FP), DX \
	XORQ  AX, AX \
	MULADD4(R8, t0, t1, t2, t3, t4, t5)

// func montMulADX(z, x, y *Element, p *[Limbs]uint64, pInv uint64)
TEXT ·montMulADX(SB), NOSPLIT, $0-40
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ p+24(FP), R8
	XORQ R9, R9
	XORQ CX, CX
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	XORQ R13, R13
	STEP(0, CX, R10, R11, R12, R13, R14)
	STEP(8, R10, R11, R12, R13, R14, CX)
	STEP(16, R11, R12, R13, R14, CX, R10)
	STEP(24, R12, R13, R14, CX, R10, R11)

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
