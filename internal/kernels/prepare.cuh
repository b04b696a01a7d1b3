// The prepare kernel of the co-Z ladder and the comb: before the ladder, it
// does on the device what the host's PrepareBytes and PackItem do after a
// point's decoding, in place in the input buffer, as
// ladder.Setup.PrepareRowsOnHost does on the host, word for word. The host
// has written each item's point as plain words below p, and its Fixed word,
// into the item's finish rows (ladder.Setup.PackRaw); per item the kernel
//
//   - reads x, y and Fixed from the finish rows (from row RowAt);
//   - writes back x·R and y·R mod p (the Montgomery forms the finish
//     reads), and Fixed with ECM_FIXED_OFF_CURVE set where
//     y² ≠ x³ + a·x + b;
//   - for the co-Z ladder (RowAt > 0; the comb has no input rows), writes
//     the ladder's input rows 0 … 2n: the RNS form of x·M mod p, its n B
//     residues, its n B̃ values ξ̃ and its residue mod m_e
//     (hostField.residues).
//
// Its constants (ladder.Setup.PrepareConstants) are those of
// ladder.PrepareLayout, generated into schedule_gen.cuh as ECM_PREPARE_*.
// One thread prepares one item, in field.cuh's GF(p). The coordinates are
// an ECDH peer's, public, but the kernel keeps the finish's discipline: no
// branch and no address depends on an item's values (masks select, and
// the channels' reductions are Barrett's, without a division of a value).
//
// The kernel takes the ladder's arguments: `in`, declared const for the
// ladder, is the one buffer it reads and writes. Each thread reads the
// words of its own column before it writes them and never reads them
// again, and no other thread touches them.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "field.cuh"
#include "rns.cuh"
#include "schedule_gen.cuh"

// fe_store writes a with limb k at w[k·stride].
ECM_DEVICE void fe_store(uint32_t* w, uint32_t stride, const Fe& a) {
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) w[size_t(k) * stride] = a.w[k];
}

// barrett_reduce returns s mod m for any s < 2^64 and m > 1 not a power of
// two, with recip = ⌊2^64/m⌋ (ladder's barrett): q = ⌊s·recip/2^64⌋ is
// ⌊s/m⌋ or one less, so s − q·m < 2m < 2^32, and one subtraction, chosen by
// a minimum, ends it.
ECM_DEVICE uint32_t barrett_reduce(uint64_t s, uint32_t m, uint64_t recip) {
  const uint32_t r = uint32_t(s - __umul64hi(s, recip) * m);
  return umin32(r, r - m);
}

// channel_residue returns (Σ_k v_k·w_k) mod m for the eight words v_k of v
// and channel c's modulus m and weights w_k at ch (hostField.residues): the
// products are below 2^62, so the first four are summed and reduced, then
// the last four added and the sum reduced again.
ECM_DEVICE uint32_t channel_residue(const uint32_t* ch, const Fe& v) {
  const uint32_t m = ch[0];
  const uint64_t recip = ~uint64_t(0) / m;  // of the constants alone
  uint64_t s = 0;
#pragma unroll
  for (int k = 0; k < kFeWords / 2; ++k) s += uint64_t(v.w[k]) * ch[1 + k];
  s = barrett_reduce(s, m, recip);
#pragma unroll
  for (int k = kFeWords / 2; k < kFeWords; ++k) s += uint64_t(v.w[k]) * ch[1 + k];
  return barrett_reduce(s, m, recip);
}

// prepare_item prepares item i = blockIdx.x·blockDim.x + threadIdx.x of
// the batch, one item per thread (PrepareRowsOnHost).
template <int N>
ECM_DEVICE void prepare_item(ECM_KERNEL_PARAMS) {
  (void)scalars, (void)out;                 // the prepare reads and writes the input rows alone
  if (consts[ECM_PREPARE_N] != N) __trap();  // constants of another channel count
  const uint32_t at = consts[ECM_PREPARE_ROW_AT];
  if (at != 0 && at != 2 * N + 1) __trap();  // the finish rows follow the ladder's 2n + 1, if any
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const FeField f = FeField::load<ECM_PREPARE_P, ECM_PREPARE_P_INV>(consts);

  uint32_t* const col = const_cast<uint32_t*>(in) + i;  // the item's column
  uint32_t* const rows = col + size_t(at) * stride;      // its finish rows
  const Fe x = fe_load(rows, stride), y = fe_load(rows + size_t(kFeWords) * stride, stride);
  uint32_t* const fixedAt = rows + size_t(2 * kFeWords) * stride;
  const uint32_t fixed = *fixedAt;

  const Fe r2 = fe_load(consts + ECM_PREPARE_R2, 1);
  const Fe X = f.mul(x, r2), Y = f.mul(y, r2);  // x·R, y·R mod p
  const uint32_t on = equation_mask(f, X, Y, fe_load(consts + ECM_PREPARE_A, 1), fe_load(consts + ECM_PREPARE_B, 1));
  fe_store(rows, stride, X);
  fe_store(rows + size_t(kFeWords) * stride, stride, Y);
  *fixedAt = fixed | (~on & ECM_FIXED_OFF_CURVE);
  if (at == 0) return;  // the comb: no input rows

  // the ladder's input: x·M mod p = x·(M·R mod p)·R^{-1}, canonical, the
  // value of hostField.montInput and of the twin's Mul(X, M mod p)
  const Fe v = f.mul(x, fe_load(consts + ECM_PREPARE_MR, 1));
#pragma unroll 1
  for (int c = 0; c < 2 * N; ++c)
    col[size_t(c) * stride] = channel_residue(consts + ECM_PREPARE_CHAN + c * ECM_PREPARE_CHAN_WORDS, v);
  col[size_t(2 * N) * stride] = v.w[0] & consts[ECM_PREPARE_ME_MASK];
}

// ---------------------------------------------------------------------------
// Entry points: ecm_prepare_<curve>_<channels>, one per curve and channel
// width of ECM_CURVES (kernels.PrepareName), with the ladder's arguments:
// consts is the prepare's table, in the input buffer it rewrites; scalars
// and out are not read. Blocks of kernels.FinishThreads threads, one item
// a thread.

#define ECM_PREPARE_ENTRY(tag, Curve, chan, w, n, bits, AM)          \
  extern "C" __global__ void __launch_bounds__(ECM_FINISH_THREADS)   \
      ecm_prepare_##tag##_##chan(ECM_KERNEL_PARAMS) {                \
    prepare_item<n>(ECM_KERNEL_ARGS);                                \
  }
ECM_CURVES(ECM_PREPARE_ENTRY)
#undef ECM_PREPARE_ENTRY
