// emulate runs the kernel source on the CPU and compares its outputs with a
// kernelvec file word for word. It checks the kernel's arithmetic and
// exchanges where there is no GPU; it says nothing about speed.
//
// Every GPU thread of a block is a fiber with its own stack, and the block's
// fibers run on one OS thread, each until its next barrier (__syncthreads,
// __syncwarp or a shuffle, all block-wide here): every fiber reaches the
// barrier before any leaves it. Between two barriers the fibers run one
// after the other in a fresh random order (or forward, or reverse), so that
// a missing barrier shows as a mismatch. Blocks run in parallel on --jobs
// OS threads, each with its own __shared__ memory.
//
//   emulate SELECTOR FILE [ITEMS] [--threads T,..] [--only ENTRY] [--jobs J]
//           [--order random|forward|reverse] [--seed S] [--fail-fast]
//
// SELECTOR is CURVE_SCHEDULE (p224, p256 or secp256k1; coz, paper or comb),
// which runs the entry points of the channel width the file was made for, or
// CURVE_SCHEDULE_CHANNELS (c16 or c30), which also checks the file is for
// that width. ITEMS (default 8) is the batch: item i is item i mod I of the
// file. Each entry point runs at every block size of --threads, by default
// its harness sizes that end a block mid-warp or mid-item, and with a stride
// wider than the batch, whose padding columns must keep their poison.
//
// SELECTOR CURVE_finish[_CHANNELS] runs the finish kernel (finish.cuh),
// ecm_finish_CURVE_CHANNELS, on a kernelvec -finish file: at its block size
// (kernels.FinishThreads, or those of --threads) and at one that does not
// divide the batch, on the grids of kernels.FinishGrid (16 and
// kFinishItemsMax items a thread), and once on a grid too small for the
// batch; every word of the output buffer must then be the host finish's
// (the results, and the ladder's outputs below them and in the columns of
// items no thread took), and the padding columns must keep their poison.
//
// SELECTOR CURVE_verify[_CHANNELS] runs the verify kernel (verify.cuh),
// ecm_verify_CURVE_CHANNELS, on a kernelvec -verify file, one item a thread,
// at the launches of the prepare's below; every word of the output buffer
// must then be the host twin's (each item's outcome over its first ladder
// output row, the rest untouched), and the padding columns must keep their
// poison.
//
// SELECTOR CURVE_prepare[_CHANNELS] runs the prepare kernel (prepare.cuh),
// ecm_prepare_CURVE_CHANNELS, on a kernelvec -prepare file, one item a
// thread: at its block size (kernels.FinishThreads, or those of --threads)
// and at one that does not divide the batch, on ⌈batch/threads⌉ blocks, the
// last one partial; then once on a grid too small for the batch. Every word
// of every input row (the ladder's and the finish's) must then be the host
// twin's in the columns of the items the launch's threads hold, and the raw
// words in the others; scalars and out are null, and the padding columns
// must keep their poison.
//
// SELECTOR CURVE_unpack[_CHANNELS] and CURVE_pack[_CHANNELS] run the wire
// kernels (wire.cuh), ecm_unpack_CURVE_CHANNELS on a kernelvec -unpack
// file and ecm_pack_CURVE_CHANNELS on a kernelvec -pack file, one item a
// thread, at the launches of the prepare kernel. The wire bytes of the
// batch (the unpack's input in out, the pack's output in in) are laid out
// for its count from the file's items. The unpack must leave the twin's
// finish rows and scalars in the columns of the items it takes, the words
// before everywhere else (the ladder's rows included) and its wire input
// as it was; the pack the twin's result and outcome bytes of the items it
// takes, the bytes before everywhere else (the poison past the wire output
// included) and the result rows as they were.
//
// SELECTOR CURVE_verifyunpack[_CHANNELS] and CURVE_verifypack[_CHANNELS]
// run the wire kernels of a verify batch (verify.cuh),
// ecm_verifyunpack_CURVE_CHANNELS on a kernelvec -verifyunpack file and
// ecm_verifypack_CURVE_CHANNELS on a kernelvec -verifypack file, as the
// unpack and pack kernels run: the verify unpack must also leave the
// twin's verify rows, from the u1·G, r, r + n and flags sections of its
// wire input; the verify pack the twin's outcome byte of each item it
// takes, from the verify kernel's output rows, which it must not change.
//
// SELECTOR CURVE_signunpack[_CHANNELS] and CURVE_signpack[_CHANNELS] run
// the wire kernels of a signing batch on the comb (sign.cuh),
// ecm_signunpack_CURVE_CHANNELS on a kernelvec -signunpack file and
// ecm_signpack_CURVE_CHANNELS on a kernelvec -signpack file, as the
// unpack and pack kernels run: the sign unpack must also leave the twin's
// sign rows, and write each item's nonce over its key in its wire input
// (the keys, then the h1), whose other bytes it must not change; the sign
// pack, on the finish's grids, writes the twin's signature r‖s and outcome
// bytes of the items it takes over the first input rows, from the finish's
// result rows and the sign rows, and must leave both, and every other byte
// of the input rows (the poison past the wire output included), as they
// were.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) && !defined(__CET__) && !defined(EMU_UCONTEXT)
#define EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

// The CUDA vocabulary the kernel uses, for a host compiler.
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __trap() abort()
#define __shared__ static thread_local

struct uint2 {
  uint32_t x, y;
};
struct alignas(16) uint4 {
  uint32_t x, y, z, w;
};
struct int2 {
  int32_t x, y;
};
struct alignas(16) int4 {
  int32_t x, y, z, w;
};
struct dim3 {
  uint32_t x = 1, y = 1, z = 1;
};
template <class T>
T __ldg(const T* p) {
  return *p;
}

static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;

// ---------------------------------------------------------------------------
// Fibers: one per GPU thread of a block, run by the worker that runs the block.

