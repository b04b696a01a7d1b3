// The ecmul kernel: batched Montgomery ladders with field arithmetic in a
// Residue Number System of 16-bit channels (Antão, Bajard and Sousa, ASAP
// 2010) or of 30-bit ones, RNS Montgomery multiplication with an exact second
// base extension: on 16-bit channels Shenoy's or Kawamura's α, on 30-bit ones
// α from the ξ̃'s top bits. One item is one scalar multiplication; the
// threads of an item each own one channel of B and the same-numbered channel
// of B̃, and one more thread owns the redundant channel m_e.
//
// Every residue the kernel stores is canonical, so its outputs equal those
// of ladder.RNSExecutor word for word. The layouts of constants, inputs,
// scalars and outputs are those of internal/ladder/pack.go;
// internal/kernels/README.md lists the entry points and their launch limits.

#include <stdint.h>

#include <type_traits>
#include <utility>

#ifdef __CUDACC__
#include <mma.h>  // the tile mapping's tensor-core products; the CPU emulation brings its own
#endif

#include "rns.cuh"
#include "schedule_gen.cuh"
#include "shape.cuh"

// ---------------------------------------------------------------------------
// Constants and shapes.

enum class BaseExt { Shenoy, Kawamura };

// Warp: every item in one warp, ⌊32/(n+1)⌋ items per warp (shape.cuh),
// exchanges through shared memory ordered by __syncwarp. Block: the paper's, n+1 threads per
// item packed across the block, exchanges ordered by __syncthreads. Tile:
// the block mapping with exactly 16 items per block, whose base extensions
// are 8-bit integer matrix products on the tensor cores. Spread: one item per
// warp, the warp mapping's groups of n+1 lanes each computing other products
// of the item's multiplication sets (spread_mul_set), for latency. Mma: 8
// items per warp, 4 lanes per item, each lane owning three channel slots,
// whose base extensions are tensor-core products with their fragments in
// registers (StepsFrag): no shared memory, no barrier. Pair: the mma
// mapping with 16 items per warp, two in each group of 4 lanes, each lane
// owning five channel slots of its two items (PairShape). Their names, lanes
// per item (0: n+1), thread shapes and whether their blocks must be whole
// warps are kernels.Mappings' (ECM_MAPPINGS, from entries.go).
enum class Mapping {
#define ECM_MAPPING_NAME(name, lanes, shape, whole) name,
  ECM_MAPPINGS(ECM_MAPPING_NAME)
#undef ECM_MAPPING_NAME
};
constexpr int kMappingLanes[] = {
#define ECM_MAPPING_LANES(name, lanes, shape, whole) lanes,
    ECM_MAPPINGS(ECM_MAPPING_LANES)
#undef ECM_MAPPING_LANES
};
constexpr uint32_t kMappingShapes[] = {
#define ECM_MAPPING_SHAPE(name, lanes, shape, whole) shape,
    ECM_MAPPINGS(ECM_MAPPING_SHAPE)
#undef ECM_MAPPING_SHAPE
};
constexpr bool kMappingWholeWarps[] = {
#define ECM_MAPPING_WHOLE(name, lanes, shape, whole) whole,
    ECM_MAPPINGS(ECM_MAPPING_WHOLE)
#undef ECM_MAPPING_WHOLE
};

constexpr int kMaxThreads = ECM_MAX_THREADS;  // the largest blockDim.x of every entry point
constexpr int kScalarWordBits = 32;           // the bits of a scalar row's word (ladder.Setup.LadderScalar)

// Registers per thread: each entry point's cap (internal/kernels/entries.go), where
// nvcc has __maxnreg__ (12.4 and later), so that more warps share each
// scheduler. -DECM_MAX_REGS=R replaces every cap by R (for sweeps); R = 0,
// or an older nvcc, leaves it to __launch_bounds__(kMaxThreads). Either way
// a block of more than kMaxThreads threads does not run: it fails to launch
// or traps.
#ifdef ECM_MAX_REGS
#define ECM_REGS(cap) ECM_MAX_REGS
#define ECM_USE_MAXNREG (ECM_MAX_REGS > 0)
#else
#define ECM_REGS(cap) cap
#define ECM_USE_MAXNREG 1
#endif
#if ECM_USE_MAXNREG && defined(__CUDACC_VER_MAJOR__) && \
    __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1204
#define ECM_KERNEL_BOUNDS(cap) __maxnreg__(ECM_REGS(cap))
#else
#define ECM_KERNEL_BOUNDS(cap) __launch_bounds__(kMaxThreads)
#endif

// Shape of an item of n channels per base of W bits.
template <int N, Mapping M, int W = 16>
struct Shape {
  static constexpr bool Frag = M == Mapping::Mma || M == Mapping::Pair;  // slots of channels per lane
  // threads per item (per group: Spread; the pair mapping's 4 lanes hold two)
  static constexpr int Lanes = kMappingLanes[int(M)] > 0 ? kMappingLanes[int(M)] : N + 1;
  static constexpr int ELane = N;                              // the lane of m_e
  static constexpr uint32_t Code = kMappingShapes[int(M)];     // EcmShape
  static constexpr bool Warp = Code != ecm_packed;             // items inside a warp
  static constexpr bool WholeWarps = kMappingWholeWarps[int(M)];  // blocks of whole warps only
  static constexpr int Groups = Warp ? int(kWarpLanes) / Lanes : 1;  // lane groups of a warp
  static constexpr int Items = Warp ? kMaxThreads / int(kWarpLanes) * Groups  // lane groups per block
                                    : (kMaxThreads + Lanes - 1) / Lanes;
  static constexpr int Pairs = (N + 1) / 2;                 // 16-bit residues packed two per word
  static constexpr int Vecs = W == 16 ? (N + 1 + 7) / 8     // 16-byte loads per exchanged row
                                      : (N + 1 + 3) / 4;
  static_assert(!Warp || Lanes <= int(kWarpLanes), "an item must fit in a warp");
};

// The bytes dp2a.lo multiplies pair p of a row by to add up its channels
// (1) and skip its padding (0): Kawamura's Σ trunc(ξ̃_k).
template <int N>
ECM_DEVICE constexpr uint32_t channel_ones(int p) {
  return (2 * p < N ? 1u : 0u) | (2 * p + 1 < N ? 1u << 8 : 0u);
}

// Shenoy's redundant channel m_e = 2^k, as basext.Multiplier computes it:
// its constants, and the three formulas of every mapping's m_e lane or slot.
struct MeChannel {
  uint32_t mask, pe, mInv, mtInv;  // m_e − 1, |p|_{m_e}, |M^{-1}|_{m_e}, |M̃^{-1}|_{m_e}

  template <int N>
  ECM_DEVICE void load(const uint32_t* __restrict__ k) {
    using L = Layout<N>;
    mask = k[L::MeMask];
    pe = k[L::PE];
    mInv = k[L::MInvE];
    mtInv = k[L::MtInvE];
  }
  // product returns x_e·y_e mod m_e from any word ≡ x_e·y_e (mod 2^32).
  ECM_DEVICE uint32_t product(uint32_t xy) const { return xy & mask; }
  // z returns z_e = (Σ q_k·|M_k|_{m_e}·p + x_e·y_e)·M^{-1} mod m_e, from the
  // first extension's sum on m_e (mod 2^32) and te = x_e·y_e mod m_e.
  ECM_DEVICE uint32_t z(uint32_t sum, uint32_t te) const { return ((sum & mask) * pe + te) * mInv & mask; }
  // alpha returns Shenoy's α = (Σ ξ̃_k·|M̃_k|_{m_e} − z_e)·M̃^{-1} mod m_e,
  // from the second extension's sum on m_e (mod 2^32), on 16-bit channels
  // (30-bit ones find α from the ξ̃'s top bits: their M̃ is even).
  ECM_DEVICE uint32_t alpha(uint32_t sum, uint32_t ze) const { return (sum - ze) * mtInv & mask; }
};

// The constants one thread needs, loaded once from Go's table. Lane j < n
// owns channel j of B and B̃; lane n (and any spare lane) owns m_e in its B
// slot and keeps channel 0's B̃ constants in slots whose results it discards.
template <int N, Mapping M>
struct LaneConsts {
  using Sh = Shape<N, M>;
  Channel<16> mB, mT;  // this lane's channels of B and B̃ (m_e in mB on the m_e lane)
  uint32_t negR, negMtB;
  uint32_t ext1[Sh::Pairs];  // B → B̃ row, times S_j·T_j, as byte pairs; Ext1E on m_e
  uint32_t ext2[Sh::Pairs];  // B̃ → B row as byte pairs; Ext2E on m_e
  uint32_t tPair;            // T_j and 2^16·T_j as a byte pair: P̃_j·T_j joins the first sum
  uint32_t tLo, tHi;         // T_j and 2^16·T_j mod m̃_j, for the tile mapping
  MeChannel me;
  uint32_t phi, kawMask2;
  uint32_t eMask;  // all ones on the m_e lane

  ECM_DEVICE void load(const uint32_t* __restrict__ k, int lane) {
    using L = Layout<N>;
    const bool isE = lane >= N;
    const int j = isE ? 0 : lane;
    eMask = opaque(isE ? ~0u : 0u);
    me.load<N>(k);
    phi = k[L::Phi];
    kawMask2 = k[L::KawMask] | k[L::KawMask] << 16;
    mB = Channel<16>::make(isE ? me.mask + 1 : k[L::ModB + j], k[L::CB + j]);
    mT = Channel<16>::make(k[L::ModBT + j], k[L::CBT + j]);
    negR = k[L::NegR + j];
    negMtB = k[L::NegMtB + j];
    const uint32_t st = mT.reduce(k[L::S + j] * k[L::T + j]);
    tLo = isE ? 0 : k[L::T + j];
    tHi = isE ? 0 : mT.reduce(k[L::T + j] << 16);
    tPair = pack_pair(tLo, tHi);
#pragma unroll
    for (int p = 0; p < Sh::Pairs; ++p) {
      uint32_t a1[2], a2[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int kk = 2 * p + h;
        if (kk >= N) {
          a1[h] = a2[h] = 0;
        } else if (isE) {
          a1[h] = k[L::Ext1E + kk];
          a2[h] = k[L::Ext2E + kk];
        } else {
          a1[h] = mT.reduce(k[L::Ext1 + j * N + kk] * st);
          a2[h] = k[L::Ext2 + j * N + kk];
        }
      }
      ext1[p] = pack_pair(a1[0], a1[1]);
      ext2[p] = pack_pair(a2[0], a2[1]);
    }
  }
};

// require_wide_base stops a wide kernel given the constants of another
// base: its first step takes x̂_j·ŷ_j as q_j, which holds only when B's
// residues are stored twisted, every NegR_j of basext.Tables being 1; and
// B̃ ends with 2^30 (rns.WideTop), whose channel the pair mapping takes in
// 32-bit words.
template <int N>
ECM_DEVICE void require_wide_base(const uint32_t* __restrict__ k) {
  using L = Layout<N>;
#pragma unroll
  for (int j = 0; j < N; ++j)
    if (k[L::NegR + j] != 1) __trap();
  if (k[L::ModBT + N - 1] != ECM_WIDE_TOP) __trap();
}

// The constants of one lane for wide channels: the same roles as
// LaneConsts, each constant a whole word (products of 30-bit residues take
// 64-bit sums, no byte packing).
template <int N, Mapping M>
struct WideLaneConsts {
  Channel<30> mB, mT;  // this lane's channels of B and B̃ (m_e in mB on the m_e lane)
  uint32_t negMtB;
  uint32_t ext1[N];  // B → B̃ row, times S_j·T_j; Ext1E on m_e
  uint32_t ext2[N];  // B̃ → B row; Ext2E on m_e
  uint32_t tj;       // T_j (0 on m_e): P̃_j·T_j joins the first sum
  uint32_t phi;      // Φ of wide_alpha (the spread mapping)
  MeChannel me;
  uint32_t eMask;  // all ones on the m_e lane

  ECM_DEVICE void load(const uint32_t* __restrict__ k, int lane) {
    using L = Layout<N>;
    const bool isE = lane >= N;
    const int j = isE ? 0 : lane;
    eMask = opaque(isE ? ~0u : 0u);
    me.load<N>(k);
    mB = Channel<30>::make(isE ? me.mask + 1 : k[L::ModB + j], k[L::CB + j]);
    mT = Channel<30>::make(k[L::ModBT + j], k[L::CBT + j]);
    require_wide_base<N>(k);
    negMtB = k[L::NegMtB + j];
    const uint32_t st = mT.reduce(uint64_t(k[L::S + j]) * k[L::T + j]);
    tj = isE ? 0 : k[L::T + j];
    phi = k[L::Phi];
#pragma unroll
    for (int kk = 0; kk < N; ++kk) {
      ext1[kk] = isE ? k[L::Ext1E + kk] : mT.reduce(uint64_t(k[L::Ext1 + j * N + kk]) * st);
      ext2[kk] = isE ? k[L::Ext2E + kk] : k[L::Ext2 + j * N + kk];
    }
  }
};

// One value of the ladder on one lane: its B residue (the m_e residue on the
// m_e lane) and its B̃ residue, stored as ξ̃.
struct Residue {
  uint32_t b, t;
};

// The conditional swap of two registers under an all-ones or zero mask.
ECM_DEVICE void cswap(Residue& a, Residue& b, uint32_t mask) {
  const uint32_t db = (a.b ^ b.b) & mask, dt = (a.t ^ b.t) & mask;
  a.b ^= db;
  b.b ^= db;
  a.t ^= dt;
  b.t ^= dt;
}

