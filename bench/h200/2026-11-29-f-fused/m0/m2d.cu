#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#define CK(x) do{CUresult r=(x); if(r){const char*s;cuGetErrorString(r,&s);printf("ERR %s: %s\n",#x,s);return 1;}}while(0)
int main(){
  cuInit(0); CUdevice d; cuDeviceGet(&d,0); CUcontext c; cuDevicePrimaryCtxRetain(&c,d); cuCtxSetCurrent(c);
  CUstream st; cuStreamCreate(&st,1);
  int Ls[2]={28,32};
  for(int li=0;li<2;li++){ int L=Ls[li];
  for(int n: {1000, 262144, 1048576}){
    size_t sp=1+2*L, w=2*L, dp=2*L;
    size_t srcBytes=n*sp+n, dstBytes=n*(1+3*L)+n*dp+64;
    unsigned char*h=(unsigned char*)malloc(srcBytes); for(size_t i=0;i<srcBytes;i++)h[i]=(unsigned char)(i*131+7);
    CUdeviceptr src,dst; CK(cuMemAlloc(&src,srcBytes)); CK(cuMemAlloc(&dst,dstBytes));
    CK(cuMemcpyHtoD(src,h,srcBytes)); CK(cuMemsetD8(dst,0,dstBytes));
    CUDA_MEMCPY2D m; memset(&m,0,sizeof m);
    m.srcXInBytes=1; m.srcMemoryType=CU_MEMORYTYPE_DEVICE; m.srcDevice=src; m.srcPitch=sp;
    m.dstMemoryType=CU_MEMORYTYPE_DEVICE; m.dstDevice=dst+n*(1+3*L); m.dstPitch=dp; m.WidthInBytes=w; m.Height=n;
    CUevent a,b; cuEventCreate(&a,0); cuEventCreate(&b,0);
    CK(cuMemcpy2DAsync(&m,st)); CK(cuStreamSynchronize(st));
    cuEventRecord(a,st); for(int r=0;r<10;r++) CK(cuMemcpy2DAsync(&m,st)); cuEventRecord(b,st); CK(cuStreamSynchronize(st));
    float ms; cuEventElapsedTime(&ms,a,b);
    unsigned char*o=(unsigned char*)malloc(dstBytes); CK(cuMemcpyDtoH(o,dst,dstBytes));
    long bad=0; for(size_t k=0;k<(size_t)n;k++) for(size_t j=0;j<w;j++) if(o[n*(1+3*L)+k*dp+j]!=h[k*sp+1+j]) bad++;
    long outside=0; for(size_t i=0;i<(size_t)n*(1+3*L);i++) if(o[i]) outside++;
    printf("L=%d n=%d sizeof(CUDA_MEMCPY2D)=%zu: %.4f ms per copy, %.2f GB/s, bad=%ld outside=%ld\n",L,n,sizeof m,ms/10,(double)n*w/(ms/10)/1e6,bad,outside);
    cuMemFree(src); cuMemFree(dst); free(h); free(o);
  }}
  return 0;
}
