// Runtime helper: block reduction. Threads of a block are grouped into segments (the thread
// dims not reduced) and each segment combines one value per thread over the reduced dims
// (X_REDUCE: threadIdx.x, Y_REDUCE: threadIdx.y):
//   * reducing threadIdx.x only, with blockDim.x a multiple of 32: warp shuffles
//     (__shfl_xor_sync) within each warp, one partial per warp through shared memory, then
//     shuffles again in the segment's first warp;
//   * otherwise: a shared-memory tree (fold to a power of two, then halve), __syncthreads
//     between steps.
// Every thread of the block must call it (it synchronizes): threads whose input is out of
// range pass read_pred = false and contribute `init`, the op's identity. The thread with
// reduced indices 0 folds the result into `out` when write_pred holds. `smem` needs
// blockDim.x * blockDim.y elements of T (dynamic shared memory). T is the accumulation type;
// `out` may be narrower (__half, __bfloat): it is widened, combined once and rounded once.
export const BLOCK_REDUCE_RUNTIME = `// ---- block reduction ----
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

template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockReduce(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const unsigned bdx = blockDim.x;
  const unsigned bdy = blockDim.y;
  const unsigned tx = threadIdx.x;
  const unsigned ty = threadIdx.y;
  const unsigned red_size = (X_REDUCE ? bdx : 1u) * (Y_REDUCE ? bdy : 1u);
  const unsigned red_idx = (Y_REDUCE ? ty * (X_REDUCE ? bdx : 1u) : 0u) + (X_REDUCE ? tx : 0u);
  const unsigned seg = (X_REDUCE ? 0u : tx) + (Y_REDUCE ? 0u : ty * (X_REDUCE ? 1u : bdx));
  T val = read_pred ? inp : init;
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    const unsigned lane = tx & 31u;
    const unsigned warp = tx >> 5;
    const unsigned nwarps = bdx >> 5;
    #pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      T other = nvf_shfl_xor(val, m);
      op(val, other);
    }
    if (lane == 0u) smem[seg * nwarps + warp] = val;
    __syncthreads();
    if (warp == 0u) {
      T w = lane < nwarps ? smem[seg * nwarps + lane] : init;
      #pragma unroll
      for (int m = 16; m > 0; m >>= 1) {
        T other = nvf_shfl_xor(w, m);
        op(w, other);
      }
      if (lane == 0u && write_pred) {
        T o;
        nvf_load_acc(o, out);
        op(o, w);
        nvf_store_acc(out, o);
      }
    }
    __syncthreads();
    return;
  }
  T* mine = smem + seg * red_size;
  mine[red_idx] = val;
  __syncthreads();
  unsigned np2 = 1u;
  while (np2 * 2u <= red_size) np2 *= 2u;
  if (red_idx < red_size - np2) op(mine[red_idx], mine[red_idx + np2]);
  __syncthreads();
  for (unsigned s = np2 / 2u; s > 0u; s >>= 1) {
    if (red_idx < s) op(mine[red_idx], mine[red_idx + s]);
    __syncthreads();
  }
  if (red_idx == 0u && write_pred) {
    T o;
    nvf_load_acc(o, out);
    op(o, mine[0]);
    nvf_store_acc(out, o);
  }
  __syncthreads();
}
`;
