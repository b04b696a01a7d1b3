// The verify kernel: after the co-Z ladder has computed u2·Q, it adds u1·G,
// which the host gives with r, to the ladder's result in projective form and
// compares x(R) with r mod n without an inversion, as
// ladder.Setup.VerifyRowsOnHost does on the host: one thread per item, the
// outcome written over row 0 of the item's output column. It reads the
// finish's constants and rows (ladder.FinishLayout: the curve, the CRT, Q
// and the item's Fixed word) and the verify rows of ladder.VerifyRowAt
// (ECM_VERIFY_*): u1·G and r, r + n as plain values, and the flags.
// No branch and no address depends on an item's values: masks select, and
// branches depend only on the constants (a = 0) and the item's index.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "field.cuh"
#include "finish.cuh"
#include "prepare.cuh"
#include "schedule_gen.cuh"
#include "wire.cuh"

// ProjPoint is (X : Y : Z) in Montgomery form, x = X/Z, y = Y/Z; Z = 0 is
// the point at infinity.
struct ProjPoint {
  Fe x, y, z;
};

// sub returns a − b mod p.
ECM_DEVICE Fe fe_sub(const FeField& f, const Fe& a, const Fe& b) { return f.add(a, f.neg(b)); }

// add_mixed returns p + (qx, qy), q affine (never the point at infinity),
// p any point of the curve: Algorithm 5 (a = −3) or 8 (a = 0) of Renes,
// Costello and Batina, step for step as internal/ctec's addMixedA3 and
// addMixedA0. b3 is 3b, Montgomery form.
ECM_DEVICE ProjPoint add_mixed(const FeField& f, const ProjPoint& p, const Fe& qx, const Fe& qy, const Fe& b,
                               const Fe& b3, bool aZero) {
  Fe t0 = f.mul(p.x, qx);                 // 1
  Fe t1 = f.mul(p.y, qy);                 // 2
  Fe t3 = f.add(qx, qy);                  // 3
  Fe t4 = f.add(p.x, p.y);                // 4
  t3 = f.mul(t3, t4);                     // 5
  t4 = f.add(t0, t1);                     // 6
  t3 = fe_sub(f, t3, t4);                 // 7
  t4 = f.add(f.mul(qy, p.z), p.y);        // 8, 9
  Fe y3 = f.add(f.mul(qx, p.z), p.x);     // 10, 11
  Fe t2 = p.z;
  Fe x3, z3;
  if (aZero) {                            // steps 19 to 33 of Algorithm 7
    x3 = f.add(t0, t0);                   // 19
    t0 = f.add(x3, t0);                   // 20
    t2 = f.mul(b3, t2);                   // 21
    z3 = f.add(t1, t2);                   // 22
    t1 = fe_sub(f, t1, t2);               // 23
    y3 = f.mul(b3, y3);                   // 24
    x3 = f.mul(t4, y3);                   // 25
    t2 = f.mul(t3, t1);                   // 26
    x3 = fe_sub(f, t2, x3);               // 27
    y3 = f.mul(y3, t0);                   // 28
    t1 = f.mul(t1, z3);                   // 29
    y3 = f.add(t1, y3);                   // 30
    t0 = f.mul(t0, t3);                   // 31
    z3 = f.mul(z3, t4);                   // 32
    z3 = f.add(z3, t0);                   // 33
    return ProjPoint{x3, y3, z3};
  }
  z3 = f.mul(b, t2);                      // 19: steps 19 to 43 of Algorithm 4
  x3 = fe_sub(f, y3, z3);                 // 20
  z3 = f.add(x3, x3);                     // 21
  x3 = f.add(x3, z3);                     // 22
  z3 = fe_sub(f, t1, x3);                 // 23
  x3 = f.add(t1, x3);                     // 24
  y3 = f.mul(b, y3);                      // 25
  t1 = f.add(t2, t2);                     // 26
  t2 = f.add(t1, t2);                     // 27
  y3 = fe_sub(f, y3, t2);                 // 28
  y3 = fe_sub(f, y3, t0);                 // 29
  t1 = f.add(y3, y3);                     // 30
  y3 = f.add(t1, y3);                     // 31
  t1 = f.add(t0, t0);                     // 32
  t0 = f.add(t1, t0);                     // 33
  t0 = fe_sub(f, t0, t2);                 // 34
  t1 = f.mul(t4, y3);                     // 35
  t2 = f.mul(t0, y3);                     // 36
  y3 = f.add(f.mul(x3, z3), t2);          // 37, 38
  x3 = fe_sub(f, f.mul(t3, x3), t1);      // 39, 40
  z3 = f.add(f.mul(t4, z3), f.mul(t3, t0));  // 41, 42, 43
  return ProjPoint{x3, y3, z3};
}

