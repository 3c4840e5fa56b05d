// Runtime helper: a row copied from global to shared memory by one cp.async.bulk (sm_90+),
// completing on an mbarrier (vector reads of the copy: loadSharedToLocal, array.ts). Included only in kernels that use
// it (lower/bulk-row-loads.ts), since the PTX does not assemble for older targets.
export const BULK_COPY_RUNTIME = `// ---- bulk row copies (cp.async.bulk, sm_90+) ----
__device__ __forceinline__ unsigned nvfSharedAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// One thread: initialise the barrier for one arrival per phase and make that visible to the
// async proxy (before any copy completes on it).
__device__ __forceinline__ void nvfBulkBarrierInit(unsigned long long* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(nvfSharedAddress(barrier)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// One thread: announce the bytes the copy will complete on the barrier's current phase and
// start the copy.
__device__ __forceinline__ void nvfBulkCopyRow(unsigned long long* barrier, void* to, const void* from, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(nvfSharedAddress(barrier)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(nvfSharedAddress(to)), "l"(from), "r"(bytes), "r"(nvfSharedAddress(barrier)) : "memory");
}
// One thread, after a __syncthreads that follows every read of the buffer: order those
// (generic-proxy) reads before the async proxy's writes, then copy into the buffer again.
__device__ __forceinline__ void nvfBulkCopyRowAgain(unsigned long long* barrier, void* to, const void* from, unsigned bytes) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  nvfBulkCopyRow(barrier, to, from, bytes);
}
// Every thread: spin until the barrier's phase of the given parity completes (all its bytes landed).
__device__ __forceinline__ void nvfBulkCopyWait(unsigned long long* barrier, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(nvfSharedAddress(barrier)), "r"(parity) : "memory");
  }
}
`;
