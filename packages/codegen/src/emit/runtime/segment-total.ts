// Runtime helper: the one segment-combine algorithm behind every block-level reduction
// (blockReduce, blockAllreduce, blockWelford and, through them, gridReduce / gridWelford).
// Threads of a block are grouped into segments (the thread dims not reduced); each segment
// combines one value per thread over the reduced dims (X_REDUCE: threadIdx.x, Y_REDUCE:
// threadIdx.y). nvfSegmentOf<X, Y>() gives a thread's segment, its index among the segment's
// threads and the sizes (the layout every block and grid reduction shares).
// nvfSegmentTotal<X, Y, BROADCAST>(val, op, smem, init) returns the segment's total:
//   * reducing threadIdx.x only, with blockDim.x a multiple of 32: a __shfl_xor_sync butterfly
//     within each warp, one partial per warp in shared memory, then a second butterfly in the
//     segment's first warp (lanes past the warp count contribute `init`);
//   * otherwise: a shared-memory tree (fold to a power of two, then halve), __syncthreads
//     between steps.
// The total is valid in the thread with reduced index 0, and in every thread of the segment
// when BROADCAST (the warp path publishes it through the segment's first shared-memory slot).
// `op(a, b)` folds b into a (a ← a ⊕ b) and `init` is its identity. T is any type with an
// nvf_shfl_xor overload (the scalar ones below; Welford's state in welford.ts, found by
// argument-dependent lookup). `smem` needs blockDim.x · blockDim.y elements of T. Every thread
// of the block must call it (it synchronizes). It does not end with a __syncthreads: the caller
// reads the total (the tree path leaves it in shared memory) and then synchronizes before the
// shared memory is reused.
export const SEGMENT_TOTAL_RUNTIME = `// ---- segment total (shared by every block reduction) ----
__device__ __forceinline__ float nvf_shfl_xor(float v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ double nvf_shfl_xor(double v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ int nvf_shfl_xor(int v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ long long nvf_shfl_xor(long long v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ bool nvf_shfl_xor(bool v, int m) { return __shfl_xor_sync(0xffffffffu, static_cast<int>(v), m) != 0; }

struct NvfSegment {
  unsigned size;   // threads combined per segment
  unsigned idx;    // this thread's index among them (0: the one that receives the total)
  unsigned seg;    // this thread's segment
  unsigned count;  // segments per block
};

template <bool X_REDUCE, bool Y_REDUCE>
__device__ __forceinline__ NvfSegment nvfSegmentOf() {
  const unsigned bdx = blockDim.x;
  const unsigned bdy = blockDim.y;
  const unsigned tx = threadIdx.x;
  const unsigned ty = threadIdx.y;
  NvfSegment s;
  s.size = (X_REDUCE ? bdx : 1u) * (Y_REDUCE ? bdy : 1u);
  s.idx = (Y_REDUCE ? ty * (X_REDUCE ? bdx : 1u) : 0u) + (X_REDUCE ? tx : 0u);
  s.seg = (X_REDUCE ? 0u : tx) + (Y_REDUCE ? 0u : ty * (X_REDUCE ? 1u : bdx));
  s.count = (X_REDUCE ? 1u : bdx) * (Y_REDUCE ? 1u : bdy);
  return s;
}

template <typename T, typename Func>
__device__ __forceinline__ void nvfWarpButterfly(T& v, Func op) {
  #pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    T other = nvf_shfl_xor(v, m);
    op(v, other);
  }
}

template <bool X_REDUCE, bool Y_REDUCE, bool BROADCAST, typename T, typename Func>
__device__ __forceinline__ T nvfSegmentTotal(T val, Func op, T* smem, const T& init) {
  const NvfSegment s = nvfSegmentOf<X_REDUCE, Y_REDUCE>();
  if (X_REDUCE && !Y_REDUCE && (blockDim.x & 31u) == 0u) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned nwarps = blockDim.x >> 5;
    T* partials = smem + s.seg * nwarps;
    nvfWarpButterfly(val, op);
    if (lane == 0u) partials[warp] = val;
    __syncthreads();
    if (warp == 0u) {
      val = lane < nwarps ? partials[lane] : init;
      nvfWarpButterfly(val, op);
      if (BROADCAST && lane == 0u) partials[0] = val;
    }
    if (BROADCAST) {
      __syncthreads();
      val = partials[0];
    }
    return val;
  }
  T* mine = smem + s.seg * s.size;
  mine[s.idx] = val;
  __syncthreads();
  unsigned np2 = 1u;
  while (np2 * 2u <= s.size) np2 *= 2u;
  if (s.idx < s.size - np2) op(mine[s.idx], mine[s.idx + np2]);
  __syncthreads();
  for (unsigned h = np2 / 2u; h > 0u; h >>= 1) {
    if (s.idx < h) op(mine[s.idx], mine[s.idx + h]);
    __syncthreads();
  }
  return mine[0];
}
`;
