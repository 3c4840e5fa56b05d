// Runtime helper: Welford (one-pass mean / M2 / count) — the serial merge, the block merge and
// the grid merge, with the same thread, segment and predicate rules as blockReduce /
// gridReduce (block-reduce.ts, grid-reduce.ts).
//   * welfordCombine(a, b): a ← a ⊕ b with nvFuser's merge (δ = b.avg − a.avg; N = a.N + b.N;
//     avg = a.avg + δ·b.N/N; M2 = a.M2 + b.M2 + δ²·a.N·b.N/N). A state with N = 0 is the
//     identity: merging one changes nothing, and merging into one copies the other side, so
//     an accumulator initialised to (NaN, NaN, 0) ends as NaN when nothing was merged (an empty
//     reduction, as torch.var_mean) and never mixes its NaN into a real result; the copy's M2
//     becomes NaN when its avg is Inf or NaN (as the general formula gives: δ² · 0). A raw
//     value x is the state (x, 0, 1).
//   * blockWelford: every thread's state merged over the reduced thread dims (warp shuffles of
//     the three values when reducing threadIdx.x with blockDim.x a multiple of 32, else a
//     shared-memory tree); the thread with reduced indices 0 merges the result into `out` when
//     write_pred holds; threads with read_pred false contribute N = 0. `smem` holds
//     blockDim.x·blockDim.y states: avg[], M2[] (T), then N[] (nvfuser_index_t; 8-byte aligned
//     because T is at least 4 bytes).
//   * gridWelford: blockWelford per block, the partial state of each block in the work buffers
//     (avg, M2, N; same slot layout as gridReduce), a semaphore per blockIdx.x; the last block
//     of a row merges every partial and returns true (only there does `out` hold the result).
// Counts are nvfuser_index_t; T (float or double) is the accumulation type. Every thread of the
// block must call the block and grid versions (they synchronize).
export const WELFORD_RUNTIME = `// ---- welford ----
template <typename T>
__device__ __forceinline__ void welfordCombine(T& a_avg, T& a_M2, nvfuser_index_t& a_N, const T b_avg, const T b_M2, const nvfuser_index_t b_N) {
  if (b_N == 0) return;
  if (a_N == 0) {
    a_avg = b_avg;
    // b_avg − b_avg: 0, or NaN for an Inf/NaN mean (var of [inf] or [nan] is NaN, as in torch).
    a_M2 = b_M2 + (b_avg - b_avg);
    a_N = b_N;
    return;
  }
  const nvfuser_index_t ab_N = a_N + b_N;
  const T b_N_div_ab_N = static_cast<T>(b_N) / static_cast<T>(ab_N);
  const T delta = b_avg - a_avg;
  a_avg += delta * b_N_div_ab_N;
  a_M2 += b_M2 + delta * delta * static_cast<T>(a_N) * b_N_div_ab_N;
  a_N = ab_N;
}

template <bool X_REDUCE, bool Y_REDUCE, typename T>
__device__ void blockWelford(T& out_avg, T& out_M2, nvfuser_index_t& out_N, const T& in_avg, const T& in_M2, const nvfuser_index_t& in_N,
                             void* smem, bool read_pred, bool write_pred) {
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  const unsigned nthreads = bdx * bdy;
  T* smem_avg = static_cast<T*>(smem);
  T* smem_M2 = smem_avg + nthreads;
  nvfuser_index_t* smem_N = reinterpret_cast<nvfuser_index_t*>(smem_M2 + nthreads);
  T avg = read_pred ? in_avg : T(0);
  T M2 = read_pred ? in_M2 : T(0);
  nvfuser_index_t N = read_pred ? in_N : 0;
  if (X_REDUCE && !Y_REDUCE && (bdx & 31u) == 0u) {
    const unsigned lane = tx & 31u;
    const unsigned warp = tx >> 5;
    const unsigned nwarps = bdx >> 5;
    #pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      const T o_avg = nvf_shfl_xor(avg, m);
      const T o_M2 = nvf_shfl_xor(M2, m);
      const nvfuser_index_t o_N = nvf_shfl_xor(N, m);
      welfordCombine(avg, M2, N, o_avg, o_M2, o_N);
    }
    if (lane == 0u) {
      smem_avg[seg * nwarps + warp] = avg;
      smem_M2[seg * nwarps + warp] = M2;
      smem_N[seg * nwarps + warp] = N;
    }
    __syncthreads();
    if (warp == 0u) {
      T w_avg = lane < nwarps ? smem_avg[seg * nwarps + lane] : T(0);
      T w_M2 = lane < nwarps ? smem_M2[seg * nwarps + lane] : T(0);
      nvfuser_index_t w_N = lane < nwarps ? smem_N[seg * nwarps + lane] : 0;
      #pragma unroll
      for (int m = 16; m > 0; m >>= 1) {
        const T o_avg = nvf_shfl_xor(w_avg, m);
        const T o_M2 = nvf_shfl_xor(w_M2, m);
        const nvfuser_index_t o_N = nvf_shfl_xor(w_N, m);
        welfordCombine(w_avg, w_M2, w_N, o_avg, o_M2, o_N);
      }
      if (lane == 0u && write_pred) welfordCombine(out_avg, out_M2, out_N, w_avg, w_M2, w_N);
    }
    __syncthreads();
    return;
  }
  T* my_avg = smem_avg + seg * red_size;
  T* my_M2 = smem_M2 + seg * red_size;
  nvfuser_index_t* my_N = smem_N + seg * red_size;
  my_avg[red_idx] = avg;
  my_M2[red_idx] = M2;
  my_N[red_idx] = N;
  __syncthreads();
  unsigned np2 = 1u;
  while (np2 * 2u <= red_size) np2 *= 2u;
  if (red_idx < red_size - np2) {
    welfordCombine(my_avg[red_idx], my_M2[red_idx], my_N[red_idx], my_avg[red_idx + np2], my_M2[red_idx + np2], my_N[red_idx + np2]);
  }
  __syncthreads();
  for (unsigned s = np2 / 2u; s > 0u; s >>= 1) {
    if (red_idx < s) welfordCombine(my_avg[red_idx], my_M2[red_idx], my_N[red_idx], my_avg[red_idx + s], my_M2[red_idx + s], my_N[red_idx + s]);
    __syncthreads();
  }
  if (red_idx == 0u && write_pred) welfordCombine(out_avg, out_M2, out_N, my_avg[0], my_M2[0], my_N[0]);
  __syncthreads();
}

template <bool X_REDUCE, bool Y_REDUCE, typename T>
__device__ bool gridWelford(T& out_avg, T& out_M2, nvfuser_index_t& out_N, const T& in_avg, const T& in_M2, const nvfuser_index_t& in_N,
                            void* smem, T* work_avg, T* work_M2, nvfuser_index_t* work_N, unsigned int* semaphores,
                            bool read_pred, bool write_pred) {
  __shared__ bool nvf_last_block;
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  const unsigned gdy = gridDim.y;
  const unsigned long long row = (static_cast<unsigned long long>(blockIdx.x) * segments + seg) * gdy;
  T p_avg = T(0);
  T p_M2 = T(0);
  nvfuser_index_t p_N = 0;
  blockWelford<X_REDUCE, Y_REDUCE>(p_avg, p_M2, p_N, in_avg, in_M2, in_N, smem, read_pred, true);
  if (red_idx == 0u) {
    work_avg[row + blockIdx.y] = p_avg;
    work_M2[row + blockIdx.y] = p_M2;
    work_N[row + blockIdx.y] = p_N;
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
  T acc_avg = T(0);
  T acc_M2 = T(0);
  nvfuser_index_t acc_N = 0;
  for (unsigned i = red_idx; i < gdy; i += red_size) {
    const T b_avg = *static_cast<volatile T*>(work_avg + row + i);
    const T b_M2 = *static_cast<volatile T*>(work_M2 + row + i);
    const nvfuser_index_t b_N = *static_cast<volatile nvfuser_index_t*>(work_N + row + i);
    welfordCombine(acc_avg, acc_M2, acc_N, b_avg, b_M2, b_N);
  }
  blockWelford<X_REDUCE, Y_REDUCE>(out_avg, out_M2, out_N, acc_avg, acc_M2, acc_N, smem, true, write_pred);
  if (tx == 0u && ty == 0u) semaphores[blockIdx.x] = 0u;
  return true;
}
`;