// select_residue returns a where mask is all ones and b where it is zero.
ECM_DEVICE Residue select_residue(uint32_t mask, Residue a, Residue b) {
  return Residue{select(mask, a.b, b.b), select(mask, a.t, b.t)};
}

// Shared memory of a block: two exchange rows per product of a set (the q_j,
// then the ξ̃ of the result) per item slot, for sets of up to K products,
// the Shenoy α per product, and the addition constants per channel role
// (0..n−1, n for m_e).
template <int N, Mapping M, int K, int AddConsts, int W>
struct SharedState {
  using Sh = Shape<N, M, W>;
  uint4 rows[Sh::Items][2][K][Sh::Vecs];
  uint32_t alpha[Sh::Items][K];
  uint2 addK[AddConsts][N + 1];

  // init zeroes the exchange rows (their padding slots must read as 0).
  ECM_DEVICE void init(const uint32_t* __restrict__, int tid) {
    for (int w = tid; w < int(sizeof(rows) / sizeof(uint4)); w += blockDim.x)
      (&rows[0][0][0][0])[w] = uint4{0, 0, 0, 0};
    for (int w = tid; w < int(sizeof(alpha) / sizeof(uint32_t)); w += blockDim.x) (&alpha[0][0])[w] = 0;
  }
};

// The exchange among the lanes of one item, for sets of up to K products.
template <int N, Mapping M, int K, int W>
struct Exchange {
  using Sh = Shape<N, M, W>;
  // Shuffle: the spread mapping's wide rows go from lane to lane by
  // shuffle (row), not through shared memory: put and sync do nothing.
  static constexpr bool Shuffle = M == Mapping::Spread && W == 30;
  uint4 (*rows)[K][Sh::Vecs];
  uint32_t* alpha;
  int lane;
  int slot;           // where this lane's residue goes: its channel, or the padding slot n
  int eSource;        // the warp lane of this item's m_e lane
  uint32_t warpMask;  // the threads of this warp that exist (a block may end mid-warp)

  template <class S>
  ECM_DEVICE void attach(S& sh, int item, int l, int tid) {
    rows = sh.rows[item];
    alpha = sh.alpha[item];
    lane = l;
    slot = l < N ? l : N;
    eSource = int(tid % kWarpLanes) - l + Sh::ELane;
    const uint32_t inWarp = blockDim.x - (tid & ~31);
    warpMask = inWarp >= kWarpLanes ? ~0u : (1u << inWarp) - 1;
  }

  ECM_DEVICE void sync() const {
    if constexpr (Shuffle) {
      return;
    } else if (M == Mapping::Spread) {
      __syncwarp();  // blocks of whole warps: every lane is there
    } else if (Sh::Warp) {
      __syncwarp(warpMask);
    } else {
      __syncthreads();
    }
  }
  // put stores this lane's residue in row r of product i. The m_e lane and
  // spare lanes all write slot n, which no sum reads (16-bit rows multiply
  // it by 0).
  ECM_DEVICE void put(int r, int i, uint32_t v) const {
    if constexpr (Shuffle) {
      return;
    } else if constexpr (W == 16) {
      reinterpret_cast<uint16_t*>(rows[r][i])[slot] = uint16_t(v);
    } else {
      reinterpret_cast<uint32_t*>(rows[r][i])[slot] = v;
    }
  }
  // get reads row r of product i: 16-bit residue k in half k & 1 of word
  // k >> 1, a wide residue k in word k.
  ECM_DEVICE void get(int r, int i, uint32_t (&w)[4 * Sh::Vecs]) const {
#pragma unroll
    for (int v = 0; v < Sh::Vecs; ++v) {
      const uint4 x = rows[r][i][v];
      w[4 * v] = x.x;
      w[4 * v + 1] = x.y;
      w[4 * v + 2] = x.z;
      w[4 * v + 3] = x.w;
    }
  }
  // row reads row r of product i of wide residues into w, own being this
  // lane's value in it: by shuffle from lanes 0 … n−1 of the lane's group
  // (Shuffle; every lane of the warp takes part), otherwise as get does.
  ECM_DEVICE void row(int r, int i, uint32_t own, uint32_t (&w)[4 * Sh::Vecs]) const {
    if constexpr (Shuffle) {
      const int base = eSource - Sh::ELane;
#pragma unroll
      for (int k = 0; k < 4 * Sh::Vecs; ++k) w[k] = k < N ? __shfl_sync(~0u, own, base + k, kWarpLanes) : 0;
    } else {
      get(r, i, w);
    }
  }
  // share_alpha gives every lane the α that the m_e lane computed.
  template <int P>
  ECM_DEVICE void share_alpha(uint32_t (&a)[P]) const {
    if (Sh::Warp) {
      const uint32_t lanes = M == Mapping::Spread ? ~0u : warpMask;  // Spread: whole warps
#pragma unroll
      for (int i = 0; i < P; ++i) a[i] = __shfl_sync(lanes, a[i], eSource, kWarpLanes);
    } else {
      if (lane == Sh::ELane) {
#pragma unroll
        for (int i = 0; i < P; ++i) alpha[i] = a[i];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < P; ++i) a[i] = alpha[i];
    }
  }
};

// ---------------------------------------------------------------------------
// The tile mapping's exchange: the base extensions of the block's 16 items as
// 8-bit integer matrix products (wmma, u8 × u8 → s32, 16 × 16 × 16).
//
// For one product and one extension, with v_k an item's 16-bit residues (q_k,
// then ξ̃U_k) and e_ok the constants of output o (a channel of the other base,
// or m_e for o = n), Σ_k v_k·e_ok = Σ_{h,g} 2^(8(h+g))·D[2i+h][2o+g], where
// D = A·B, A[2i+h][k] = byte h of v_k (item i) and B[k][2o+g] = byte g of
// e_ok. Every D entry is at most n·255² < 2^21 (rns.Params proves it for
// every curve), so the s32 sums are exact; modulo m = 2^16 − c the sum is
// D00 + 2^8·(D01 + D10) + c·D11 < 2^21 + 2^30 + 2^29 < 2^31 (tile_mod).

template <int N>
struct TileShape {
  static constexpr int Items = ECM_TILE_ITEMS;        // kernels.TileItems
  static constexpr int KT = (N + 15) / 16;            // k-steps of 16 channels
  static constexpr int NT = (2 * (N + 1) + 15) / 16;  // column tiles of 16: two bytes of n+1 outputs
  static constexpr int ABytes = KT * 2 * 16 * 16;     // one product's A: per k-step, 32 rows × 16
  static constexpr int DWords = 2 * NT * 16 * 16;     // one product's D: 2 × NT tiles of 16 × 16
  static constexpr int BBytes = KT * NT * 16 * 16;    // one extension's B: KT × NT tiles of 16 × 16
  static_assert(Items == 16, "a tile block's items are the 16 rows of a tensor-core tile");
};

// Shared memory of a tile block: A and D per product (A holds the q_j, then
// the ξ̃ of the result), B of both extensions, z_e per product and item, and
// the addition constants.
template <int N, int K, int AddConsts>
struct TileSharedState {
  using T = TileShape<N>;
  alignas(32) uint8_t a[K][T::ABytes];
  alignas(32) int32_t d[K][T::DWords];
  alignas(32) uint8_t b[2][T::BBytes];
  uint32_t ze[K][T::Items];
  uint2 addK[AddConsts][N + 1];

  // init zeroes A (its padding columns must read as 0) and builds B from
  // the constant table: byte g of Ext1[o][k]·S_o·T_o mod m̃_o (and Ext1E[k]
  // for o = n), then of Ext2[o][k] (and Ext2E[k]).
  ECM_DEVICE void init(const uint32_t* __restrict__ k, int tid) {
    using L = Layout<N>;
    for (int w = tid; w < int(sizeof(a) / sizeof(uint32_t)); w += blockDim.x)
      reinterpret_cast<uint32_t*>(&a[0][0])[w] = 0;
    for (int w = tid; w < int(sizeof(b) / sizeof(uint32_t)); w += blockDim.x)
      reinterpret_cast<uint32_t*>(&b[0][0])[w] = 0;
    __syncthreads();
    for (int w = tid; w < (N + 1) * N; w += blockDim.x) {
      const int o = w / N, kk = w % N;
      uint32_t e1, e2;
      if (o == N) {
        e1 = k[L::Ext1E + kk];
        e2 = k[L::Ext2E + kk];
      } else {
        const Channel<16> mT = Channel<16>::make(k[L::ModBT + o], k[L::CBT + o]);
        e1 = mT.reduce(k[L::Ext1 + o * N + kk] * mT.reduce(k[L::S + o] * k[L::T + o]));
        e2 = k[L::Ext2 + o * N + kk];
      }
      put_b(0, kk, o, e1);
      put_b(1, kk, o, e2);
    }
  }
  ECM_DEVICE void put_b(int ext, int kk, int o, uint32_t e) {
    const int kt = kk / 16, r = kk % 16;
#pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int col = 2 * o + g, nt = col / 16;
      b[ext][(kt * T::NT + nt) * 256 + r * 16 + col % 16] = uint8_t(e >> (8 * g));
    }
  }
};

template <int N, int K>
struct TileExchange {
  using T = TileShape<N>;
  uint8_t (*a)[T::ABytes];
  int32_t (*d)[T::DWords];
  uint8_t (*b)[T::BBytes];
  uint32_t (*ze)[T::Items];
  int item, lane, warp, warps;

  template <class S>
  ECM_DEVICE void attach(S& sh, int i, int l, int tid) {
    a = sh.a;
    d = sh.d;
    b = sh.b;
    ze = sh.ze;
    item = i;
    lane = l;
    warp = tid / int(kWarpLanes);
    warps = (blockDim.x + kWarpLanes - 1) / kWarpLanes;
  }
  ECM_DEVICE void sync() const { __syncthreads(); }
  // put stores this lane's residue v as column `lane` of rows 2·item and
  // 2·item + 1 of product i's A (channel lanes only).
  ECM_DEVICE void put(int i, uint32_t v) const {
    if (lane < N) {
      const int kt = lane / 16, c = lane % 16;
      uint8_t* row = &a[i][kt * 512 + 2 * item * 16 + c];
      row[0] = uint8_t(v);
      row[16] = uint8_t(v >> 8);
    }
  }
  // get returns D00, D01, D10, D11 of output o for this item and product i.
  ECM_DEVICE int4 get(int i, int o) const {
    const int col = 2 * o, nt = col / 16, r = (2 * item) % 16, mt = (2 * item) / 16;
    const int32_t* t = &d[i][(mt * T::NT + nt) * 256 + r * 16 + col % 16];
    const int2 lo = *reinterpret_cast<const int2*>(t), hi = *reinterpret_cast<const int2*>(t + 16);
    return int4{lo.x, lo.y, hi.x, hi.y};
  }
  // products computes D = A·B of extension ext for P products, the block's
  // warps sharing the P × 2 × NT output tiles.
  template <int P>
  ECM_DEVICE void products(int ext) const {
    using namespace nvcuda;
    for (int t = warp; t < P * 2 * T::NT; t += warps) {
      const int i = t / (2 * T::NT), mt = t % (2 * T::NT) / T::NT, nt = t % T::NT;
      wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
      wmma::fill_fragment(acc, 0);
#pragma unroll
      for (int kt = 0; kt < T::KT; ++kt) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, &a[i][kt * 512 + mt * 256], 16);
        wmma::load_matrix_sync(fb, &b[ext][(kt * T::NT + nt) * 256], 16);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(&d[i][(mt * T::NT + nt) * 256], acc, 16, wmma::mem_row_major);
    }
  }
};

// tile_mod returns Σ = D00 + 2^8·(D01 + D10) + 2^16·D11 mod m, canonical.
ECM_DEVICE uint32_t tile_mod(int4 s, Channel<16> m) {
  return m.reduce(uint32_t(s.x) + (uint32_t(s.y + s.z) << 8) + uint32_t(s.w) * m.c);
}

// tile_pow2 returns Σ mod 2^32, enough for the m_e = 2^k channel.
ECM_DEVICE uint32_t tile_pow2(int4 s) {
  return uint32_t(s.x) + (uint32_t(s.y + s.z) << 8) + (uint32_t(s.w) << 16);
}

// ---------------------------------------------------------------------------
// Base extension and RNS Montgomery multiplication (basext.Multiplier.Mul),
// for a whole multiplication set at once: P independent products share each
// exchange and its synchronisation. mont_mul_set (below) runs the steps;
// what a step computes, and how rows travel between lanes, is the Steps
// policy of the channel width and mapping (Steps16, StepsWide, StepsTile,
// StepsFrag), each with these members:
//   Value                       a lane's share of one value (Residue, or Slots)
//   Alpha                       the α of the lane's item (of its two items: uint2)
//   Step1 first_step(x, y, i)   step 1: q_j = x_j·y_j·NegR_j in B (given to the exchange),
//                               P̃_j = ξ̃x_j·ξ̃y_j in B̃, x_e·y_e in m_e
//   exchange_q<P>()             the q_j of the set reach the lanes that sum them
//   first_extension(i, s, z, e) step 2, B → B̃ without correction: z.t = ξ̃U_j, and z_e
//   exchange_xi<P>()            the ξ̃U_j reach the lanes that sum them
//   second_extension(i, z, e, sum, α)  step 3: Σ ξ̃U_k·Ext2[j][k], and α
//   share_alpha<P>(α)           every lane of an item gets its α
//   finish(sum, α, e, z)        step 4: z_j = Σ + α·NegMtB_j in B, z_e on m_e

