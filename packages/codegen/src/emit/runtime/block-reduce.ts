// Runtime helper: block reduction. Threads of a block are grouped into segments (the thread
// dims not reduced) and each segment combines one value per thread over the reduced dims
// (X_REDUCE: threadIdx.x, Y_REDUCE: threadIdx.y) with nvfSegmentTotal (segment-total.ts, the
// warp-shuffle / shared-memory-tree algorithm every block reduction shares; prepended here so
// the library keeps one entry per file in runtime/index.ts).
// Every thread of the block must call it (it synchronizes): threads whose input is out of
// range pass read_pred = false and contribute `init`, the op's identity. The thread with
// reduced indices 0 folds the result into `out` when write_pred holds; a final __syncthreads
// lets the next reduction reuse the shared memory. `smem` needs blockDim.x * blockDim.y
// elements of T (dynamic shared memory). T is the accumulation type; `out` may be narrower
// (__half, __bfloat): it is widened, combined once and rounded once (nvf_load_acc /
// nvf_store_acc, also used by blockAllreduce and the grid reductions).
import { SEGMENT_TOTAL_RUNTIME } from './segment-total.js';

export const BLOCK_REDUCE_RUNTIME = `${SEGMENT_TOTAL_RUNTIME}
// ---- block reduction ----
__device__ __forceinline__ void nvf_load_acc(float& a, const __half& x) { a = __half2float(x); }
__device__ __forceinline__ void nvf_load_acc(float& a, const __bfloat& x) { a = __bfloat2float(x); }
template <typename T> __device__ __forceinline__ void nvf_load_acc(T& a, const T& x) { a = x; }
__device__ __forceinline__ void nvf_store_acc(__half& x, const float& a) { x = __float2half(a); }
__device__ __forceinline__ void nvf_store_acc(__bfloat& x, const float& a) { x = __float2bfloat(a); }
template <typename T> __device__ __forceinline__ void nvf_store_acc(T& x, const T& a) { x = a; }

// out ← out ⊕ total, widened to T and rounded once.
template <typename TOut, typename T, typename Func>
__device__ __forceinline__ void nvf_fold_into(TOut& out, const T& total, Func op) {
  T o;
  nvf_load_acc(o, out);
  op(o, total);
  nvf_store_acc(out, o);
}

template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockReduce(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const T total = nvfSegmentTotal<X_REDUCE, Y_REDUCE, false>(read_pred ? inp : init, op, smem, init);
  if (nvfSegmentOf<X_REDUCE, Y_REDUCE>().idx == 0u && write_pred) nvf_fold_into(out, total, op);
  __syncthreads();
}
`;