// on_curve_projective returns all ones when Y²·Z = X³ + a·X·Z² + b·Z³.
ECM_DEVICE uint32_t on_curve_projective(const FeField& f, const ProjPoint& p, const Fe& a, const Fe& b) {
  const Fe z2 = f.mul(p.z, p.z);
  const Fe rhs = f.add(f.mul(f.add(f.mul(a, z2), f.mul(p.x, p.x)), p.x), f.mul(f.mul(z2, p.z), b));
  return fe_equal_mask(f.mul(f.mul(p.y, p.y), p.z), rhs);
}

// x_is returns all ones when p is not the point at infinity and x(p) = v
// for a plain v below p: X = v·Z, the Montgomery product of the plain v and
// Z's Montgomery form being the plain v·Z, as X's product by one is.
ECM_DEVICE uint32_t x_is(const FeField& f, const ProjPoint& p, const Fe& v) {
  return ~fe_zero_mask(p.z) & fe_equal_mask(f.mul(p.x, Fe{{1}}), f.mul(v, p.z));
}

// verify_item verifies the item of the columns at `in` and `out`: its
// outcome over row 0 of its column of `out`, after reading the rest of it.
template <int N>
ECM_DEVICE void verify_item(const FeField& f, const uint32_t* consts, const uint32_t* in, uint32_t* out,
                            uint32_t stride) {
  const FinishInput g = FinishInput::load(consts, in, stride);
  const uint32_t* rows = in + size_t(consts[ECM_FINISH_ROW_AT] + ECM_FINISH_ROWS) * stride;  // the verify rows
  const Fe one = fe_load(consts + ECM_FINISH_ONE, 1), a = fe_load(consts + ECM_FINISH_A, 1);
  const Fe b = fe_load(consts + ECM_FINISH_B, 1), b3 = f.add(f.add(b, b), b);
  const bool aZero = fe_zero_mask(a) != 0;  // a constant: secp256k1

  // u2·Q: (x_num : y_Q·y_num : den), or the fixed results by masks
  const Fe den = crt<N>(f, consts, out, stride);
  ProjPoint q{crt<N>(f, consts, out + size_t(N) * stride, stride), crt<N>(f, consts, out + size_t(2 * N) * stride, stride),
              den};
  if (consts[ECM_FINISH_UNIT_Y] == 0) q.y = f.mul(q.y, g.yg);
  const uint32_t none = fixed_mask(g.fixed & ~uint32_t(ECM_FIXED_OFF_CURVE | ECM_FIXED_REJECTED), ECM_FIXED_NONE);
  const uint32_t inf = fixed_mask(g.fixed & ~uint32_t(ECM_FIXED_OFF_CURVE | ECM_FIXED_REJECTED), ECM_FIXED_INFINITY);
  const uint32_t neg = fixed_mask(g.fixed & ~uint32_t(ECM_FIXED_OFF_CURVE | ECM_FIXED_REJECTED), ECM_FIXED_NEG_BASE);
  const uint32_t ok = ~none | (~fe_zero_mask(den) & on_curve_projective(f, q, a, b));
  const Fe zero{};
  q.x = fe_select(inf, zero, fe_select(neg, g.xg, q.x));
  q.y = fe_select(inf, one, fe_select(neg, f.neg(g.yg), q.y));
  q.z = fe_select(inf, zero, fe_select(neg, one, q.z));

  // R = u1·G + u2·Q, u1·G from its plain coordinates (x·R² mod p·R^-1 = x·R)
  const uint32_t flags = rows[size_t(ECM_VERIFY_FLAGS) * stride];
  const uint32_t u1Inf = ~mask_of_zero(flags & ECM_VERIFY_U1_INFINITY);
  const Fe r2 = f.neg(fe_load(consts + ECM_FINISH_NEG_M, 1));  // R² mod p
  const Fe x1 = f.mul(fe_load(rows + size_t(ECM_VERIFY_X1) * stride, stride), r2);
  const Fe y1 = f.mul(fe_load(rows + size_t(ECM_VERIFY_Y1) * stride, stride), r2);
  ProjPoint sum = add_mixed(f, q, x1, y1, b, b3, aZero);
  sum.x = fe_select(u1Inf, q.x, sum.x);
  sum.y = fe_select(u1Inf, q.y, sum.y);
  sum.z = fe_select(u1Inf, q.z, sum.z);

  const uint32_t rnOk = ~mask_of_zero(flags & ECM_VERIFY_RN_OK);
  const uint32_t valid = x_is(f, sum, fe_load(rows + size_t(ECM_VERIFY_R) * stride, stride)) |
                         (rnOk & x_is(f, sum, fe_load(rows + size_t(ECM_VERIFY_RN) * stride, stride)));

  const uint32_t off = ~mask_of_zero(g.fixed & ECM_FIXED_OFF_CURVE);
  const uint32_t rejected = (g.fixed & ECM_FIXED_REJECTED) >> ECM_FIXED_REJECTED_SHIFT;  // the unpack kernel's Outcome
  const uint32_t outcome =
      select(mask_of_zero(rejected),
             select(off, ECM_OUT_OFF_CURVE, select(ok, select(valid, ECM_OUT_VALID, ECM_OUT_INVALID), ECM_OUT_FAILED)),
             rejected);
  out[0] = outcome;
}

