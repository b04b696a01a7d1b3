// The finish kernel of the co-Z ladder and the comb: after the ladder, it
// turns each item's three outputs (a denominator and two numerators, as B
// residues) into the affine point's big-endian bytes and an outcome word, in
// place, as ladder.Setup.FinishRowsOnHost does on the host, word for word.
// Its constants (ladder.Setup.FinishConstants), rows and codes are those of
// ladder.FinishLayout, generated into schedule_gen.cuh as ECM_FINISH_*,
// ECM_OUT_* and ECM_FIXED_*.
//
// A thread finishes up to kFinishItemsMax items, the grid's threads
// taking them in turn, with one Fermat inversion for all of them. Per item:
// the CRT of each output into GF(p) (fp.Field.CRT), the affine point, the
// fixed results (the point at infinity, −G) chosen by masks, the on-curve
// check, and the bytes.
// The field is field.cuh's GF(p): eight 32-bit limbs in Montgomery form
// with R = 2^256, the R of internal/fp, every value kept canonical (below
// p), so that each value is the host's, limb for limb. No branch and no
// address depends on an item's values (ECDH secrets): masks select, and
// branches and loop bounds depend only on the constants (the exponent's
// bits, UnitY, ByteLen) and the item's index.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "field.cuh"
#include "rns.cuh"
#include "schedule_gen.cuh"

// The launch's shape, generated from kernels.FinishThreads (the block size,
// of the prepare kernel too) and kernels.FinishItemsMax (the most items of
// a thread: the grid's size sets how many each takes, kernels.FinishGrid).
constexpr int kFinishThreads = ECM_FINISH_THREADS;
constexpr uint32_t kFinishItemsMax = ECM_FINISH_ITEMS_MAX;

// ---------------------------------------------------------------------------
// The CRT: B residues to GF(p), as fp.Field.CRT and Params.FromRNS do it.

// crt returns the field form (Montgomery, canonical) of the value whose N B
// residues are r_j = rows[j·stride]: Redc(S) of
//
//   S = Σ_j r_j·W_j + β·NegM,   β = ⌊Σ_j r_j·frac_j + 1/4⌋,
//
// with frac_j and W_j channel j's CRT term. The float sum runs in the
// order of j, each product rounded and then added (no fused multiply-add),
// so that β is the host's; β may exceed 32 bits and is added as two words.
template <int N>
ECM_DEVICE Fe crt(const FeField& f, const uint32_t* consts, const uint32_t* rows, uint32_t stride) {
  uint32_t s[kAccWords] = {};
  double frac = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const uint32_t* term = consts + ECM_FINISH_CRT + j * ECM_FINISH_CRT_TERM;
    const uint32_t r = rows[size_t(j) * stride];
    frac = __dadd_rn(frac, __dmul_rn(double(r), __hiloint2double(int(term[1]), int(term[0]))));
    mul_add_word<0>(s, fe_load(term + 2, 1).w, r);
  }
  const uint64_t beta = uint64_t(__double2ll_rd(__dadd_rn(frac, 0.25)));
  const Fe negM = fe_load(consts + ECM_FINISH_NEG_M, 1);
  mul_add_word<0>(s, negM.w, uint32_t(beta));
  mul_add_word<1>(s, negM.w, uint32_t(beta >> 32));
  return f.redc(s);
}

// ---------------------------------------------------------------------------
// The finish of a thread's items: one inversion for all of them.

// FinishInput is an item's finish rows: the base in Montgomery form and its
// Fixed word.
struct FinishInput {
  Fe xg, yg;
  uint32_t fixed;

  // load reads the finish rows of the column at `in` (ECM_FINISH_ROWS rows
  // from row ECM_FINISH_ROW_AT).
  ECM_DEVICE static FinishInput load(const uint32_t* consts, const uint32_t* in, uint32_t stride) {
    const uint32_t* rows = in + size_t(consts[ECM_FINISH_ROW_AT]) * stride;
    return FinishInput{fe_load(rows, stride), fe_load(rows + size_t(kFeWords) * stride, stride),
                       fixed_of(consts, in, stride)};
  }

