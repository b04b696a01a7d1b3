// GF(p) for the kernels around the ladder (finish.cuh, prepare.cuh): eight
// 32-bit limbs in Montgomery form with R = 2^256, the R of internal/fp,
// every value kept canonical (below p), so that each value is the host's,
// limb for limb. No branch and no address depends on a value: masks
// select, and branches and loop bounds depend only on constants.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rns.cuh"

constexpr int kFeWords = 8;              // the 32-bit limbs of a field element
constexpr int kAccWords = kFeWords + 2;  // an accumulator: a product step or a CRT sum, below 2^320

// FeField::pow's windows: kPowWindowBits bits each, kPowWindowsPerWord to a
// 32-bit word, kPowWindows to an exponent of kFeWords words.
constexpr int kPowWindowBits = 4;
constexpr int kPowWindowsPerWord = 32 / kPowWindowBits;
constexpr int kPowWindows = kFeWords * kPowWindowsPerWord;
constexpr uint32_t kPowDigitMask = (1u << kPowWindowBits) - 1;

// ---------------------------------------------------------------------------
// Field elements: eight 32-bit limbs, least significant first.

struct Fe {
  uint32_t w[kFeWords];
};

// mask_of_zero returns all ones when d is zero, else zero.
ECM_DEVICE uint32_t mask_of_zero(uint32_t d) { return opaque(((d | (0u - d)) >> 31) - 1u); }

// fe_zero_mask returns all ones when a is zero, else zero.
ECM_DEVICE uint32_t fe_zero_mask(const Fe& a) {
  uint32_t d = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) d |= a.w[k];
  return mask_of_zero(d);
}

// fe_equal_mask returns all ones when a equals b, else zero.
ECM_DEVICE uint32_t fe_equal_mask(const Fe& a, const Fe& b) {
  uint32_t d = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) d |= a.w[k] ^ b.w[k];
  return mask_of_zero(d);
}

// fe_select returns a where mask is all ones and b where it is zero.
ECM_DEVICE Fe fe_select(uint32_t mask, const Fe& a, const Fe& b) {
  Fe r;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) r.w[k] = select(mask, a.w[k], b.w[k]);
  return r;
}

// fe_load reads an element whose limb k is at w[k·stride].
ECM_DEVICE Fe fe_load(const uint32_t* w, uint32_t stride) {
  Fe r;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) r.w[k] = w[size_t(k) * stride];
  return r;
}

// mul_add_word adds a·b·2^(32·At) to the accumulator t; a carry out of t's
// top limb is dropped, as fp's five-limb sums drop theirs (the sums of the
// finish stay below 2^320).
template <int At>
ECM_DEVICE void mul_add_word(uint32_t (&t)[kAccWords], const uint32_t (&a)[kFeWords], uint32_t b) {
  uint64_t c = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) {
    c = uint64_t(a[k]) * b + t[At + k] + (c >> 32);  // below 2^64
    t[At + k] = uint32_t(c);
  }
#pragma unroll
  for (int k = At + kFeWords; k < kAccWords; ++k) {
    c = uint64_t(t[k]) + (c >> 32);
    t[k] = uint32_t(c);
  }
}

// FeField is GF(p) in Montgomery form with R = 2^256: p and
// −p^{-1} mod 2^32, read from a kernel's constants.
struct FeField {
  Fe p;
  uint32_t pInv;

  // load reads p at word PAt and −p^{-1} mod 2^32 at word PInvAt of a
  // kernel's constants (ECM_FINISH_P and ECM_FINISH_P_INV, or the
  // prepare's).
  template <int PAt, int PInvAt>
  ECM_DEVICE static FeField load(const uint32_t* consts) {
    return FeField{fe_load(consts + PAt, 1), consts[PInvAt]};
  }

  // redc_step sets t to (t + m·p)/2^32, the m < 2^32 that makes the sum a
  // multiple of 2^32: one word of a Montgomery reduction, exact for every t.
  ECM_DEVICE void redc_step(uint32_t (&t)[kAccWords]) const {
    const uint32_t m = t[0] * pInv;
    uint64_t c = uint64_t(m) * p.w[0] + t[0];  // its low word is zero
#pragma unroll
    for (int k = 1; k < kFeWords; ++k) {
      c = uint64_t(m) * p.w[k] + t[k] + (c >> 32);
      t[k - 1] = uint32_t(c);
    }
#pragma unroll
    for (int k = kFeWords; k < kAccWords; ++k) {
      c = uint64_t(t[k]) + (c >> 32);
      t[k - 1] = uint32_t(c);
    }
    t[kAccWords - 1] = uint32_t(c >> 32);
  }

