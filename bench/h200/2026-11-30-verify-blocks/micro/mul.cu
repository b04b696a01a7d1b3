// call M1: FeField::mul (field.cuh at fe89fb6) against mul_cc, bit-exact check and timing;
// nvcc -std=c++17 -O3 -arch=sm_90 -I internal/kernels mul.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "field.cuh"
#include "mulcc.cuh"

__global__ void check(const uint32_t* ab, int n, uint32_t* bad, const uint32_t* pp, uint32_t pInv) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  FeField f; for (int k = 0; k < 8; ++k) f.p.w[k] = pp[k]; f.pInv = pInv;
  Fe a, b; for (int k = 0; k < 8; ++k) { a.w[k] = ab[16 * i + k]; b.w[k] = ab[16 * i + 8 + k]; }
  Fe x = f.mul(a, b), y = mul_cc(f, a, b);
  uint32_t d = 0; for (int k = 0; k < 8; ++k) d |= x.w[k] ^ y.w[k];
  if (d) atomicAdd(bad, 1);
}
template <int V> __global__ void chain(uint32_t* out, int iters, const uint32_t* pp, uint32_t pInv) {
  FeField f; for (int k = 0; k < 8; ++k) f.p.w[k] = pp[k]; f.pInv = pInv;
  Fe x, y; for (int k = 0; k < 8; ++k) { x.w[k] = threadIdx.x + k; y.w[k] = blockIdx.x * 7 + k; }
  for (int i = 0; i < iters; ++i) x = V ? mul_cc(f, x, y) : f.mul(x, y);
  uint32_t s = 0; for (int k = 0; k < 8; ++k) s ^= x.w[k]; out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
static uint64_t rng = 88172645463325252ull; static uint32_t r32() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return uint32_t(rng); }
int main() {
  const char* names[] = {"p224", "p256", "secp256k1p", "p256n"};
  uint32_t ps[4][8] = {{1, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0},
                       {0xffffffff, 0xffffffff, 0xffffffff, 0, 0, 0, 1, 0xffffffff},
                       {0xfffffc2f, 0xfffffffe, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                       {0xfc632551, 0xf3b9cac2, 0xa7179e84, 0xbce6faad, 0xffffffff, 0xffffffff, 0, 0xffffffff}};
  const int n = 1 << 20; uint32_t *ab, *bad, *pp, *out; cudaMallocManaged(&ab, n * 64); cudaMallocManaged(&bad, 4); cudaMallocManaged(&pp, 32); cudaMallocManaged(&out, 4 << 20);
  for (int c = 0; c < 4; ++c) {
    memcpy(pp, ps[c], 32); uint32_t inv = 1; for (int k = 0; k < 5; ++k) inv *= 2 - ps[c][0] * inv; uint32_t pInv = 0u - inv;
    for (int i = 0; i < n; ++i) { // a < 2^256 any, b < p: b = random with top word below p's top (or edges)
      for (int k = 0; k < 8; ++k) { ab[16 * i + k] = r32(); ab[16 * i + 8 + k] = r32(); }
      int e = i % 16;
      if (e == 1) for (int k = 0; k < 8; ++k) ab[16 * i + k] = 0xffffffff;
      if (e == 2) { for (int k = 0; k < 8; ++k) ab[16 * i + 8 + k] = ps[c][k]; ab[16 * i + 8] -= 1; }
      if (e == 3) { for (int k = 0; k < 8; ++k) { ab[16 * i + k] = 0xffffffff; ab[16 * i + 8 + k] = ps[c][k]; } ab[16 * i + 8] -= 1; }
      if (e == 4) for (int k = 0; k < 8; ++k) ab[16 * i + 8 + k] = 0;
      if (e == 5) for (int k = 0; k < 8; ++k) ab[16 * i + k] = ps[c][k];
      // b below p: clear b's top word below p's where p's top word is small
      uint32_t top = ps[c][7]; if (top == 0) { ab[16 * i + 15] = 0; if (ps[c][6] == 0xffffffff && e != 2 && e != 3) ab[16*i+14] &= 0x7fffffff; }
      else if (e != 2 && e != 3) ab[16 * i + 15] = ab[16 * i + 15] % top;
    }
    *bad = 0; check<<<n / 256, 256>>>(ab, n, bad, pp, pInv); cudaDeviceSynchronize();
    printf("%-11s mismatches %u of %d  (%s)\n", names[c], *bad, n, cudaGetErrorString(cudaGetLastError()));
  }
  memcpy(pp, ps[1], 32); uint32_t inv = 1; for (int k = 0; k < 5; ++k) inv *= 2 - ps[1][0] * inv; uint32_t pInv = 0u - inv;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int rep = 0; rep < 2; ++rep) for (int blocks : {132 * 4, 132 * 64}) for (int v = 0; v < 2; ++v) {
    const int iters = 2048; cudaEventRecord(e0);
    if (v) chain<1><<<blocks, 32>>>(out, iters, pp, pInv); else chain<0><<<blocks, 32>>>(out, iters, pp, pInv);
    cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("%s warps %6d: %8.3f ms, %7.1f ns per product a warp (latency), %6.3f ns per product (throughput)\n", v ? "cc " : "old", blocks, ms,
           ms * 1e6 / iters, ms * 1e6 / (double(iters) * blocks * 32));
  }
  return 0;
}
