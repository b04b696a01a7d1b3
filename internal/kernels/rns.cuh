// RNS constants and channel arithmetic of the ecmul kernel.
//
// Every constant the kernel uses is computed by Go (package basext and
// ladder) and read from the `consts` argument; this header only knows where
// each table sits. Channels are 16 bits wide (moduli m = 2^16 - c) or 30
// bits wide (m = 2^30 - c).

#pragma once

#include <stdint.h>

#include <type_traits>

#include "schedule_gen.cuh"

#ifndef ECM_DEVICE
#define ECM_DEVICE __device__ __forceinline__
#endif

// ---------------------------------------------------------------------------
// Constants: the table of basext.Tables.Words, field by field in the order of
// basext.LayoutFor(n), each with its size in 32-bit words: ECM_BASEXT_LAYOUT,
// which gen.go writes into schedule_gen.cuh from basext.LayoutFor.

// Layout<N>::X is the word offset of table X for N channels per base;
// Layout<N>::Size is the length of the whole table.
template <int N>
struct Layout {
  enum : int {
#define ECM_LAYOUT_FIELD(name, size) name, name##Last_ = name + (size)-1,
    ECM_BASEXT_LAYOUT(ECM_LAYOUT_FIELD)
#undef ECM_LAYOUT_FIELD
    Size
  };
};

// After the basext table, ladder.Setup.KernelConstants appends elements
// (the curve's b, then every addition constant) and, for the comb, its
// table, where ladder.ConstLayout puts them: gen.go writes the offsets for
// every n of ECM_CURVES into ECM_CONSTS, and those of the comb's tables into
// ECM_COMB_TABLES, which CombTable must match. An element is its B residues,
// its B̃ residues stored as ξ̃, then its m_e residue.
template <int N>
struct Consts;  // one per n of ECM_CONSTS

#define ECM_CONSTS_OF(n, element, kb, addConst)                                                        \
  template <>                                                                                          \
  struct Consts<n> {                                                                                   \
    static constexpr int ElementWords = element;                                                       \
    static constexpr int KB = kb;                                                                      \
    static constexpr int AddConst = addConst;                                                          \
    static constexpr int Size(int addConsts) { return AddConst + addConsts * ElementWords; }           \
    /* the comb's table: after the addition constants, at the next multiple of ECM_COMB_ALIGN words */ \
    template <int AddConsts>                                                                           \
    static constexpr int CombTable =                                                                   \
        (AddConst + AddConsts * ElementWords + ECM_COMB_ALIGN - 1) / ECM_COMB_ALIGN * ECM_COMB_ALIGN;  \
  };                                                                                                   \
  static_assert(Consts<n>::KB == Layout<n>::Size, "the curve's b follows the basext table");
ECM_CONSTS(ECM_CONSTS_OF)
#undef ECM_CONSTS_OF

#define ECM_COMB_TABLE_AT(n, addConsts, offset) \
  static_assert(Consts<n>::CombTable<addConsts> == offset, "the comb's table where ladder.ConstLayout puts it");
ECM_COMB_TABLES(ECM_COMB_TABLE_AT)
#undef ECM_COMB_TABLE_AT

// ---------------------------------------------------------------------------
// Channel arithmetic, exactly as rns.Modulus does it.

ECM_DEVICE uint32_t umin32(uint32_t a, uint32_t b) { return a < b ? a : b; }

// opaque returns v unchanged, hidden from the compiler's algebra: a modulus
// kept negated stays negated (one IMAD per fold), and a lane mask stays a
// mask (a select of two computed values, never a divergent branch).
ECM_DEVICE uint32_t opaque(uint32_t v) {
#ifdef __CUDA_ARCH__
  asm("mov.b32 %0, %1;" : "=r"(v) : "r"(v));
#endif
  return v;
}

// select returns a where mask is all ones and b where it is zero, bit by bit.
ECM_DEVICE uint32_t select(uint32_t mask, uint32_t a, uint32_t b) { return (a & mask) | (b & ~mask); }

