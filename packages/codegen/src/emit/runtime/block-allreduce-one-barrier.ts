// Runtime helper: a block allreduce with a single __syncthreads (used where the lowering has
// proven it safe, lower/allreduce-barriers.ts). blockAllreduce waits on three barriers: the warp
// partials are published, warp 0 combines them and publishes the total, and a trailing barrier
// lets the next reduction reuse the shared memory. Here every warp combines the published
// partials itself (the same order in every thread, so every thread gets the same bits), which
// removes the second barrier and warp 0's serial step; the trailing barrier is left out.
// Caller's contract: the next write to this `smem` area comes after another __syncthreads that
// every thread reaches only after this call returns (the lowering alternates two areas, so the
// next one-barrier allreduce's barrier is that one). Needs blockDim.y * (blockDim.x / 32)
// elements of T; for other reductions (over threadIdx.y, or blockDim.x not a warp multiple) it
// is blockAllreduce, barriers and all, on the same area (blockDim.x * blockDim.y elements).
export const BLOCK_ALLREDUCE_ONE_BARRIER_RUNTIME = `// ---- block allreduce, one barrier ----
template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockAllreduceOneBarrier(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  if (!X_REDUCE || Y_REDUCE || (blockDim.x & 31u) != 0u) {
    blockAllreduce<X_REDUCE, Y_REDUCE>(out, inp, op, smem, read_pred, write_pred, init);
    return;
  }
  const unsigned nwarps = blockDim.x >> 5;
  T* partials = smem + threadIdx.y * nwarps;
  T val = read_pred ? inp : init;
  nvf_warp_allreduce(val, op);
  if ((threadIdx.x & 31u) == 0u) partials[threadIdx.x >> 5] = val;
  __syncthreads();
  T result = partials[0];
  for (unsigned w = 1u; w < nwarps; ++w) op(result, partials[w]);
  if (write_pred) {
    T o;
    nvf_load_acc(o, out);
    op(o, result);
    nvf_store_acc(out, o);
  }
}
`;
