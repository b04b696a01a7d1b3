// rates.cu measures, on the GPU, each instruction form the ecmul kernel
// issues: its throughput per SM per clock (lane-ops/clock/SM = warp
// instructions × 32 / SM cycles; MACs for mma) and its latency (cycles per
// dependent op of one chain in one warp). The floors in
// internal/kernels/README.md are computed from these figures instead of
// assumed ones.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -o rates internal/kernels/harness/rates.cu
//   ./rates [OUT.json] [OP]        OP: run only the forms whose op name contains it
//
// internal/kernels/harness/rates.sh builds and runs it and checks, in the
// SASS, that the timed loop of every kernel issues the opcodes its form names.
//
// How: one small kernel template, rate_kernel<Op, Chains>, per form. Every
// thread keeps Chains independent chains and runs kUnroll steps of each per
// pass of the timed loop; the step is one inline-PTX instruction (or the
// kernel's own mad_wide / Channel<30>::reduce), so the compiler can neither fold nor
// drop it. Operands come from a kernel argument (and differ per lane), the
// pass count is a kernel argument, and every chain feeds a digest that is
// stored only if it equals a runtime value no run produces. Each block reads
// clock64 after a barrier before and after the loop and records its SM id;
// the host takes, per SM, the work of all its blocks over the span from the
// first block's start to the last block's end, in that SM's own cycles (so
// the figures do not depend on the clock the GPU runs at), and reports the
// median over SMs. Throughput: kThroughputChains chains per thread, blocks
// of kThroughputThreads, as many blocks per SM as fit (occupancy API), all
// resident at once. Latency: one warp, one chain.

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../rns.cuh"  // mad_wide, Channel<30>: the kernel's own

// ---------------------------------------------------------------------------
// Named constants.

constexpr int kWarpSize = 32;
constexpr int kBitsPerWord = 32;
constexpr int kUnroll = 16;               // steps of each chain per pass of the timed loop
constexpr int kThroughputChains = 8;      // independent chains per thread for throughput
constexpr int kLatencyChains = 1;         // one chain (in one warp) for latency
constexpr int kThroughputThreads = 256;   // threads per block for throughput
constexpr int kLatencyThreads = kWarpSize;
constexpr int kOperandSets = 4;           // operand sets that successive steps rotate through
constexpr int kInputWords = 16;           // random operand words from the host
constexpr uint32_t kChaseStride = 5;      // a pointer chase steps kChaseStride rows of kWarpSize slots
constexpr double kTargetCycles = double(1 << 22);  // SM cycles a timed run aims at (about 2 ms)
constexpr int kCalibrationIters = 16;     // passes of the run that sizes the timed runs
constexpr int kMaxIters = 1 << 24;
constexpr int kRepeats = 3;               // timed runs per figure; the median is reported
constexpr uint32_t kFullMask = 0xffffffffu;
constexpr int kShflClamp = kWarpSize - 1;  // shfl's c operand for a width of kWarpSize: ((32 - width) << 8) | 0x1f
constexpr uint32_t kLaneMix = 0x9e3779b9u;  // spreads the lane index over an operand word
constexpr uint32_t kImpossible = 0x5eedf00du;  // the digest value that would be stored
constexpr int kItemLanes = 9;             // lanes of one P-224 item on 30-bit channels (n + 1): they read one row
constexpr int kWideBits = 30;             // wide channels: m = 2^30 - c
constexpr uint32_t kWideMask = (1u << kWideBits) - 1;
constexpr uint32_t kWideC = 35;           // c of the wide channel Channel<30>::reduce runs on
constexpr double kDfmaScale = 1.0 / double(1ull << 50);  // keeps the DFMA chain near 1
// lop3's truth-table inputs (PTX ISA, lop3): the LUT of f(a, b, c) is f(0xf0, 0xcc, 0xaa).
constexpr int kLutA = 0xf0, kLutB = 0xcc, kLutC = 0xaa;
constexpr int kLutAndXor = (kLutA & kLutB) ^ kLutC;  // (a & b) ^ c
// mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32: per lane A 4 × b32, B 2 × b32, C and D 4 × s32.
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 32;
constexpr int kMmaMacs = kMmaM * kMmaN * kMmaK;  // multiply-adds per warp instruction
constexpr int kMmaARegs = 4, kMmaBRegs = 2, kMmaCRegs = 4;

// ---------------------------------------------------------------------------
// The kernel's inputs and what each block reports.

struct Inputs {
  uint32_t word[kInputWords];  // operands (random, from the host)
  uint32_t wideC;              // kWideC
  uint32_t stride;             // kChaseStride
  uint32_t impossible;         // kImpossible: no thread's digest is expected to equal it
  int iters;                   // passes of the timed loop
};

struct BlockTiming {
  long long start, end;  // clock64 of thread 0 after the barriers around the timed loop
  uint32_t smid, pad;
};

