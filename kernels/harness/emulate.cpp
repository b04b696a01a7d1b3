// emulate runs the kernel source on the CPU, one OS thread per GPU thread of
// a block and a barrier for every __syncwarp and __syncthreads, and compares
// its outputs with a kernelvec file word for word. It checks the kernel's
// arithmetic and exchanges where there is no GPU; it says nothing about speed.
//
//   emulate CURVE_SCHEDULE_CHANNELS FILE [ITEMS]
//     (p224, p256 or secp256k1; _coz or _paper; _c16 or _c30)

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

// The CUDA vocabulary the kernel uses, for a host compiler.
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __trap() abort()
#define __shared__ static

struct uint2 {
  uint32_t x, y;
};
struct alignas(16) uint4 {
  uint32_t x, y, z, w;
};
struct dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim;
static std::barrier<>* block_barrier;
static uint32_t shfl_slots[1024];

static void __syncthreads() { block_barrier->arrive_and_wait(); }
static void __syncwarp(unsigned = 0xffffffffu) { block_barrier->arrive_and_wait(); }

static uint32_t __shfl_sync(unsigned, uint32_t v, int src, int width) {
  shfl_slots[threadIdx.x] = v;
  __syncthreads();
  const uint32_t r = shfl_slots[threadIdx.x / width * width + src];
  __syncthreads();
  return r;
}

// dp2a as the PTX ISA defines it for unsigned operands.
static uint32_t __dp2a_lo(uint32_t a, uint32_t b, uint32_t c) {
  return c + (a & 0xffff) * (b & 0xff) + (a >> 16) * (b >> 8 & 0xff);
}
static uint32_t __dp2a_hi(uint32_t a, uint32_t b, uint32_t c) {
  return c + (a & 0xffff) * (b >> 16 & 0xff) + (a >> 16) * (b >> 24);
}

struct int2 {
  int32_t x, y;
};
struct alignas(16) int4 {
  int32_t x, y, z, w;
};

// The warp-wide tensor-core operations the tile mapping uses (wmma, 16 × 16
// × 16), for a host compiler: every lane of a warp holds and multiplies the
// whole tiles, and lane 0 alone stores the result (the kernel synchronises
// before anything reads it).
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
enum layout_t { mem_row_major };
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  T x[16 * 16];
};
template <class F, class T>
void fill_fragment(F& f, T v) {
  for (auto& e : f.x) e = v;
}
template <class F, class T>
void load_matrix_sync(F& f, const T* p, unsigned ldm) {
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) f.x[r * 16 + c] = p[r * ldm + c];
}
template <class D, class A, class B>
void mma_sync(D& d, const A& a, const B& b, const D& c) {
  D out;
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 16; ++col) {
      int s = c.x[r * 16 + col];
      for (int k = 0; k < 16; ++k) s += int(a.x[r * 16 + k]) * int(b.x[k * 16 + col]);
      out.x[r * 16 + col] = s;
    }
  d = out;
}
template <class T, class F>
void store_matrix_sync(T* p, const F& f, unsigned ldm, layout_t) {
  if (threadIdx.x % 32 != 0) return;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) p[r * ldm + c] = f.x[r * 16 + c];
}
}  // namespace wmma
}  // namespace nvcuda

#include "../ecmul.cu"
#include "vectors.h"

using Kernel = void (*)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*, uint32_t,
                        uint32_t);

struct Entry {
  const char* name;
  Kernel fn;
};

#define ECM_EMU_ENTRY(curve, Curve, sched, Sched, ext, Ext, mapping, Mapping_, chan, lanes, shape, regs, items) \
  {"ecm_ladder_" #curve "_" #sched "_" #ext "_" #mapping "_" #chan,                                        \
   ecm_ladder_##curve##_##sched##_##ext##_##mapping##_##chan},
static const Entry kEntries[] = {ECM_ENTRIES(ECM_EMU_ENTRY)};

static Kernel find(const std::string& name) {
  for (const Entry& e : kEntries)
    if (name == e.name) return e.fn;
  return nullptr;
}

// launch runs grid blocks of threads one block at a time.
static void launch(Kernel k, uint32_t grid, uint32_t threads, const uint32_t* consts,
                   const uint32_t* in, const uint32_t* sc, uint32_t* out, uint32_t count,
                   uint32_t stride) {
  blockDim.x = threads;
  for (uint32_t b = 0; b < grid; ++b) {
    std::barrier<> bar(threads);
    block_barrier = &bar;
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < threads; ++t)
      ts.emplace_back([=] {
        threadIdx.x = t;
        blockIdx.x = b;
        k(consts, in, sc, out, count, stride);
      });
    for (auto& t : ts) t.join();
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: emulate CURVE_SCHEDULE_CHANNELS FILE [ITEMS]\n");
    return 2;
  }
  const std::string curve = argv[1];
  Vectors v;
  std::string err;
  if (!read_vectors(argv[2], v, err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  const uint32_t items = argc > 3 ? uint32_t(atoi(argv[3])) : 6;
  const uint32_t count = items < v.items ? items : v.items;
  const auto in = tile(v.in, v.inRows(), v.items, count);
  const auto sc = tile(v.scalars, v.words, v.items, count);
  const auto want = tile(v.want, v.outRows(), v.items, count);
  int failures = 0, passes = 0;
  for (const EntryShape& e : kEntryShapes) {
    if (curve != e.curve) continue;
    const std::string name = e.name;
    Kernel k = find(name);
    if (!k) {
      fprintf(stderr, "no entry point %s\n", name.c_str());
      return 1;
    }
    const uint32_t L = e.lanes;
    // a partial warp or item ends each block, where the mapping allows it
    const uint32_t threads = e.items ? e.items * L : e.shape == ecm_warp ? 48 : e.shape == ecm_spread ? 64 : 2 * L + 3;
    const uint32_t ipb = ecm_items_per_block(threads, L, e.shape), grid = (count + ipb - 1) / ipb;
    std::vector<uint32_t> out(size_t(v.outRows()) * count, 0xdeadbeefu);
    launch(k, grid, threads, v.consts.data(), in.data(), sc.data(), out.data(), count, count);
    const size_t bad = compare(name.c_str(), out, want, v.outRows(), count);
    printf("%-36s threads %3u items %4u: %s\n", name.c_str(), threads, count,
           bad ? "MISMATCH" : "bit-exact");
    (bad ? failures : passes)++;
  }
  if (passes + failures == 0) {
    fprintf(stderr, "no entry points for %s\n", curve.c_str());
    return 1;
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