// The steps of 16-bit channels: sums of byte-split products (dp2a) over
// rows exchanged through shared memory, Shenoy's or Kawamura's α.
template <int N, BaseExt V, Mapping M, int K>
struct Steps16 {
  using Value = Residue;
  using Alpha = uint32_t;
  using Sh = Shape<N, M>;
  struct Step1 {
    uint32_t te, pt;  // x_e·y_e (mod 2^32), P̃_j unreduced: its 16-bit halves meet T_j and 2^16·T_j
  };
  struct Partial {
    uint32_t ze;
  };
  struct Sum {
    DotAcc s;
  };
  const LaneConsts<N, M>& k;
  const Exchange<N, M, K, 16>& ex;

  ECM_DEVICE Step1 first_step(const Residue& x, const Residue& y, int i) const {
    const uint32_t xy = x.b * y.b;  // products of residues below 2^16 fit 32 bits
    ex.put(0, i, k.mB.q(xy, k.negR));
    return Step1{k.me.product(xy), x.t * y.t};
  }
  template <int P>
  ECM_DEVICE void exchange_q() const {
    ex.sync();
  }
  // ξ̃U_j = Σ q_k·(Ext1[j][k]·S_j·T_j) + P̃_j·T_j, which is ((Σ q_k·Ext1[j][k])·S_j + P̃_j)·T_j
  // (mod m̃_j); on m_e, z_e = (Σ q_k·Ext1E[k]·PE + x_e·y_e)·MInvE.
  ECM_DEVICE void first_extension(int i, const Step1& s, Residue& z, Partial& e) const {
    uint32_t w[4 * Sh::Vecs];
    ex.get(0, i, w);
    DotAcc a = {0, 0};
#pragma unroll
    for (int p = 0; p < Sh::Pairs; ++p) dot_add(a, w[p], k.ext1[p]);
    dot_add(a, s.pt, k.tPair);
    z.t = k.mT.reduce(dot_mod(a, k.mT));
    e.ze = k.me.z(dot_pow2(a), s.te);
    ex.put(1, i, z.t);
  }
  template <int P>
  ECM_DEVICE void exchange_xi() const {
    ex.sync();
  }
  // α of Û = Σ ξ̃U_k·M̃_k − α·M̃: Shenoy's from the m_e lane's sum, or
  // Kawamura's from the row's truncated residues.
  ECM_DEVICE void second_extension(int i, const Residue&, const Partial& e, Sum& sum, uint32_t& alpha) const {
    uint32_t w[4 * Sh::Vecs];
    ex.get(1, i, w);
    sum.s = DotAcc{0, 0};
#pragma unroll
    for (int p = 0; p < Sh::Pairs; ++p) dot_add(sum.s, w[p], k.ext2[p]);
    if (V == BaseExt::Shenoy) {
      // on the m_e lane s is Σ ξ̃U_k·Ext2E[k]: α = (s − z_e)·M̃^{-1} (mod m_e)
      alpha = k.me.alpha(dot_pow2(sum.s), e.ze);
    } else {
      // α = ⌊(Σ trunc(ξ̃U_k) + Φ) / 2^16⌋, below 2^16·(n+1) before the shift
      uint32_t g = k.phi;
#pragma unroll
      for (int p = 0; p < Sh::Pairs; ++p) g = __dp2a_lo(w[p] & k.kawMask2, channel_ones<N>(p), g);
      alpha = g >> 16;
    }
  }
  template <int P>
  ECM_DEVICE void share_alpha(uint32_t (&alpha)[P]) const {
    if (V == BaseExt::Shenoy) ex.share_alpha(alpha);
  }
  // dot_mod < 2^30 + 2^16 and α·NegMtB < 2^5·2^16: the sum stays below 2^31
  ECM_DEVICE void finish(const Sum& sum, uint32_t alpha, const Partial& e, Residue& z) const {
    z.b = select(k.eMask, e.ze, k.mB.reduce(dot_mod(sum.s, k.mB) + alpha * k.negMtB));
  }
};

// wide_dot returns init + Σ_k w_k·e_k over N terms, as two chains of
// alternate terms added at the end: the same sum (so the same proved bound)
// with half the dependent multiply-adds, for the latency of one item.
template <int N, int L>
ECM_DEVICE uint64_t wide_dot(const uint32_t (&w)[L], const uint32_t (&e)[N], uint64_t init) {
  static_assert(N <= L, "row shorter than its constants");
  uint64_t even = init, odd = 0;
#pragma unroll
  for (int kk = 0; kk < N; ++kk) {
    if (kk % 2 == 0) {
      even = mad_wide(w[kk], e[kk], even);
    } else {
      odd = mad_wide(w[kk], e[kk], odd);
    }
  }
  return even + odd;
}

// wide_alpha returns the second extension's α = ⌊Σ_k ξ̃_k/m̃_k⌋ of one item
// from its whole row of ξ̃ (w[k], k < n), as pair_alpha finds it: the ξ̃ in
// four sums S_l (channels k < 8 with k mod 4 = l, channel 8 in S_0), and
// α = ⌊(Σ_l ⌊S_l/2^24⌋ + Φ)/2^6⌋ (rns.Params.PairAlpha is its model, half
// 0; "pair α …" in `ecmul params` proves it exact for every output below u).
template <int N, int L>
ECM_DEVICE uint32_t wide_alpha(const uint32_t (&w)[L], uint32_t phi) {
  static_assert(N <= 9 && N <= L, "three ξ̃ at most in each of the four sums (rns pairAlphaMostTerms)");
  uint32_t sum[4] = {0, 0, 0, 0};
#pragma unroll
  for (int kk = 0; kk < N; ++kk) sum[kk < 8 ? kk % 4 : 0] += w[kk];
  return ((sum[0] >> 24) + (sum[1] >> 24) + (sum[2] >> 24) + (sum[3] >> 24) + phi) >> 6;
}

// The steps of wide channels: each sum of products of 30-bit residues in
// one 64-bit accumulator (at most n + 1 terms below 2^60: rns.Params proves
// the sum below 2^64). Every lane finds α from the whole row of ξ̃ it holds
// (wide_alpha): B̃ ends with 2^30, so M̃ is even and Shenoy's α on m_e,
// which needs M̃^{-1} mod m_e, is not to be had; the m_e lane keeps z_e.
template <int N, Mapping M, int K>
struct StepsWide {
  using Value = Residue;
  using Alpha = uint32_t;
  using Sh = Shape<N, M, 30>;
  struct Step1 {
    uint32_t te, pt, q;  // x_e·y_e (mod 2^32), P̃_j mod m̃_j, q_j
  };
  struct Partial {
    uint32_t ze;
  };
  struct Sum {
    uint64_t s;
  };
  const WideLaneConsts<N, M>& k;
  const Exchange<N, M, K, 30>& ex;

  // The B residues are twisted (rns.Params.Twist): q_j = x̂_j·ŷ_j mod m_j.
  ECM_DEVICE Step1 first_step(const Residue& x, const Residue& y, int i) const {
    const uint64_t xy = mad_wide(x.b, y.b, 0);
    const uint32_t q = k.mB.reduce(xy);
    ex.put(0, i, q);
    return Step1{k.me.product(uint32_t(xy)), k.mT.reduce(mad_wide(x.t, y.t, 0)), q};
  }
  template <int P>
  ECM_DEVICE void exchange_q() const {
    ex.sync();
  }
  ECM_DEVICE void first_extension(int i, const Step1& s, Residue& z, Partial& e) const {
    uint32_t w[4 * Sh::Vecs];
    ex.row(0, i, s.q, w);
    const uint64_t a = wide_dot(w, k.ext1, mad_wide(s.pt, k.tj, 0));
    z.t = k.mT.reduce(a);
    e.ze = k.me.z(uint32_t(a), s.te);
    ex.put(1, i, z.t);
  }
  template <int P>
  ECM_DEVICE void exchange_xi() const {
    ex.sync();
  }
  ECM_DEVICE void second_extension(int i, const Residue& z, const Partial&, Sum& sum, uint32_t& alpha) const {
    uint32_t w[4 * Sh::Vecs];
    ex.row(1, i, z.t, w);
    sum.s = wide_dot(w, k.ext2, 0);
    alpha = wide_alpha<N>(w, k.phi);
  }
  template <int P>
  ECM_DEVICE void share_alpha(uint32_t (&)[P]) const {}  // second_extension finds α on every lane
  ECM_DEVICE void finish(const Sum& sum, uint32_t alpha, const Partial& e, Residue& z) const {
    z.b = select(k.eMask, e.ze, k.mB.reduce(mad_wide(alpha, k.negMtB, sum.s)));
  }
};

// The steps of the tile mapping: the 16-bit steps with both sums on the
// tensor cores, through shared memory. Every lane finds α itself from its
// item's m_e column and the z_e the m_e lane left in shared memory.
template <int N, int K>
struct StepsTile {
  using Value = Residue;
  using Alpha = uint32_t;
  struct Step1 {
    uint32_t te, pt;
  };
  struct Partial {
    uint32_t ze;
  };
  struct Sum {
    int4 d;  // the four byte sums of this lane's output
  };
  const LaneConsts<N, Mapping::Tile>& k;
  const TileExchange<N, K>& ex;

  ECM_DEVICE Step1 first_step(const Residue& x, const Residue& y, int i) const {
    const uint32_t xy = x.b * y.b;
    ex.put(i, k.mB.q(xy, k.negR));
    return Step1{k.me.product(xy), x.t * y.t};
  }
  template <int P>
  ECM_DEVICE void exchange_q() const {
    ex.sync();
    ex.template products<P>(0);
    ex.sync();
  }
  // ξ̃U_j = Σ q_k·Ext1[j][k]·S_j·T_j + P̃_j·T_j (P̃_j in 16-bit halves); on m_e, z_e
  ECM_DEVICE void first_extension(int i, const Step1& s, Residue& z, Partial&) const {
    const int4 d = ex.get(i, ex.lane);
    z.t = k.mT.reduce(tile_mod(d, k.mT) + k.mT.reduce((s.pt & 0xffff) * k.tLo) + k.mT.reduce((s.pt >> 16) * k.tHi));
    if (ex.lane == N) ex.ze[i][ex.item] = k.me.z(tile_pow2(d), s.te);
    ex.put(i, z.t);
  }
  template <int P>
  ECM_DEVICE void exchange_xi() const {
    ex.sync();
    ex.template products<P>(1);
    ex.sync();
  }
  // α = (Σ ξ̃U_k·Ext2E[k] − z_e)·M̃^{-1} mod m_e
  ECM_DEVICE void second_extension(int i, const Residue&, Partial& e, Sum& sum, uint32_t& alpha) const {
    e.ze = ex.ze[i][ex.item];
    alpha = k.me.alpha(tile_pow2(ex.get(i, N)), e.ze);
    sum.d = ex.get(i, ex.lane);
  }
  template <int P>
  ECM_DEVICE void share_alpha(uint32_t (&)[P]) const {}
  ECM_DEVICE void finish(const Sum& sum, uint32_t alpha, const Partial& e, Residue& z) const {
    z.b = select(k.eMask, e.ze, k.mB.reduce(tile_mod(sum.d, k.mB) + alpha * k.negMtB));
  }
};

// ---------------------------------------------------------------------------
// The mma and pair mappings: the base extensions of wide channels as 8-bit
// integer matrix products on the tensor cores (mma.sync, u8 × u8 → s32),
// whose fragments are the registers of the lanes that own the channels.
//
// The mma mapping: a warp holds 8 items of 4 lanes: lane t of group g (warp
// lane 4g + t) holds slots t, t + 4 and t + 8 of item g, where slot j < n is
// channel j of B and of B̃, slot n is m_e (its B residue) and the slots
// above are padding. For one extension, with v_k the residues of the inputs
// (k < n) and e_ok the constants of output o (a channel of the other base,
// or m_e for o = n), Σ_k v_k·e_ok ≡ lo + 2^16·mid + 2^32·hi (mod m_o) from
// the eight byte sums
// D_r[g] = Σ_k Σ_h byte_(h+2r)(v_k)·byte_g(2^(8h)·e_ok mod m_o), h, r ∈ {0, 1},
// g < 4 (basext.FragmentSum is its CPU model; rns.Params proves every sum
// exact in s32 and the recombination within its words). The matrices are
// laid out so that what the instruction takes and gives is what each lane
// already holds:
//  - A (16 × K): row g holds bytes 0 and 1 of item g's residues, row g + 8
//    bytes 2 and 3; columns 4t … 4t + 3, which lane t supplies, are the two
//    halves of slots t and t + 4, and columns 16 + 4t … those of slot t + 8
//    (m16n8k32, where some slot t + 8 is a channel; m16n8k16 otherwise).
//  - B (K × 8) of tile pair p: column c is output 4p + c/2, byte c mod 2 of
//    its constants in the first tile, byte 2 + c mod 2 in the second.
//  - D: lane t receives columns 2t and 2t + 1 of rows g and g + 8 of each
//    tile, so the two tiles of pair p give it all eight sums of output
//    4p + t: its own slot p.
// Each lane finds α from the top bits of its item's ξ̃, summed over the item's
// lanes by two shuffles (StepsFrag::frag_alpha); nothing goes through shared
// memory and nothing waits at a barrier.
//
// The pair mapping (PairShape) puts two items in each group of 4 lanes, 16
// in a warp, so that a lane's slots hold no padding; A's rows are items.

