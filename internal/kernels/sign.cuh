// The wire kernels of a signing batch on the comb (package ladder's
// signwire.go says the layouts; ladder.Setup.UnpackSignOnHost and
// PackSignOnHost are their CPU twins, byte for byte):
//
//   - sign unpack, before the prepare kernel, one item per thread: reads
//     the item's private key d and h1 = bits2octets(digest) from the wire
//     input in `out`, derives its nonce k as RFC 6979's first candidate
//     over HMAC-SHA-256 (qlen = 8·ByteLen), writes k over d and does the
//     unpack kernel's work on it (the comb's scalar rows), and keeps k, d
//     and h1 in the sign rows, after the finish rows;
//   - sign pack, after the finish kernel, on the finish's grid: writes the
//     signature r‖s, r = x(k·G) mod n and s = k⁻¹·(h1 + r·d) mod n, into
//     `in`, then the outcome bytes: ECM_OUT_REFUSED for a k outside
//     [1, n − 1], else the finish's, with zero bytes where it is not
//     ECM_OUT_POINT; the output ends before the sign rows it reads
//     (ladder.Setup.SignRowAt).
//
// d and k are secrets: every branch, loop and address depends only on the
// curve's byte length, the item's index and public constants; SHA-256 runs
// its 64 rounds on registers, and a thread's nonces are inverted together
// (Montgomery's trick) as their product to the power n − 2 mod n, with a
// fixed chain of Montgomery products.

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "finish.cuh"
#include "schedule_gen.cuh"
#include "wire.cuh"

// ECM_CONSTEXPR marks the SHA-256 functions that the compiler also runs on
// constants: the HMAC states of RFC 6979's first key, K = 0^32.
#define ECM_CONSTEXPR constexpr __host__ __device__ __forceinline__

// Sha256Msg is up to two SHA-256 blocks of a message, as big-endian words.
struct Sha256Msg {
  uint32_t w[32];
};

// msg_byte puts byte b at position pos of m, whose word there is zero
// until its bytes are put.
ECM_DEVICE void msg_byte(Sha256Msg& m, int pos, uint32_t b) { m.w[pos >> 2] |= (b & 0xffu) << (24 - 8 * (pos & 3)); }

ECM_CONSTEXPR uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// sha256_block runs the compression function of FIPS 180-4 on h with the
// 16 words of block b of m.
ECM_CONSTEXPR void sha256_block(uint32_t (&h)[8], const Sha256Msg& m, int b) {
  const uint32_t K[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t w[16] = {};
#pragma unroll
  for (int t = 0; t < 16; ++t) w[t] = m.w[16 * b + t];
  uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#pragma unroll
  for (int t = 0; t < 64; ++t) {
    if (t >= 16) {
      const uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      w[t & 15] += (rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3)) + w[(t - 7) & 15] +
                   (rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10));
    }
    const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t & 15];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = bb;
    bb = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += bb;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

// sha256_tail hashes the len bytes of m (len ≤ 119) onto h, a state after
// one 64-byte block (a key's pad): it pads m and runs its one or two blocks.
ECM_DEVICE void sha256_tail(uint32_t (&h)[8], Sha256Msg& m, int len) {
  msg_byte(m, len, 0x80);
  const int blocks = len + 9 <= 64 ? 1 : 2;
  m.w[16 * blocks - 1] = uint32_t(64 + len) * 8;  // the bit length, with the pad's block
  sha256_block(h, m, 0);
  if (blocks == 2) sha256_block(h, m, 1);
}

// HmacKey is a key's inner and outer states: SHA-256 after its pad blocks.
struct HmacKey {
  uint32_t in[8], out[8];
};

// hmac_key returns the states of the 32-byte key k (big-endian words).
ECM_CONSTEXPR HmacKey hmac_key(const uint32_t (&k)[8]) {
  const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  HmacKey key{};
  Sha256Msg pad{};
#pragma unroll
  for (int t = 0; t < 16; ++t) pad.w[t] = (t < 8 ? k[t] : 0) ^ 0x36363636u;
#pragma unroll
  for (int t = 0; t < 8; ++t) key.in[t] = iv[t];
  sha256_block(key.in, pad, 0);
#pragma unroll
  for (int t = 0; t < 16; ++t) pad.w[t] ^= 0x36363636u ^ 0x5c5c5c5cu;
#pragma unroll
  for (int t = 0; t < 8; ++t) key.out[t] = iv[t];
  sha256_block(key.out, pad, 0);
  return key;
}

