// Runtime helpers: block and grid reductions of `N` lanes at once (outer reductions with an
// iteration vector: each thread owns N adjacent columns, lane k's values are inp[k]).
//   * blockReduceLanes<X, Y, N>: lane k of every thread goes to smem[k · bdx·bdy + slot], then
//     one shared-memory tree for all lanes (one __syncthreads per step, not N of them); the
//     thread with reduced indices 0 folds lane k into out[k] when write_pred holds. The
//     warp-shuffle layout (threadIdx.x only, whole warps) reduces the lanes one by one with
//     blockReduce. `smem` needs N · blockDim.x · blockDim.y elements of T.
//   * gridReduceLanes<X, Y, N>: blockReduceLanes of the block's partials, each lane stored in
//     `work[((blockIdx.x · segments + segment) · N + k) · gridDim.y + blockIdx.y]`, one fence
//     and one semaphore round; the last block of the row combines every lane's partials with
//     one more blockReduceLanes and resets the semaphore (as gridReduce: runtime/grid-reduce.ts).
// Every thread of the block (grid) must call them; the lanes share read_pred and write_pred.
export const REDUCE_LANES_RUNTIME = `// ---- block / grid reductions of N lanes ----
template <bool X_REDUCE, bool Y_REDUCE, int N, typename TOut, typename T, typename Func>
__device__ void blockReduceLanes(TOut* out, const T* inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    #pragma unroll
    for (int k = 0; k < N; ++k) blockReduce<X_REDUCE, Y_REDUCE>(out[k], inp[k], op, smem, read_pred, write_pred, init);
    return;
  }
  const unsigned threads = bdx * bdy;
  #pragma unroll
  for (int k = 0; k < N; ++k) smem[k * threads + seg * red_size + red_idx] = read_pred ? inp[k] : init;
  __syncthreads();
  unsigned np2 = 1u;
  while (np2 * 2u <= red_size) np2 *= 2u;
  if (red_idx < red_size - np2) {
    #pragma unroll
    for (int k = 0; k < N; ++k) op(smem[k * threads + seg * red_size + red_idx], smem[k * threads + seg * red_size + red_idx + np2]);
  }
  __syncthreads();
  for (unsigned s = np2 / 2u; s > 0u; s >>= 1) {
    if (red_idx < s) {
      #pragma unroll
      for (int k = 0; k < N; ++k) op(smem[k * threads + seg * red_size + red_idx], smem[k * threads + seg * red_size + red_idx + s]);
    }
    __syncthreads();
  }
  if (red_idx == 0u && write_pred) {
    #pragma unroll
    for (int k = 0; k < N; ++k) {
      T o;
      nvf_load_acc(o, out[k]);
      op(o, smem[k * threads + seg * red_size]);
      nvf_store_acc(out[k], o);
    }
  }
  __syncthreads();
}

template <bool X_REDUCE, bool Y_REDUCE, int N, typename TOut, typename T, typename Func>
__device__ bool gridReduceLanes(TOut* out, const T* inp, Func op, T* smem, T* work, unsigned int* semaphores,
                                bool read_pred, bool write_pred, T init) {
  __shared__ bool nvf_last_block;
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  const unsigned gdy = gridDim.y;
  T* row = work + (static_cast<unsigned long long>(blockIdx.x) * segments + seg) * N * gdy;
  T partial[N];
  #pragma unroll
  for (int k = 0; k < N; ++k) partial[k] = init;
  blockReduceLanes<X_REDUCE, Y_REDUCE, N>(partial, inp, op, smem, read_pred, true, init);
  if (red_idx == 0u) {
    #pragma unroll
    for (int k = 0; k < N; ++k) row[k * gdy + blockIdx.y] = partial[k];
  }
  __threadfence();
  __syncthreads();
  if (tx == 0u && ty == 0u) {
    const unsigned int arrived = atomicAdd(&semaphores[blockIdx.x], 1u);
    nvf_last_block = arrived == gdy - 1u;
  }
  __syncthreads();
  if (!nvf_last_block) return false;
  __threadfence();
  T acc[N];
  #pragma unroll
  for (int k = 0; k < N; ++k) acc[k] = init;
  for (unsigned i = red_idx; i < gdy; i += red_size) {
    #pragma unroll
    for (int k = 0; k < N; ++k) {
      T p = nvf_load_l2(row + k * gdy + i);
      op(acc[k], p);
    }
  }
  blockReduceLanes<X_REDUCE, Y_REDUCE, N>(out, acc, op, smem, true, write_pred, init);
  if (tx == 0u && ty == 0u) semaphores[blockIdx.x] = 0u;
  return true;
}
`;