  // fixed_of reads the Fixed word alone, the last finish row.
  ECM_DEVICE static uint32_t fixed_of(const uint32_t* consts, const uint32_t* in, uint32_t stride) {
    return in[size_t(consts[ECM_FINISH_ROW_AT] + 2 * kFeWords) * stride];
  }
};

// fixed_mask returns all ones when the item's Fixed word is code.
ECM_DEVICE uint32_t fixed_mask(uint32_t fixed, uint32_t code) { return mask_of_zero(fixed ^ code); }

// denominator returns the item's denominator (the first output of the
// column at `out`), or one where it is zero or the item's result is fixed
// (coZGather): never zero, so that a thread's items share one inversion.
template <int N>
ECM_DEVICE Fe denominator(const FeField& f, const uint32_t* consts, const uint32_t* out, uint32_t stride,
                          uint32_t fixed) {
  const Fe den = crt<N>(f, consts, out, stride);
  const uint32_t replace = fe_zero_mask(den) | ~fixed_mask(fixed, ECM_FIXED_NONE);
  return fe_select(replace, fe_load(consts + ECM_FINISH_ONE, 1), den);
}

// affine returns the item's point from its numerators and the inverse of
// its denominator (coZEmit): x = xn/den, y = yn/den (UnitY: the comb) or
// y_G·yn/den; the point at infinity takes the base and k ≡ −1 takes −G, by
// masks.
template <int N>
ECM_DEVICE void affine(const FeField& f, const uint32_t* consts, const uint32_t* out, uint32_t stride,
                       const FinishInput& g, const Fe& invDen, Fe& x, Fe& y) {
  x = f.mul(crt<N>(f, consts, out + size_t(N) * stride, stride), invDen);
  y = f.mul(crt<N>(f, consts, out + size_t(2 * N) * stride, stride), invDen);
  if (consts[ECM_FINISH_UNIT_Y] == 0) y = f.mul(y, g.yg);

  const Fe negY = f.neg(g.yg);
  const uint32_t neg = fixed_mask(g.fixed, ECM_FIXED_NEG_BASE), inf = fixed_mask(g.fixed, ECM_FIXED_INFINITY);
  x = fe_select(neg | inf, g.xg, x);
  y = fe_select(neg, negY, fe_select(inf, g.yg, y));
}

// on_curve returns all ones when y² = (x² + a)·x + b and (x, y) ≠ (0, 0)
// (fp.Equation.Holds, and the check of ladder's emit).
ECM_DEVICE uint32_t on_curve(const FeField& f, const uint32_t* consts, const Fe& x, const Fe& y) {
  return equation_mask(f, x, y, fe_load(consts + ECM_FINISH_A, 1), fe_load(consts + ECM_FINISH_B, 1)) &
         ~(fe_zero_mask(x) & fe_zero_mask(y));
}

// write_coordinate writes the canonical value of a (Montgomery form),
// masked by keep, as `words` big-endian words from row `row`: row + r holds
// bytes 4r … 4r + 3 of the big-endian coordinate, as a little-endian word.
ECM_DEVICE void write_coordinate(const FeField& f, const Fe& a, uint32_t keep, uint32_t* out, uint32_t row,
                                 uint32_t words, uint32_t stride) {
  const Fe c = f.mul(a, Fe{{1}});
#pragma unroll
  for (int k = 0; k < kFeWords; ++k)
    if (uint32_t(k) < words) out[size_t(row + words - 1 - k) * stride] = __byte_perm(c.w[k] & keep, 0, 0x0123);
}