__device__ __forceinline__ uint32_t lane_id() { return threadIdx.x & (kWarpSize - 1); }

// lane_operand is input word k mixed with the thread index: per-lane
// registers, as the kernel's constants are, never uniform ones.
__device__ __forceinline__ uint32_t lane_operand(const Inputs& in, int k) {
  return in.word[k % kInputWords] ^ (threadIdx.x * kLaneMix);
}

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint32_t sm_id() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ uint32_t fold64(uint64_t v) { return uint32_t(v) ^ uint32_t(v >> kBitsPerWord); }

// ---------------------------------------------------------------------------
// The forms. An Op is constructed once per thread (operands from the inputs,
// tables in the shared arena), and provides
//   State                       one chain's registers
//   init(in, c)                 chain c's first state
//   step(state, c, u)           one op of the form: step u of chain c
//   digest(state)               a word that depends on the whole chain
//   pass()                      run once per pass, after the steps (most do nothing)
//   kSteps                      steps of each chain per pass (kUnroll for every form so far)
//   kSharedBytes                the shared arena it needs
//   kLatency                    whether a dependent chain means anything (stores: no)
//   kExtraPerPass               instructions pass() adds per pass (rates.sh allows them)
struct OpBase {
  static constexpr int kSharedBytes = 0;
  static constexpr bool kLatency = true;
  static constexpr int kExtraPerPass = 0;
  static constexpr int kSteps = kUnroll;
  __device__ void pass() {}
};

// RegisterOp: a form on registers only, with kOperandSets operand pairs
// (a[i] odd) that successive steps rotate through, so that no two
// consecutive steps have the same inputs.
struct RegisterOp : OpBase {
  uint32_t a[kOperandSets], b[kOperandSets];
  __device__ explicit RegisterOp(const Inputs& in) {
#pragma unroll
    for (int i = 0; i < kOperandSets; ++i) {
      a[i] = lane_operand(in, i) | 1u;
      b[i] = lane_operand(in, kOperandSets + i);
    }
  }
};

// IMAD: x = x·a + b.
struct Imad : RegisterOp {
  using State = uint32_t;
  __device__ Imad(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& x, int, int u) const {
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a[u % kOperandSets]), "r"(b[u % kOperandSets]));
  }
  __device__ uint32_t digest(const State& x) const { return x; }
};

// A 64-bit accumulator and the chain's per-lane constant.
struct WideState {
  uint64_t acc;
  uint32_t e;
};

// IMAD.WIDE, the kernel's sums (wide_dot): acc += w_u·e, w_u a row residue
// in a register, e the chain's per-lane constant, acc independent per
// chain. The row holds kUnroll residues, so that every product of a pass is
// a different one, and pass() gives it new values (one LOP3 each, off the
// IMAD pipe): with a fixed row ptxas computes each product once and sums
// with IADD3 instead. Even so ptxas reassociates each chain's sum, pairing
// terms: half the products come as IMAD.WIDE.U32 with a zero addend plus
// IADD3 and IADD3.X (nvcc 13.0, sm_90). ptxas splits a mad.wide.u32 whose
// 64-bit addend is loop-carried even when each accumulator takes one term
// per pass, so no form here isolates the fused IMAD.WIDE with a 64-bit
// addend; this one is the kernel's sum as ptxas gives it.
struct ImadWideSum : OpBase {
  static constexpr int kExtraPerPass = kUnroll;
  using State = WideState;
  uint32_t w[kUnroll];
  __device__ ImadWideSum(const Inputs& in, uint4*) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) w[u] = lane_operand(in, u);
  }
  __device__ State init(const Inputs& in, int c) const {
    return State{lane_operand(in, c), lane_operand(in, c + kThroughputChains)};
  }
  __device__ void step(State& s, int, int u) const { s.acc = mad_wide(w[u], s.e, s.acc); }
  __device__ void pass() {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) w[u] ^= w[(u + 1) % kUnroll];
  }
  __device__ uint32_t digest(const State& s) const { return fold64(s.acc); }
};

