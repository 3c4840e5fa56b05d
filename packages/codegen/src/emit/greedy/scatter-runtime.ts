// Device helpers of the greedy scatter kernel: nvfAtomicAdd for every dtype index_put_accumulate
// takes. float / double / int / long long use CUDA's atomicAdd (long long through the unsigned
// overload: two's-complement addition wraps the same way); the own __half / __bfloat types use
// PTX reductions (red.global.add.noftz.f16 from sm_70, .bf16 from sm_90), which round each
// addition to the element type, as CUDA's half atomicAdd overloads do.
export const SCATTER_RUNTIME = `// ---- greedy kernels: scatter atomics ----
__device__ __forceinline__ void nvfAtomicAdd(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void nvfAtomicAdd(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void nvfAtomicAdd(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void nvfAtomicAdd(long long* p, long long v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void nvfAtomicAdd(__half* p, __half v) {
  asm volatile("red.global.add.noftz.f16 [%0], %1;" :: "l"(p), "h"(v.x) : "memory");
}
__device__ __forceinline__ void nvfAtomicAdd(__bfloat* p, __bfloat v) {
  asm volatile("red.global.add.noftz.bf16 [%0], %1;" :: "l"(p), "h"(v.x) : "memory");
}
`;