// finish_item finishes the item of the columns at `in` and `out`, given
// the inverse of its denominator: it writes x‖y (ByteLen bytes each) and
// its Outcome over its column of `out`, after reading the rest of it. A
// failed check, a base the prepare kernel found off the curve
// (ECM_FIXED_OFF_CURVE), or a point the unpack kernel rejected (its
// Outcome in ECM_FIXED_REJECTED, which the item's outcome becomes), writes
// zero bytes.
template <int N>
ECM_DEVICE void finish_item(const FeField& f, const uint32_t* consts, const uint32_t* in, uint32_t* out,
                            uint32_t stride, const Fe& invDen) {
  const FinishInput g = FinishInput::load(consts, in, stride);
  Fe x, y;
  affine<N>(f, consts, out, stride, g, invDen, x, y);
  const uint32_t ok = on_curve(f, consts, x, y), inf = fixed_mask(g.fixed, ECM_FIXED_INFINITY);
  const uint32_t off = ~mask_of_zero(g.fixed & ECM_FIXED_OFF_CURVE);
  const uint32_t rejected = (g.fixed & ECM_FIXED_REJECTED) >> ECM_FIXED_REJECTED_SHIFT;  // the unpack kernel's Outcome
  const uint32_t accepted = mask_of_zero(rejected);
  const uint32_t outcome =
      select(accepted,
             select(off, ECM_OUT_OFF_CURVE, select(ok, select(inf, ECM_OUT_INFINITY, ECM_OUT_POINT), ECM_OUT_FAILED)),
             rejected);

  const uint32_t words = consts[ECM_FINISH_BYTE_LEN] / 4, keep = ok & ~off & accepted;
  write_coordinate(f, x, keep, out, 0, words, stride);
  write_coordinate(f, y, keep, out, words, words, stride);
  out[size_t(2 * words) * stride] = outcome;
}

// finish_items finishes the items of thread t of T (the grid's threads):
// t, t + T, … below count, at most kFinishItemsMax of them, with one
// inversion (Montgomery's trick, as affineCoZ does for a batch). The loops
// run over the thread's number of items, which depends on count and t only.
template <int N>
ECM_DEVICE void finish_items(ECM_KERNEL_PARAMS) {
  (void)scalars;                             // the finish takes no scalar
  if (consts[ECM_FINISH_N] != N) __trap();  // constants of another channel count
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  if (t >= count) return;
  const uint32_t items = umin32(kFinishItemsMax, (count - 1 - t) / T + 1);
  const FeField f = FeField::load<ECM_FINISH_P, ECM_FINISH_P_INV>(consts);

  Fe den[kFinishItemsMax];  // each item's denominator
  Fe pre[kFinishItemsMax];  // the product of the denominators before it
  Fe acc = fe_load(consts + ECM_FINISH_ONE, 1);
#pragma unroll 1
  for (uint32_t k = 0; k < items; ++k) {
    const uint32_t i = t + k * T;
    den[k] = denominator<N>(f, consts, out + i, stride, FinishInput::fixed_of(consts, in + i, stride));
    pre[k] = acc;
    acc = f.mul(acc, den[k]);
  }
  Fe inv = f.pow(acc, consts + ECM_FINISH_EXP);  // acc^(p−2): the inverse of every denominator's product
#pragma unroll 1
  for (uint32_t k = items; k-- > 0;) {
    const uint32_t i = t + k * T;
    const Fe invDen = f.mul(inv, pre[k]);
    inv = f.mul(inv, den[k]);  // the inverse of the product of the items before k
    finish_item<N>(f, consts, in + i, out + i, stride, invDen);
  }
}

// ---------------------------------------------------------------------------
// Entry points: ecm_finish_<curve>_<channels>, one per curve and channel
// width of ECM_CURVES (kernels.FinishName), with the ladder's arguments:
// consts is the finish's table, scalars is not read.

#define ECM_FINISH_ENTRY(tag, Curve, chan, w, n, bits, AM)         \
  extern "C" __global__ void __launch_bounds__(kFinishThreads)     \
      ecm_finish_##tag##_##chan(ECM_KERNEL_PARAMS) {               \
    finish_items<n>(ECM_KERNEL_ARGS);                              \
  }
ECM_CURVES(ECM_FINISH_ENTRY)
#undef ECM_FINISH_ENTRY