// IMAD.WIDE whose multiplicand is the previous result's low word:
// acc = lo(acc)·e + acc (the kernel's q = lo(xy)·NegR + …). ptxas compiles
// this as IMAD.WIDE.U32 with a zero addend plus IADD3 / IADD3.X, so it
// measures that sequence per op.
struct ImadWideDepLo : RegisterOp {
  using State = WideState;
  __device__ ImadWideDepLo(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const {
    return State{lane_operand(in, c), lane_operand(in, c + kThroughputChains)};
  }
  __device__ void step(State& s, int, int) const { s.acc = mad_wide(uint32_t(s.acc), s.e, s.acc); }
  __device__ uint32_t digest(const State& s) const { return fold64(s.acc); }
};

// IMAD.WIDE whose multiplicand is the previous result's high word:
// acc = hi(acc)·e + acc (Channel<30>::reduce's hi·4c + lo, on a 64-bit addend);
// split by ptxas as above.
struct ImadWideDepHi : RegisterOp {
  using State = WideState;
  __device__ ImadWideDepHi(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const {
    return State{lane_operand(in, c), lane_operand(in, c + kThroughputChains)};
  }
  __device__ void step(State& s, int, int) const {
    s.acc = mad_wide(uint32_t(s.acc >> kBitsPerWord), s.e, s.acc);
  }
  __device__ uint32_t digest(const State& s) const { return fold64(s.acc); }
};

// IMAD.HI: x = hi(x·a) (mul.hi.u32; mad.hi's 32-bit addend costs ptxas a
// register pair {0, b} and moves). The value soon reaches 0, which changes
// nothing to the timing.
struct ImadHi : RegisterOp {
  using State = uint32_t;
  __device__ ImadHi(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& x, int, int u) const {
    asm volatile("mul.hi.u32 %0, %0, %1;" : "+r"(x) : "r"(a[u % kOperandSets]));
  }
  __device__ uint32_t digest(const State& x) const { return x; }
};

// IADD3: x = x + a + b (two PTX adds that ptxas fuses into one IADD3).
struct Iadd3 : RegisterOp {
  using State = uint32_t;
  __device__ Iadd3(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& x, int, int u) const {
    asm volatile(
        "add.u32 %0, %0, %1;\n\t"
        "add.u32 %0, %0, %2;"
        : "+r"(x)
        : "r"(a[u % kOperandSets]), "r"(b[u % kOperandSets]));
  }
  __device__ uint32_t digest(const State& x) const { return x; }
};

// 64-bit add: (hi:lo) += (b:a) with add.cc / addc (IADD3 with carry out,
// then IADD3.X or IMAD.X: ptxas picks the pipe of the high half).
struct Add64 : RegisterOp {
  struct State {
    uint32_t lo, hi;
  };
  __device__ Add64(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const {
    return State{lane_operand(in, c), lane_operand(in, c + kThroughputChains)};
  }
  __device__ void step(State& s, int, int u) const {
    asm volatile(
        "add.cc.u32 %0, %0, %2;\n\t"
        "addc.u32 %1, %1, %3;"
        : "+r"(s.lo), "+r"(s.hi)
        : "r"(a[u % kOperandSets]), "r"(b[u % kOperandSets]));
  }
  __device__ uint32_t digest(const State& s) const { return s.lo ^ s.hi; }
};

// LOP3: x = (x & a) ^ b.
struct Lop3 : RegisterOp {
  using State = uint32_t;
  __device__ Lop3(const Inputs& in, uint4*) : RegisterOp(in) {}
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& x, int, int u) const {
    asm volatile("lop3.b32 %0, %0, %1, %2, %3;"
                 : "+r"(x)
                 : "r"(a[u % kOperandSets]), "r"(b[u % kOperandSets]), "n"(kLutAndXor));
  }
  __device__ uint32_t digest(const State& x) const { return x; }
};

// SHFL: x = shfl.sync.idx(x, src), src a per-lane source lane in a register
// (the kernel's Exchange::row and from_e).
struct Shfl : RegisterOp {
  using State = uint32_t;
  uint32_t src[kOperandSets];
  __device__ Shfl(const Inputs& in, uint4*) : RegisterOp(in) {
#pragma unroll
    for (int i = 0; i < kOperandSets; ++i) src[i] = (lane_id() + a[i]) & (kWarpSize - 1);
  }
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& x, int, int u) const {
    asm volatile("shfl.sync.idx.b32 %0, %0, %1, %2, %3;"
                 : "+r"(x)
                 : "r"(src[u % kOperandSets]), "n"(kShflClamp), "r"(kFullMask));
  }
  __device__ uint32_t digest(const State& x) const { return x; }
};

// DFMA, for reference (the FP64 pipe): x = x·a + b.
struct Dfma : OpBase {
  using State = double;
  double a[kOperandSets], b[kOperandSets];
  __device__ Dfma(const Inputs& in, uint4*) {
#pragma unroll
    for (int i = 0; i < kOperandSets; ++i) {
      a[i] = 1.0 + double(lane_operand(in, i)) * kDfmaScale;
      b[i] = double(lane_operand(in, kOperandSets + i)) * kDfmaScale;
    }
  }
  __device__ State init(const Inputs& in, int c) const { return double(lane_operand(in, c)); }
  __device__ void step(State& x, int, int u) const {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a[u % kOperandSets]), "d"(b[u % kOperandSets]));
  }
  __device__ uint32_t digest(const State& x) const { return fold64(uint64_t(__double_as_longlong(x))); }
};