// mma_u8 returns the 16 × 8 s32 product of the A and B fragments (no
// accumulator): m16n8k32 with four A registers, m16n8k16 with two.
template <int AW, int BW>
ECM_DEVICE void mma_u8(int32_t (&d)[4], const uint32_t (&a)[AW], const uint32_t (&b)[BW]) {
  static_assert((AW == 4 && BW == 2) || (AW == 2 && BW == 1), "m16n8k32 or m16n8k16");
#if defined(__CUDA_ARCH__)
  if constexpr (AW == 4) {
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(0));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(0));
  }
#elif defined(ECM_EMULATION)
  ecm_emulate_mma_u8(d, a, b, false);
#endif
}

// mma_u8_add adds the m16n8k32 or m16n8k16 product of the A and B fragments
// to d.
template <int AW, int BW>
ECM_DEVICE void mma_u8_add(int32_t (&d)[4], const uint32_t (&a)[AW], const uint32_t (&b)[BW]) {
  static_assert((AW == 4 && BW == 2) || (AW == 2 && BW == 1), "m16n8k32 or m16n8k16");
#if defined(__CUDA_ARCH__)
  if constexpr (AW == 4) {
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  }
#elif defined(ECM_EMULATION)
  ecm_emulate_mma_u8(d, a, b, true);
#endif
}

// frag_combine returns lo + 2^16·mid + 2^32·hi of one output from its two
// tiles' sums (d: bytes 0 and 1 of the constants, e: bytes 2 and 3; rows g
// then g + 8), each word below 2^32 and the whole below 2^61 (rns.Params).
// With ByteMoves, 2^16·mid is added by byte moves on the ALU pipe
// (add_shl16), else by one multiply-add on the FMA pipe: at 2^20 items on
// an H100 the byte moves ran P-224 1.8% faster and the 256-bit curves 0.4%
// slower (bench/h100/2026-11-28-mma-block-init/, call WW).
template <bool ByteMoves>
ECM_DEVICE uint64_t frag_combine(const int32_t (&d)[4], const int32_t (&e)[4]) {
  const uint32_t lo = uint32_t(d[0]) + (uint32_t(d[1]) << 8);
  const uint32_t mid = uint32_t(e[0] + d[2]) + (uint32_t(e[1] + d[3]) << 8);
  const uint32_t hi = uint32_t(e[2]) + (uint32_t(e[3]) << 8);
  if constexpr (ByteMoves) return add_shl16(uint64_t(hi) << 32 | lo, mid);
  return mad_wide(mid, 1u << 16, uint64_t(hi) << 32 | lo);
}

// pair_split returns one output's sum s = Σ_g 2^(8g)·D_g from its four byte
// sums D_g, each below 2^22 (rns.Params: "pair …"), as the two words that
// Channel<30>::fold_split reduces with no 64-bit step: lo = D_0 + 2^8·D_1 and
// hi = D_2 + 2^8·D_3, below 2^31, give s = lo + 2^16·hi, below 2^47, as its
// low word lo + 2^16·hi mod 2^32 and s >> 30 = (hi + ⌊lo/2^16⌋) >> 14, which
// no carry chain links. At 2^20 items on an H200 these 32-bit words ran
// P-256 5.5% faster than a 64-bit add of 2^16·hi by byte moves, which ran 3%
// faster than a multiply-add by 2^16 (bench/h200/2026-11-28-pair/).
ECM_DEVICE uint2 pair_split(int32_t d0, int32_t d1, int32_t d2, int32_t d3) {
  const uint32_t lo = uint32_t(d0) + (uint32_t(d1) << 8), hi = uint32_t(d2) + (uint32_t(d3) << 8);
  return uint2{lo + (hi << 16), (hi + (lo >> 16)) >> 14};
}

// frag_const returns 2^(8h)·e_o,kk of extension ext (1 or 2), reduced mod
// output o's modulus (mod 2^32 for m_e, o = n), and 0 for padding outputs:
// Ext1[o][kk]·S_o·T_o mod m̃_o and Ext1E, or Ext2[o][kk] mod m_o and Ext2E.
template <int N>
ECM_DEVICE uint32_t frag_const(const uint32_t* __restrict__ k, int ext, int o, int kk, int h) {
  using L = Layout<N>;
  if (o > N) return 0;
  if (o == N) return k[(ext == 1 ? L::Ext1E : L::Ext2E) + kk] << (8 * h);
  if (ext == 1) {
    const Channel<30> m = Channel<30>::make(k[L::ModBT + o], k[L::CBT + o]);
    const uint32_t st = m.reduce(uint64_t(k[L::S + o]) * k[L::T + o]);
    const uint32_t e = m.reduce(uint64_t(k[L::Ext1 + o * N + kk]) * st);
    return m.reduce(uint64_t(e) << (8 * h));
  }
  const Channel<30> m = Channel<30>::make(k[L::ModB + o], k[L::CB + o]);
  return m.reduce(uint64_t(k[L::Ext2 + o * N + kk]) << (8 * h));
}

// const_byte returns byte g of frag_const.
template <int N>
ECM_DEVICE uint32_t const_byte(const uint32_t* __restrict__ k, int ext, int o, int kk, int h, int g) {
  return frag_const<N>(k, ext, o, kk, h) >> (8 * g) & 0xff;
}

// The layout of the mma mapping (above): which slot of a lane holds which
// channel role, and the words of B each lane keeps for the block.
template <int N>
struct FragShape {
  static constexpr int Halves = 1;               // items per lane
  static constexpr int Slots = (N + 1 + 3) / 4;  // slots per lane: n channels and m_e over 4 lanes
  static constexpr int ConstSlots = Slots;       // slots with constants of their own
  static constexpr int ChanSlots = (N + 3) / 4;  // the slots holding a channel on some lane; above, m_e alone
  static constexpr bool K32 = N > 8;             // slot t + 8 holds a channel on some lane
  static constexpr int AWords = K32 ? 4 : 2;     // A fragment registers (m16n8k32 or m16n8k16)
  static constexpr int ELane = N % 4, ESlot = N / 4;  // where m_e lives
  static constexpr int Tiles = 2 * Slots * 2;    // extension, tile pair, half
  using BWord = uint2;                           // a lane's B registers of one tile (.y unused for m16n8k16)

  ECM_DEVICE static constexpr int const_slot(int s) { return s; }
  ECM_DEVICE static constexpr int half(int, int) { return 0; }
  // role returns the channel role of constant slot cs on lane t: n is m_e, above n padding.
  ECM_DEVICE static constexpr int role(int cs, int t) { return 4 * cs + t; }

  // b_word returns lane l = 4g + t's B registers of a tile: column g
  // (output 4p + g/2, byte 2h + g mod 2 of the constants) at rows 4t … 4t + 3
  // (+ 16 in .y): halves i mod 2 of slots t and t + 4 (of slot t + 8 in .y,
  // whose upper pair is empty).
  ECM_DEVICE static BWord b_word(const uint32_t* __restrict__ k, int tile, int lane) {
    const int t = lane & 3, g = lane >> 2;
    const int ext = 1 + tile / (2 * Slots), p = tile / 2 % Slots, h = tile % 2;
    const int o = 4 * p + (g >> 1), byte = 2 * h + (g & 1);
    uint32_t w[2] = {0, 0};
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int half = i / 4, e = i % 4 >> 1, kk = t + 4 * e + 8 * half;
      if ((half == 1 && e == 1) || (half == 1 && !K32) || kk >= N) continue;
      w[half] |= const_byte<N>(k, ext, o, kk, i & 1, byte) << (8 * (i % 4));
    }
    return BWord{w[0], w[1]};
  }
};

// The layout of the pair mapping: 16 items per warp, two in each group of
// 4 lanes. Lane t of group g holds items g and g + 8 of its warp (its
// halves 0 and 1):
//  - slots 0 and 1: channels t and t + 4 of item g; slots 2 and 3: the same
//    channels of item g + 8;
//  - slot 4: of item g + 8·(t mod 2), channel 8 where n = 9 on lanes 0 and
//    1; the products keep no m_e (pair_alpha finds α), so slot 4 of the
//    other lanes, and of every lane for n = 8, is not used.
// Slots of one channel share its constants (constant slots 0, 1 and 2).
// For one extension of 16 items:
//  - A (16 × 32, m16n8k32): row r is item r of the warp and column 4j + h
//    byte h of its channel j < 8, so lane t's four registers are its slots
//    0, 2, 1 and 3 as they are; channel 8 (n = 9) is an m16n8k16 beside it,
//    whose A holds item g's at columns 0 … 3 of row g (lane 0's slot 4) and
//    item g + 8's at columns 4 … 7 of row g + 8 (lane 1's); in the second
//    extension also α of item g at column 8 of row g (lane 2's) and of item
//    g + 8 at column 12 of row g + 8 (lane 3's), zeros elsewhere. That
//    m16n8k16 runs for n = 8 too, in the second extension only.
//  - B of tile pair p: column c is the output of lane c/2's constant slot
//    p, row 4j + h of it byte 2·hh + c mod 2 of 2^(8h)·e_oj mod m_o in tile
//    hh of the pair; channel 8's B the same at rows 4t + h for t < 2, and
//    the second extension's rows 8 and 12 byte 2·hh + c mod 2 of
//    |−M̃·σ_o|_{m_o}, the constant of α.
//  - D: lane t receives columns 2t and 2t + 1 of rows g and g + 8: of its
//    constant slot p's output, bytes 2·hh and 2·hh + 1 of the constants
//    for both items, and Σ_g 2^(8g)·D_g ≡ Σ_j v_j·e_oj (mod m_o)
//    (basext.PairSum is its CPU model, basext.PairSecondSum the second
//    extension's with α).
//  - The first extension's tile pairs 0 and 1 add P̃_j·T_j of their
//    channels with one more m16n8k32 per tile, whose A holds P̃_j's eight
//    bytes and whose B is diagonal (FragConsts::load_pt_b).
template <int N>
struct PairShape {
  static_assert(N == 8 || N == 9, "channels t and t + 4 on every lane, channel 8 in slot 4");
  static constexpr int Halves = 2, Slots = 5, ConstSlots = 3;
  static constexpr int ChanSlots = N > 8 ? 5 : 4;  // slot 4 holds no channel where n = 8
  static constexpr bool K16 = N > 8;                // channel 8 on an m16n8k16 in both extensions
  static constexpr int ESlot = 4, ELane = N > 8 ? 2 : 0;
  static constexpr int Tiles = 2 * ConstSlots * 2;  // extension, tile pair, half
  using BWord = uint4;                              // m16n8k32's two registers, m16n8k16's one

  ECM_DEVICE static constexpr int const_slot(int s) { return s < 4 ? s & 1 : 2; }
  ECM_DEVICE static constexpr int half(int s, int t) { return s < 4 ? s >> 1 : t & 1; }
  ECM_DEVICE static constexpr int role(int cs, int t) { return cs < 2 ? t + 4 * cs : t < ELane ? 8 : N; }

  // b_word returns lane l = 4c + t's B registers of a tile: column c at
  // rows 4t … 4t + 3 (.x: channel t's bytes h = 0 … 3) and 16 + 4t … (.y:
  // channel t + 4's), and channel 8's B at rows 4t … (.z, t < 2).
  ECM_DEVICE static BWord b_word(const uint32_t* __restrict__ k, int tile, int lane) {
    const int t = lane & 3, c = lane >> 2;
    const int ext = 1 + tile / (2 * ConstSlots), p = tile / 2 % ConstSlots, byte = 2 * (tile % 2) + (c & 1);
    const int o = role(p, c >> 1);
    uint32_t w[3] = {0, 0, 0};
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      w[0] |= const_byte<N>(k, ext, o, t, h, byte) << (8 * h);
      w[1] |= const_byte<N>(k, ext, o, t + 4, h, byte) << (8 * h);
      if (K16 && t < 2) w[2] |= const_byte<N>(k, ext, o, 8, h, byte) << (8 * h);
    }
    // the second extension's row 4t of lanes t = 2, 3: |−M̃·σ_o|_{m_o}, times
    // the α that pair_alpha puts in A's column 4t
    if (ext == 2 && t >= 2 && o < N) w[2] = k[Layout<N>::NegMtB + o] >> (8 * byte) & 0xff;
    return BWord{w[0], w[1], w[2], 0};
  }
};

// A lane's value in the mma and pair mappings: one Residue per slot.
template <int S>
struct Slots {
  Residue s[S];
};

// One swap mask per slot (the pair mapping: its slots belong to two items).
template <int S>
struct SlotMasks {
  uint32_t m[S];
};

template <int S>
ECM_DEVICE void cswap(Slots<S>& a, Slots<S>& b, uint32_t mask) {
#pragma unroll
  for (int i = 0; i < S; ++i) cswap(a.s[i], b.s[i], mask);
}

template <int S>
ECM_DEVICE void cswap(Slots<S>& a, Slots<S>& b, const SlotMasks<S>& mask) {
#pragma unroll
  for (int i = 0; i < S; ++i) cswap(a.s[i], b.s[i], mask.m[i]);
}

template <int S>
ECM_DEVICE Slots<S> select_residue(uint32_t mask, const Slots<S>& a, const Slots<S>& b) {
  Slots<S> r;
#pragma unroll
  for (int i = 0; i < S; ++i) r.s[i] = select_residue(mask, a.s[i], b.s[i]);
  return r;
}

template <int S>
ECM_DEVICE Slots<S> select_residue(const SlotMasks<S>& mask, const Slots<S>& a, const Slots<S>& b) {
  Slots<S> r;
#pragma unroll
  for (int i = 0; i < S; ++i) r.s[i] = select_residue(mask.m[i], a.s[i], b.s[i]);
  return r;
}

