// Runtime helper: block allreduce, the block reduction whose result every thread of its
// segment receives (persistent normalization: x − max(x) needs the max in every thread).
// Same arguments and segment rules as blockReduce (block-reduce.ts): threads grouped into
// segments by the non-reduced thread dims, out-of-range threads pass read_pred = false and
// contribute `init`. After the reduction the segment's result is written to one shared-memory
// slot, a __syncthreads publishes it, every thread with write_pred folds it into its own
// `out` (holding the init value), and a final __syncthreads lets the next reduction reuse the
// shared memory. `smem` needs blockDim.x * blockDim.y elements of T. Every thread of the
// block must call it (it synchronizes).
// blockAllreduce2 does two such reductions (own op and init each, same predicates) in one pass:
// the shuffles of both interleave and they share the three barriers, so a row with two
// statistics (layer_norm backward's sum(g) and sum(g·xhat)) waits on one chain of barriers
// instead of two. `smem` needs 2 · blockDim.x · blockDim.y elements of T.
export const BLOCK_ALLREDUCE_RUNTIME = `// ---- block allreduce ----
template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ void blockAllreduce(TOut& out, const T& inp, Func op, T* smem, bool read_pred, bool write_pred, T init) {
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  T val = read_pred ? inp : init;
  T result;
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    // Warp shuffles, one partial per warp in shared memory, the segment's first warp combines
    // them (every lane ends with the total), lane 0 publishes it in the segment's first slot.
    const unsigned lane = tx & 31u;
    const unsigned warp = tx >> 5;
    const unsigned nwarps = bdx >> 5;
    nvf_warp_allreduce(val, op);
    if (lane == 0u) smem[seg * nwarps + warp] = val;
    __syncthreads();
    if (warp == 0u) {
      T w = lane < nwarps ? smem[seg * nwarps + lane] : init;
      nvf_warp_allreduce(w, op);
      if (lane == 0u) smem[seg * nwarps] = w;
    }
    __syncthreads();
    result = smem[seg * nwarps];
  } else {
    // Shared-memory tree: fold to a power of two, then halve; slot 0 of the segment ends with
    // the total.
    T* mine = smem + seg * red_size;
    mine[red_idx] = val;
    nvf_smem_tree_reduce(mine, red_idx, red_size, op);
    result = mine[0];
  }
  if (write_pred) {
    T o;
    nvf_load_acc(o, out);
    op(o, result);
    nvf_store_acc(out, o);
  }
  __syncthreads();
}

template <bool X_REDUCE, bool Y_REDUCE, typename TOut0, typename TOut1, typename T, typename Func0, typename Func1>
__device__ void blockAllreduce2(TOut0& out0, const T& inp0, Func0 op0, TOut1& out1, const T& inp1, Func1 op1, T* smem, bool read_pred, bool write_pred, T init0, T init1) {
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  T* smem1 = smem + bdx * bdy;
  T val0 = read_pred ? inp0 : init0;
  T val1 = read_pred ? inp1 : init1;
  T result0;
  T result1;
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    const unsigned lane = tx & 31u;
    const unsigned warp = tx >> 5;
    const unsigned nwarps = bdx >> 5;
    #pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      T other0 = nvf_shfl_xor(val0, m);
      T other1 = nvf_shfl_xor(val1, m);
      op0(val0, other0);
      op1(val1, other1);
    }
    if (lane == 0u) {
      smem[seg * nwarps + warp] = val0;
      smem1[seg * nwarps + warp] = val1;
    }
    __syncthreads();
    if (warp == 0u) {
      T w0 = lane < nwarps ? smem[seg * nwarps + lane] : init0;
      T w1 = lane < nwarps ? smem1[seg * nwarps + lane] : init1;
      #pragma unroll
      for (int m = 16; m > 0; m >>= 1) {
        T other0 = nvf_shfl_xor(w0, m);
        T other1 = nvf_shfl_xor(w1, m);
        op0(w0, other0);
        op1(w1, other1);
      }
      if (lane == 0u) {
        smem[seg * nwarps] = w0;
        smem1[seg * nwarps] = w1;
      }
    }
    __syncthreads();
    result0 = smem[seg * nwarps];
    result1 = smem1[seg * nwarps];
  } else {
    T* mine0 = smem + seg * red_size;
    T* mine1 = smem1 + seg * red_size;
    mine0[red_idx] = val0;
    mine1[red_idx] = val1;
    __syncthreads();
    unsigned np2 = 1u;
    while (np2 * 2u <= red_size) np2 *= 2u;
    if (red_idx < red_size - np2) {
      op0(mine0[red_idx], mine0[red_idx + np2]);
      op1(mine1[red_idx], mine1[red_idx + np2]);
    }
    __syncthreads();
    for (unsigned s = np2 / 2u; s > 0u; s >>= 1) {
      if (red_idx < s) {
        op0(mine0[red_idx], mine0[red_idx + s]);
        op1(mine1[red_idx], mine1[red_idx + s]);
      }
      __syncthreads();
    }
    result0 = mine0[0];
    result1 = mine1[0];
  }
  if (write_pred) {
    T o0;
    nvf_load_acc(o0, out0);
    op0(o0, result0);
    nvf_store_acc(out0, o0);
    T o1;
    nvf_load_acc(o1, out1);
    op1(o1, result1);
    nvf_store_acc(out1, o1);
  }
  __syncthreads();
}
`;