#ifdef EMU_ASM_SWITCH
// emu_switch saves the callee-saved registers on the current stack, stores
// the stack pointer in *save and continues on the stack `next` (as saved by
// an earlier emu_switch, or prepared by Fiber::start).
extern "C" void emu_switch(void** save, void* next);
asm(R"(
  .text
  .globl emu_switch
  .type emu_switch, @function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch, .-emu_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif

#include "../schedule_gen.cuh"

// An entry point, and the arguments of one launch (kernels.Args).
using Kernel = void (*)(ECM_KERNEL_PARAMS);

struct Args {
  Kernel k;
#define ECM_EMU_ARG(type, name) type name;
  ECM_KERNEL_ARG_LIST(ECM_EMU_ARG)
#undef ECM_EMU_ARG

  void run() const { k(ECM_KERNEL_ARGS); }
};

constexpr size_t kStack = 256 << 10;  // per fiber, below a guard page
constexpr size_t kGuard = 4096;

struct Fiber {
  char* base = nullptr;  // guard page, then the stack
  bool done = false;
#ifdef EMU_ASM_SWITCH
  void* sp = nullptr;
#else
  ucontext_t ctx;
#endif
};

enum class Order { Random, Forward, Reverse };

// Worker runs blocks: its fibers, the order it resumes them in, and where
// the fiber that runs now returns to at a barrier.
struct Worker {
  std::vector<Fiber> fibers;
  std::vector<uint32_t> order;
  Fiber* cur = nullptr;
  const Args* args = nullptr;
  std::mt19937_64 rng;
#ifdef EMU_ASM_SWITCH
  void* home = nullptr;
#else
  ucontext_t home;
#endif
};

static thread_local Worker* worker;
static thread_local uint32_t shfl_slots[1024];

static void fiber_main();

static void yield_to_worker(Worker& w) {
#ifdef EMU_ASM_SWITCH
  emu_switch(&w.cur->sp, w.home);
#else
  swapcontext(&w.cur->ctx, &w.home);
#endif
}

static void resume(Worker& w, Fiber& f) {
  w.cur = &f;
#ifdef EMU_ASM_SWITCH
  emu_switch(&w.home, f.sp);
#else
  swapcontext(&w.home, &f.ctx);
#endif
}

static void start(Fiber& f) {
  if (!f.base) {
    void* p = mmap(nullptr, kGuard + kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    f.base = static_cast<char*>(p);
    mprotect(f.base, kGuard, PROT_NONE);
  }
  f.done = false;
#ifdef EMU_ASM_SWITCH
  char* top = f.base + kGuard + kStack;
  // emu_switch pops six registers, then returns into fiber_main, which
  // finds the stack as a call leaves it (16-byte aligned plus a return address).
  void** sp = reinterpret_cast<void**>(top);
  *--sp = nullptr;                                      // fiber_main's return address: none
  *--sp = reinterpret_cast<void*>(&fiber_main);         // emu_switch's ret
  for (int i = 0; i < 6; ++i) *--sp = nullptr;          // rbp rbx r12 r13 r14 r15
  f.sp = sp;
#else
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = f.base + kGuard;
  f.ctx.uc_stack.ss_size = kStack;
  f.ctx.uc_link = nullptr;
  makecontext(&f.ctx, fiber_main, 0);
#endif
}

static void fiber_main() {
  Worker& w = *worker;
  w.args->run();
  w.cur->done = true;
  yield_to_worker(w);
  abort();  // a finished fiber is never resumed
}

// __syncthreads: every fiber of the block arrives before any leaves.
static void __syncthreads() {
  yield_to_worker(*worker);
}
static void __syncwarp(unsigned = 0xffffffffu) { __syncthreads(); }

static uint32_t __shfl_sync(unsigned, uint32_t v, int src, int width) {
  shfl_slots[threadIdx.x] = v;
  __syncthreads();
  const uint32_t r = shfl_slots[threadIdx.x / width * width + src];
  __syncthreads();
  return r;
}

// run_block runs every thread of block b until all have returned; a thread
// that returns early stops taking part in the barriers.
static uint64_t run_block(Worker& w, uint32_t b, Order order) {
  blockIdx.x = b;
  const uint32_t threads = blockDim.x;
  for (uint32_t t = 0; t < threads; ++t) start(w.fibers[t]);
  uint32_t live = threads;
  uint64_t phases = 0;
  for (; live; ++phases) {
    w.order.clear();
    for (uint32_t t = 0; t < threads; ++t)
      if (!w.fibers[t].done) w.order.push_back(t);
    if (order == Order::Random) std::shuffle(w.order.begin(), w.order.end(), w.rng);
    if (order == Order::Reverse) std::reverse(w.order.begin(), w.order.end());
    for (uint32_t t : w.order) {
      threadIdx.x = t;
      resume(w, w.fibers[t]);
      if (w.fibers[t].done) --live;
    }
  }
  return phases - 1;  // the last phase ends when the threads return
}

// ---------------------------------------------------------------------------
// dp2a as the PTX ISA defines it for unsigned operands.
static uint32_t __dp2a_lo(uint32_t a, uint32_t b, uint32_t c) {
  return c + (a & 0xffff) * (b & 0xff) + (a >> 16) * (b >> 8 & 0xff);
}
static uint32_t __dp2a_hi(uint32_t a, uint32_t b, uint32_t c) {
  return c + (a & 0xffff) * (b >> 16 & 0xff) + (a >> 16) * (b >> 24);
}

// The warp-wide tensor-core operations the tile mapping uses (wmma, 16 × 16
// × 16), for a host compiler: lane 0 of the warp loads, multiplies and
// stores the whole tiles for the warp (the kernel synchronises before
// anything reads the result).
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
enum layout_t { mem_row_major };
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  T x[16 * 16] = {};  // other lanes' copies stay zero
};
static bool lane0() { return threadIdx.x % 32 == 0; }
template <class F, class T>
void fill_fragment(F& f, T v) {
  if (!lane0()) return;
  for (auto& e : f.x) e = v;
}
template <class F, class T>
void load_matrix_sync(F& f, const T* p, unsigned ldm) {
  if (!lane0()) return;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) f.x[r * 16 + c] = p[r * ldm + c];
}
template <class D, class A, class B>
void mma_sync(D& d, const A& a, const B& b, const D& c) {
  if (!lane0()) return;
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
  if (!lane0()) return;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) p[r * ldm + c] = f.x[r * 16 + c];
}
}  // namespace wmma
}  // namespace nvcuda

// __byte_perm as the PTX ISA defines prmt in its default mode: byte i of the
// result is byte (s >> 4i) & 7 of y:x.
static uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t v = uint64_t(y) << 32 | x;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t(v >> (8 * (s >> (4 * i) & 7)) & 0xff) << (8 * i);
  return r;
}

// mma.sync m16n8k32 (four A registers, two B) or m16n8k16 (two, one), u8 ×
// u8 → s32 (d = A·B, or d += A·B with accumulate), with the PTX ISA's
// fragment layouts: every lane of the warp leaves its fragments, and after
// a barrier each takes its four sums. Lane
// 4g + t holds A's rows g (registers 0, 2) and g + 8 (1, 3) at columns
// 4t … 4t + 3 (registers 0, 1) and 16 + 4t … (2, 3), one byte per column;
// B's column g at rows 4t … 4t + 3 (register 0) and 16 + 4t … (1); D's rows g
// (d0, d1) and g + 8 (d2, d3) at columns 2t and 2t + 1.
#define ECM_EMULATION 1
static thread_local uint32_t mma_a[1024][4], mma_b[1024][2];
template <int AW, int BW>
static void ecm_emulate_mma_u8(int32_t (&d)[4], const uint32_t (&a)[AW], const uint32_t (&b)[BW], bool accumulate) {
  const uint32_t me = threadIdx.x, warp = me / 32 * 32;
  for (int i = 0; i < AW; ++i) mma_a[me][i] = a[i];
  for (int i = 0; i < BW; ++i) mma_b[me][i] = b[i];
  __syncthreads();
  const int g = int(me % 32) / 4, t = int(me % 4), k = 16 * BW;
  auto aAt = [&](int row, int col) {
    const uint32_t w = mma_a[warp + 4 * (row % 8) + col % 16 / 4][(row >= 8) + 2 * (col >= 16)];
    return int32_t(w >> (8 * (col % 4)) & 0xff);
  };
  auto bAt = [&](int row, int col) {
    const uint32_t w = mma_b[warp + 4 * col + row % 16 / 4][row >= 16];
    return int32_t(w >> (8 * (row % 4)) & 0xff);
  };
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    int32_t sum = accumulate ? d[i] : 0;
    for (int kk = 0; kk < k; ++kk) sum += aAt(row, kk) * bAt(kk, col);
    d[i] = sum;
  }
  __syncthreads();
}