// verify_items verifies item t of the grid's threads, if there is one.
template <int N>
ECM_DEVICE void verify_items(ECM_KERNEL_PARAMS) {
  (void)scalars;                             // the verify takes no scalar
  if (consts[ECM_FINISH_N] != N) __trap();  // constants of another channel count
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const FeField f = FeField::load<ECM_FINISH_P, ECM_FINISH_P_INV>(consts);
  verify_item<N>(f, consts, in + t, out + t, stride);
}

// unpack_verify_item is the unpack kernel of a verify batch's wire input
// (ladder.Setup.UnpackVerifyOnHost), one item per thread: the unpack
// kernel's work on the u2 scalars and the keys, then, from the rest of the
// wire (count u1·G of 2·ByteLen bytes, x‖y, then count r, count r + n of
// ByteLen bytes, big-endian, then count flag bytes), the item's verify rows.
template <int N>
ECM_DEVICE void unpack_verify_item(ECM_KERNEL_PARAMS) {
  if (consts[ECM_PREPARE_ROW_AT] == 0) __trap();  // the co-Z ladder's constants only
  unpack_item<N>(ECM_KERNEL_ARGS);
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t at = consts[ECM_PREPARE_ROW_AT], L = consts[ECM_PREPARE_BYTE_LEN];
  const uint8_t* const rest = reinterpret_cast<const uint8_t*>(out) + size_t(count) * (1 + 3 * L);
  uint32_t* const rows = const_cast<uint32_t*>(in) + i + size_t(at + ECM_FINISH_ROWS) * stride;
  const uint8_t* const fields[4] = {rest + size_t(i) * 2 * L, rest + size_t(i) * 2 * L + L,
                                    rest + size_t(count) * 2 * L + size_t(i) * L,
                                    rest + size_t(count) * 3 * L + size_t(i) * L};
  const int at_row[4] = {ECM_VERIFY_X1, ECM_VERIFY_Y1, ECM_VERIFY_R, ECM_VERIFY_RN};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    Fe v;
    read_big_endian(v.w, fields[k], L);
    fe_store(rows + size_t(at_row[k]) * stride, stride, v);
  }
  rows[size_t(ECM_VERIFY_FLAGS) * stride] = rest[size_t(count) * 4 * L + i];
}

// pack_verify_item is the pack kernel of a verify batch
// (ladder.Setup.PackVerifyOnHost), one item per thread: the item's
// outcome, from row 0 of its output column, as byte i of the wire output.
template <int N>
ECM_DEVICE void pack_verify_item(ECM_KERNEL_PARAMS) {
  (void)scalars;
  if (consts[ECM_FINISH_N] != N) __trap();  // constants of another channel count
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  reinterpret_cast<uint8_t*>(const_cast<uint32_t*>(in))[i] = uint8_t(out[i]);
}

// kVerifyBlocksPerSM is how many blocks of the verify kernel a
// multiprocessor holds at least: its registers are capped at 65,536 /
// (kVerifyBlocksPerSM · kFinishThreads) a thread. Each thread's chain of
// field products is latency bound; uncapped (178 registers on P-224's 30-bit
// channels) two blocks fit, and the kernel issued one instruction a cycle of
// four (bench/h200/2026-11-30-verify-blocks/).
constexpr int kVerifyBlocksPerSM = 4;

// ---------------------------------------------------------------------------
// Entry points, one of each per curve and channel width of ECM_CURVES, with
// the ladder's arguments: ecm_verify_<curve>_<channels> (kernels.VerifyName;
// consts is the finish's table, scalars is not read), and the wire kernels
// of a verify batch, ecm_verifyunpack_<curve>_<channels> (the prepare's
// table) and ecm_verifypack_<curve>_<channels> (the finish's).

#define ECM_VERIFY_ENTRY(tag, Curve, chan, w, n, bits, AM)                         \
  extern "C" __global__ void __launch_bounds__(kFinishThreads, kVerifyBlocksPerSM) \
      ecm_verify_##tag##_##chan(ECM_KERNEL_PARAMS) {                               \
    verify_items<n>(ECM_KERNEL_ARGS);                                              \
  }                                                                                \
  extern "C" __global__ void __launch_bounds__(kFinishThreads)                     \
      ecm_verifyunpack_##tag##_##chan(ECM_KERNEL_PARAMS) {                         \
    unpack_verify_item<n>(ECM_KERNEL_ARGS);                                        \
  }                                                                                \
  extern "C" __global__ void __launch_bounds__(kFinishThreads)                     \
      ecm_verifypack_##tag##_##chan(ECM_KERNEL_PARAMS) {                           \
    pack_verify_item<n>(ECM_KERNEL_ARGS);                                          \
  }
ECM_CURVES(ECM_VERIFY_ENTRY)
#undef ECM_VERIFY_ENTRY