// The kernel's product-and-reduce as one unit, as in step 1 of the wide
// multiplication set (P~ = mT.reduce(mad_wide(x.t, y.t, 0))):
// t = m.reduce(mad_wide(t, e, 0)), with the kernel's own mad_wide
// and Channel<30>::reduce and a per-lane modulus, as the kernel's lanes have.
struct ReduceWide : RegisterOp {
  using State = uint32_t;
  Channel<30> m;
  uint32_t e[kOperandSets];
  __device__ ReduceWide(const Inputs& in, uint4*) : RegisterOp(in) {
    const uint32_t c = in.wideC + 2 * lane_id();
    m = Channel<30>::make((1u << kWideBits) - c, c);
#pragma unroll
    for (int i = 0; i < kOperandSets; ++i) e[i] = a[i] & kWideMask;
  }
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c) & kWideMask; }
  __device__ void step(State& t, int, int u) const { t = m.reduce(mad_wide(t, e[u % kOperandSets], 0)); }
  __device__ uint32_t digest(const State& t) const { return t; }
};

// Shared-memory loads: pointer chases, each load's address the word the
// previous one returned. The table holds kSlots slots; slot i points to slot
// i + kWarpSize·stride (mod kSlots), so a lane stays in its bank(s).
// LanesPerAddress lanes read each address: 1 spreads the warp over
// distinct banks (no conflict); kItemLanes is the kernel's row read, where
// the lanes of one item read the same row.

// LDS (32-bit).
struct Lds32 : OpBase {
  static constexpr int kSlots = 2048;
  static constexpr int kSharedBytes = kSlots * int(sizeof(uint32_t));
  using State = uint32_t;  // the shared address of the next load
  uint32_t base;
  __device__ Lds32(const Inputs& in, uint4* arena) : base(shared_address(arena)) {
    uint32_t* t = reinterpret_cast<uint32_t*>(arena);
    for (int i = threadIdx.x; i < kSlots; i += blockDim.x)
      t[i] = base + uint32_t(sizeof(uint32_t)) * ((i + kWarpSize * in.stride) & (kSlots - 1));
  }
  __device__ State init(const Inputs&, int c) const {
    return base + uint32_t(sizeof(uint32_t)) * ((lane_id() + kWarpSize * c) & (kSlots - 1));
  }
  __device__ void step(State& addr, int, int) const {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(addr) : : "memory");
  }
  __device__ uint32_t digest(const State& addr) const { return addr; }
};

// LDS.128: the next address in the first word; the other three words are
// folded into a sink off the chain so that the load stays 128 bits wide.
template <int LanesPerAddress>
struct Lds128Of : OpBase {
  static constexpr int kSlots = 1024;
  static constexpr int kSharedBytes = kSlots * int(sizeof(uint4));
  struct State {
    uint32_t addr, sink;
  };
  uint32_t base;
  __device__ Lds128Of(const Inputs& in, uint4* arena) : base(shared_address(arena)) {
    for (int i = threadIdx.x; i < kSlots; i += blockDim.x) {
      const uint32_t next = base + uint32_t(sizeof(uint4)) * ((i + kWarpSize * in.stride) & (kSlots - 1));
      arena[i] = uint4{next, uint32_t(i), in.word[0], in.word[1]};
    }
  }
  __device__ State init(const Inputs&, int c) const {
    const uint32_t slot = (lane_id() / LanesPerAddress + kWarpSize * c) & (kSlots - 1);
    return State{base + uint32_t(sizeof(uint4)) * slot, 0};
  }
  __device__ void step(State& s, int, int) const {
    uint32_t y, z, w;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(s.addr), "=r"(y), "=r"(z), "=r"(w) : : "memory");
    s.sink ^= y ^ z ^ w;
  }
  __device__ uint32_t digest(const State& s) const { return s.addr ^ s.sink; }
};

struct Lds128 : Lds128Of<1> {
  __device__ Lds128(const Inputs& in, uint4* arena) : Lds128Of<1>(in, arena) {}
};

struct Lds128Row : Lds128Of<kItemLanes> {
  __device__ Lds128Row(const Inputs& in, uint4* arena) : Lds128Of<kItemLanes>(in, arena) {}
};

// Shared-memory stores: every lane writes its own word (or 16 bytes) of one
// of kRows rows, chain c's step u row (c·kUnroll + u) mod kRows, conflict
// free. st.volatile keeps ptxas from dropping stores that a later one
// overwrites. A store has no result to chain, so no latency.