  // canonical returns t mod p for t < 2p: t − p unless that borrows, chosen
  // by a mask.
  ECM_DEVICE Fe canonical(const uint32_t (&t)[kAccWords]) const {
    Fe d;
    uint32_t borrow = 0;
#pragma unroll
    for (int k = 0; k < kFeWords; ++k) {
      const uint64_t s = uint64_t(t[k]) - p.w[k] - borrow;
      d.w[k] = uint32_t(s);
      borrow = uint32_t(s >> 32) & 1;
    }
    const uint32_t keep = uint32_t((uint64_t(t[kFeWords]) - borrow) >> 32);  // all ones: t < p
    Fe r;
#pragma unroll
    for (int k = 0; k < kFeWords; ++k) r.w[k] = select(keep, t[k], d.w[k]);
    return r;
  }

  // redc returns t·2^-256 mod p, canonical, for any t < 2^320 (fp.Reduce5):
  // eight word steps leave less than t/2^256 + p < 2p, since p > 2^64.
  ECM_DEVICE Fe redc(uint32_t (&t)[kAccWords]) const {
#pragma unroll
    for (int i = 0; i < kFeWords; ++i) redc_step(t);
    return canonical(t);
  }

  // mul returns a·b·2^-256 mod p for a < 2^256 and b < p: the Montgomery
  // product (fp.Field.Mul), operand scanning over b's limbs.
  ECM_DEVICE Fe mul(const Fe& a, const Fe& b) const {
    uint32_t t[kAccWords] = {};
#pragma unroll
    for (int i = 0; i < kFeWords; ++i) {
      mul_add_word<0>(t, a.w, b.w[i]);  // t < 2p + 2^288
      redc_step(t);                     // t < 2p
    }
    return canonical(t);
  }

  // add returns a + b mod p.
  ECM_DEVICE Fe add(const Fe& a, const Fe& b) const {
    uint32_t t[kAccWords] = {};
    uint64_t c = 0;
#pragma unroll
    for (int k = 0; k < kFeWords; ++k) {
      c = uint64_t(a.w[k]) + b.w[k] + (c >> 32);
      t[k] = uint32_t(c);
    }
    t[kFeWords] = uint32_t(c >> 32);
    return canonical(t);
  }

  // neg returns −a mod p, and 0 for 0 (fp.Field.Neg).
  ECM_DEVICE Fe neg(const Fe& a) const {
    const uint32_t nonZero = ~fe_zero_mask(a);
    Fe r;
    uint32_t borrow = 0;
#pragma unroll
    for (int k = 0; k < kFeWords; ++k) {
      const uint64_t s = uint64_t(p.w[k] & nonZero) - a.w[k] - borrow;
      r.w[k] = uint32_t(s);
      borrow = uint32_t(s >> 32) & 1;
    }
    return r;
  }

  // pow returns a^e for a nonzero public exponent of eight words at e, in
  // fixed windows of kPowWindowBits, left to right, from a table of a^1 …
  // a^15: four squares per window below the top nonzero one and a product
  // per nonzero window. p − 2 takes 299 products for P-256 and 290 for
  // P-224, where a square per bit and a product per one bit took 382 and
  // 445. Branches and the table's index follow the exponent's bits only,
  // the same for every thread.
  ECM_DEVICE Fe pow(const Fe& a, const uint32_t* e) const {
    Fe table[1 << kPowWindowBits];  // table[j] = a^j, j ≥ 1
    table[1] = a;
#pragma unroll 1
    for (int j = 2; j < (1 << kPowWindowBits); ++j) table[j] = mul(table[j - 1], a);
    Fe acc = a;
    bool started = false;  // from the top nonzero window on, acc = a^(the exponent's windows so far)
#pragma unroll 1
    for (int win = kPowWindows - 1; win >= 0; --win) {
      const uint32_t digit = e[win / kPowWindowsPerWord] >> (kPowWindowBits * (win % kPowWindowsPerWord)) & kPowDigitMask;
      if (started) {
#pragma unroll
        for (int b = 0; b < kPowWindowBits; ++b) acc = mul(acc, acc);
        if (digit != 0) acc = mul(acc, table[digit]);
      } else if (digit != 0) {
        acc = table[digit];
        started = true;
      }
    }
    return acc;
  }
};

// equation_mask returns all ones when y² = (x² + a)·x + b, else zero
// (fp.Equation.Holds): a and b are the curve's coefficients in Montgomery
// form.
ECM_DEVICE uint32_t equation_mask(const FeField& f, const Fe& x, const Fe& y, const Fe& a, const Fe& b) {
  const Fe rhs = f.add(f.mul(f.add(f.mul(x, x), a), x), b);
  return fe_equal_mask(f.mul(y, y), rhs);
}