// mad_wide returns a·b + c, the 64-bit product of two 32-bit words plus a
// 64-bit word: one IMAD.WIDE.U32 (written in PTX, since nvcc otherwise adds
// the zero high words of the widened factors with separate instructions).
ECM_DEVICE uint64_t mad_wide(uint32_t a, uint32_t b, uint64_t c) {
#ifdef __CUDA_ARCH__
  uint64_t d;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(d) : "r"(a), "r"(b), "l"(c));
  return d;
#else
  return uint64_t(a) * b + c;
#endif
}

// add_shl16 returns a + 2^16·v (below 2^64): the two halves of 2^16·v
// taken by byte moves (PRMT) and added with a carry, all on the ALU pipe;
// ptxas turns shifts by 16 into a multiply-add on the FMA pipe.
ECM_DEVICE uint64_t add_shl16(uint64_t a, uint32_t v) {
#ifdef __CUDA_ARCH__
  uint32_t lo = uint32_t(a), hi = uint32_t(a >> 32);
  asm("{\n\t.reg .u32 t, u;\n\tprmt.b32 t, %2, 0, 0x1044;\n\tprmt.b32 u, %2, 0, 0x4432;\n\t"
      "add.cc.u32 %0, %0, t;\n\taddc.u32 %1, %1, u;\n\t}"
      : "+r"(lo), "+r"(hi)
      : "r"(v));
  return uint64_t(hi) << 32 | lo;
#else
  return a + (uint64_t(v) << 16);
#endif
}

// Channel<W> is one RNS channel of W bits: its modulus m = 2^W − c and the
// reductions modulo m, exactly as rns.Modulus does them, for W = 16 (the
// paper's channels) and W = 30 (rns.WideChannelBits). Acc<Weight> is the
// word a sum of residues with coefficients of total weight Weight (the
// addition sets' 1 + |c1| + |c2| + |c3|) fits, below Weight·2^W.
template <int W>
struct Channel;

template <>
struct Channel<16> {
  static constexpr int Bits = 16;
  template <int Weight>
  using Acc = uint32_t;  // below 2^16·Weight: 32 bits for any weight of the schedules (linear checks it)
  uint32_t m, neg, c;    // neg = −m mod 2^32, for the folds

  ECM_DEVICE static Channel make(uint32_t m, uint32_t c) { return Channel{m, opaque(0u - m), c}; }

  // fold returns c·(z >> 16) + (z & 0xffff), computed as z − (z >> 16)·m
  // (the two are equal as integers): a value ≡ z (mod m), smaller than z
  // when z >= 2^16.
  ECM_DEVICE uint32_t fold(uint32_t z) const { return z + (z >> 16) * neg; }

  // reduce returns z mod m for any 32-bit z. Two folds bring every 32-bit z
  // below 2m for c < 2^8 (rns.Modulus.FoldsFor proves Folds = 2 for every
  // modulus of the supported curves; a further fold of a value below 2m keeps
  // it below 2m), then the unsigned min(z, z − m) makes it canonical.
  ECM_DEVICE uint32_t reduce(uint32_t z) const {
    z = fold(fold(z));
    return umin32(z, z + neg);
  }

  // q returns the first step's q_j = x_j·y_j·NegR_j mod m from xy = x_j·y_j
  // (below 2^32): xy reduced first, so that its product with NegR_j < m fits
  // 32 bits.
  ECM_DEVICE uint32_t q(uint32_t xy, uint32_t negR) const { return reduce(reduce(xy) * negR); }
};

template <>
struct Channel<30> {
  static constexpr int Bits = 30;
  template <int Weight>
  using Acc = std::conditional_t<Weight <= 4, uint32_t, uint64_t>;  // 4·2^30 = 2^32
  uint32_t m, c, hiw;  // hiw = 2^32 mod m = 4c
  uint32_t neg;        // −m mod 2^32, which the folds multiply their quotient by

  // make hides −m from the compiler's algebra, so that ptxas keeps it in a
  // register for the folds' multiply-adds instead of negating each quotient
  // before a multiply by m (one IMAD.MOV a fold; 97 a pass of P-256's co-Z
  // pair loop, bench/h200/2026-12-01-record).
  ECM_DEVICE static Channel make(uint32_t m, uint32_t c) { return Channel{m, c, c << 2, opaque(0u - m)}; }

