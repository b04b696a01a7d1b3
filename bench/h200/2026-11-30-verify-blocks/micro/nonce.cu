// call M3: RFC 6979 nonces (sign.cuh's nonce_6979) of the sign unpack, 2^20 a launch; built twice,
// -I old (internal/kernels at fe89fb6) and -I new (the same with sign.cuh's additions on the IMAD
// pipe as in sha.cu's V1, sign-imad.patch); nvcc -std=c++17 -O3 -arch=sm_90 -I DIR nonce.cu
#include <cstdio>
#include "prepare.cuh"
#include "finish.cuh"
#include "wire.cuh"
#include "sign.cuh"
template <int L>
__global__ void bench(uint32_t* out, uint32_t seed) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t d[8] = {}, h1[8] = {}, k[8];
  for (int t = 0; t < L / 4; ++t) { d[t] = (i + 1) * 0x9e3779b9u ^ (t * 0x85ebca6bu) ^ seed; h1[t] = (i * 7 + t) * 0xc2b2ae35u; }
  nonce_6979<L>(k, d, h1);
  uint32_t s = 0; for (int t = 0; t < 8; ++t) s = s * 31 + k[t];
  out[i] = s;
}
int main() {
  const int n = 1 << 20; uint32_t* out; cudaMalloc(&out, n * 4);
  static uint32_t h[1 << 20]; cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int rep = 0; rep < 3; ++rep) for (int L : {28, 32}) {
    cudaEventRecord(e0);
    if (L == 28) bench<28><<<n / 128, 128>>>(out, 5); else bench<32><<<n / 128, 128>>>(out, 5);
    cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaMemcpy(h, out, n * 4, cudaMemcpyDeviceToHost); uint32_t x = 0; for (int i = 0; i < n; ++i) x = x * 3 + h[i];
    printf("L %d: %.3f ms, %.3f ns a nonce, checksum %08x (%s)\n", L, ms, ms * 1e6 / n, x, cudaGetErrorString(cudaGetLastError()));
  }
}