// The shared memory of an mma or pair block: the B fragments of both
// extensions, lane by lane (every warp reads the same), and the addition
// constants by channel role and by constant slot.
template <int N, int AddConsts, class F>
struct FragSharedState {
  typename F::BWord b[F::Tiles][kWarpLanes];  // B of each tile: lane l's registers
  uint2 addK[AddConsts][N + 1];                // [constant][channel role]
  uint2 addKSlot[AddConsts][F::ConstSlots][4];  // [constant][constant slot][lane t]

  // init builds B and the addition constants by slot. Every thread of the
  // block builds its share of the words, so that the block's warps wait at
  // its first barrier for a few of them each.
  ECM_DEVICE void init(const uint32_t* __restrict__ k, int tid) {
    for (int word = tid; word < F::Tiles * int(kWarpLanes); word += blockDim.x)
      b[word / kWarpLanes][word % kWarpLanes] = F::b_word(k, word / kWarpLanes, word % kWarpLanes);
    for (int w = tid; w < AddConsts * F::ConstSlots * 4; w += blockDim.x) {
      const int kc = w / (F::ConstSlots * 4), cs = w / 4 % F::ConstSlots, j = F::role(cs, w % 4), role = j < N ? j : N;
      const uint32_t* e = k + Consts<N>::AddConst + kc * Consts<N>::ElementWords;
      addKSlot[kc][cs][w % 4] = role < N ? uint2{e[role], e[N + role]} : uint2{e[2 * N], 0};
    }
  }
};

// The constants of one lane of the mma or pair mapping, per constant slot.
// Constant slots 0 and 1 are channels on every lane (n >= 8); slot 2 is a
// channel, m_e or padding.
template <int N, class F>
struct FragConsts {
  static constexpr int S = F::ConstSlots;
  Channel<30> mB[S], mT[S];  // the slot's channels of B and B̃ (m_e in mB on its slot)
  uint32_t negMtB[S];
  uint32_t tj[S], tj32[S];  // T_j and 2^32·T_j mod m̃_j (0 off the channels): P̃_j·T_j joins the first sum
  uint32_t ptB[2][2][2];    // pair: B of P̃_j·T_j on the tensor cores, [tile pair][tile][register] (load_pt_b)
  uint32_t chan2, me2;      // all ones where slot 2 is a channel, where it is m_e
  MeChannel me;
  uint32_t odd;         // pair: all ones on lanes 1 and 3, whose slot 4 is of item g + 8
  uint32_t k16Lane[2];  // pair: all ones on lane 0, on lane 1 (channel 8's A)
  uint32_t phi;         // mma: Φ (frag_alpha)
  uint32_t phi2;        // pair: Φ in both halves of a word (pair_alpha)
  int quad[2];          // lanes l ^ 1 and l ^ 2, the lane's group partners (frag_alpha, pair_alpha)
  uint32_t alphaSel[2];  // pair: the byte selections that put α into A's rows g and g + 8 (pair_alpha)

  // chan is all ones where constant slot s is a channel: the residues an extension reads.
  ECM_DEVICE uint32_t chan(int s) const { return s < 2 ? ~0u : chan2; }
  // eMask is all ones where constant slot s is m_e.
  ECM_DEVICE uint32_t eMask(int s) const { return s < 2 ? 0u : me2; }

  // load reads the constants of warp lane l.
  ECM_DEVICE void load(const uint32_t* __restrict__ k, int l) {
    static_assert(S == 3 && N >= 8, "three constant slots per lane: n from 8 to 11");
    using L = Layout<N>;
    const int t = l & 3;
    me.load<N>(k);
    require_wide_base<N>(k);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const int j = F::role(s, t), jj = j < N ? j : 0;
      mB[s] = Channel<30>::make(j == N ? me.mask + 1 : k[L::ModB + jj], k[L::CB + jj]);
      mT[s] = Channel<30>::make(k[L::ModBT + jj], k[L::CBT + jj]);
      negMtB[s] = k[L::NegMtB + jj];
      tj[s] = j < N ? k[L::T + jj] : 0;
      tj32[s] = mT[s].reduce(uint64_t(tj[s]) << 32);
    }
    chan2 = opaque(F::role(2, t) < N ? ~0u : 0u);
    me2 = opaque(F::role(2, t) == N ? ~0u : 0u);
    odd = opaque(t & 1 ? ~0u : 0u);
    k16Lane[0] = opaque(t == 0 ? ~0u : 0u);
    k16Lane[1] = opaque(t == 1 ? ~0u : 0u);
    phi = k[L::Phi];
    phi2 = phi * 0x10001u;
    quad[0] = l ^ 1;
    quad[1] = l ^ 2;
    alphaSel[0] = opaque(t == 2 ? 0x0004u : 0x3210u);
    alphaSel[1] = opaque(t == 3 ? 0x0006u : 0x3210u);
    if constexpr (F::Halves == 2) load_pt_b(l);
  }

  // load_pt_b builds the pair mapping's B of the first extension's term
  // P̃_j·T_j (frag_extend): A holds the eight bytes of each P̃_j of channel
  // t + 4p, the low word at columns 4t … 4t + 3 and the high word at 16 + 4t
  // …, and B is diagonal: lane l = 4c + t keeps column c at rows 4t … (register
  // 0) and 16 + 4t … (register 1), nonzero only where column c is an output
  // of lane t itself (c/2 = t): row byte h holds byte 2·hh + c mod 2 of
  // 2^(8h)·T_j mod m̃_j, h < 8, in tile hh of pair p.
  ECM_DEVICE void load_pt_b(int l) {
    const int t = l & 3, c = l >> 2;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int byte = 2 * hh + (c & 1);
        uint32_t w[2] = {0, 0};
        for (int h = 0; h < 8 && c >> 1 == t; ++h) {
          const uint32_t e = mT[p].reduce(uint64_t(h < 4 ? tj[p] : tj32[p]) << (8 * (h % 4)));
          w[h / 4] |= (e >> (8 * byte) & 0xff) << (8 * (h % 4));
        }
        ptB[p][hh][0] = w[0];
        ptB[p][hh][1] = w[1];
      }
    }
  }
};

// The view of the block's shared state one lane takes: its column of every
// B and its addition constants.
template <class F>
struct FragExchange {
  const typename F::BWord* b;  // &FragSharedState::b[0][lane]: tile i at b[kWarpLanes·i]
  const uint2* addK;           // &FragSharedState::addKSlot[0][0][t]: constant K, slot s at addK[4·(K·ConstSlots + s)]
  template <class Sh>
  ECM_DEVICE void attach(Sh& sh, int, int, int tid) {
    b = &sh.b[0][tid % kWarpLanes];
    addK = &sh.addKSlot[0][0][tid & 3];
  }
};

// frag_extend returns in sum[p] the extension's sum of output 4p + t for
// this lane's item, from the inputs v of the lane's slots (zero off the
// channels) and the extension's B tiles b[32·(2p + h)].
template <int N>
ECM_DEVICE void frag_extend(const FragConsts<N, FragShape<N>>&, const uint2* b, const uint32_t (&v)[FragShape<N>::Slots],
                            uint64_t (&sum)[FragShape<N>::Slots]) {
  using F = FragShape<N>;
  uint32_t a[F::AWords];
  a[0] = __byte_perm(v[0], v[1], 0x5410);  // row g: bytes 0 and 1 of slots t and t + 4
  a[1] = __byte_perm(v[0], v[1], 0x7632);  // row g + 8: bytes 2 and 3
  if constexpr (F::K32) {
    a[2] = v[2] & 0xffff;  // slot t + 8, the upper column of the pair empty
    a[3] = v[2] >> 16;
  }
#pragma unroll
  for (int p = 0; p < F::Slots; ++p) {
    int32_t d[4], e[4];
    const uint2 lo = b[kWarpLanes * (2 * p)], hi = b[kWarpLanes * (2 * p + 1)];
    if constexpr (F::K32) {
      mma_u8(d, a, {lo.x, lo.y});
      mma_u8(e, a, {hi.x, hi.y});
    } else {
      mma_u8(d, a, {lo.x});
      mma_u8(e, a, {hi.x});
    }
    sum[p] = frag_combine<!F::K32>(d, e);  // P-224, on m16n8k16 tiles
  }
}

// frag_extend of the pair mapping: in sum[s] the extension's sum of the
// output of slot s as pair_split's words, from the inputs v of the lane's
// slots 0 … 3, the m16n8k16 operand a16 (channel 8 on lanes 0 and 1, α on
// lanes 2 and 3; only where K16) and the extension's B tiles b[32·(2p +
// hh)]; with PT (the first extension) also P̃_j·T_j of the channels of
// slots 0 … 3 from pt, their products x̃_j·ỹ_j: those of tile pair p's
// channel t + 4p (slots p and p + 2) are A's bytes, their B diagonal
// (FragConsts::load_pt_b).
template <int N, bool K16, bool PT>
ECM_DEVICE void frag_extend(const FragConsts<N, PairShape<N>>& k, const uint4* b, const uint32_t (&v)[5],
                            const uint32_t (&a16)[2], const uint64_t* pt, uint2 (&sum)[5]) {
  using F = PairShape<N>;
  const uint32_t a[4] = {v[0], v[2], v[1], v[3]};  // rows g and g + 8 of channel t, then of channel t + 4
#pragma unroll
  for (int p = 0; p < F::ConstSlots; ++p) {
    int32_t d[4], e[4];
    const uint4 lo = b[kWarpLanes * (2 * p)], hi = b[kWarpLanes * (2 * p + 1)];
    if (PT && p < 2) {  // items g and g + 8: low words at rows g, g + 8, then high words
      const uint32_t ap[4] = {uint32_t(pt[p]), uint32_t(pt[p + 2]), uint32_t(pt[p] >> 32), uint32_t(pt[p + 2] >> 32)};
      mma_u8(d, ap, k.ptB[p][0]);
      mma_u8(e, ap, k.ptB[p][1]);
      mma_u8_add(d, a, {lo.x, lo.y});
      mma_u8_add(e, a, {hi.x, hi.y});
    } else {
      mma_u8(d, a, {lo.x, lo.y});
      mma_u8(e, a, {hi.x, hi.y});
    }
    if constexpr (K16) {
      mma_u8_add(d, a16, {lo.z});
      mma_u8_add(e, a16, {hi.z});
    }
    if (p < 2) {
      sum[p] = pair_split(d[0], d[1], e[0], e[1]);      // item g
      sum[p + 2] = pair_split(d[2], d[3], e[2], e[3]);  // item g + 8
    } else {
      sum[4] = pair_split(select(k.odd, d[2], d[0]), select(k.odd, d[3], d[1]), select(k.odd, e[2], e[0]),
                          select(k.odd, e[3], e[1]));
    }
  }
}

// channel8_a returns A's m16n8k16 operand of channel 8 from slot 4: item
// g's at row g from lane 0, item g + 8's at row g + 8 from lane 1, zero
// elsewhere (and everywhere where n = 8).
template <int N>
ECM_DEVICE void channel8_a(const FragConsts<N, PairShape<N>>& k, uint32_t v4, uint32_t (&a16)[2]) {
  a16[0] = N > 8 ? v4 & k.k16Lane[0] : 0u;
  a16[1] = N > 8 ? v4 & k.k16Lane[1] : 0u;
}

// pair_alpha adds to A's m16n8k16 operand (channel8_a's) the α of the second
// extension of each of the lane's two items, so that the tensor cores add
// α·|−M̃·σ_j| to every output j (PairShape::b_word's rows 8 and 12):
// α = ⌊(Σ_l ⌊S_l/2^24⌋ + Φ)/2^6⌋, S_l the sum of the item's ξ̃ on lane l of
// its group (rns.Params: "pair α …" proves it the exact α of the CRT,
// ⌊Σ_k ξ̃_k/m̃_k⌋, for every output below u). The two items' sums travel as
// the halves of one word, summed over the group by two shuffles; α of item
// g goes to lane 2's column 8 of row g, α of item g + 8 to lane 3's column 12
// of row g + 8.
template <int N>
ECM_DEVICE void pair_alpha(const FragConsts<N, PairShape<N>>& k, const uint32_t (&v)[5], uint32_t (&a16)[2]) {
  const uint32_t sg = v[0] + v[1] + a16[0], sh = v[2] + v[3] + a16[1];
  uint32_t sum = (sg >> 24) | (sh >> 24) << 16;
  sum += __shfl_sync(~0u, sum, k.quad[0], kWarpLanes);
  sum += __shfl_sync(~0u, sum, k.quad[1], kWarpLanes);
  const uint32_t alpha = (sum + k.phi2) >> 6;  // byte 0: α of item g; byte 2: of item g + 8
  a16[0] = __byte_perm(a16[0], alpha, k.alphaSel[0]);
  a16[1] = __byte_perm(a16[1], alpha, k.alphaSel[1]);
}

// The steps of the mma and pair mappings: the wide steps per slot, both
// extensions from frag_extend. Both find α from the ξ̃'s top bits: the mma
// mapping on every lane of its item (frag_alpha), the pair mapping for both
// of a lane's items before the second extension (pair_alpha), which adds
// α·|−M̃| on the tensor cores; the pair mapping keeps no m_e.
template <int N, class F>
struct StepsFrag {
  static constexpr int S = F::Slots;
  static constexpr bool Pair = F::Halves == 2;
  using Value = Slots<S>;
  using Alpha = uint32_t;  // the mma mapping's α (the pair mapping's joins the second extension's sum)
  struct Step1 {
    uint32_t q[S];   // zero off the channels, A's padding (but in the pair mapping's slot 4, which A's masks skip)
    uint64_t pt[S];  // P̃_j unreduced: below 2^60, or 2^64 from a lazy sum (pair)
    uint32_t te;     // x_e·y_e (mod 2^32) on the m_e slot (mma)
  };
  struct Partial {
    uint32_t ze;  // z_e (mma)
  };
  struct Sum {
    std::conditional_t<Pair, uint2, uint64_t> a[S];  // pair: pair_split's words
  };
  const FragConsts<N, F>& k;
  const FragExchange<F>& ex;