// STS (32-bit), as the kernel's Exchange::put.
struct Sts32 : OpBase {
  static constexpr int kRows = 8;
  static constexpr int kRowBytes = kWarpSize * int(sizeof(uint32_t));
  static constexpr int kSharedBytes = kRows * kRowBytes;
  static constexpr bool kLatency = false;
  using State = uint32_t;  // the value stored
  uint32_t laneAddr;       // this lane's word in row 0
  __device__ Sts32(const Inputs&, uint4* arena)
      : laneAddr(shared_address(arena) + uint32_t(sizeof(uint32_t)) * lane_id()) {}
  __device__ State init(const Inputs& in, int c) const { return lane_operand(in, c); }
  __device__ void step(State& v, int c, int u) const {
    const uint32_t addr = laneAddr + uint32_t(kRowBytes * ((c * kUnroll + u) % kRows));
    asm volatile("st.volatile.shared.u32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
  }
  __device__ uint32_t digest(const State& v) const { return v; }
};

// STS.128: every chain stores the same four registers (one value per
// chain would cost ptxas register moves in the loop).
struct Sts128 : OpBase {
  static constexpr int kRows = 8;
  static constexpr int kRowBytes = kWarpSize * int(sizeof(uint4));
  static constexpr int kSharedBytes = kRows * kRowBytes;
  static constexpr bool kLatency = false;
  using State = uint32_t;  // unused: the value is v
  uint32_t laneAddr;
  uint4 v;
  __device__ Sts128(const Inputs& in, uint4* arena)
      : laneAddr(shared_address(arena) + uint32_t(sizeof(uint4)) * lane_id()),
        v{lane_operand(in, 0), lane_operand(in, 1), lane_operand(in, 2), lane_operand(in, 3)} {}
  __device__ State init(const Inputs&, int c) const { return uint32_t(c); }
  __device__ void step(State&, int c, int u) const {
    const uint32_t addr = laneAddr + uint32_t(kRowBytes * ((c * kUnroll + u) % kRows));
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};"
                 :
                 : "r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
  __device__ uint32_t digest(const State& s) const { return s ^ v.x ^ v.y ^ v.z ^ v.w; }
};

// mma.sync m16n8k32 u8 × u8 → s32: D = A·B + C, each chain its own
// accumulator fragment, A and B the same fragments throughout.
struct Mma : OpBase {
  struct State {
    uint32_t d[kMmaCRegs];
  };
  uint32_t a[kMmaARegs], b[kMmaBRegs];
  __device__ Mma(const Inputs& in, uint4*) {
#pragma unroll
    for (int i = 0; i < kMmaARegs; ++i) a[i] = lane_operand(in, i);
#pragma unroll
    for (int i = 0; i < kMmaBRegs; ++i) b[i] = lane_operand(in, kMmaARegs + i);
  }
  __device__ State init(const Inputs& in, int c) const {
    State s;
#pragma unroll
    for (int i = 0; i < kMmaCRegs; ++i) s.d[i] = lane_operand(in, c + i);
    return s;
  }
  __device__ void step(State& s, int, int) const {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(s.d[0]), "+r"(s.d[1]), "+r"(s.d[2]), "+r"(s.d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  __device__ uint32_t digest(const State& s) const { return s.d[0] ^ s.d[1] ^ s.d[2] ^ s.d[3]; }
};

// ---------------------------------------------------------------------------
// The kernel: Chains chains of Op per thread, Op::kSteps steps each per pass,
// in.iters passes between two clock64 reads.

template <class Op, int Chains>
__global__ void rate_kernel(const Inputs in, BlockTiming* timing, uint32_t* sink) {
  extern __shared__ uint4 arena[];
  Op op(in, arena);
  typename Op::State s[Chains];
#pragma unroll
  for (int c = 0; c < Chains; ++c) s[c] = op.init(in, c);
  __syncthreads();
  const long long start = clock64();
#pragma unroll 1
  for (int it = 0; it < in.iters; ++it) {
#pragma unroll
    for (int u = 0; u < Op::kSteps; ++u) {
#pragma unroll
      for (int c = 0; c < Chains; ++c) op.step(s[c], c, u);
    }
    op.pass();
  }
  __syncthreads();
  const long long end = clock64();
  uint32_t d = 0;
#pragma unroll
  for (int c = 0; c < Chains; ++c) d ^= op.digest(s[c]);
  if (d == in.impossible) sink[blockIdx.x * blockDim.x + threadIdx.x] = d;
  if (threadIdx.x == 0) timing[blockIdx.x] = BlockTiming{start, end, sm_id(), 0};
}

// ---------------------------------------------------------------------------
// The table of forms: the only place that lists them.

using Kernel = void (*)(Inputs, BlockTiming*, uint32_t*);

struct SassCount {
  const char* opcode;  // as cuobjdump -sass prints it
  int perOp;           // how many each op of the form issues
};

struct Form {
  const char* op;     // the Op type: rates.sh finds the kernels rate_kernel<op, chains> by it
  const char* name;   // what is measured
  const char* unit;   // what one unit of work is
  double work;        // units of work per warp-level op
  std::vector<SassCount> sass;  // opcodes each op issues in the timed loop (rates.sh checks them)
  bool pure;          // the loop holds nothing else (but loop overhead and pass()): rates.sh checks it
  int extraPerPass;   // Op::kExtraPerPass
  int steps;          // Op::kSteps: steps of each chain per pass
  bool latency;
  int sharedBytes;
  Kernel throughput, latencyKernel;
};

constexpr double kLaneOps = kWarpSize;

constexpr bool kPure = true, kComposite = false;

template <class Op>
Form make_form(const char* op, const char* name, const char* unit, double work, bool pure,
               std::vector<SassCount> sass) {
  return Form{op,
              name,
              unit,
              work,
              std::move(sass),
              pure,
              Op::kExtraPerPass,
              Op::kSteps,
              Op::kLatency,
              Op::kSharedBytes,
              rate_kernel<Op, kThroughputChains>,
              rate_kernel<Op, kLatencyChains>};
}

#define FORM(Op, ...) make_form<Op>(#Op, __VA_ARGS__)

const std::vector<Form>& forms() {
  static const std::vector<Form> table = {
      FORM(Imad, "IMAD x = x*a + b (mad.lo.u32)", "lane-op", kLaneOps, kPure, {{"IMAD", 1}}),
      FORM(ImadWideSum, "IMAD.WIDE sum acc += w*e (mad_wide)", "lane-op", kLaneOps, kComposite,
           {{"IMAD.WIDE.U32", 1}}),
      FORM(ImadWideDepLo, "IMAD.WIDE acc = lo(acc)*e + acc", "lane-op", kLaneOps, kComposite, {{"IMAD.WIDE.U32", 1}}),
      FORM(ImadWideDepHi, "IMAD.WIDE acc = hi(acc)*e + acc", "lane-op", kLaneOps, kComposite, {{"IMAD.WIDE.U32", 1}}),
      FORM(ImadHi, "IMAD.HI x = hi(x*a) (mul.hi.u32)", "lane-op", kLaneOps, kPure, {{"IMAD.HI.U32", 1}}),
      FORM(Iadd3, "IADD3 x = x + a + b", "lane-op", kLaneOps, kPure, {{"IADD3", 1}}),
      FORM(Add64, "64-bit add (add.cc + addc)", "lane-op", kLaneOps, kComposite, {{"IADD3", 1}}),
      FORM(Lop3, "LOP3 x = (x & a) ^ b", "lane-op", kLaneOps, kPure, {{"LOP3.LUT", 1}}),
      FORM(Shfl, "SHFL.IDX x = shfl(x, src)", "lane-op", kLaneOps, kPure, {{"SHFL.IDX", 1}}),
      FORM(Lds32, "LDS.32 pointer chase, no conflict", "lane-op", kLaneOps, kPure, {{"LDS", 1}}),
      FORM(Lds128, "LDS.128 pointer chase, no conflict", "lane-op", kLaneOps, kComposite, {{"LDS.128", 1}}),
      FORM(Lds128Row, "LDS.128, 9 lanes per address (row read)", "lane-op", kLaneOps, kComposite, {{"LDS.128", 1}}),
      FORM(Sts32, "STS.32, no conflict", "lane-op", kLaneOps, kPure, {{"STS", 1}}),
      FORM(Sts128, "STS.128, no conflict", "lane-op", kLaneOps, kPure, {{"STS.128", 1}}),
      FORM(ReduceWide, "reduce(mad_wide(t, e, 0)) unit", "lane-unit", kLaneOps, kComposite,
           {{"IMAD.WIDE.U32", 2}}),
      FORM(Dfma, "DFMA x = x*a + b (reference)", "lane-op", kLaneOps, kPure, {{"DFMA", 1}}),
      FORM(Mma, "mma.sync m16n8k32 u8*u8->s32", "MAC", kMmaMacs, kPure, {{"IMMA.16832.U8.U8", 1}}),
  };
  return table;
}

// ---------------------------------------------------------------------------
// Host: launch, per-SM spans, calibration, output.

#define CK(call)                                                                            \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

struct Buffers {
  BlockTiming* timing;
  uint32_t* sink;
  cudaEvent_t start, stop;
};

struct Run {
  std::vector<double> perSM;  // work per SM cycle, one entry per SM that ran blocks
  double spanMedian;          // median over SMs of the SM cycles from first start to last end
  double ms;                  // cudaEvent time of the launch
};

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static Run launch(const Form& f, Kernel k, int chains, int blocks, int threads, Inputs in, const Buffers& buf) {
  void* args[] = {&in, const_cast<BlockTiming**>(&buf.timing), const_cast<uint32_t**>(&buf.sink)};
  CK(cudaEventRecord(buf.start));
  CK(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(blocks), dim3(threads), args, size_t(f.sharedBytes), 0));
  CK(cudaGetLastError());
  CK(cudaEventRecord(buf.stop));
  CK(cudaEventSynchronize(buf.stop));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, buf.start, buf.stop));
  std::vector<BlockTiming> t(blocks);
  CK(cudaMemcpy(t.data(), buf.timing, sizeof(BlockTiming) * blocks, cudaMemcpyDeviceToHost));

