// Runtime helper: the building blocks every block and grid reduction shares, so each reduction
// (blockReduce, blockAllreduce, blockAllreduce2, blockAllreduceOneBarrier, blockWelford,
// gridReduce, gridWelford) states only its own algorithm:
//   * nvf_load_acc / nvf_store_acc: widen a __half/__bfloat output to the accumulation type and
//     round it back once;
//   * nvf_shfl_xor: __shfl_xor_sync for every accumulation type (bool through int);
//   * nvf_reduction_layout<X_REDUCE, Y_REDUCE>(): where this thread sits — threads are grouped
//     into segments by the thread dims NOT reduced (`seg` of `segments`), and within a segment
//     the reduced dims give `red_idx` of `red_size` (threadIdx.x fastest);
//   * nvf_warp_allreduce: the xor butterfly, after which every lane of a full warp holds the
//     warp's total (same combination order in every lane, so the same bits);
//   * nvf_smem_tree_reduce: a segment's values in shared memory folded to a power of two, then
//     halved, __syncthreads between steps; slot 0 ends with the total. Every thread of the
//     block must call it.
export const REDUCTION_PRIMITIVES_RUNTIME = `// ---- reduction primitives ----
__device__ __forceinline__ void nvf_load_acc(float& a, const __half& x) { a = __half2float(x); }
__device__ __forceinline__ void nvf_load_acc(float& a, const __bfloat& x) { a = __bfloat2float(x); }
template <typename T> __device__ __forceinline__ void nvf_load_acc(T& a, const T& x) { a = x; }
__device__ __forceinline__ void nvf_store_acc(__half& x, const float& a) { x = __float2half(a); }
__device__ __forceinline__ void nvf_store_acc(__bfloat& x, const float& a) { x = __float2bfloat(a); }
template <typename T> __device__ __forceinline__ void nvf_store_acc(T& x, const T& a) { x = a; }

__device__ __forceinline__ float nvf_shfl_xor(float v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ double nvf_shfl_xor(double v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ int nvf_shfl_xor(int v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ long long nvf_shfl_xor(long long v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ bool nvf_shfl_xor(bool v, int m) { return __shfl_xor_sync(0xffffffffu, static_cast<int>(v), m) != 0; }

struct NvfReductionLayout {
  unsigned bdx, bdy, tx, ty, red_size, red_idx, seg, segments;
};

template <bool X_REDUCE, bool Y_REDUCE>
__device__ __forceinline__ NvfReductionLayout nvf_reduction_layout() {
  NvfReductionLayout l;
  l.bdx = blockDim.x;
  l.bdy = blockDim.y;
  l.tx = threadIdx.x;
  l.ty = threadIdx.y;
  l.red_size = (X_REDUCE ? l.bdx : 1u) * (Y_REDUCE ? l.bdy : 1u);
  l.red_idx = (Y_REDUCE ? l.ty * (X_REDUCE ? l.bdx : 1u) : 0u) + (X_REDUCE ? l.tx : 0u);
  l.seg = (X_REDUCE ? 0u : l.tx) + (Y_REDUCE ? 0u : l.ty * (X_REDUCE ? 1u : l.bdx));
  l.segments = (X_REDUCE ? 1u : l.bdx) * (Y_REDUCE ? 1u : l.bdy);
  return l;
}

template <typename T, typename Func>
__device__ __forceinline__ void nvf_warp_allreduce(T& val, Func op) {
  #pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    T other = nvf_shfl_xor(val, m);
    op(val, other);
  }
}

template <typename T, typename Func>
__device__ __forceinline__ void nvf_smem_tree_reduce(T* mine, unsigned red_idx, unsigned red_size, Func op) {
  __syncthreads();
  unsigned np2 = 1u;
  while (np2 * 2u <= red_size) np2 *= 2u;
  if (red_idx < red_size - np2) op(mine[red_idx], mine[red_idx + np2]);
  __syncthreads();
  for (unsigned s = np2 / 2u; s > 0u; s >>= 1) {
    if (red_idx < s) op(mine[red_idx], mine[red_idx + s]);
    __syncthreads();
  }
}
`;