  // top_slot reports whether slot s holds B̃'s last channel, 2^30, in 32-bit
  // words: the pair mapping's slot 4 where n = 9 (on lanes 2 and 3 it holds
  // no channel, and its words are not read).
  static ECM_DEVICE constexpr bool top_slot(int s) { return Pair && N == 9 && s == 4; }

  ECM_DEVICE Step1 first_step(const Value& x, const Value& y, int) const {
    Step1 r;
    r.te = Pair ? 0u : k.me.product(uint32_t(mad_wide(x.s[F::ESlot].b, y.s[F::ESlot].b, 0)));
#pragma unroll
    for (int s = 0; s < S; ++s) {
      if (s >= F::ChanSlots) {  // m_e or padding: no channel to multiply, and A's padding
        r.q[s] = 0;
        r.pt[s] = 0;
        continue;
      }
      const int c = F::const_slot(s);
      const uint64_t xy = mad_wide(x.s[s].b, y.s[s].b, 0);
      r.q[s] = k.mB[c].reduce(xy);  // twisted B residues: x̂_j·ŷ_j is q_j
      if constexpr (!Pair) r.q[s] &= k.chan(c);  // the pair mapping's A masks slot 4 itself
      // the pair mapping's channel 8 is B̃'s 2^30 (require_wide_base): its
      // product mod 2^32 is enough
      r.pt[s] = top_slot(s) ? uint64_t(x.s[s].t * y.s[s].t) : mad_wide(x.s[s].t, y.s[s].t, 0);
    }
    return r;
  }
  template <int P>
  ECM_DEVICE void exchange_q() const {}
  // ξ̃U_j = Σ q_k·(Ext1[j][k]·S_j·T_j) + P̃_j·T_j (mod m̃_j). The pair
  // mapping adds P̃_j·T_j on the tensor cores (frag_extend) and reduces the
  // sum from pair_split's words ("pair extensions in 32 bits"); the mma
  // mapping takes P̃_j = hi·2^32 + lo as hi·(2^32·T_j) + lo·T_j (rns.Params:
  // "mma 64-bit sum") and on its m_e slot z_e = (Σ q_k·Ext1E[k]·PE +
  // x_e·y_e)·MInvE.
  ECM_DEVICE void first_extension(int, const Step1& st, Value& z, Partial& e) const {
    if constexpr (Pair) {
      uint2 a[S];
      uint32_t a16[2];
      channel8_a<N>(k, st.q[4], a16);
      frag_extend<N, F::K16, true>(k, ex.b, st.q, a16, st.pt, a);
#pragma unroll
      for (int s = 0; s < S; ++s) {
        if (s >= F::ChanSlots) {
          z.s[s].t = 0;
        } else if (top_slot(s)) {  // mod 2^30, from the low words of the sum and of P̃_j·T_j
          z.s[s].t = (a[s].x + uint32_t(st.pt[s]) * k.tj[F::const_slot(s)]) & (ECM_WIDE_TOP - 1);
        } else {
          z.s[s].t = k.mT[F::const_slot(s)].fold_split(a[s]);
        }
      }
      e.ze = 0;
    } else {
      uint64_t a[S];
      frag_extend<N>(k, ex.b, st.q, a);
#pragma unroll
      for (int s = 0; s < S; ++s) {
        if (s >= F::ChanSlots) {  // m_e has no B̃ residue
          z.s[s].t = 0;
          continue;
        }
        const int c = F::const_slot(s);
        const uint64_t u = mad_wide(uint32_t(st.pt[s] >> 32), k.tj32[c], mad_wide(uint32_t(st.pt[s]), k.tj[c], a[s]));
        z.s[s].t = k.mT[c].reduce(u);
      }
      e.ze = k.me.z(uint32_t(a[F::ESlot]), st.te);
    }
  }
  template <int P>
  ECM_DEVICE void exchange_xi() const {}
  // the second extension: on the mma mapping every lane finds α from the
  // ξ̃ it holds; on the pair mapping α enters the tensor cores' sum.
  ECM_DEVICE void second_extension(int, const Value& z, const Partial&, Sum& sum, Alpha& alpha) const {
    uint32_t v[S];
#pragma unroll
    for (int s = 0; s < S; ++s) v[s] = Pair ? z.s[s].t : z.s[s].t & k.chan(s);
    const typename F::BWord* b = ex.b + kWarpLanes * F::Tiles / 2;
    if constexpr (Pair) {
      uint32_t a16[2];
      channel8_a<N>(k, v[4], a16);
      pair_alpha<N>(k, v, a16);
      frag_extend<N, true, false>(k, b, v, a16, nullptr, sum.a);
      alpha = 0;
    } else {
      alpha = frag_alpha(v);
      frag_extend<N>(k, b, v, sum.a);
    }
  }
  // frag_alpha returns the mma mapping's α as pair_alpha finds it: the
  // lane's sum S_t of its item's ξ̃ (channels t and t + 4, and channel 8 on
  // lane 0: pair_alpha's four sums), ⌊S_t/2^24⌋ summed over the group by two
  // shuffles (blocks of whole warps: every lane is there), then
  // ⌊(· + Φ)/2^6⌋.
  ECM_DEVICE uint32_t frag_alpha(const uint32_t (&v)[S]) const {
    uint32_t sum = 0;
#pragma unroll
    for (int s = 0; s < S; ++s) sum += v[s];
    uint32_t t = sum >> 24;
    t += __shfl_sync(~0u, t, k.quad[0], kWarpLanes);
    t += __shfl_sync(~0u, t, k.quad[1], kWarpLanes);
    return (t + k.phi) >> 6;
  }
  template <int P>
  ECM_DEVICE void share_alpha(Alpha (&)[P]) const {}  // second_extension finds each α on every lane
  ECM_DEVICE void finish(const Sum& sum, Alpha alpha, const Partial& e, Value& z) const {
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const int c = F::const_slot(s);
      if constexpr (Pair) {
        z.s[s].b = s >= F::ChanSlots ? 0u : k.mB[c].fold_split(sum.a[s]);  // slot 4 of lanes 2 and 3: unused
      } else {
        z.s[s].b = s >= F::ChanSlots ? e.ze
                                     : select(k.eMask(c), e.ze, k.mB[c].reduce(mad_wide(alpha, k.negMtB[c], sum.a[s])));
      }
    }
  }
};

// steps_of returns the Steps policy of a lane's constants and exchange.
template <BaseExt V, int N, Mapping M, int K>
ECM_DEVICE Steps16<N, V, M, K> steps_of(const LaneConsts<N, M>& k, const Exchange<N, M, K, 16>& ex) {
  return {k, ex};
}
template <BaseExt V, int N, Mapping M, int K>
ECM_DEVICE StepsWide<N, M, K> steps_of(const WideLaneConsts<N, M>& k, const Exchange<N, M, K, 30>& ex) {
  static_assert(V == BaseExt::Shenoy, "wide channels compute Shenoy's α, or α from the ξ̃'s top bits");
  return {k, ex};
}
template <BaseExt V, int N, int K>
ECM_DEVICE StepsTile<N, K> steps_of(const LaneConsts<N, Mapping::Tile>& k, const TileExchange<N, K>& ex) {
  static_assert(V == BaseExt::Shenoy, "the tile mapping computes Shenoy's α");
  return {k, ex};
}
template <BaseExt V, int N, class F>
ECM_DEVICE StepsFrag<N, F> steps_of(const FragConsts<N, F>& k, const FragExchange<F>& ex) {
  static_assert(V == BaseExt::Shenoy, "the mma and pair mappings run as the shenoy entry points");
  return {k, ex};
}

// mont_mul_set computes the P products x_i·y_i of a multiplication set in
// RNS Montgomery form (basext.Multiplier.Mul), each step for every product
// of the set before the next, so that each exchange (and its
// synchronisation) serves them all.
template <class Steps, int P>
ECM_DEVICE void mont_mul_set(const Steps& st, const typename Steps::Value (&x)[P], const typename Steps::Value (&y)[P],
                             typename Steps::Value (&z)[P]) {
  typename Steps::Step1 s1[P];
#pragma unroll
  for (int i = 0; i < P; ++i) s1[i] = st.first_step(x[i], y[i], i);
  st.template exchange_q<P>();
  typename Steps::Partial e[P];
#pragma unroll
  for (int i = 0; i < P; ++i) st.first_extension(i, s1[i], z[i], e[i]);
  st.template exchange_xi<P>();
  typename Steps::Sum sum[P];
  typename Steps::Alpha alpha[P];
#pragma unroll
  for (int i = 0; i < P; ++i) st.second_extension(i, z[i], e[i], sum[i], alpha[i]);
  st.share_alpha(alpha);
#pragma unroll
  for (int i = 0; i < P; ++i) st.finish(sum[i], alpha[i], e[i], z[i]);
}

// ---------------------------------------------------------------------------
// The ladder's sets, from the generated schedule (schedule_gen.cuh).

template <int D, int X, int Y>
struct Mul {};
template <int D, int K, int C1, int S1, int C2, int S2, int C3, int S3, int Lazy>
struct Add {};
template <class... Ops>
struct Set {};  // Set<void, Op...>: the void absorbs the X-macros' leading commas
template <class Muls, class Adds>
struct Step {};
template <class... S>
struct Steps {};
template <int... D>
struct Dsts {};

#define ECM_AS_MUL(d, x, y) , Mul<d, x, y>
#define ECM_AS_ADD(d, k, c1, s1, c2, s2, c3, s3, lazy) , Add<d, k, c1, s1, c2, s2, c3, s3, lazy>
#define ECM_AS_SWAP(a, b) cswap(r[a], r[b], mask);
#define ECM_AS_COMMIT(d, s, st) r[d] = select_residue(keep, r[d], select_residue(start, r[st], r[s]));
#define ECM_STEP(TAG, PH, I) \
  Step<Set<void ECM_##TAG##_##PH##I##_MULS(ECM_AS_MUL)>, Set<void ECM_##TAG##_##PH##I##_ADDS(ECM_AS_ADD)>>
// Schedule<TAG>: the steps of Init, Loop and Final, the registers swapped
// around Loop when the scalar bit equals SwapBit, and the outputs; for the
// comb (IsComb), its windows and the commit after Loop.
#define ECM_SCHEDULE(TAG)                                                                        \
  struct Schedule##TAG {                                                                         \
    static constexpr int AddConsts = ECM_##TAG##_NUM_ADD_CONSTS;                                 \
    static constexpr int MaxMuls = ECM_##TAG##_MAX_MULS;                                         \
    static constexpr int ExtraBits = ECM_##TAG##_EXTRA_BITS;                                     \
    static constexpr uint32_t SwapBit = ECM_##TAG##_SWAP_BIT;                                    \
    static constexpr bool IsComb = ECM_##TAG##_COMB;                                             \
    static constexpr bool VarTime = ECM_##TAG##_VARTIME;                                         \
    static constexpr int Window = ECM_##TAG##_WINDOW;                                            \
    using Out = Dsts<ECM_##TAG##_OUT>;                                                           \
    using Init = Steps<ECM_##TAG##_INIT(ECM_STEP)>;                                              \
    using Loop = Steps<ECM_##TAG##_LOOP(ECM_STEP)>;                                              \
    using Final = Steps<ECM_##TAG##_FINAL(ECM_STEP)>;                                            \
    template <class R, class Mask>                                                               \
    ECM_DEVICE static void swap(R (&r)[ECM_NUM_REGS], const Mask& mask) {                        \
      ECM_##TAG##_SWAP(ECM_AS_SWAP)                                                              \
    }                                                                                            \
    template <class R, class Mask>                                                               \
    ECM_DEVICE static void commit(R (&r)[ECM_NUM_REGS], const Mask& keep, const Mask& start) {   \
      ECM_##TAG##_COMMIT(ECM_AS_COMMIT)                                                          \
    }                                                                                            \
  };

ECM_SCHEDULES(ECM_SCHEDULE)

// The shared memory, exchange and per-lane constants of a mapping and
// channel width.
template <int N, Mapping M, int K, int AddConsts, int W>
struct MappingOf {
  using Shared = SharedState<N, M, K, AddConsts, W>;
  using Ex = Exchange<N, M, K, W>;
  using Consts = std::conditional_t<W == 16, LaneConsts<N, M>, WideLaneConsts<N, M>>;
  using Value = Residue;  // a lane's share of one value: one channel
};
template <int N, int K, int AddConsts>
struct MappingOf<N, Mapping::Tile, K, AddConsts, 16> {
  using Shared = TileSharedState<N, K, AddConsts>;
  using Ex = TileExchange<N, K>;
  using Consts = LaneConsts<N, Mapping::Tile>;
  using Value = Residue;
};
template <class F, int N, int AddConsts>
struct FragMapping {
  using Frag = F;
  using Shared = FragSharedState<N, AddConsts, F>;
  using Ex = FragExchange<F>;
  using Consts = FragConsts<N, F>;
  using Value = Slots<F::Slots>;
};
template <int N, int K, int AddConsts>
struct MappingOf<N, Mapping::Mma, K, AddConsts, 30> : FragMapping<FragShape<N>, N, AddConsts> {};
template <int N, int K, int AddConsts>
struct MappingOf<N, Mapping::Pair, K, AddConsts, 30> : FragMapping<PairShape<N>, N, AddConsts> {};