  // reduce returns z mod m for any 64-bit z, as rns.Modulus.Reduce64 does:
  // hi·2^32 + lo ≡ hi·4c + lo = s < 2^32·(4c + 1), then one fold
  // c·(s >> 30) + (s mod 2^30), below 2m (rns.Params proves one fold enough
  // for every wide modulus of the supported curves), then an unsigned min.
  // The fold equals s − (s >> 30)·m, which is below 2^32, so it is computed
  // in 32-bit words as lo32(s) + (s >> 30)·(−m) with no mask (rns.Params:
  // "wide fold in 32-bit words").
  ECM_DEVICE uint32_t reduce(uint64_t z) const {
    const uint64_t s = mad_wide(uint32_t(z >> 32), hiw, uint32_t(z));
    const uint32_t t = uint32_t(s) + uint32_t(s >> 30) * neg;
    return umin32(t, t + neg);
  }

  // fold_split returns s mod m from s's low word and s >> 30 (pair_split),
  // for s below 2^47: s − (s >> 30)·m is below 2m (rns.Params: "pair second
  // extension in 32 bits"), then an unsigned min.
  ECM_DEVICE uint32_t fold_split(uint2 s) const {
    const uint32_t t = s.x + s.y * neg;
    return umin32(t, t + neg);
  }

  // reduce returns z mod m for a 32-bit z: the steps above for a high word of
  // zero (the same proved bound: one fold, then an unsigned min).
  ECM_DEVICE uint32_t reduce(uint32_t z) const {
    const uint32_t t = z + (z >> 30) * neg;
    return umin32(t, t + neg);
  }
};

// term returns coef·s (mod m) as a non-negative Acc, for s < m: a negative
// coefficient adds |coef|·(m − s).
template <class Acc, int Coef>
ECM_DEVICE Acc term(uint32_t s, uint32_t m) {
  if constexpr (Coef > 0) {
    return Acc(Coef) * s;
  } else if constexpr (Coef < 0) {
    return Acc(-Coef) * (m - s);
  } else {
    return 0;
  }
}

// ---------------------------------------------------------------------------
// Sums of products of 16-bit residues, the heart of both base extensions.
//
// A row of constants e_k < 2^16 is split into bytes and packed two terms per
// word: pair p holds lo(e_2p), lo(e_2p+1), hi(e_2p), hi(e_2p+1). The residues
// v_k < 2^16 arrive packed two per word (v_2p | v_2p+1 << 16) straight from
// shared memory. dp2a.lo adds v_2p·lo(e_2p) + v_2p+1·lo(e_2p+1) and dp2a.hi
// the same with the high bytes, so Σ v_k·e_k = lo + 2^8·hi, and one
// instruction covers one term.
// Bound: each dp2a adds below 2·2^16·2^8 = 2^25; with at most 10 pairs
// (9 for n = 17 plus one extra term) lo and hi stay below 10·2^25 < 2^29.

ECM_DEVICE uint32_t pack_pair(uint32_t e0, uint32_t e1) {
  return (e0 & 0xff) | (e1 & 0xff) << 8 | (e0 >> 8) << 16 | (e1 >> 8) << 24;
}

struct DotAcc {
  uint32_t lo, hi;
};

ECM_DEVICE void dot_add(DotAcc& a, uint32_t v, uint32_t e) {
  a.lo = __dp2a_lo(v, e, a.lo);
  a.hi = __dp2a_hi(v, e, a.hi);
}

// dot_mod returns a value ≡ lo + 2^8·hi (mod m) below 2^31, for m = 2^16 − c:
// 2^8·hi = (hi >> 8)·2^16 + (hi & 0xff)·2^8 and 2^16 ≡ c, so the value is
// (hi >> 8)·c + (hi & 0xff)·2^8 + lo < 2^21·2^8 + 2^16 + 2^29 < 2^31.
ECM_DEVICE uint32_t dot_mod(DotAcc a, Channel<16> m) {
  return (a.hi >> 8) * m.c + ((a.hi & 0xff) << 8) + a.lo;
}

// dot_pow2 returns lo + 2^8·hi modulo 2^32, enough for the m_e = 2^k channel.
ECM_DEVICE uint32_t dot_pow2(DotAcc a) { return a.lo + (a.hi << 8); }
