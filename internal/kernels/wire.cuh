// The wire kernels of the co-Z ladder and the comb, around the prepare and
// finish kernels: they take a chunk's bytes as the caller gave them and
// give back its results as bytes, so that the host only copies (ladder's
// wire.go says the layouts; ladder.Setup.UnpackOnHost and PackOnHost are
// their CPU twins, word for word and byte for byte).
//
//   - unpack, before the prepare kernel, one item per thread: reads the
//     wire input from `out` (free until the ladder writes it): count
//     scalars of ByteLen bytes, big-endian, then, on the co-Z ladder,
//     count uncompressed SEC1 points; writes each item's finish rows into
//     `in` (x and y as plain words below p, then Fixed) and its ladder
//     scalar into `scalars`, as ladder.Setup.PackRaw does. The scalar is
//     reduced mod n and lifted to its ladder multiple as ladderLimbs does;
//     a point whose prefix is not 0x04, with a coordinate not below p, or
//     (0, 0), becomes the generator times one, with its Outcome in the
//     Fixed bits ECM_FIXED_REJECTED_SHIFT up (the finish reports it).
//     Its constants are the prepare kernel's (ECM_PREPARE_*).
//   - pack, after the finish kernel, one item per thread: reads the result
//     rows from `out` and writes the wire output into `in` (free once the
//     finish has read it): count results of 1 + 2·ByteLen bytes, 0x04‖x‖y
//     where the outcome is ECM_OUT_POINT and zero bytes otherwise, then
//     count outcome bytes. Its constants are the finish kernel's.
//
// The scalar is an ECDH secret: no branch and no address depends on it or
// on a point (masks select); loops run over ByteLen and the scalar's rows,
// constants of the curve.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "field.cuh"
#include "rns.cuh"
#include "schedule_gen.cuh"

// kScalarLimbWords is the words of a scalar in the unpack kernel and its
// constants: ladder.ScalarLimbs, enough for k + 3n.
constexpr int kScalarLimbWords = ECM_SCALAR_LIMB_WORDS;

// Scalar is a scalar in kScalarLimbWords words, least significant first.
struct Scalar {
  uint32_t w[kScalarLimbWords];
};

// scalar_load reads a scalar's words from a kernel's constants.
ECM_DEVICE Scalar scalar_load(const uint32_t* w) {
  Scalar s;
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k) s.w[k] = w[k];
  return s;
}

// scalar_sub returns a − b and sets borrow to all ones where a < b.
ECM_DEVICE Scalar scalar_sub(const Scalar& a, const Scalar& b, uint32_t& borrow) {
  Scalar d;
  uint32_t c = 0;
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k) {
    const uint64_t s = uint64_t(a.w[k]) - b.w[k] - c;
    d.w[k] = uint32_t(s);
    c = uint32_t(s >> 32) & 1;
  }
  borrow = 0u - c;
  return d;
}

// scalar_add returns a + b, below 2^(32·kScalarLimbWords).
ECM_DEVICE Scalar scalar_add(const Scalar& a, const Scalar& b) {
  Scalar r;
  uint64_t c = 0;
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k) {
    c = uint64_t(a.w[k]) + b.w[k] + (c >> 32);
    r.w[k] = uint32_t(c);
  }
  return r;
}

// scalar_select returns a where mask is all ones and b where it is zero.
ECM_DEVICE Scalar scalar_select(uint32_t mask, const Scalar& a, const Scalar& b) {
  Scalar r;
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k) r.w[k] = select(mask, a.w[k], b.w[k]);
  return r;
}

// scalar_equal_mask returns all ones when a equals b.
ECM_DEVICE uint32_t scalar_equal_mask(const Scalar& a, const Scalar& b) {
  uint32_t d = 0;
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k) d |= a.w[k] ^ b.w[k];
  return mask_of_zero(d);
}

// big_endian_word returns the 32-bit word of the bytes at p, big-endian.
ECM_DEVICE uint32_t big_endian_word(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// read_big_endian sets the first kFeWords words of w to the value of the
// len bytes at p (len a multiple of 4, at most 32), big-endian, and the
// rest to zero.
template <int W>
ECM_DEVICE void read_big_endian(uint32_t (&w)[W], const uint8_t* p, uint32_t len) {
#pragma unroll
  for (int k = 0; k < W; ++k) w[k] = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k)
    if (uint32_t(4 * k) < len) w[k] = big_endian_word(p + len - 4 * (k + 1));
}

