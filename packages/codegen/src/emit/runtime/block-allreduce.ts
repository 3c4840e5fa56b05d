// Runtime helper: block allreduce, the block reduction whose result every thread of its
// segment receives (persistent normalization: x − max(x) needs the max in every thread).
// Same arguments and segment rules as blockReduce (block-reduce.ts): threads grouped into
// segments by the non-reduced thread dims, out-of-range threads pass read_pred = false and
// contribute `init`. The segment's total comes from nvfSegmentTotal with BROADCAST (published
// through shared memory behind a __syncthreads), every thread with write_pred folds it into
// its own `out` (holding the init value; widened and rounded once as in blockReduce), and a
// final __syncthreads lets the next reduction reuse the shared memory. `smem` needs
// blockDim.x * blockDim.y elements of T. Every thread of the block must call it (it
// synchronizes).
export const BLOCK_ALLREDUCE_RUNTIME = `// ---- block allreduce ----
template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockAllreduce(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const T total = nvfSegmentTotal<X_REDUCE, Y_REDUCE, true>(read_pred ? inp : init, op, smem, init);
  if (write_pred) nvf_fold_into(out, total, op);
  __syncthreads();
}
`;
