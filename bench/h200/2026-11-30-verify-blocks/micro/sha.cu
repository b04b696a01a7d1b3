// call M2: SHA-256 compression, additions on the ALU pipe (V0, as sign.cuh at fe89fb6), on the IMAD
// pipe as a·one + b with one hidden from the compiler (V1), and V1 with the rotations as wide
// products on the IMAD pipe (V2); nvcc -std=c++17 -O3 -arch=sm_90 sha.cu
#include <cstdio>
#include <cstdint>
__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
__device__ __forceinline__ uint32_t opq(uint32_t v) { asm("mov.b32 %0, %1;" : "=r"(v) : "r"(v)); return v; }
template <int V> __device__ __forceinline__ uint32_t add(uint32_t a, uint32_t b, uint32_t one) {
  if (V == 0) return a + b;
  uint32_t d; asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(one), "r"(b)); return d;
}
// rotation sum of three by the IMAD pipe's wide products: x·2^(32−n) = (x >> n):(x << (32−n))
template <int V> __device__ __forceinline__ uint32_t sig3(uint32_t x, int a, int b, int c) {
  if (V < 2) return rotr(x, a) ^ rotr(x, b) ^ rotr(x, c);
  uint32_t l1, h1, l2, h2, l3, h3;
  asm("mul.lo.u32 %0, %2, %3;\n\tmul.hi.u32 %1, %2, %3;" : "=r"(l1), "=r"(h1) : "r"(x), "r"(1u << (32 - a)));
  asm("mul.lo.u32 %0, %2, %3;\n\tmul.hi.u32 %1, %2, %3;" : "=r"(l2), "=r"(h2) : "r"(x), "r"(1u << (32 - b)));
  asm("mul.lo.u32 %0, %2, %3;\n\tmul.hi.u32 %1, %2, %3;" : "=r"(l3), "=r"(h3) : "r"(x), "r"(1u << (32 - c)));
  return l1 ^ h1 ^ l2 ^ h2 ^ l3 ^ h3;
}
template <int V> __device__ __forceinline__ void block(uint32_t (&h)[8], const uint32_t (&m)[16], uint32_t one) {
  constexpr uint32_t K[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t w[16];
#pragma unroll
  for (int t = 0; t < 16; ++t) w[t] = m[t];
  uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#pragma unroll
  for (int t = 0; t < 64; ++t) {
    if (t >= 16) {
      const uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      const uint32_t s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3), s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
      w[t & 15] = add<V>(add<V>(w[t & 15], s0, one), add<V>(w[(t - 7) & 15], s1, one), one);
    }
    const uint32_t ch = (e & f) ^ (~e & g), maj = (a & bb) ^ (a & c) ^ (bb & c);
    const uint32_t t1 = add<V>(add<V>(hh, sig3<V>(e, 6, 11, 25), one), add<V>(ch, w[t & 15] + K[t], one), one);
    const uint32_t t2 = add<V>(sig3<V>(a, 2, 13, 22), maj, one);
    hh = g; g = f; f = e; e = add<V>(d, t1, one); d = c; c = bb; bb = a; a = add<V>(t1, t2, one);
  }
  h[0] += a; h[1] += bb; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}
template <int V> __global__ void run(uint32_t* out, int iters, uint32_t oneIn) {
  const uint32_t one = opq(oneIn);
  uint32_t h[8], m[16];
  for (int k = 0; k < 8; ++k) h[k] = threadIdx.x * 9 + k + blockIdx.x;
  for (int k = 0; k < 16; ++k) m[k] = k * 0x9e3779b9u + threadIdx.x;
  for (int i = 0; i < iters; ++i) {
    block<V>(h, m, one);
#pragma unroll
    for (int k = 0; k < 8; ++k) m[k] ^= h[k];
  }
  uint32_t s = 0; for (int k = 0; k < 8; ++k) s ^= h[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
  uint32_t* out[3]; for (int v = 0; v < 3; ++v) cudaMalloc(&out[v], 4 << 22);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const int iters = 64;
  for (int rep = 0; rep < 3; ++rep) for (int blocks : {132 * 8, 132 * 32}) for (int v = 0; v < 3; ++v) {
    cudaEventRecord(e0);
    if (v == 0) run<0><<<blocks, 128>>>(out[0], iters, 1); else if (v == 1) run<1><<<blocks, 128>>>(out[1], iters, 1); else run<2><<<blocks, 128>>>(out[2], iters, 1);
    cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("V%d blocks %5d: %7.3f ms  %6.3f ns per compression (%s)\n", v, blocks, ms, ms * 1e6 / (double(iters) * blocks * 128), cudaGetErrorString(cudaGetLastError()));
  }
  static uint32_t a[3][132 * 32 * 128];
  for (int v = 0; v < 3; ++v) cudaMemcpy(a[v], out[v], sizeof(a[v]), cudaMemcpyDeviceToHost);
  int diff = 0; for (int i = 0; i < 132 * 32 * 128; ++i) diff += (a[0][i] != a[1][i]) + (a[0][i] != a[2][i]);
  printf("differences %d\n", diff);
}