// below_p_mask returns all ones when a < p.
ECM_DEVICE uint32_t below_p_mask(const Fe& a, const Fe& p) {
  uint32_t c = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) c = uint32_t((uint64_t(a.w[k]) - p.w[k] - c) >> 32) & 1;
  return 0u - c;
}

// unpack_scalar returns the ladder scalar of the scalar of ByteLen bytes at
// p and sets fixed to its Fixed word (ladderLimbs): k mod n by one
// subtraction chosen by a mask; on the comb k itself, on the co-Z ladder
// k + 3n below n − coZHigh and k + 2n from there, the point at infinity
// for k = 0 and −G for k = n − 1.
ECM_DEVICE Scalar unpack_scalar(const uint32_t* consts, const uint8_t* p, bool comb, uint32_t& fixed) {
  Scalar k;
  read_big_endian(k.w, p, consts[ECM_PREPARE_BYTE_LEN]);
  uint32_t below;
  const Scalar d = scalar_sub(k, scalar_load(consts + ECM_PREPARE_ORDER), below);
  k = scalar_select(below, k, d);  // k < n: k, else k − n
  const uint32_t zero = scalar_equal_mask(k, Scalar{});
  if (comb) {
    fixed = zero & ECM_FIXED_INFINITY;
    return k;
  }
  const uint32_t negOne = scalar_equal_mask(k, scalar_load(consts + ECM_PREPARE_ORDER_LESS1));
  fixed = (zero & ECM_FIXED_INFINITY) | (negOne & ECM_FIXED_NEG_BASE);
  uint32_t low;
  scalar_sub(k, scalar_load(consts + ECM_PREPARE_HIGH), low);
  return scalar_add(k, scalar_select(low, scalar_load(consts + ECM_PREPARE_ORDER3), scalar_load(consts + ECM_PREPARE_ORDER2)));
}

// point_outcome returns the Outcome of the uncompressed point at p,
// ByteLen-byte coordinates, as UnpackItem finds it: ECM_OUT_POINT (zero)
// for one it accepts, whose plain coordinates it sets in x and y.
ECM_DEVICE uint32_t point_outcome(const uint32_t* consts, const uint8_t* p, Fe& x, Fe& y) {
  const uint32_t L = consts[ECM_PREPARE_BYTE_LEN];
  read_big_endian(x.w, p + 1, L);
  read_big_endian(y.w, p + 1 + L, L);
  const Fe prime = fe_load(consts + ECM_PREPARE_P, 1);
  const uint32_t encoding = ~mask_of_zero(uint32_t(p[0]) ^ 4u);
  const uint32_t range = ~(below_p_mask(x, prime) & below_p_mask(y, prime));
  const uint32_t zero = fe_zero_mask(x) & fe_zero_mask(y);
  return select(encoding, ECM_OUT_BAD_ENCODING,
                select(range, ECM_OUT_BAD_COORDINATE, select(zero, ECM_OUT_INFINITY_INPUT, ECM_OUT_POINT)));
}

