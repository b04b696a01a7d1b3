// harness loads ecmul.fatbin as Go does (driver API, functions by name), runs
// every entry point of one curve on a kernelvec file with several block
// sizes, compares every output word with the CPU twin's, and times
// kernel-only throughput on large batches tiled from the file's items.
//
//   harness FATBIN CURVE_SCHEDULE[_CHANNELS] FILE [--quick N] [--batches B1,B2,...] [--threads T1,T2,...] [--only ENTRY]
//
// Every block size is timed at the first batch size, the fastest one at the
// others. --quick N checks N items once per entry and times nothing (for
// compute-sanitizer).

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "vectors.h"

#define CU(x) check_cu((x), #x, __LINE__)
#define RT(x) check_rt((x), #x, __LINE__)

static void check_cu(CUresult r, const char* what, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  cuGetErrorName(r, &name);
  fprintf(stderr, "line %d: %s: %s\n", line, what, name);
  exit(1);
}

static void check_rt(cudaError_t r, const char* what, int line) {
  if (r == cudaSuccess) return;
  fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(r));
  exit(1);
}

static std::vector<char> read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  std::vector<char> b;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) b.insert(b.end(), buf, buf + n);
  fclose(f);
  return b;
}

static std::vector<uint32_t> parse_list(const char* s) {
  std::vector<uint32_t> v;
  for (const char* p = s; *p;) {
    v.push_back(uint32_t(strtoul(p, const_cast<char**>(&p), 0)));
    if (*p == ',') ++p;
  }
  return v;
}

// A batch on the device: inputs laid out with stride columns, count of them live.
struct Batch {
  uint32_t count, stride;
  CUdeviceptr in = 0, sc = 0, out = 0;
  std::vector<uint32_t> want;  // outRows × stride; padding columns hold the poison
};

static const uint32_t kPoison = 0xdeadbeefu;

static Batch make_batch(const Vectors& v, uint32_t count, uint32_t stride) {
  Batch b;
  b.count = count;
  b.stride = stride;
  auto in = tile(v.in, v.inRows(), v.items, stride);
  auto sc = tile(v.scalars, v.words, v.items, stride);
  b.want = tile(v.want, v.outRows(), v.items, stride);
  for (uint32_t r = 0; r < v.outRows(); ++r)
    for (uint32_t i = count; i < stride; ++i) b.want[size_t(r) * stride + i] = kPoison;
  CU(cuMemAlloc(&b.in, in.size() * 4));
  CU(cuMemAlloc(&b.sc, sc.size() * 4));
  CU(cuMemAlloc(&b.out, b.want.size() * 4));
  CU(cuMemcpyHtoD(b.in, in.data(), in.size() * 4));
  CU(cuMemcpyHtoD(b.sc, sc.data(), sc.size() * 4));
  return b;
}

static void free_batch(Batch& b) {
  CU(cuMemFree(b.in));
  CU(cuMemFree(b.sc));
  CU(cuMemFree(b.out));
}

static void poison(const Batch& b) { CU(cuMemsetD32(b.out, kPoison, b.want.size())); }