  struct Span {
    long long start, end;
    int blocks;
  };
  std::map<uint32_t, Span> sms;
  for (const BlockTiming& b : t) {
    auto it = sms.find(b.smid);
    if (it == sms.end()) {
      sms[b.smid] = Span{b.start, b.end, 1};
    } else {
      it->second.start = std::min(it->second.start, b.start);
      it->second.end = std::max(it->second.end, b.end);
      it->second.blocks++;
    }
  }
  const double workPerBlock =
      double(threads / kWarpSize) * double(in.iters) * f.steps * chains * f.work;
  Run r;
  std::vector<double> spans;
  for (const auto& kv : sms) {
    const double span = double(kv.second.end - kv.second.start);
    spans.push_back(span);
    r.perSM.push_back(span > 0 ? kv.second.blocks * workPerBlock / span : 0);
  }
  r.spanMedian = median(spans);
  r.ms = ms;
  return r;
}

// sized_iters returns the pass count that makes a run last about kTargetCycles.
static int sized_iters(const Form& f, Kernel k, int chains, int blocks, int threads, Inputs in, const Buffers& buf) {
  in.iters = kCalibrationIters;
  const Run r = launch(f, k, chains, blocks, threads, in, buf);
  const double perIter = std::max(r.spanMedian / kCalibrationIters, 1.0);
  return int(std::min(std::max(kTargetCycles / perIter, double(kCalibrationIters)), double(kMaxIters)));
}