// The state of one lane of one item.
template <int N, BaseExt V, Mapping M, int W, class Map>
struct Lane {
  static constexpr int n = N;
  static constexpr BaseExt variant = V;
  static constexpr Mapping mapping = M;
  static constexpr int width = W;
  using Mapped = Map;
  using Value = typename Map::Value;
  Value r[ECM_NUM_REGS];
  typename Map::Consts k;
  typename Map::Ex ex;
  const uint2* addK;  // [constant][channel role]
  int role;           // 0..n−1: channel j; n: m_e
  int group;          // the lane group in the warp (the spread mapping's product group)
  // all ones in entry g when the lane is in group g (opaque: the spread
  // mapping selects its operands with them, never with a branch)
  uint32_t groupMask[Shape<N, M, W>::Groups];
};

template <class R, int... D, int P, int... I>
ECM_DEVICE void store(R (&r)[ECM_NUM_REGS], const R (&z)[P], Dsts<D...>,
                      std::integer_sequence<int, I...>) {
  ((r[D] = z[I]), ...);
}

// The spread mapping's multiplication set: group g of the warp's G groups
// computes products g, g + G, … (the set's last again past its end), then
// every lane takes each product of its channel from the group that computed
// it. Which operands a lane multiplies depends on its place in the warp only.
template <class C, int P>
ECM_DEVICE void spread_mul_set(const C& c, const Residue (&x)[P], const Residue (&y)[P], Residue (&z)[P]) {
  using Sh = Shape<C::n, C::mapping, C::width>;
  constexpr int G = Sh::Groups, Q = (P + G - 1) / G;
  Residue xs[Q], ys[Q], zs[Q];
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    xs[q] = x[q * G < P ? q * G : P - 1];
    ys[q] = y[q * G < P ? q * G : P - 1];
#pragma unroll
    for (int g = 1; g < G; ++g) {
      const int i = q * G + g < P ? q * G + g : P - 1;
      xs[q] = select_residue(c.groupMask[g], x[i], xs[q]);
      ys[q] = select_residue(c.groupMask[g], y[i], ys[q]);
    }
  }
  mont_mul_set(steps_of<C::variant>(c.k, c.ex), xs, ys, zs);
#pragma unroll
  for (int i = 0; i < P; ++i) {
    const int src = i % G * Sh::Lanes + c.role;
    z[i].b = __shfl_sync(~0u, zs[i / G].b, src, kWarpLanes);  // blocks of whole warps: every lane is there
    z[i].t = __shfl_sync(~0u, zs[i / G].t, src, kWarpLanes);
  }
}

// A multiplication set: every product reads the registers as they were before the set.
template <class C, int... D, int... X, int... Y>
ECM_DEVICE void mul_set(C& c, Set<void, Mul<D, X, Y>...>) {
  constexpr int P = sizeof...(D);
  using Value = typename C::Value;
  const Value x[P] = {c.r[X]...}, y[P] = {c.r[Y]...};
  Value z[P];
  if constexpr (C::mapping == Mapping::Spread) {
    spread_mul_set(c, x, y, z);
  } else {
    mont_mul_set(steps_of<C::variant>(c.k, c.ex), x, y, z);
  }
  store(c.r, z, Dsts<D...>{}, std::make_integer_sequence<int, P>{});
}

template <class C>
ECM_DEVICE void mul_set(C&, Set<void>) {}

// K + c1·s1 + c2·s2 + c3·s3 of one channel, canonical, from the constant's
// residues kc (ladder.RNSExecutor.addSet): the sum is below
// 2^W·(1 + |c1| + |c2| + |c3|), in the channel's Acc of that weight.
template <int C1, int C2, int C3, int W>
ECM_DEVICE Residue channel_linear(uint2 kc, Residue s1, Residue s2, Residue s3, Channel<W> mB, Channel<W> mT,
                                  uint32_t eMask, uint32_t meMask) {
  constexpr int weight = 1 + (C1 < 0 ? -C1 : C1) + (C2 < 0 ? -C2 : C2) + (C3 < 0 ? -C3 : C3);
  static_assert(weight <= 1 << 15, "addition coefficients too large for 32-bit sums");
  using Acc = typename Channel<W>::template Acc<weight>;
  const Acc b = Acc(kc.x) + term<Acc, C1>(s1.b, mB.m) + term<Acc, C2>(s2.b, mB.m) + term<Acc, C3>(s3.b, mB.m);
  const Acc t = Acc(kc.y) + term<Acc, C1>(s1.t, mT.m) + term<Acc, C2>(s2.t, mT.m) + term<Acc, C3>(s3.t, mT.m);
  return Residue{select(eMask, uint32_t(b) & meMask, mB.reduce(b)), mT.reduce(t)};
}

// K + c1·s1 + c2·s2 + c3·s3 of one channel, unreduced: below 2^32 since
// 1 + |c1| + |c2| + |c3| <= 4 and every residue read is canonical.
template <int C1, int C2, int C3>
ECM_DEVICE Residue lazy_linear(uint2 kc, Residue s1, Residue s2, Residue s3, Channel<30> mB, Channel<30> mT) {
  constexpr int weight = 1 + (C1 < 0 ? -C1 : C1) + (C2 < 0 ? -C2 : C2) + (C3 < 0 ? -C3 : C3);
  static_assert(weight <= 4, "a lazy sum fits 32 bits (ladder.LazyWeight)");
  return Residue{kc.x + term<uint32_t, C1>(s1.b, mB.m) + term<uint32_t, C2>(s2.b, mB.m) + term<uint32_t, C3>(s3.b, mB.m),
                 kc.y + term<uint32_t, C1>(s1.t, mT.m) + term<uint32_t, C2>(s2.t, mT.m) + term<uint32_t, C3>(s3.t, mT.m)};
}

// K + c1·s1 + c2·s2 + c3·s3 of m_e alone (a slot of the mma mapping with no
// channel): modulo 2^32, then masked to m_e, as channel_linear does for m_e.
template <int C1, int C2, int C3>
ECM_DEVICE Residue me_linear(uint2 kc, Residue s1, Residue s2, Residue s3, uint32_t meMask) {
  const uint32_t m = meMask + 1;
  const uint32_t b = kc.x + term<uint32_t, C1>(s1.b, m) + term<uint32_t, C2>(s2.b, m) + term<uint32_t, C3>(s3.b, m);
  return Residue{b & meMask, 0};
}

// The addition's sum of a lane's value: per channel, or per slot (Mma,
// Pair). The pair mapping leaves a lazy sum unreduced: below 2^32
// (ladder.LazyWeight), it is read only by products (ladder.AddOp.Lazy),
// whose first steps reduce any 64-bit product of 32-bit residues.
template <int K, int C1, int S1, int C2, int S2, int C3, int S3, int Lazy, class C>
ECM_DEVICE typename C::Value linear(const C& c) {
  constexpr int N = C::n;
  if constexpr (Shape<N, C::mapping, C::width>::Frag) {
    typename C::Value z;
    using F = typename C::Mapped::Frag;
#pragma unroll
    for (int s = 0; s < F::Slots; ++s) {
      const int cs = F::const_slot(s);
      const uint2 kc = c.ex.addK[4 * (K * F::ConstSlots + cs)];
      if constexpr (Lazy && F::Halves == 2) {
        z.s[s] = lazy_linear<C1, C2, C3>(kc, c.r[S1].s[s], c.r[S2].s[s], c.r[S3].s[s], c.k.mB[cs], c.k.mT[cs]);
      } else {
        z.s[s] = s >= F::ChanSlots ? me_linear<C1, C2, C3>(kc, c.r[S1].s[s], c.r[S2].s[s], c.r[S3].s[s], c.k.me.mask)
                                   : channel_linear<C1, C2, C3>(kc, c.r[S1].s[s], c.r[S2].s[s], c.r[S3].s[s],
                                                                c.k.mB[cs], c.k.mT[cs], c.k.eMask(cs), c.k.me.mask);
      }
    }
    return z;
  } else {
    return channel_linear<C1, C2, C3>(c.addK[K * (N + 1) + c.role], c.r[S1], c.r[S2], c.r[S3], c.k.mB, c.k.mT,
                                      c.k.eMask, c.k.me.mask);
  }
}

// An addition set: every sum reads the registers as they were before the set.
template <class C, int... D, int... K, int... C1, int... S1, int... C2, int... S2, int... C3, int... S3, int... L>
ECM_DEVICE void add_set(C& c, Set<void, Add<D, K, C1, S1, C2, S2, C3, S3, L>...>) {
  constexpr int P = sizeof...(D);
  const typename C::Value z[P] = {linear<K, C1, S1, C2, S2, C3, S3, L>(c)...};
  store(c.r, z, Dsts<D...>{}, std::make_integer_sequence<int, P>{});
}

template <class C>
ECM_DEVICE void add_set(C&, Set<void>) {}

// One step: a multiplication set, then an addition set.
template <class C, class Muls, class Adds>
ECM_DEVICE void run_step(C& c, Step<Muls, Adds>) {
  mul_set(c, Muls{});
  add_set(c, Adds{});
}

template <class C, class... S>
ECM_DEVICE void run_steps(C& c, Steps<S...>) {
  (run_step(c, S{}), ...);
}

// ---------------------------------------------------------------------------
// The comb (ladder.runComb): per window of Window bits from the lowest
// (ladder.CombWindows: ⌊(Bits + Window)/Window⌋ of them, so that the top
// digit's sign bit is 0), the table row of its signed digit's magnitude d
// (Booth's recoding, ladder.CombWindow), read as every row of the window is
// read and kept by a mask (on the variable-time comb, VarTime, the row at
// the digit's address alone), its y negated by a mask for a negative digit;
// Loop, the mixed addition of that row to the accumulator; and the commit,
// which keeps the accumulator for d = 0 and takes the row itself while the
// accumulator is the point at infinity. The table follows the constants at
// the next multiple of four words: for window i, magnitude d and lane role
// r, one uint4 at (i·Rows + d−1)·(N+1) + r (x's B and B̃ residues, y's;
// m_e's in .x and .z for r = N), then p's residues at row Windows·Rows, in
// .z and .w.

// neg_residue returns (p − y) mod m for residues p, y < m.
ECM_DEVICE uint32_t neg_residue(uint32_t p, uint32_t y, uint32_t m) {
  const uint32_t t = p + m - y;
  return umin32(t, t - m);
}

// comb_row sets tx and ty to row d of a window for one lane role, whose
// rows are N + 1 uint4 apart from row 1 at `row`: every row read, the
// digit's kept by a mask (zero for d = 0), or with VarTime row d alone, read
// at its address; then ty to p − ty where neg is all ones, from p's
// residues pr, by a mask (m_e's modulo 2^k where eMask is).
template <int N, int Rows, bool VarTime, class Ch>
ECM_DEVICE void comb_row(const uint4* row, uint32_t d, uint32_t neg, uint4 pr, Ch mB, Ch mT, uint32_t eMask,
                         uint32_t meMask, Residue& tx, Residue& ty) {
  tx = ty = Residue{0, 0};
  if constexpr (VarTime) {
    const uint4 v = __ldg(row + (d - uint32_t(d != 0)) * (N + 1));  // row 1 for d = 0, masked
    const uint32_t m = 0u - uint32_t(d != 0);
    tx = Residue{v.x & m, v.y & m};
    ty = Residue{v.z & m, v.w & m};
  } else {
#pragma unroll
    for (int e = 1; e <= Rows; ++e) {
      const uint4 v = __ldg(row + (e - 1) * (N + 1));
      const uint32_t m = opaque(0u - uint32_t(d == uint32_t(e)));
      tx.b |= v.x & m;
      tx.t |= v.y & m;
      ty.b |= v.z & m;
      ty.t |= v.w & m;
    }
  }
  const Residue ny{select(eMask, (pr.z - ty.b) & meMask, neg_residue(pr.z, ty.b, mB.m)), neg_residue(pr.w, ty.t, mT.m)};
  ty = select_residue(neg, ny, ty);
}

// The items of a lane: one, or the pair mapping's two (items g and g + 8 of
// its warp), each with its column, whether it is stored and the column it
// reads (spare threads compute item 0 and store nothing).
template <int H>
struct LaneItems {
  uint32_t col[H], src[H];
  bool live[H];
  // The column, source and liveness of item h, by a select rather than an
  // index, which could put the arrays in local memory.
  ECM_DEVICE uint32_t col_of(int h) const { return h == 0 ? col[0] : col[H - 1]; }
  ECM_DEVICE uint32_t src_of(int h) const { return h == 0 ? src[0] : src[H - 1]; }
  ECM_DEVICE bool live_of(int h) const { return h == 0 ? live[0] : live[H - 1]; }
};

// per_slot returns the words of a lane's slots from those of its items
// (swap masks, comb digits): one word, or per slot the word of the slot's
// item; slot_word reads slot s of either.
template <class C>
ECM_DEVICE uint32_t per_slot(const C&, const uint32_t (&m)[1]) {
  return m[0];
}
template <class C>
ECM_DEVICE SlotMasks<5> per_slot(const C& c, const uint32_t (&m)[2]) {
  using F = typename C::Mapped::Frag;
  SlotMasks<5> r;
#pragma unroll
  for (int s = 0; s < 4; ++s) r.m[s] = m[F::half(s, 0)];
  r.m[4] = select(c.k.odd, m[1], m[0]);  // lane-dependent, never the scalar
  return r;
}

ECM_DEVICE uint32_t slot_word(uint32_t m, int) { return m; }
template <int S>
ECM_DEVICE uint32_t slot_word(const SlotMasks<S>& m, int s) {
  return m.m[s];
}