// The double-precision intrinsics of the finish's CRT, rounded to nearest
// at every step as on the GPU: the stores through volatile keep the host
// compiler from fusing a product and a sum.
static double __dmul_rn(double a, double b) {
  volatile double r = a * b;
  return r;
}
static double __dadd_rn(double a, double b) {
  volatile double r = a + b;
  return r;
}
static double __hiloint2double(int hi, int lo) {
  const uint64_t bits = uint64_t(uint32_t(hi)) << 32 | uint32_t(lo);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}
static long long __double2ll_rd(double x) { return (long long)floor(x); }

// __umul64hi: the high word of the 128-bit product (the prepare's Barrett
// reductions).
static uint64_t __umul64hi(uint64_t a, uint64_t b) { return uint64_t((unsigned __int128)a * b >> 64); }

#include "../ecmul.cu"
#include "vectors.h"

struct Entry {
  const char* name;
  Kernel fn;
};

#define ECM_EMU_ENTRY(curve, Curve, sched, Sched, ext, Ext, mapping, Mapping_, chan, lanes, shape, regs, items) \
  {"ecm_ladder_" #curve "_" #sched "_" #ext "_" #mapping "_" #chan,                                        \
   ecm_ladder_##curve##_##sched##_##ext##_##mapping##_##chan},
static const Entry kEntries[] = {ECM_ENTRIES(ECM_EMU_ENTRY)};

#define ECM_EMU_FINISH_ENTRY(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_finish_" #tag "_" #chan, ecm_finish_##tag##_##chan},
static const Entry kFinishEntries[] = {ECM_CURVES(ECM_EMU_FINISH_ENTRY)};

#define ECM_EMU_VERIFY_ENTRY(tag, Curve, chan, w, n, bits, AM)               \
  {"ecm_verify_" #tag "_" #chan, ecm_verify_##tag##_##chan},                 \
      {"ecm_verifyunpack_" #tag "_" #chan, ecm_verifyunpack_##tag##_##chan}, \
      {"ecm_verifypack_" #tag "_" #chan, ecm_verifypack_##tag##_##chan},
static const Entry kVerifyEntries[] = {ECM_CURVES(ECM_EMU_VERIFY_ENTRY)};

#define ECM_EMU_PREPARE_ENTRY(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_prepare_" #tag "_" #chan, ecm_prepare_##tag##_##chan},
static const Entry kPrepareEntries[] = {ECM_CURVES(ECM_EMU_PREPARE_ENTRY)};

#define ECM_EMU_WIRE_ENTRY(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_unpack_" #tag "_" #chan, ecm_unpack_##tag##_##chan}, {"ecm_pack_" #tag "_" #chan, ecm_pack_##tag##_##chan},
static const Entry kWireEntries[] = {ECM_CURVES(ECM_EMU_WIRE_ENTRY)};

#define ECM_EMU_SIGN_ENTRY(tag, Curve, chan, w, n, bits, AM)           \
  {"ecm_signunpack_" #tag "_" #chan, ecm_signunpack_##tag##_##chan}, \
      {"ecm_signpack_" #tag "_" #chan, ecm_signpack_##tag##_##chan},
static const Entry kSignEntries[] = {ECM_CURVES(ECM_EMU_SIGN_ENTRY)};

static Kernel find(const std::string& name) {
  for (const Entry& e : kEntries)
    if (name == e.name) return e.fn;
  for (const Entry& e : kFinishEntries)
    if (name == e.name) return e.fn;
  for (const Entry& e : kVerifyEntries)
    if (name == e.name) return e.fn;
  for (const Entry& e : kPrepareEntries)
    if (name == e.name) return e.fn;
  for (const Entry& e : kWireEntries)
    if (name == e.name) return e.fn;
  for (const Entry& e : kSignEntries)
    if (name == e.name) return e.fn;
  return nullptr;
}

// launch runs the grid's blocks on `jobs` workers, each block's threads as
// fibers of one worker. It returns the barriers each block passed.
static uint64_t launch(const Args& a, uint32_t grid, uint32_t threads, uint32_t jobs, Order order,
                       uint64_t seed) {
  blockDim.x = threads;
  gridDim.x = grid;
  std::atomic<uint32_t> next{0};
  std::atomic<uint64_t> barriers{0};
  auto work = [&](uint32_t id) {
    Worker w;
    w.fibers.resize(threads);
    w.args = &a;
    w.rng.seed(seed * 1000003 + id);
    worker = &w;
    for (uint32_t b; (b = next++) < grid;) {
      const uint64_t phases = run_block(w, b, order);
      if (b == 0) barriers = phases;
    }
    for (Fiber& f : w.fibers)
      if (f.base) munmap(f.base, kGuard + kStack);
    worker = nullptr;
  };
  jobs = std::max(1u, std::min(jobs, grid));
  std::vector<std::thread> ts;
  for (uint32_t j = 1; j < jobs; ++j) ts.emplace_back(work, j);
  work(0);
  for (auto& t : ts) t.join();
  return barriers;
}

static std::vector<uint32_t> parse_list(const char* s) {
  std::vector<uint32_t> v;
  for (const char* p = s; *p;) {
    v.push_back(uint32_t(strtoul(p, const_cast<char**>(&p), 10)));
    if (*p == ',') ++p;
    else if (*p) break;
  }
  return v;
}

// default_threads returns the block sizes an entry point runs at: blocks
// that end mid-warp or mid-item where the mapping allows it, and one that
// holds several whole items.
static std::vector<uint32_t> default_threads(const EntryShape& e) {
  const uint32_t L = e.lanes;
  if (e.items) return {e.items * L};
  if (e.shape == ecm_warp) return {48, 96};
  if (e.shape == ecm_spread || e.shape == ecm_warps) return {64, 32};
  return {2 * L + 3, 4 * L};
}

// cores returns the cores this process may run on.
static uint32_t cores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return uint32_t(std::max(1, CPU_COUNT(&set)));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

static int usage() {
  fprintf(stderr,
          "usage: emulate CURVE_SCHEDULE[_CHANNELS] FILE [ITEMS] [--threads T,..] [--only ENTRY]\n"
          "               [--jobs J] [--order random|forward|reverse] [--seed S] [--fail-fast]\n"
          "       emulate CURVE_finish[_CHANNELS] FINISH_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_verify[_CHANNELS] VERIFY_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_prepare[_CHANNELS] PREPARE_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_unpack[_CHANNELS] UNPACK_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_pack[_CHANNELS] PACK_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_verifyunpack[_CHANNELS] VERIFY_UNPACK_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_verifypack[_CHANNELS] VERIFY_PACK_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_signunpack[_CHANNELS] SIGN_UNPACK_FILE [ITEMS] [options as above]\n"
          "       emulate CURVE_signpack[_CHANNELS] SIGN_PACK_FILE [ITEMS] [options as above]\n");
  return 2;
}

constexpr uint32_t kPoison = 0xdeadbeefu;  // the padding columns' words, which no entry point may write
static const char* const kOrders[] = {"random", "forward", "reverse"};

// Options are the command line's settings of a run.
struct Options {
  uint32_t items, jobs;
  uint64_t seed;
  Order order;
  bool failFast;
  std::string only;
  std::vector<uint32_t> threads;
};

// load reads file into v with read, and says why where it cannot.
template <class V>
static bool load(bool (*read)(const char*, V&, std::string&), const char* file, V& v) {
  std::string err;
  if (read(file, v, err)) return true;
  fprintf(stderr, "%s\n", err.c_str());
  return false;
}

// names_kernel reports whether SELECTOR names a kernel around the ladder,
// `kernel` ("finish", "verify", "prepare", "unpack", "pack",
// "verifyunpack", "verifypack", "signunpack" or "signpack"): CURVE_kernel
// or CURVE_kernel_CHANNELS.
static bool names_kernel(const std::string& selector, const std::string& kernel) {
  const std::string part = "_" + kernel;
  const size_t at = selector.find(part), end = at + part.size();
  return at != std::string::npos && (end == selector.size() || selector[end] == '_');
}

// ItemRun is one launch of a kernel around the ladder: its block size and grid.
struct ItemRun {
  uint32_t threads, grid;
};

// item_runs returns the launches of a kernel around the ladder on count
// items, perThread items a thread at most, that take every item: at every
// block size of `threads` (by default kFinishThreads, and 24 or the next
// size that does not divide the batch, whose threads take unequal numbers
// of items or leave a partial last block).
static std::vector<ItemRun> item_runs(uint32_t count, std::vector<uint32_t> threads, uint32_t perThread) {
  if (threads.empty()) {
    uint32_t odd = 24;
    while (count % odd == 0) ++odd;
    threads = {kFinishThreads, odd};
  }
  std::vector<ItemRun> runs;
  const uint32_t needed = (count + perThread - 1) / perThread;  // threads
  for (uint32_t t : threads) {
    if (t == 0 || t > uint32_t(kFinishThreads)) continue;  // __launch_bounds__
    runs.push_back({t, (needed + t - 1) / t});
  }
  return runs;
}

// finish_runs returns the launches of the finish kernel on count items:
// those of item_runs at the fewest items per thread of the library's
// launches (ECM_FINISH_ITEMS_LAST_CHUNK, a batch's last chunks') and at the
// most a thread takes, the library's other launches; then one grid too
// small for the batch, whose threads take as many items as they may and
// leave the others.
static std::vector<ItemRun> finish_runs(uint32_t count, const std::vector<uint32_t>& threads) {
  auto runs = item_runs(count, threads, ECM_FINISH_ITEMS_LAST_CHUNK);
  for (const ItemRun& r : item_runs(count, threads, kFinishItemsMax)) runs.push_back(r);
  if (const uint32_t few = (count - 1) / (2 * kFinishItemsMax)) runs.push_back({few, 1});
  return runs;
}

// one_item_runs returns the launches of a kernel of one item a thread (the
// prepare, verify and wire kernels) on count items: those of item_runs,
// the last block partial; then one grid too small for the batch (blocks of
// 12 threads, half the batch's), whose threads leave the other items.
static std::vector<ItemRun> one_item_runs(uint32_t count, const std::vector<uint32_t>& threads) {
  auto runs = item_runs(count, threads, 1);
  constexpr uint32_t few = 12;
  if (const uint32_t grid = count / 2 / few) runs.push_back({few, grid});
  return runs;
}

// Unit is where one of an item's units of a buffer is: its first byte and
// its bytes (4, a word of its column, or 1, a byte of the wire).
struct Unit {
  size_t at;
  uint32_t size;
};

// Buffer is a buffer of a launch for a batch of count items: its words as
// the launch finds them (before), and as it must leave them (after) in
// the units of the items it takes. Item i owns `units` units of it, unit r
// at unit(r, i), a `unitName` (a row or a byte); the items a launch does
// not take keep their units, and every byte that no item owns (the
// padding, or the whole of a buffer the kernel only reads) keeps its
// value.
struct Buffer {
  const char *what, *unitName;  // the buffer (its argument, or "wire") and its unit, in messages
  uint32_t units, count;
  std::vector<uint32_t> before, after;
  std::function<Unit(uint32_t r, uint32_t i)> unit;
};

// rows_buffer returns the Buffer of an argument of rows × stride words,
// row r of item i at r·stride + i, as the launch finds it (before) and
// must leave it.
static Buffer rows_buffer(const char* what, uint32_t rows, uint32_t count, uint32_t stride, std::vector<uint32_t> before,
                          std::vector<uint32_t> after) {
  return Buffer{what, "row", rows, count, std::move(before), std::move(after),
                [stride](uint32_t r, uint32_t i) { return Unit{4 * (size_t(r) * stride + i), 4}; }};
}

// read_only_buffer returns the Buffer of an argument the kernel only reads:
// every byte must keep its value.
static Buffer read_only_buffer(const char* what, uint32_t count, std::vector<uint32_t> words) {
  return Buffer{what, "", 0, count, words, words, [](uint32_t, uint32_t) { return Unit{0, 0}; }};
}

// padded returns src's rows for a batch of count items (tile), over stride
// columns, those past count poisoned.
static std::vector<uint32_t> padded(const std::vector<uint32_t>& src, uint32_t rows, uint32_t I, uint32_t count,
                                    uint32_t stride) {
  auto dst = tile(src, rows, I, stride);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t i = count; i < stride; ++i) dst[size_t(r) * stride + i] = kPoison;
  return dst;
}

// unit_value returns the value of unit u of the words w.
static uint32_t unit_value(const std::vector<uint32_t>& w, Unit u) {
  uint32_t v = 0;
  memcpy(&v, reinterpret_cast<const uint8_t*>(w.data()) + u.at, u.size);
  return v;
}

// check_buffer compares got, buffer b after a launch of entry point `name`
// that took the first `taken` items, with what it must be: b's after in
// their units, b's before in the others' and in every byte no item owns.
// It prints the first mismatches and reports whether there were none.
static bool check_buffer(const char* name, const std::vector<uint32_t>& got, const Buffer& b, uint32_t taken) {
  std::vector<bool> owned(4 * b.before.size());
  size_t bad = 0;
  for (uint32_t i = 0; i < b.count; ++i)
    for (uint32_t r = 0; r < b.units; ++r) {
      const Unit u = b.unit(r, i);
      for (uint32_t k = 0; k < u.size; ++k) owned[u.at + k] = true;
      const uint32_t g = unit_value(got, u), w = unit_value(i < taken ? b.after : b.before, u);
      if (g != w && ++bad <= 5)
        printf("  MISMATCH %s: item %u %s %s %u: got %u want %u\n", name, i, b.what, b.unitName, r, g, w);
    }
  const uint8_t* g = reinterpret_cast<const uint8_t*>(got.data());
  const uint8_t* p = reinterpret_cast<const uint8_t*>(b.before.data());
  size_t padding = 0;
  for (size_t k = 0; k < owned.size(); ++k) padding += !owned[k] && g[k] != p[k];
  if (padding) printf("  MISMATCH %s: %zu bytes of %s that no item owns written\n", name, padding, b.what);
  return !bad && !padding;
}

// Buffers are a launch's buffers, the count items of its batch in each.
using Buffers = std::vector<Buffer>;

// ItemKernel is how a kernel around the ladder runs: the items a thread
// takes at most, and the arguments of a launch on bufs, copies of the
// Buffers' before in their order.
struct ItemKernel {
  uint32_t perThread;
  std::function<Args(Kernel, std::vector<std::vector<uint32_t>>& bufs)> args;
};

// item_launch runs entry point e (k) once, at run, on copies of bs's
// before, prints a line and reports whether the copies are then as they
// must be.
static bool item_launch(const ItemShape& e, Kernel k, const ItemRun& run, const ItemKernel& kernel, const Buffers& bs,
                        const Options& o) {
  std::vector<std::vector<uint32_t>> got;
  for (const Buffer& b : bs) got.push_back(b.before);
  const Args a = kernel.args(k, got);
  const auto t0 = std::chrono::steady_clock::now();
  launch(a, run.grid, run.threads, o.jobs, o.order, o.seed);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint32_t taken = std::min<uint64_t>(bs.front().count, uint64_t(run.grid) * run.threads * kernel.perThread);
  bool ok = true;
  for (size_t j = 0; j < bs.size(); ++j) ok = check_buffer(e.name, got[j], bs[j], taken) && ok;
  printf("%-40s threads %3u blocks %4u items %4u  %6.2f s: %s\n", e.name, run.threads, run.grid, taken, s,
         ok ? "bit-exact" : "MISMATCH");
  fflush(stdout);
  return ok;
}

// run_items runs each of entries at each of runs on buffers bs
// (item_launch), and prints the tally; it returns the exit status,
// stopping at the first mismatch with --fail-fast.
static int run_items(const std::vector<const ItemShape*>& entries, const std::vector<ItemRun>& runs,
                     const ItemKernel& kernel, const Buffers& bs, const Options& o) {
  int failures = 0, passes = 0;
  for (const ItemShape* e : entries) {
    const Kernel k = find(e->name);
    if (!k) {
      fprintf(stderr, "no entry point %s\n", e->name);
      return 1;
    }
    for (const ItemRun& run : runs) {
      const bool ok = item_launch(*e, k, run, kernel, bs, o);
      (ok ? passes : failures)++;
      if (!ok && o.failFast) {
        printf("%d passed, %d failed (fail-fast)\n", passes, failures);
        return 1;
      }
    }
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}

// item_entries returns the entry points of `shapes`, the kernel's (its
// name in the error), that SELECTOR names for a file of n channels, with
// --only the one it names; where there are none it says so.
static std::vector<const ItemShape*> item_entries(std::span<const ItemShape> shapes, const char* kernel,
                                                  const std::string& selector, const char* file, uint32_t n,
                                                  const Options& o) {
  std::vector<const ItemShape*> entries;
  for (const ItemShape& e : shapes)
    if (item_named(e, selector) && e.n == n && (o.only.empty() || o.only == e.name)) entries.push_back(&e);
  if (entries.empty())
    fprintf(stderr, "no %s entry point for %s on %s (n = %u)%s%s\n", kernel, selector.c_str(), file, n,
            o.only.empty() ? "" : " named ", o.only.c_str());
  return entries;
}

// outcome_counts counts the outcomes of count items in words, item i's of
// size bytes at byte at + i·size: words of the finish's result row, or the
// wire's outcome bytes.
static std::string outcome_counts(const std::vector<uint32_t>& words, size_t at, uint32_t size, uint32_t count) {
  uint32_t n[6] = {};
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t o = unit_value(words, Unit{at + size_t(i) * size, size});
    ++n[o == ECM_OUT_POINT       ? 0
        : o == ECM_OUT_INFINITY   ? 1
        : o == ECM_OUT_FAILED     ? 2
        : o == ECM_OUT_OFF_CURVE  ? 3
        : o >= ECM_OUT_BAD_ENCODING && o <= ECM_OUT_INFINITY_INPUT ? 4
                                  : 5];
  }
  char b[160];
  snprintf(b, sizeof b, "%u point, %u infinity, %u failed, %u off the curve, %u rejected, %u other", n[0], n[1], n[2],
           n[3], n[4], n[5]);
  return b;
}

// run_finish runs the finish entry points SELECTOR names on a kernelvec
// -finish file, at each launch of finish_runs, with a stride wider than the
// batch whose padding columns must keep their poison. Every word of the
// live columns of the output buffer must then be the file's: the results
// and the ladder's outputs below them, and the ladder's outputs alone in
// the columns of items a launch does not take.
static int run_finish(const std::string& selector, const char* file, const Options& o) {
  FinishVectors v;
  if (!load(read_finish_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads) || v.itemsPerThread != kFinishItemsMax) {
    fprintf(stderr, "%s: kernels.FinishThreads %u and FinishItemsMax %u, finish.cuh's %d and %u\n", file,
            v.threads, v.itemsPerThread, kFinishThreads, kFinishItemsMax);
    return 1;
  }
  const auto entries = item_entries(kFinishShapes, "finish", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, rows = v.outRows();
  const auto inRows = tile(v.in, v.inRows, v.items, stride);
  const Buffers bs{rows_buffer("out", rows, count, stride, padded(v.outs, rows, v.items, count, stride),
                               tile(v.want, rows, v.items, stride))};
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = inRows.data(), *scalars = nullptr;
    uint32_t* out = bufs[0].data();
    return Args{k, ECM_KERNEL_ARGS};
  };
  const ItemKernel kernel{kFinishItemsMax, args};
  printf("%s: n = %u, %u vector items, %u result rows; batch %u (%s), stride %u, %u jobs, order %s, seed %llu\n",
         file, v.n, v.items, v.resultRows, count,
         outcome_counts(bs[0].after, 4 * size_t(v.resultRows - 1) * stride, 4, count).c_str(), stride, o.jobs,
         kOrders[int(o.order)], (unsigned long long)o.seed);
  return run_items(entries, finish_runs(count, o.threads), kernel, bs, o);
}

// run_verify runs the verify entry points SELECTOR names on a kernelvec
// -verify file (the finish's format, one item a thread, one result row),
// at each launch of one_item_runs, with a stride wider than the batch whose
// padding columns must keep their poison. Every word of the live columns
// of the output buffer must then be the file's: each item's outcome over
// its ladder outputs, and the ladder's outputs alone in the columns of
// items a launch does not take.
static int run_verify(const std::string& selector, const char* file, const Options& o) {
  FinishVectors v;
  if (!load(read_finish_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads) || v.itemsPerThread != 1 || v.resultRows != 1) {
    fprintf(stderr, "%s: %u threads a block, %u items a thread and %u result rows, want %d, 1 and 1\n", file,
            v.threads, v.itemsPerThread, v.resultRows, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kVerifyShapes, "verify", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, rows = v.outRows();
  const auto inRows = tile(v.in, v.inRows, v.items, stride);
  const Buffers bs{rows_buffer("out", rows, count, stride, padded(v.outs, rows, v.items, count, stride),
                               tile(v.want, rows, v.items, stride))};
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = inRows.data(), *scalars = nullptr;
    uint32_t* out = bufs[0].data();
    return Args{k, ECM_KERNEL_ARGS};
  };
  const ItemKernel kernel{1, args};
  uint32_t valid = 0;
  for (uint32_t i = 0; i < count; ++i) valid += bs[0].after[i] == ECM_OUT_VALID;
  printf("%s: n = %u, %u vector items; batch %u (%u valid), stride %u, %u jobs, order %s, seed %llu\n", file, v.n,
         v.items, count, valid, stride, o.jobs, kOrders[int(o.order)], (unsigned long long)o.seed);
  return run_items(entries, one_item_runs(count, o.threads), kernel, bs, o);
}

// run_prepare runs the prepare entry points SELECTOR names on a kernelvec
// -prepare file, at each launch of one_item_runs, with a stride wider than
// the batch whose padding columns must keep their poison. Every word of the
// input rows must then be the file's: the twin's in the columns of the
// items the launch's threads hold, the raw words in the others.
static int run_prepare(const std::string& selector, const char* file, const Options& o) {
  PrepareVectors v;
  if (!load(read_prepare_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads)) {
    fprintf(stderr, "%s: kernels.FinishThreads %u, finish.cuh's %d\n", file, v.threads, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kPrepareShapes, "prepare", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, rows = v.inRows;
  const Buffers bs{rows_buffer("in", rows, count, stride, padded(v.raw, rows, v.items, count, stride),
                               tile(v.want, rows, v.items, stride))};
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {  // the kernel writes its input in place
    const uint32_t *consts = v.consts.data(), *in = bufs[0].data(), *scalars = nullptr;
    uint32_t* out = nullptr;
    return Args{k, ECM_KERNEL_ARGS};
  };
  const ItemKernel kernel{1, args};
  const uint32_t fixedRow = rows - 1;
  uint32_t off = 0;
  for (uint32_t i = 0; i < count; ++i) off += (bs[0].after[size_t(fixedRow) * stride + i] & ECM_FIXED_OFF_CURVE) != 0;
  printf("%s: n = %u, %u vector items, %u input rows (%u the ladder's); batch %u (%u off the curve), stride %u, "
         "%u jobs, order %s, seed %llu\n",
         file, v.n, v.items, rows, v.ladderRows, count, off, stride, o.jobs, kOrders[int(o.order)],
         (unsigned long long)o.seed);
  return run_items(entries, one_item_runs(count, o.threads), kernel, bs, o);
}

// unpack_counts counts the items of a batch of count items whose key the
// unpack rejects, from in, the input rows after it; and in a verify batch
// those whose u1·G is the point at infinity and whose r + n is below p.
static std::string unpack_counts(const UnpackVectors& v, const std::vector<uint32_t>& in, uint32_t count,
                                 uint32_t stride) {
  const uint32_t fixedRow = v.ladderRows + ECM_FINISH_ROWS - 1, flagsRow = fixedRow + 1 + ECM_VERIFY_FLAGS;
  uint32_t rejected = 0, infinity = 0, rn = 0;
  for (uint32_t i = 0; i < count; ++i) {
    rejected += (in[size_t(fixedRow) * stride + i] & ECM_FIXED_REJECTED) != 0;
    if (!v.verify) continue;
    infinity += (in[size_t(flagsRow) * stride + i] & ECM_VERIFY_U1_INFINITY) != 0;
    rn += (in[size_t(flagsRow) * stride + i] & ECM_VERIFY_RN_OK) != 0;
  }
  char b[128];
  if (v.verify) snprintf(b, sizeof b, "%u rejected, %u u1G at infinity, %u r + n below p", rejected, infinity, rn);
  else snprintf(b, sizeof b, "%u rejected", rejected);
  return b;
}

// UnpackKind is a kind of unpack kernel: its name in selectors, the
// reader of its kernelvec files and its entry points.
struct UnpackKind {
  const char* kernel;
  bool (*read)(const char*, UnpackVectors&, std::string&);
  std::span<const ItemShape> shapes;
};

static const UnpackKind kUnpackKinds[] = {
    {"unpack", read_unpack_vectors, kUnpackShapes},
    {"verifyunpack", read_verify_unpack_vectors, kVerifyUnpackShapes},
    {"signunpack", read_sign_unpack_vectors, kSignUnpackShapes},
};

// unpack_wire_buffer returns the Buffer of the wire input of a batch of
// count items (unpack_wire): read only, but for a signing batch's keys,
// which the sign unpack replaces with the file's nonces.
static Buffer unpack_wire_buffer(const UnpackVectors& v, uint32_t count) {
  Buffer b = read_only_buffer("out", count, unpack_wire(v, v.wire, count));
  if (!v.sign) return b;
  return Buffer{"wire", "byte", v.byteLen, count, b.before, unpack_wire(v, v.wireWant, count),
                [L = v.byteLen](uint32_t r, uint32_t i) { return Unit{size_t(i) * L + r, 1}; }};
}

// run_unpack runs the entry points of an unpack kernel of `kind` that
// SELECTOR names on a kernelvec file of that kind (-unpack, -verifyunpack
// or -signunpack), at each launch of one_item_runs, on the wire input of
// the batch (its count scalars, then its count points, then a verify or
// signing batch's sections: built from the file's items for the batch)
// and input and scalar rows of a stride wider than the batch. Every word
// of the input and scalar rows must then be the file's: the twin's finish
// rows, verify or sign rows and scalars in the columns of the items the
// launch's threads hold, and the words before elsewhere (the ladder's
// rows, the other items' columns, the padding's poison); the wire input
// must keep its bytes, but for the nonces a sign unpack writes over the
// keys of the items it takes.
static int run_unpack(const UnpackKind& kind, const std::string& selector, const char* file, const Options& o) {
  UnpackVectors v;
  if (!load(kind.read, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads)) {
    fprintf(stderr, "%s: kernels.FinishThreads %u, finish.cuh's %d\n", file, v.threads, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kind.shapes, kind.kernel, selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, R = v.inRows, W = v.words, I = v.items;
  const Buffers bs{
      rows_buffer("in", R, count, stride, padded(v.in, R, I, count, stride), tile(v.inWant, R, I, stride)),
      rows_buffer("scalars", W, count, stride, padded(v.scalars, W, I, count, stride),
                  tile(v.scalarsWant, W, I, stride)),
      unpack_wire_buffer(v, count),
  };
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = bufs[0].data(), *scalars = bufs[1].data();
    uint32_t* out = bufs[2].data();  // the wire input
    return Args{k, ECM_KERNEL_ARGS};
  };
  printf("%s: n = %u, %u vector items, %u input rows (%u the ladder's), %u scalar rows, %u wire bytes an item; "
         "batch %u (%s), stride %u, %u jobs, order %s, seed %llu\n",
         file, v.n, I, R, v.ladderRows, W, v.itemBytes(), count, unpack_counts(v, bs[0].after, count, stride).c_str(),
         stride, o.jobs, kOrders[int(o.order)], (unsigned long long)o.seed);
  return run_items(entries, one_item_runs(count, o.threads), ItemKernel{1, args}, bs, o);
}

// wire_out_unit returns where the units of a pack kernel's wire output of
// count items are: item i's record of rec bytes at byte i·rec, units 0 to
// rec − 1, then its outcome byte at count·rec + i, unit rec.
static std::function<Unit(uint32_t, uint32_t)> wire_out_unit(uint32_t count, uint32_t rec) {
  return [count, rec](uint32_t r, uint32_t i) {
    return r < rec ? Unit{size_t(i) * rec + r, 1} : Unit{size_t(count) * rec + i, 1};
  };
}

// run_pack runs the pack entry points SELECTOR names on a kernelvec -pack
// file, at each launch of one_item_runs, on result rows of a stride wider
// than the batch and the wire output of the batch (built from the file's
// items for the batch: its count results, then its count outcome bytes,
// then poison). Every byte of the wire output must then be the file's: the
// twin's in the results and outcome bytes of the items the launch's
// threads hold, the bytes before in the others' and in the poison past
// them; the result rows must keep their words.
static int run_pack(const std::string& selector, const char* file, const Options& o) {
  PackVectors v;
  if (!load(read_pack_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads)) {
    fprintf(stderr, "%s: kernels.FinishThreads %u, finish.cuh's %d\n", file, v.threads, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kPackShapes, "pack", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, Q = v.resultRows, rec = v.record();
  const Buffers bs{
      Buffer{"wire", "byte", rec + 1, count, pack_wire(v, v.wire, count, kPoison, 2),
             pack_wire(v, v.want, count, kPoison, 2), wire_out_unit(count, rec)},
      read_only_buffer("out", count, padded(v.results, Q, v.items, count, stride)),
  };
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = bufs[0].data(), *scalars = nullptr;  // the wire output in in
    uint32_t* out = bufs[1].data();
    return Args{k, ECM_KERNEL_ARGS};
  };
  printf("%s: n = %u, %u vector items, %u result rows, %u wire bytes an item; batch %u (%s), stride %u, %u jobs, "
         "order %s, seed %llu\n",
         file, v.n, v.items, Q, rec + 1, count, outcome_counts(bs[0].after, size_t(count) * rec, 1, count).c_str(),
         stride, o.jobs, kOrders[int(o.order)], (unsigned long long)o.seed);
  return run_items(entries, one_item_runs(count, o.threads), ItemKernel{1, args}, bs, o);
}

// run_verify_pack runs the verify pack entry points SELECTOR names on a
// kernelvec -verifypack file, at each launch of one_item_runs, on the
// verify kernel's output rows of a stride wider than the batch and the
// wire output of the batch (built from the file's items for the batch:
// its count outcome bytes, then poison). Every byte of the wire output
// must then be the file's: the twin's outcome bytes of the items the
// launch's threads hold, the bytes before in the others' and in the
// poison past them; the output rows must keep their words.
static int run_verify_pack(const std::string& selector, const char* file, const Options& o) {
  VerifyPackVectors v;
  if (!load(read_verify_pack_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads)) {
    fprintf(stderr, "%s: kernels.FinishThreads %u, finish.cuh's %d\n", file, v.threads, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kVerifyPackShapes, "verifypack", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, Q = v.outRows;
  const Buffers bs{
      Buffer{"wire", "byte", 1, count, tile_wire(v.wire, {1}, v.items, count, kPoison, 2),
             tile_wire(v.want, {1}, v.items, count, kPoison, 2), [](uint32_t, uint32_t i) { return Unit{i, 1}; }},
      read_only_buffer("out", count, padded(v.outs, Q, v.items, count, stride)),
  };
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = bufs[0].data(), *scalars = nullptr;  // the wire output in in
    uint32_t* out = bufs[1].data();
    return Args{k, ECM_KERNEL_ARGS};
  };
  uint32_t valid = 0, invalid = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t o = unit_value(bs[0].after, Unit{i, 1});
    valid += o == ECM_OUT_VALID, invalid += o == ECM_OUT_INVALID;
  }
  printf("%s: n = %u, %u vector items, %u output rows; batch %u (%u valid, %u invalid, %u other), stride %u, "
         "%u jobs, order %s, seed %llu\n",
         file, v.n, v.items, Q, count, valid, invalid, count - valid - invalid, stride, o.jobs, kOrders[int(o.order)],
         (unsigned long long)o.seed);
  return run_items(entries, one_item_runs(count, o.threads), ItemKernel{1, args}, bs, o);
}

// run_sign_pack runs the sign pack entry points SELECTOR names on a
// kernelvec -signpack file, at each launch of finish_runs (its threads
// share one inversion, as the finish's do), on the finish's result rows
// and the input rows (the sign rows after the finish rows) of a stride
// wider than the batch. Every byte of the input rows must then be the
// file's: the twin's signature r‖s and outcome bytes of the
// items the launch's threads hold over the first rows (the count records,
// then the count outcome bytes), and the words before everywhere else (the
// other items' bytes, the rest of the finish rows and their poison, the
// sign rows); the result rows must keep their words.
static int run_sign_pack(const std::string& selector, const char* file, const Options& o) {
  SignPackVectors v;
  if (!load(read_sign_pack_vectors, file, v)) return 1;
  if (v.threads != uint32_t(kFinishThreads)) {
    fprintf(stderr, "%s: kernels.FinishThreads %u, finish.cuh's %d\n", file, v.threads, kFinishThreads);
    return 1;
  }
  const auto entries = item_entries(kSignPackShapes, "signpack", selector, file, v.n, o);
  if (entries.empty()) return 1;

  const uint32_t count = o.items, stride = count + 5, Q = v.resultRows, R = v.inRows, rec = v.record();
  const auto before = padded(v.in, R, v.items, count, stride);
  auto after = before;  // the wire output over the first input rows
  memcpy(after.data(), tile_wire(v.want, {rec, 1}, v.items, count, 0, 0).data(), size_t(count) * (rec + 1));
  const Buffers bs{
      Buffer{"in", "byte", rec + 1, count, before, after, wire_out_unit(count, rec)},
      read_only_buffer("out", count, padded(v.results, Q, v.items, count, stride)),
  };
  const auto args = [&](Kernel k, std::vector<std::vector<uint32_t>>& bufs) {
    const uint32_t *consts = v.consts.data(), *in = bufs[0].data(), *scalars = nullptr;  // the wire output in in
    uint32_t* out = bufs[1].data();
    return Args{k, ECM_KERNEL_ARGS};
  };
  printf("%s: n = %u, %u vector items, %u result rows, %u input rows, %u wire bytes an item; batch %u (%s), "
         "stride %u, %u jobs, order %s, seed %llu\n",
         file, v.n, v.items, Q, R, rec + 1, count, outcome_counts(after, size_t(count) * rec, 1, count).c_str(), stride,
         o.jobs, kOrders[int(o.order)], (unsigned long long)o.seed);
  return run_items(entries, finish_runs(count, o.threads), ItemKernel{kFinishItemsMax, args}, bs, o);
}

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string selector = argv[1];
  const char* file = argv[2];
  uint32_t items = 8, jobs = cores();
  uint64_t seed = 1;
  Order order = Order::Random;
  bool failFast = false;
  std::string only;
  std::vector<uint32_t> threadList;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--threads" && more) threadList = parse_list(argv[++i]);
    else if (a == "--only" && more) only = argv[++i];
    else if (a == "--jobs" && more) jobs = uint32_t(atoi(argv[++i]));
    else if (a == "--seed" && more) seed = strtoull(argv[++i], nullptr, 10);
    else if (a == "--fail-fast") failFast = true;
    else if (a == "--order" && more) {
      const std::string o = argv[++i];
      if (o == "random") order = Order::Random;
      else if (o == "forward") order = Order::Forward;
      else if (o == "reverse") order = Order::Reverse;
      else return usage();
    } else if (a[0] != '-' && i == 3) items = uint32_t(atoi(argv[i]));
    else return usage();
  }
  if (items == 0) return usage();
  const Options opts{items, jobs, seed, order, failFast, only, threadList};
  if (names_kernel(selector, "finish")) return run_finish(selector, file, opts);
  if (names_kernel(selector, "verify")) return run_verify(selector, file, opts);
  if (names_kernel(selector, "prepare")) return run_prepare(selector, file, opts);
  for (const UnpackKind& k : kUnpackKinds)
    if (names_kernel(selector, k.kernel)) return run_unpack(k, selector, file, opts);
  if (names_kernel(selector, "pack")) return run_pack(selector, file, opts);
  if (names_kernel(selector, "verifypack")) return run_verify_pack(selector, file, opts);
  if (names_kernel(selector, "signpack")) return run_sign_pack(selector, file, opts);
  Vectors v;
  if (!load(read_vectors, file, v)) return 1;
  // The selector names a curve and schedule, and perhaps a channel width;
  // the file's n tells which width it was made for.
  std::vector<const EntryShape*> entries;
  bool named = false, widthFits = false;
  for (const EntryShape& e : kEntryShapes) {
    if (!entry_named(e, selector)) continue;
    named = true;
    if (!entry_fits(e, v)) continue;
    widthFits = true;
    if (!only.empty() && only != e.name) continue;
    entries.push_back(&e);
  }
  if (!named) {
    fprintf(stderr, "no entry points for %s (want CURVE_SCHEDULE or CURVE_SCHEDULE_CHANNELS, e.g. p224_coz or p224_coz_c16)\n",
            selector.c_str());
    return 1;
  }
  if (!widthFits) {
    fprintf(stderr, "%s: the file's items have n = %u channels, which no entry point of %s has (another channel width?)\n",
            file, v.n, selector.c_str());
    return 1;
  }
  if (entries.empty()) {
    fprintf(stderr, "no entry point %s for %s\n", only.c_str(), selector.c_str());
    return 1;
  }

  const uint32_t count = items, stride = count + 5;  // padding columns keep their poison
  const uint32_t rows = v.outRows();
  const auto inRows = tile(v.in, v.inRows(), v.items, stride);
  const auto scRows = tile(v.scalars, v.words, v.items, stride);
  const Buffer b = rows_buffer("out", rows, count, stride, std::vector<uint32_t>(size_t(rows) * stride, kPoison),
                               tile(v.want, rows, v.items, stride));
  printf("%s: n = %u, t = %u, %u vector items; batch %u, stride %u, %u jobs, order %s, seed %llu\n",
         file, v.n, v.bits, v.items, count, stride, jobs, kOrders[int(order)], (unsigned long long)seed);

  int failures = 0, passes = 0;
  for (const EntryShape* e : entries) {
    Kernel k = find(e->name);
    if (!k) {
      fprintf(stderr, "no entry point %s\n", e->name);
      return 1;
    }
    for (uint32_t threads : threadList.empty() ? default_threads(*e) : threadList) {
      if (e->items && threads != e->items * e->lanes) continue;  // tile: one block size only
      if (threads == 0 || threads > kMaxThreads || ((e->shape == ecm_spread || e->shape == ecm_warps) && threads % 32)) continue;
      const uint32_t ipb = ecm_items_per_block(threads, e->lanes, e->shape);
      if (ipb == 0) continue;
      const uint32_t grid = (count + ipb - 1) / ipb;
      std::vector<uint32_t> outRows(b.before);
      const uint32_t *consts = v.consts.data(), *in = inRows.data(), *scalars = scRows.data();
      uint32_t* out = outRows.data();
      const Args a{k, ECM_KERNEL_ARGS};
      const auto t0 = std::chrono::steady_clock::now();
      const uint64_t barriers = launch(a, grid, threads, jobs, order, seed);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const bool ok = check_buffer(e->name, outRows, b, count);
      printf("%-40s threads %3u blocks %4u barriers %6llu  %6.2f s: %s\n", e->name, threads, grid,
             (unsigned long long)barriers, s, ok ? "bit-exact" : "MISMATCH");
      fflush(stdout);
      (ok ? passes : failures)++;
      if (!ok && failFast) {
        printf("%d passed, %d failed (fail-fast)\n", passes, failures);
        return 1;
      }
    }
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