// hmac sets mac to HMAC-SHA-256 under key of the len bytes of m.
ECM_DEVICE void hmac(uint32_t (&mac)[8], const HmacKey& key, Sha256Msg& m, int len) {
#pragma unroll
  for (int t = 0; t < 8; ++t) mac[t] = key.in[t];
  sha256_tail(mac, m, len);
  Sha256Msg outer{};
#pragma unroll
  for (int t = 0; t < 8; ++t) outer.w[t] = mac[t];
#pragma unroll
  for (int t = 0; t < 8; ++t) mac[t] = key.out[t];
  sha256_tail(mac, outer, 32);
}

// hmac_v sets mac to HMAC-SHA-256 under key of v alone.
ECM_DEVICE void hmac_v(uint32_t (&mac)[8], const HmacKey& key, const uint32_t (&v)[8]) {
  Sha256Msg m{};
#pragma unroll
  for (int t = 0; t < 8; ++t) m.w[t] = v[t];
  hmac(mac, key, m, 32);
}

// nonce_6979 sets k to RFC 6979's first candidate (§3.2 b–h) over
// HMAC-SHA-256 for the L-byte private key d and h1, each given as L/4
// big-endian words: the leftmost L bytes of V, in its first L/4 words.
// The first key, K = 0^32, has its states computed by the compiler.
template <int L>
ECM_DEVICE void nonce_6979(uint32_t (&k)[8], const uint32_t (&d)[8], const uint32_t (&h1)[8]) {
  constexpr uint32_t zero[8] = {};
  constexpr HmacKey first = hmac_key(zero);
  uint32_t v[8], kk[8];
#pragma unroll
  for (int t = 0; t < 8; ++t) v[t] = 0x01010101u;
  HmacKey key = first;
#pragma unroll
  for (int sep = 0; sep < 2; ++sep) {  // K = HMAC_K(V ‖ sep ‖ d ‖ h1), V = HMAC_K(V)
    Sha256Msg m{};
#pragma unroll
    for (int t = 0; t < 8; ++t) m.w[t] = v[t];
    msg_byte(m, 32, uint32_t(sep));
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const int shift = 24 - 8 * (j & 3);  // byte j of a big-endian word
      msg_byte(m, 33 + j, d[j >> 2] >> shift);
      msg_byte(m, 33 + L + j, h1[j >> 2] >> shift);
    }
    hmac(kk, key, m, 33 + 2 * L);
    key = hmac_key(kk);
    hmac_v(v, key, v);
  }
  hmac_v(k, key, v);  // V = HMAC_K(V): the first candidate's bytes
}

// load_big_endian sets v to the L-byte big-endian value at p (4-byte
// aligned) as L/4 big-endian words, the rest zero: one 32-bit load a word.
template <int L>
ECM_DEVICE void load_big_endian(uint32_t (&v)[8], const uint8_t* p) {
  const uint32_t* const w = reinterpret_cast<const uint32_t*>(p);
#pragma unroll
  for (int t = 0; t < 8; ++t) v[t] = t < L / 4 ? __byte_perm(w[t], 0, 0x0123) : 0;
}

static_assert(ECM_SIGN_ROWS == 3 * kFeWords && ECM_SIGN_KEY == ECM_SIGN_NONCE + kFeWords &&
                  ECM_SIGN_H1 == ECM_SIGN_KEY + kFeWords,
              "the sign rows are k, d and h1, one field element each");

// put_sign_row writes v, L/4 big-endian words, into item i's sign rows
// from Row (ladder.Setup.putSignRow), least significant word first.
template <int Row, int L>
ECM_DEVICE void put_sign_row(uint32_t* in, uint32_t i, uint32_t stride, const uint32_t (&v)[8]) {
  uint32_t* const rows = in + i + size_t(ECM_FINISH_ROWS + Row) * stride;
#pragma unroll
  for (int w = 0; w < kFeWords; ++w) rows[size_t(w) * stride] = w < L / 4 ? v[L / 4 - 1 - w] : 0;
}