// unpack_item unpacks item i = blockIdx.x·blockDim.x + threadIdx.x of the
// chunk, one item per thread (ladder.Setup.UnpackItem, PackRaw).
template <int N>
ECM_DEVICE void unpack_item(ECM_KERNEL_PARAMS) {
  if (consts[ECM_PREPARE_N] != N) __trap();  // constants of another channel count
  const uint32_t at = consts[ECM_PREPARE_ROW_AT], L = consts[ECM_PREPARE_BYTE_LEN];
  if ((at != 0 && at != 2 * N + 1) || L % 4 != 0 || L > 4 * kFeWords) __trap();
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const bool comb = at == 0;  // the comb's base is G, its wire holds scalars alone
  const uint8_t* wire = reinterpret_cast<const uint8_t*>(out);

  uint32_t fixed;
  Scalar s = unpack_scalar(consts, wire + size_t(i) * L, comb, fixed);
  Fe x = fe_load(consts + ECM_PREPARE_GX, 1), y = fe_load(consts + ECM_PREPARE_GY, 1);
  if (!comb) {
    Fe px, py;
    const uint32_t reject = point_outcome(consts, wire + size_t(count) * L + size_t(i) * (1 + 2 * L), px, py);
    const uint32_t bad = ~mask_of_zero(reject);  // the generator times one, as PrepareRaw leaves it
    x = fe_select(bad, x, px);
    y = fe_select(bad, y, py);
    s = scalar_select(bad, scalar_load(consts + ECM_PREPARE_GEN_SCALAR), s);
    fixed = select(bad, consts[ECM_PREPARE_GEN_FIXED] | reject << ECM_FIXED_REJECTED_SHIFT, fixed);
  }

  uint32_t* const col = const_cast<uint32_t*>(in) + i;
  uint32_t* const rows = col + size_t(at) * stride;  // the finish rows
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) {
    rows[size_t(k) * stride] = x.w[k];
    rows[size_t(kFeWords + k) * stride] = y.w[k];
  }
  rows[size_t(2 * kFeWords) * stride] = fixed;
  uint32_t* const sc = const_cast<uint32_t*>(scalars) + i;
  const uint32_t words = consts[ECM_PREPARE_SCALAR_WORDS];
#pragma unroll
  for (int k = 0; k < kScalarLimbWords; ++k)
    if (uint32_t(k) < words) sc[size_t(k) * stride] = s.w[k];
}

// pack_item packs item i = blockIdx.x·blockDim.x + threadIdx.x of the
// chunk, one item per thread (ladder.Setup.PackOnHost).
template <int N>
ECM_DEVICE void pack_item(ECM_KERNEL_PARAMS) {
  (void)scalars;
  if (consts[ECM_FINISH_N] != N) __trap();  // constants of another channel count
  const uint32_t L = consts[ECM_FINISH_BYTE_LEN];
  if (L % 4 != 0 || L > 4 * kFeWords) __trap();
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t words = 2 * L / 4, size = 1 + 2 * L;
  const uint32_t outcome = out[size_t(words) * stride + i];
  const uint32_t keep = mask_of_zero(outcome ^ ECM_OUT_POINT);
  uint8_t* const wire = reinterpret_cast<uint8_t*>(const_cast<uint32_t*>(in));
  uint8_t* const rec = wire + size_t(i) * size;
  rec[0] = uint8_t(4 & keep);
#pragma unroll
  for (int r = 0; r < 2 * kFeWords; ++r) {
    if (uint32_t(r) >= words) continue;
    const uint32_t v = out[size_t(r) * stride + i] & keep;  // bytes 4r … 4r + 3 of x‖y, little-endian
#pragma unroll
    for (int b = 0; b < 4; ++b) rec[1 + 4 * r + b] = uint8_t(v >> (8 * b));
  }
  wire[size_t(count) * size + i] = uint8_t(outcome);
}

// ---------------------------------------------------------------------------
// Entry points: ecm_unpack_<curve>_<channels> and ecm_pack_<curve>_<channels>,
// one of each per curve and channel width of ECM_CURVES (kernels.UnpackName,
// kernels.PackName), with the ladder's arguments. Blocks of
// kernels.FinishThreads threads, one item a thread.

#define ECM_WIRE_ENTRIES(tag, Curve, chan, w, n, bits, AM)         \
  extern "C" __global__ void __launch_bounds__(ECM_FINISH_THREADS) \
      ecm_unpack_##tag##_##chan(ECM_KERNEL_PARAMS) {               \
    unpack_item<n>(ECM_KERNEL_ARGS);                               \
  }                                                                \
  extern "C" __global__ void __launch_bounds__(ECM_FINISH_THREADS) \
      ecm_pack_##tag##_##chan(ECM_KERNEL_PARAMS) {                 \
    pack_item<n>(ECM_KERNEL_ARGS);                                 \
  }
ECM_CURVES(ECM_WIRE_ENTRIES)
#undef ECM_WIRE_ENTRIES