struct Result {
  double rate = 0, rateMin = 0, rateMax = 0;  // work per clock per SM: median over repeats of the median over SMs
  double clockMHz = 0;                        // SM cycles over event time (a lower bound: the event adds launch time)
  int blocksPerSM = 0, warpsPerSM = 0, iters = 0, sms = 0;
  double latency = -1;  // cycles per dependent op, -1 if not measured
  int latencyIters = 0;
};

static Result measure(const Form& f, const Inputs& base, const Buffers& buf, int smCount) {
  Result res;
  int perSM = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, f.throughput, kThroughputThreads, size_t(f.sharedBytes)));
  if (perSM < 1) {
    fprintf(stderr, "%s: no block fits an SM\n", f.op);
    exit(1);
  }
  const int blocks = perSM * smCount;
  Inputs in = base;
  in.iters = sized_iters(f, f.throughput, kThroughputChains, blocks, kThroughputThreads, in, buf);
  std::vector<double> rates, mins, maxs, clocks;
  for (int rep = 0; rep < kRepeats; ++rep) {
    const Run r = launch(f, f.throughput, kThroughputChains, blocks, kThroughputThreads, in, buf);
    rates.push_back(median(r.perSM));
    mins.push_back(*std::min_element(r.perSM.begin(), r.perSM.end()));
    maxs.push_back(*std::max_element(r.perSM.begin(), r.perSM.end()));
    clocks.push_back(r.ms > 0 ? r.spanMedian / (double(r.ms) * 1e3) : 0);
    res.sms = int(r.perSM.size());
  }
  res.rate = median(rates);
  res.rateMin = *std::min_element(mins.begin(), mins.end());
  res.rateMax = *std::max_element(maxs.begin(), maxs.end());
  res.clockMHz = median(clocks);
  res.blocksPerSM = perSM;
  res.warpsPerSM = perSM * kThroughputThreads / kWarpSize;
  res.iters = in.iters;

  if (f.latency) {
    Inputs lin = base;
    lin.iters = sized_iters(f, f.latencyKernel, kLatencyChains, 1, kLatencyThreads, lin, buf);
    std::vector<double> lat;
    for (int rep = 0; rep < kRepeats; ++rep) {
      const Run r = launch(f, f.latencyKernel, kLatencyChains, 1, kLatencyThreads, lin, buf);
      lat.push_back(r.spanMedian / (double(lin.iters) * f.steps * kLatencyChains));
    }
    res.latency = median(lat);
    res.latencyIters = lin.iters;
  }
  return res;
}

static std::string sass_label(const Form& f) {
  std::string s;
  for (const SassCount& c : f.sass) {
    if (!s.empty()) s += " + ";
    if (c.perOp != 1) s += std::to_string(c.perOp) + "x ";
    s += c.opcode;
  }
  return s;
}

static std::string json_string(const char* s) {
  std::string out = "\"";
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') out += '\\';
    out += *s;
  }
  return out + "\"";
}

static uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int main(int argc, char** argv) {
  const char* jsonPath = argc > 1 ? argv[1] : nullptr;
  const char* only = argc > 2 ? argv[2] : nullptr;

  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int smCount = 0, clockKHz = 0, maxBlocksPerSM = 0, driver = 0, runtime = 0;
  CK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&maxBlocksPerSM, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
  CK(cudaDriverGetVersion(&driver));
  CK(cudaRuntimeGetVersion(&runtime));
  printf("%s, %d SMs, sm_%d%d, clock %d MHz (attribute), driver %d, runtime %d\n", prop.name, smCount, prop.major,
         prop.minor, clockKHz / 1000, driver, runtime);
  printf("throughput: %d chains per thread, blocks of %d threads, as many as fit per SM; latency: 1 warp, %d chain; "
         "%d steps per chain per pass; median of %d runs\n\n",
         kThroughputChains, kThroughputThreads, kLatencyChains, kUnroll, kRepeats);

  Buffers buf;
  const int maxBlocks = smCount * maxBlocksPerSM;
  CK(cudaMalloc(&buf.timing, sizeof(BlockTiming) * maxBlocks));
  CK(cudaMalloc(&buf.sink, sizeof(uint32_t) * maxBlocks * kThroughputThreads));
  CK(cudaEventCreate(&buf.start));
  CK(cudaEventCreate(&buf.stop));

  Inputs in{};
  uint64_t seed = 0x65636d756c00ull;
  for (int i = 0; i < kInputWords; ++i) in.word[i] = uint32_t(splitmix(seed));
  in.wideC = kWideC;
  in.stride = kChaseStride;
  in.impossible = kImpossible;

  printf("%-42s %-22s %-9s %10s %19s %6s %8s %8s\n", "form", "SASS", "unit", "per clk/SM", "SM min-max",
         "warps", "MHz", "latency");
  std::vector<std::pair<const Form*, Result>> results;
  for (const Form& f : forms()) {
    if (only && !strstr(f.op, only)) continue;
    const Result r = measure(f, in, buf, smCount);
    results.emplace_back(&f, r);
    char lat[32];
    if (r.latency >= 0) {
      snprintf(lat, sizeof lat, "%8.2f", r.latency);
    } else {
      snprintf(lat, sizeof lat, "%8s", "-");
    }
    printf("%-42s %-22s %-9s %10.2f %9.2f-%-9.2f %6d %8.0f %s\n", f.name, sass_label(f).c_str(), f.unit, r.rate,
           r.rateMin, r.rateMax, r.warpsPerSM, r.clockMHz, lat);
    fflush(stdout);
  }
  printf("\nper clk/SM: work (lane-ops; MACs for mma) per SM cycle, median over SMs; latency: SM cycles per dependent op\n");

  if (jsonPath) {
    FILE* out = fopen(jsonPath, "w");
    if (!out) {
      fprintf(stderr, "cannot write %s\n", jsonPath);
      return 1;
    }
    fprintf(out, "{\n  \"device\": %s,\n  \"sms\": %d,\n  \"cc\": \"%d.%d\",\n  \"clock_khz\": %d,\n", json_string(prop.name).c_str(),
            smCount, prop.major, prop.minor, clockKHz);
    fprintf(out, "  \"driver\": %d,\n  \"runtime\": %d,\n  \"unroll\": %d,\n  \"throughput_chains\": %d,\n", driver, runtime,
            kUnroll, kThroughputChains);
    fprintf(out, "  \"latency_chains\": %d,\n  \"throughput_threads\": %d,\n  \"repeats\": %d,\n  \"forms\": [\n",
            kLatencyChains, kThroughputThreads, kRepeats);
    for (size_t i = 0; i < results.size(); ++i) {
      const Form& f = *results[i].first;
      const Result& r = results[i].second;
      std::string sass;
      for (const SassCount& c : f.sass) {
        if (!sass.empty()) sass += ", ";
        sass += json_string(c.opcode) + ": " + std::to_string(c.perOp);
      }
      fprintf(out, "    {\"op\": %s, \"name\": %s, \"sass\": {%s}, \"pure\": %s, \"extra_per_pass\": %d,\n",
              json_string(f.op).c_str(), json_string(f.name).c_str(), sass.c_str(), f.pure ? "true" : "false",
              f.extraPerPass);
      fprintf(out, "     \"steps_per_pass\": %d, \"unit\": %s, \"work_per_warp_op\": %.0f,\n", f.steps,
              json_string(f.unit).c_str(), f.work);
      fprintf(out,
              "     \"per_clk_sm\": %.3f, \"per_clk_sm_min\": %.3f, \"per_clk_sm_max\": %.3f, \"sms_measured\": %d,\n",
              r.rate, r.rateMin, r.rateMax, r.sms);
      fprintf(out, "     \"per_s_gpu\": %.4e, \"clock_mhz_measured\": %.1f,\n", r.rate * smCount * r.clockMHz * 1e6,
              r.clockMHz);
      fprintf(out, "     \"blocks_per_sm\": %d, \"warps_per_sm\": %d, \"iters\": %d,\n", r.blocksPerSM, r.warpsPerSM,
              r.iters);
      if (r.latency >= 0) {
        fprintf(out, "     \"latency_cycles\": %.3f, \"latency_iters\": %d}%s\n", r.latency, r.latencyIters,
                i + 1 < results.size() ? "," : "");
      } else {
        fprintf(out, "     \"latency_cycles\": null}%s\n", i + 1 < results.size() ? "," : "");
      }
    }
    fprintf(out, "  ]\n}\n");
    fclose(out);
  }
  CK(cudaFree(buf.timing));
  CK(cudaFree(buf.sink));
  return 0;
}