// sign_unpack_item derives item i = blockIdx.x·blockDim.x + threadIdx.x's
// nonce, one item per thread, and unpacks it on the comb
// (ladder.Setup.UnpackSignWireItem).
template <int N, int L>
ECM_DEVICE void sign_unpack_item(ECM_KERNEL_PARAMS) {
  if (consts[ECM_PREPARE_ROW_AT] != 0 || consts[ECM_PREPARE_BYTE_LEN] != uint32_t(L)) __trap();  // the comb's, of this curve
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  uint8_t* const wire = reinterpret_cast<uint8_t*>(out);
  uint32_t d[8], h1[8], k[8];
  load_big_endian<L>(d, wire + size_t(i) * L);
  load_big_endian<L>(h1, wire + size_t(count) * L + size_t(i) * L);
  uint32_t* const rows = const_cast<uint32_t*>(in);
  put_sign_row<ECM_SIGN_KEY, L>(rows, i, stride, d);
  put_sign_row<ECM_SIGN_H1, L>(rows, i, stride, h1);
  nonce_6979<L>(k, d, h1);
  uint32_t* const scalar = reinterpret_cast<uint32_t*>(wire + size_t(i) * L);  // k over d, for the unpack
#pragma unroll
  for (int t = 0; t < L / 4; ++t) scalar[t] = __byte_perm(k[t], 0, 0x0123);
  unpack_item<N>(ECM_KERNEL_ARGS);
  put_sign_row<ECM_SIGN_NONCE, L>(rows, i, stride, k);
}

// fe_less_mask returns all ones when a < b, else zero.
ECM_DEVICE uint32_t fe_less_mask(const Fe& a, const Fe& b) {
  uint32_t borrow = 0;
#pragma unroll
  for (int k = 0; k < kFeWords; ++k) borrow = uint32_t((uint64_t(a.w[k]) - b.w[k] - borrow) >> 32) & 1;
  return 0u - borrow;
}

// refused_mask returns all ones when the nonce k is refused: 0, or n or
// more.
ECM_DEVICE uint32_t refused_mask(const FeField& nf, const Fe& k) { return fe_zero_mask(k) | ~fe_less_mask(k, nf.p); }

// nonce_form returns k·R mod n, the Montgomery form of the nonce k, or R
// mod n (one's) where k is refused: never zero, so that a thread's nonces
// share one inversion.
ECM_DEVICE Fe nonce_form(const FeField& nf, const Fe& k, const Fe& r2, const Fe& one) {
  return fe_select(refused_mask(nf, k), one, nf.mul(k, r2));
}

// sign_pack_item packs the signature of item i of count
// (ladder.Setup.PackSignWireItem), given k⁻¹·R
// mod n for its nonce k: r = x(k·G) mod n and s = k⁻¹·(h1 + r·d) mod n, in
// Montgomery products mod n with R = 2^256 (dR = d·R², r·d = r·dR, and
// s = (h1 + r·d)·k⁻¹R).
template <int L>
ECM_DEVICE void sign_pack_item(const FeField& nf, const uint32_t* consts, const uint32_t* in, const uint32_t* out,
                               uint32_t count, uint32_t stride, uint32_t i, const Fe& kInv) {
  const uint32_t* const rows = in + i + size_t(ECM_FINISH_ROWS) * stride;
  const Fe k = fe_load(rows + size_t(ECM_SIGN_NONCE) * stride, stride);
  const Fe d = fe_load(rows + size_t(ECM_SIGN_KEY) * stride, stride);
  const Fe h1 = fe_load(rows + size_t(ECM_SIGN_H1) * stride, stride);
  const uint32_t finished = out[size_t(2 * L / 4) * stride + i];
  const uint32_t outcome = select(refused_mask(nf, k), ECM_OUT_REFUSED, finished);
  const uint32_t keep = mask_of_zero(outcome ^ ECM_OUT_POINT);

  uint32_t x[kAccWords] = {};  // x(k·G) below p < 2n, from the result's big-endian bytes
#pragma unroll
  for (int w = 0; w < L / 4; ++w) x[w] = __byte_perm(out[size_t(L / 4 - 1 - w) * stride + i], 0, 0x0123);
  const Fe r = nf.canonical(x);
  const Fe r2 = fe_load(consts + ECM_FINISH_ORDER_R2, 1);
  const Fe rd = nf.mul(r, nf.mul(d, r2));
  const Fe s = nf.mul(nf.add(h1, rd), kInv);

  uint8_t* const wire = reinterpret_cast<uint8_t*>(const_cast<uint32_t*>(in));
  uint8_t* const rec = wire + size_t(i) * 2 * L;
#pragma unroll
  for (int j = 0; j < L; ++j) {
    const int w = (L - 1 - j) / 4, shift = 8 * ((L - 1 - j) & 3);  // the word of byte j, least significant first
    rec[j] = uint8_t((r.w[w] & keep) >> shift);
    rec[L + j] = uint8_t((s.w[w] & keep) >> shift);
  }
  wire[size_t(count) * 2 * L + i] = uint8_t(outcome);
}