// comb_digit returns the signed digit of window i of a scalar (at its first
// word, words stride apart): its magnitude d and its sign as a mask neg.
// The digit is v_i + b_(wi−1) − 2^w·b_(wi+w−1) over bits wi − 1 … wi + w
// of k (bit −1 reads as 0), read from the word of the lowest and from the
// next word where they cross into it below bit Bits (k < 2^Bits): which
// words are read depends on i alone.
template <int W, int Bits>
ECM_DEVICE void comb_digit(const uint32_t* __restrict__ scalar, uint32_t stride, int i, uint32_t& d, uint32_t& neg) {
  uint32_t v;
  if (i == 0) {
    v = scalar[0] << 1;
  } else {
    const int bit = i * W - 1, w = bit / kScalarWordBits, b = bit % kScalarWordBits;
    v = scalar[w * stride] >> b;
    if (b + W + 1 > kScalarWordBits && (w + 1) * kScalarWordBits < Bits) v |= scalar[(w + 1) * stride] << (kScalarWordBits - b);
  }
  v &= (2u << W) - 1;
  const uint32_t raw = (v >> 1) + (v & 1);
  neg = opaque(0u - (v >> W));
  d = (((1u << W) - raw) & neg) | (raw & ~neg);
}

// comb_windows runs the comb's windows for the lane's H items (the pair
// mapping's two: each slot reads the rows of its own item's digit, and
// commits by its own item's masks: per_slot's choice for each slot).
template <int N, int Bits, int AddConsts, class Sched, class C, int H>
ECM_DEVICE void comb_windows(C& c, const uint32_t* __restrict__ consts, const uint32_t* __restrict__ scalars,
                             uint32_t stride, const LaneItems<H>& it) {
  constexpr int W = Sched::Window, Rows = 1 << (W - 1), Windows = (Bits + W) / W;
  static_assert(W + 1 <= kScalarWordBits, "a digit's bits lie in two scalar words at most");
  const uint4* table = reinterpret_cast<const uint4*>(consts + Consts<N>::template CombTable<AddConsts>);
  const uint4* pRow = table + Windows * Rows * (N + 1);
  uint32_t inf[H];  // all ones while item h's accumulator is the point at infinity
#pragma unroll
  for (int h = 0; h < H; ++h) inf[h] = ~0u;
#pragma unroll 1
  for (int i = 0; i < Windows; ++i) {
    uint32_t d[H], neg[H];
#pragma unroll
    for (int h = 0; h < H; ++h) comb_digit<W, Bits>(scalars + it.src[h], stride, i, d[h], neg[h]);
    const uint4* window = table + i * Rows * (N + 1);
    if constexpr (std::is_same_v<std::decay_t<decltype(c.r[0])>, Residue>) {
      comb_row<N, Rows, Sched::VarTime>(window + c.role, d[0], neg[0], __ldg(pRow + c.role), c.k.mB, c.k.mT, c.k.eMask,
                                        c.k.me.mask, c.r[ECM_R_TX], c.r[ECM_R_TY]);
    } else {
      // the mma and pair mappings: each of the lane's slots, its channel role (m_e from N on) and item
      using F = typename C::Mapped::Frag;
      const int t = threadIdx.x & 3;
      const auto dOf = per_slot(c, d), negOf = per_slot(c, neg);
#pragma unroll
      for (int s = 0; s < F::Slots; ++s) {
        const int cs = F::const_slot(s), j = F::role(cs, t), role = j < N ? j : N;
        comb_row<N, Rows, Sched::VarTime>(window + role, slot_word(dOf, s), slot_word(negOf, s), __ldg(pRow + role), c.k.mB[cs],
                                          c.k.mT[cs], c.k.eMask(cs), c.k.me.mask, c.r[ECM_R_TX].s[s], c.r[ECM_R_TY].s[s]);
      }
    }
    if (i > 0) run_steps(c, typename Sched::Loop{});  // window 0 commits the row or keeps (0 : 0 : 0), never a sum
    uint32_t keep[H], start[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      keep[h] = opaque(0u - uint32_t(d[h] == 0));
      start[h] = inf[h] & ~keep[h];
      inf[h] &= keep[h];
    }
    Sched::commit(c.r, per_slot(c, keep), per_slot(c, start));
  }
}

// ---------------------------------------------------------------------------
// The ladder (ladder.run): Init, then for bit = T−1 … 0 the swap by the bit,
// the Loop steps and the same swap again, then Final. Two consecutive swaps
// merge into one by the xor of their bits; the iteration count and every
// memory access are independent of the scalar. T is bitlen(n), plus one for
// the co-Z schedule.

// The B residue of a lane's value: of its channel, or of slot s (Mma).
ECM_DEVICE uint32_t b_of(const Residue& r, int) { return r.b; }
template <int S>
ECM_DEVICE uint32_t b_of(const Slots<S>& r, int s) {
  return r.s[s].b;
}

// write_out stores the B residue (of slot s) of output register D_v at row
// v·N, v = 0, 1, …
template <int N, class R, int... D>
ECM_DEVICE void write_out(const R (&r)[ECM_NUM_REGS], int s, Dsts<D...>, uint32_t* __restrict__ out,
                          uint32_t stride) {
  int v = 0;
  ((out[(v++ * N) * stride] = b_of(r[D], s)), ...);
}

// input_residue returns the residues of channel role (n: m_e) of a value
// stored as the rows of `in` (B, B̃ as ξ̃, then m_e) stride words apart.
template <int N>
ECM_DEVICE Residue input_residue(const uint32_t* __restrict__ in, int role, uint32_t stride) {
  return role < N ? Residue{in[role * stride], in[(N + role) * stride]} : Residue{in[2 * N * stride], 0};
}

// A curve on channels of one width: W-bit channels, n per base, bitlen(n)
// and its schedules (by the value of a).
#define ECM_CURVE(tag, Curve, chan, w, n, bits, AM)    \
  struct Curve##_##chan {                              \
    static constexpr int N = n, Bits = bits, W = w;    \
    ECM_SCHEDULE_MEMBERS(AM)                           \
  };
ECM_CURVES(ECM_CURVE)

// ladder_bits runs the ladder's bits from the scalars of a lane's H items.
template <int T, int H, class Sched, class C>
ECM_DEVICE void ladder_bits(C& c, const uint32_t* __restrict__ scalars, uint32_t stride, const LaneItems<H>& it) {
  uint32_t prev[H] = {};
#pragma unroll 1
  for (int w = (T - 1) / kScalarWordBits; w >= 0; --w) {
    uint32_t word[H];
#pragma unroll
    for (int h = 0; h < H; ++h) word[h] = scalars[w * stride + it.src[h]];
#pragma unroll 1
    for (int bit = w == (T - 1) / kScalarWordBits ? (T - 1) % kScalarWordBits : kScalarWordBits - 1; bit >= 0; --bit) {
      uint32_t mask[H];
#pragma unroll
      for (int h = 0; h < H; ++h) {
        const uint32_t s = (word[h] >> bit & 1) ^ Sched::SwapBit ^ 1;  // 1: swap for this bit
        mask[h] = 0u - (s ^ prev[h]);
        prev[h] = s;
      }
      Sched::swap(c.r, per_slot(c, mask));
      run_steps(c, typename Sched::Loop{});
    }
  }
  uint32_t mask[H];
#pragma unroll
  for (int h = 0; h < H; ++h) mask[h] = 0u - prev[h];
  Sched::swap(c.r, per_slot(c, mask));
}

template <class Curve, class Sched, BaseExt V, Mapping M>
ECM_DEVICE void ladder(ECM_KERNEL_PARAMS) {
  constexpr int N = Curve::N, W = Curve::W, T = Curve::Bits + Sched::ExtraBits;
  using Sh = Shape<N, M, W>;
  // products per set and lane group: a group computes ⌈MaxMuls/G⌉ in the spread mapping
  constexpr int K = M == Mapping::Spread ? (Sched::MaxMuls + Sh::Groups - 1) / Sh::Groups : Sched::MaxMuls;
  constexpr int H = M == Mapping::Pair ? 2 : 1;  // items per lane
  using Map = MappingOf<N, M, K, Sched::AddConsts, W>;
  __shared__ typename Map::Shared sh;

  if (blockDim.x > kMaxThreads) __trap();
  if (M == Mapping::Tile && blockDim.x != TileShape<N>::Items * Sh::Lanes) __trap();
  if (Sh::WholeWarps && blockDim.x % kWarpLanes != 0) __trap();
  if (count == 0) return;
  const int tid = threadIdx.x;
  int slot, lane;
  ecm_locate(tid, Sh::Lanes, Sh::Code, slot, lane);
  const int item = ecm_item(tid, Sh::Code, slot);
  const uint32_t items = ecm_items_per_block(blockDim.x, Sh::Lanes, Sh::Code);
  LaneItems<H> it;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    const int i = M == Mapping::Pair ? tid / kWarpLanes * 16 + tid % kWarpLanes / 4 + 8 * h : item;
    it.col[h] = blockIdx.x * items + i;
    it.live[h] = i < int(items) && it.col[h] < count;
    it.src[h] = it.live[h] ? it.col[h] : 0;
  }

  sh.init(consts, tid);
  for (int w = tid; w < Sched::AddConsts * (N + 1); w += blockDim.x) {
    const int kc = w / (N + 1), role = w % (N + 1);
    const uint32_t* e = consts + Consts<N>::AddConst + kc * Consts<N>::ElementWords;
    sh.addK[kc][role] = role < N ? uint2{e[role], e[N + role]} : uint2{e[2 * N], 0};
  }
  __syncthreads();

  Lane<N, V, M, W, Map> c;
  c.k.load(consts, Sh::Frag ? int(tid % kWarpLanes) : lane);  // the mma mappings' constants follow the warp lane
  c.ex.attach(sh, slot, lane, tid);
  c.addK = &sh.addK[0][0];
  c.role = lane < N ? lane : N;
  c.group = Sh::Warp ? slot % Sh::Groups : 0;
  if constexpr (M == Mapping::Spread) {
#pragma unroll
    for (int g = 0; g < Sh::Groups; ++g) c.groupMask[g] = opaque(c.group == g ? ~0u : 0u);
  }
#pragma unroll
  for (int i = 0; i < ECM_NUM_REGS; ++i) c.r[i] = typename decltype(c)::Value{};
  const uint32_t* kb = consts + Consts<N>::KB;
  if constexpr (Sh::Frag) {
    using F = typename Map::Frag;
    const int t = tid & 3;
#pragma unroll
    for (int s = 0; s < F::Slots; ++s) {
      const int j = F::role(F::const_slot(s), t), role = j < N ? j : N;
      if constexpr (!Sched::IsComb) c.r[ECM_R_XG].s[s] = input_residue<N>(in + it.src_of(F::half(s, t)), role, stride);
      c.r[ECM_R_KB].s[s] = input_residue<N>(kb, role, 1);
    }
  } else {
    if constexpr (!Sched::IsComb) c.r[ECM_R_XG] = input_residue<N>(in + it.src[0], c.role, stride);
    c.r[ECM_R_KB] = input_residue<N>(kb, c.role, 1);
  }

  run_steps(c, typename Sched::Init{});
  if constexpr (Sched::IsComb) {
    comb_windows<N, Curve::Bits, Sched::AddConsts, Sched>(c, consts, scalars, stride, it);
  } else {
    ladder_bits<T, H, Sched>(c, scalars, stride, it);
  }
  run_steps(c, typename Sched::Final{});

  // every group of a spread item holds the same registers: the first writes them
  if constexpr (Sh::Frag) {
    using F = typename Map::Frag;
    const int t = tid & 3;
#pragma unroll
    for (int s = 0; s < F::Slots; ++s) {
      const int j = F::role(F::const_slot(s), t), h = F::half(s, t);
      if (it.live_of(h) && j < N) write_out<N>(c.r, s, typename Sched::Out{}, out + j * stride + it.col_of(h), stride);
    }
  } else if (it.live[0] && lane < N && (M != Mapping::Spread || c.group == 0)) {
    write_out<N>(c.r, 0, typename Sched::Out{}, out + lane * stride + it.col[0], stride);
  }
}

// ---------------------------------------------------------------------------
// Entry points: ecm_ladder_<curve>_<schedule>_<ext>_<mapping>_<channels>, as
// internal/kernels/entries.go declares them, each taking the arguments of kernels.Args.

#define ECM_ENTRY(curve, Curve, sched, Sched, ext, Ext, mapping, Mapping_, chan, lanes, shape, regs, items)    \
  static_assert(Shape<Curve##_##chan::N, Mapping::Mapping_>::Lanes == lanes, "lanes per item");            \
  static_assert(Shape<Curve##_##chan::N, Mapping::Mapping_>::Code == shape, "thread shape");               \
  extern "C" __global__ void ECM_KERNEL_BOUNDS(regs)                                                      \
      ecm_ladder_##curve##_##sched##_##ext##_##mapping##_##chan(ECM_KERNEL_PARAMS) {                      \
    ladder<Curve##_##chan, Curve##_##chan::Sched, BaseExt::Ext, Mapping::Mapping_>(ECM_KERNEL_ARGS);      \
  }
ECM_ENTRIES(ECM_ENTRY)

// The kernels around the ladder of the co-Z ladder and the comb, on the
// device: the prepare kernel (Montgomery forms, the curve's equation and the
// RNS input) before it, the finish kernel (the affine results) after it.
#include "prepare.cuh"
#include "finish.cuh"
#include "wire.cuh"
#include "verify.cuh"
#include "sign.cuh"