static void launch(CUfunction f, CUdeviceptr consts, const Batch& b, uint32_t threads,
                   uint32_t lanes, uint32_t shape) {
  const uint32_t ipb = ecm_items_per_block(threads, lanes, shape);
  const uint32_t grid = (b.count + ipb - 1) / ipb;
  // one pointer per argument of the entry points (kernels.Args), each to a
  // host value of the argument's size
  uint32_t count = b.count, stride = b.stride;
  CUdeviceptr in = b.in, scalars = b.sc, out = b.out;
#define ECM_ARG_SIZE(type, name) static_assert(sizeof(name) == sizeof(type), "kernel argument " #name);
  ECM_KERNEL_ARG_LIST(ECM_ARG_SIZE)
#undef ECM_ARG_SIZE
#define ECM_ARG_ADDR(type, name) &name,
  void* args[] = {ECM_KERNEL_ARG_LIST(ECM_ARG_ADDR)};
#undef ECM_ARG_ADDR
  CU(cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
  RT(cudaGetLastError());
}

static size_t check(const char* what, const Batch& b, uint32_t rows) {
  std::vector<uint32_t> got(b.want.size());
  CU(cuMemcpyDtoH(got.data(), b.out, got.size() * 4));
  return compare(what, got, b.want, rows, b.stride);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: harness FATBIN CURVE FILE [--quick N] [--batches B,..] [--threads T,..] [--only ENTRY]\n");
    return 2;
  }
  const char* fatbin = argv[1];
  const std::string curve = argv[2];
  uint32_t quick = 0;
  std::string only;
  std::vector<uint32_t> batches = {1u << 18, 1u << 16, 1u << 20}, threadList;
  for (int i = 4; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick") && i + 1 < argc) quick = uint32_t(atoi(argv[++i]));
    else if (!strcmp(argv[i], "--batches") && i + 1 < argc) batches = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threadList = parse_list(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
  }
  Vectors v;
  std::string err;
  if (!read_vectors(argv[3], v, err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }

  RT(cudaFree(0));
  CU(cuInit(0));
  cudaDeviceProp prop;
  RT(cudaGetDeviceProperties(&prop, 0));
  int clockKHz = 0;
  RT(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
  printf("device: %s, %d SMs, sm_%d%d, %d MHz; curve %s, n = %u, t = %u, %u vector items\n",
         prop.name, prop.multiProcessorCount, prop.major, prop.minor, clockKHz / 1000,
         curve.c_str(), v.n, v.bits, v.items);

  const std::vector<char> image = read_file(fatbin);
  CUmodule mod;
  CU(cuModuleLoadData(&mod, image.data()));
  CUdeviceptr consts;
  CU(cuMemAlloc(&consts, v.consts.size() * 4));
  CU(cuMemcpyHtoD(consts, v.consts.data(), v.consts.size() * 4));

  int failures = 0, passes = 0;
  struct Row {
    std::string name;
    uint32_t threads, batch;
    float ms;
  };
  std::vector<Row> table;
  cudaEvent_t e0, e1;
  RT(cudaEventCreate(&e0));
  RT(cudaEventCreate(&e1));

  for (const EntryShape& es : kEntryShapes) {
    if (!entry_named(es, curve) || !entry_fits(es, v)) continue;
    const std::string name = es.name;
    if (!only.empty() && name != only) continue;
    CUfunction f;
    CU(cuModuleGetFunction(&f, mod, name.c_str()));
    int regs = 0, smem = 0, local = 0, maxThreads = 0;
    CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    CU(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    CU(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
    CU(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    const uint32_t L = es.lanes;
    std::vector<uint32_t> threads = threadList;
    if (threads.empty()) {
      if (es.items) threads = {es.items * L};
      else if (es.shape) threads = {64, 128, 256, ECM_MAX_THREADS};
      else threads = {4 * L, 8 * L, 16 * L, ECM_MAX_THREADS / L * L};
    }
    printf("%s: %d registers, %d B static shared, %d B local, max %d threads, %u lanes/item\n",
           name.c_str(), regs, smem, local, maxThreads, L);

    // Bit-exactness: every item of the file, stride wider than count (the
    // padding columns must keep their poison), every block size.
    {
      const uint32_t count = quick ? std::min(v.items, quick) : v.items;
      Batch b = make_batch(v, count, count + 37);
      std::vector<uint32_t> shapes = threads;
      // a block that ends mid-warp or mid-item, where the mapping allows it
      if (es.shape == ecm_warp) shapes.push_back(48);
      if (es.shape == ecm_packed && !es.items) shapes.push_back(2 * L + 3);
      for (uint32_t t : shapes) {
        poison(b);
        launch(f, consts, b, t, L, es.shape);
        RT(cudaDeviceSynchronize());
        const size_t bad = check(name.c_str(), b, v.outRows());
        printf("  verify %-34s threads %3u items %7u: %s\n", name.c_str(), t, count,
               bad ? "MISMATCH" : "bit-exact");
        (bad ? failures : passes)++;
        if (quick) break;
      }
      free_batch(b);
    }
    if (quick) continue;

    // Throughput: median of 5 timed launches after a warm-up, outputs checked.
    uint32_t best = 0;
    float bestMs = 0;
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      const uint32_t batch = batches[bi];
      Batch b = make_batch(v, batch, batch);
      for (uint32_t t : threads) {
        if (bi > 0 && t != best) continue;
        poison(b);
        launch(f, consts, b, t, L, es.shape);
        RT(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int rep = 0; rep < 5; ++rep) {
          RT(cudaEventRecord(e0));
          launch(f, consts, b, t, L, es.shape);
          RT(cudaEventRecord(e1));
          RT(cudaEventSynchronize(e1));
          float x;
          RT(cudaEventElapsedTime(&x, e0, e1));
          ms.push_back(x);
        }
        std::sort(ms.begin(), ms.end());
        const size_t bad = check(name.c_str(), b, v.outRows());
        (bad ? failures : passes)++;
        printf("  time   %-34s threads %3u batch %7u: %9.3f ms  %8.3f M/s%s\n", name.c_str(), t,
               batch, ms[2], batch / ms[2] / 1e3, bad ? "  MISMATCH" : "");
        table.push_back({name, t, batch, ms[2]});
        if (bi == 0 && (best == 0 || ms[2] < bestMs)) best = t, bestMs = ms[2];
      }
      free_batch(b);
    }
  }

  if (!table.empty()) {
    printf("\n%-36s %7s %8s %10s %14s\n", "entry", "threads", "batch", "ms", "scalar mults/s");
    for (const Row& r : table)
      printf("%-36s %7u %8u %10.3f %14.0f\n", r.name.c_str(), r.threads, r.batch, r.ms,
             r.batch / (r.ms / 1e3));
  }
  if (passes + failures == 0) {
    fprintf(stderr, "no entry points for %s\n", curve.c_str());
    return 1;
  }
  printf("%d passed, %d failed\n", passes, failures);
  CU(cuMemFree(consts));
  CU(cuModuleUnload(mod));
  return failures ? 1 : 0;
}