// sign_pack_items packs the signatures of thread t of T (the grid's
// threads): items t, t + T, … below count, at most kFinishItemsMax of
// them, as the finish takes its items, their nonces inverted mod n with
// one inversion (Montgomery's trick): k^(n−2) of their product in a fixed
// chain of products, then two products per item. Refused nonces take one
// in the product. The loops run over the thread's number of items, which
// depends on count and t only.
template <int N, int L>
ECM_DEVICE void sign_pack_items(ECM_KERNEL_PARAMS) {
  (void)scalars;
  if (consts[ECM_FINISH_N] != N || consts[ECM_FINISH_BYTE_LEN] != uint32_t(L) || consts[ECM_FINISH_ROW_AT] != 0)
    __trap();  // the comb's constants of this curve only
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  if (t >= count) return;
  const uint32_t items = umin32(kFinishItemsMax, (count - 1 - t) / T + 1);
  const FeField nf = FeField::load<ECM_FINISH_ORDER, ECM_FINISH_ORDER_INV>(consts);
  const Fe r2 = fe_load(consts + ECM_FINISH_ORDER_R2, 1);
  const Fe one = nf.mul(Fe{{1}}, r2);  // R mod n

  Fe kR[kFinishItemsMax];   // each item's nonce, Montgomery form
  Fe pre[kFinishItemsMax];  // the product of the nonces before it
  Fe acc = one;
#pragma unroll 1
  for (uint32_t j = 0; j < items; ++j) {
    const uint32_t i = t + j * T;
    kR[j] = nonce_form(nf, fe_load(in + i + size_t(ECM_FINISH_ROWS + ECM_SIGN_NONCE) * stride, stride), r2, one);
    pre[j] = acc;
    acc = nf.mul(acc, kR[j]);
  }
  Fe inv = nf.pow(acc, consts + ECM_FINISH_ORDER_EXP);  // the inverse of the nonces' product, Montgomery form
#pragma unroll 1
  for (uint32_t j = items; j-- > 0;) {
    const uint32_t i = t + j * T;
    const Fe kInv = nf.mul(inv, pre[j]);
    inv = nf.mul(inv, kR[j]);  // the inverse of the product of the nonces before j
    sign_pack_item<L>(nf, consts, in, out, count, stride, i, kInv);
  }
}

// ---------------------------------------------------------------------------
// Entry points: ecm_signunpack_<curve>_<channels> (the prepare's constants)
// and ecm_signpack_<curve>_<channels> (the finish's), one of each per curve
// and channel width of ECM_CURVES (kernels.SignUnpackName,
// kernels.SignPackName), with the ladder's arguments. Blocks of
// kernels.FinishThreads threads: the unpack one item a thread, the pack on
// the finish's grid (kernels.FinishGrid), up to kFinishItemsMax items a thread.

#define ECM_SIGN_ENTRIES(tag, Curve, chan, w, n, bits, AM)         \
  extern "C" __global__ void __launch_bounds__(ECM_FINISH_THREADS) \
      ecm_signunpack_##tag##_##chan(ECM_KERNEL_PARAMS) {           \
    sign_unpack_item<n, bits / 8>(ECM_KERNEL_ARGS);                \
  }                                                                \
  extern "C" __global__ void __launch_bounds__(ECM_FINISH_THREADS) \
      ecm_signpack_##tag##_##chan(ECM_KERNEL_PARAMS) {             \
    sign_pack_items<n, bits / 8>(ECM_KERNEL_ARGS);                 \
  }
ECM_CURVES(ECM_SIGN_ENTRIES)
#undef ECM_SIGN_ENTRIES
