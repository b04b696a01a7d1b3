// call M1's candidate: the Montgomery product of field.cuh with PTX carry chains
#pragma once
#define ECM_ROW_LO(op0, opk) \
  op0 " %0, %10, %18, %0;\n\t" opk " %1, %11, %18, %1;\n\t" opk " %2, %12, %18, %2;\n\t" opk " %3, %13, %18, %3;\n\t" \
  opk " %4, %14, %18, %4;\n\t" opk " %5, %15, %18, %5;\n\t" opk " %6, %16, %18, %6;\n\t" opk " %7, %17, %18, %7;\n\t"
#define ECM_ROW_HI \
  "mad.hi.cc.u32 %1, %10, %18, %1;\n\tmadc.hi.cc.u32 %2, %11, %18, %2;\n\tmadc.hi.cc.u32 %3, %12, %18, %3;\n\t" \
  "madc.hi.cc.u32 %4, %13, %18, %4;\n\tmadc.hi.cc.u32 %5, %14, %18, %5;\n\tmadc.hi.cc.u32 %6, %15, %18, %6;\n\t" \
  "madc.hi.cc.u32 %7, %16, %18, %7;\n\tmadc.hi.cc.u32 %8, %17, %18, %8;\n\t"
#define ECM_ROW_OUT(t) "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]), "+r"(t[7]), "+r"(t[8]), "+r"(t[9])
#define ECM_ROW_IN(a, b) "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]), "r"(a[6]), "r"(a[7]), "r"(b)

// t (< 2^258, t[9] = 0) += a·b: below 2^289
__device__ __forceinline__ void row_mac(uint32_t (&t)[10], const uint32_t (&a)[8], uint32_t b) {
  asm(ECM_ROW_LO("mad.lo.cc.u32", "madc.lo.cc.u32") "addc.u32 %8, %8, 0;\n\t" ECM_ROW_HI "addc.u32 %9, 0, 0;"
      : ECM_ROW_OUT(t) : ECM_ROW_IN(a, b));
}
// t = (t + m·p)/2^32, m = t0·pInv
__device__ __forceinline__ void row_redc(uint32_t (&t)[10], const uint32_t (&p)[8], uint32_t pInv) {
  const uint32_t m = t[0] * pInv;
  asm(ECM_ROW_LO("mad.lo.cc.u32", "madc.lo.cc.u32") "addc.cc.u32 %8, %8, 0;\n\taddc.u32 %9, %9, 0;\n\t" ECM_ROW_HI "addc.u32 %9, %9, 0;"
      : ECM_ROW_OUT(t) : ECM_ROW_IN(p, m));
#pragma unroll
  for (int k = 0; k < 9; ++k) t[k] = t[k + 1];
  t[9] = 0;
}
__device__ __forceinline__ Fe mul_cc(const FeField& f, const Fe& a, const Fe& b) {
  uint32_t t[10] = {};
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    row_mac(t, a.w, b.w[i]);
    row_redc(t, f.p.w, f.pInv);
  }
  return f.canonical(t);
}
