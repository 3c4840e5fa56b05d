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
// The thread layout, the warp butterfly and the shared-memory tree are reduction-primitives.ts'.
export const BLOCK_REDUCE_RUNTIME = `// ---- block reduction ----
template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockReduce(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  T val = read_pred ? inp : init;
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    const unsigned lane = tx & 31u;
    const unsigned warp = tx >> 5;
    const unsigned nwarps = bdx >> 5;
    nvf_warp_allreduce(val, op);
    if (lane == 0u) smem[seg * nwarps + warp] = val;
    __syncthreads();
    if (warp == 0u) {
      T w = lane < nwarps ? smem[seg * nwarps + lane] : init;
      nvf_warp_allreduce(w, op);
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
  nvf_smem_tree_reduce(mine, red_idx, red_size, op);
  if (red_idx == 0u && write_pred) {
    T o;
    nvf_load_acc(o, out);
    op(o, mine[0]);
    nvf_store_acc(out, o);
  }
  __syncthreads();
}
`;
