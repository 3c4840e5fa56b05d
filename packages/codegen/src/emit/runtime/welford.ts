// Runtime helper: Welford (one-pass mean / M2 / count) — the serial merge, the block merge and
// the grid merge, with the same thread, segment and predicate rules as blockReduce /
// gridReduce (block-reduce.ts, grid-reduce.ts).
//   * welfordCombine(a, b): a ← a ⊕ b with nvFuser's merge (δ = b.avg − a.avg; N = a.N + b.N;
//     avg = a.avg + δ·b.N/N; M2 = a.M2 + b.M2 + δ²·a.N·b.N/N). A state with N = 0 is the
//     identity: merging one changes nothing, and merging into one copies the other side, so
//     an accumulator initialised to (NaN, NaN, 0) ends as NaN when nothing was merged (an empty
//     reduction, as torch.var_mean) and never mixes its NaN into a real result. A raw value x
//     is the state (x, 0, 1).
//   * blockWelford: every thread's state merged over the reduced thread dims by nvfSegmentTotal
//     (segment-total.ts: the warp-shuffle / shared-memory-tree algorithm of every block
//     reduction) on NvfWelfordState values (avg, M2, N; nvf_shfl_xor shuffles the three fields,
//     NvfWelfordMerge is welfordCombine, the identity has N = 0); the thread with reduced
//     indices 0 merges the result into `out` when write_pred holds; threads with read_pred
//     false contribute N = 0; a final __syncthreads lets the shared memory be reused. `smem`
//     holds blockDim.x·blockDim.y states; the lowering reserves 2·sizeof(T) + 8 bytes per
//     thread, which bounds sizeof(NvfWelfordState<T>) for either index type (static_assert),
//     and the dynamic shared memory is 8-byte aligned.
//   * gridWelford: blockWelford per block, the partial state of each block in the work buffers
//     (avg, M2, N; same slot layout and last-block protocol as gridReduce: nvf_grid_row,
//     nvf_last_block); the last block of a row merges every partial and returns true (only
//     there does `out` hold the result).
// Counts are nvfuser_index_t; T (float or double) is the accumulation type. Every thread of the
// block must call the block and grid versions (they synchronize).
export const WELFORD_RUNTIME = `// ---- welford ----
template <typename T>
__device__ __forceinline__ void welfordCombine(T& a_avg, T& a_M2, nvfuser_index_t& a_N, const T b_avg, const T b_M2, const nvfuser_index_t b_N) {
  if (b_N == 0) return;
  if (a_N == 0) {
    a_avg = b_avg;
    a_M2 = b_M2;
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

// A Welford state as one value, so the block merge is nvfSegmentTotal over states.
template <typename T>
struct NvfWelfordState {
  T avg;
  T M2;
  nvfuser_index_t N;
};

template <typename T>
__device__ __forceinline__ NvfWelfordState<T> nvf_shfl_xor(const NvfWelfordState<T>& v, int m) {
  NvfWelfordState<T> r;
  r.avg = nvf_shfl_xor(v.avg, m);
  r.M2 = nvf_shfl_xor(v.M2, m);
  r.N = nvf_shfl_xor(v.N, m);
  return r;
}

struct NvfWelfordMerge {
  template <typename T>
  __device__ __forceinline__ void operator()(NvfWelfordState<T>& a, const NvfWelfordState<T>& b) const {
    welfordCombine(a.avg, a.M2, a.N, b.avg, b.M2, b.N);
  }
};

template <bool X_REDUCE, bool Y_REDUCE, typename T>
__device__ void blockWelford(T& out_avg, T& out_M2, nvfuser_index_t& out_N, const T& in_avg, const T& in_M2, const nvfuser_index_t& in_N,
                             void* smem, bool read_pred, bool write_pred) {
  // The lowering reserves 2·sizeof(T) + 8 bytes of shared memory per thread.
  static_assert(sizeof(NvfWelfordState<T>) <= 2 * sizeof(T) + 8, "Welford state larger than its shared-memory slot");
  NvfWelfordState<T> init;
  init.avg = T(0);
  init.M2 = T(0);
  init.N = 0;
  NvfWelfordState<T> val = init;
  if (read_pred) {
    val.avg = in_avg;
    val.M2 = in_M2;
    val.N = in_N;
  }
  const NvfWelfordState<T> total =
      nvfSegmentTotal<X_REDUCE, Y_REDUCE, false>(val, NvfWelfordMerge(), static_cast<NvfWelfordState<T>*>(smem), init);
  if (nvfSegmentOf<X_REDUCE, Y_REDUCE>().idx == 0u && write_pred) welfordCombine(out_avg, out_M2, out_N, total.avg, total.M2, total.N);
  __syncthreads();
}

template <bool X_REDUCE, bool Y_REDUCE, typename T>
__device__ bool gridWelford(T& out_avg, T& out_M2, nvfuser_index_t& out_N, const T& in_avg, const T& in_M2, const nvfuser_index_t& in_N,
                            void* smem, T* work_avg, T* work_M2, nvfuser_index_t* work_N, unsigned int* semaphores,
                            bool read_pred, bool write_pred) {
  const NvfSegment s = nvfSegmentOf<X_REDUCE, Y_REDUCE>();
  const unsigned long long row = nvf_grid_row(s);
  T p_avg = T(0);
  T p_M2 = T(0);
  nvfuser_index_t p_N = 0;
  blockWelford<X_REDUCE, Y_REDUCE>(p_avg, p_M2, p_N, in_avg, in_M2, in_N, smem, read_pred, true);
  if (s.idx == 0u) {
    work_avg[row + blockIdx.y] = p_avg;
    work_M2[row + blockIdx.y] = p_M2;
    work_N[row + blockIdx.y] = p_N;
  }
  if (!nvf_last_block(semaphores)) return false;
  T acc_avg = T(0);
  T acc_M2 = T(0);
  nvfuser_index_t acc_N = 0;
  for (unsigned i = s.idx; i < gridDim.y; i += s.size) {
    const T b_avg = *static_cast<volatile T*>(work_avg + row + i);
    const T b_M2 = *static_cast<volatile T*>(work_M2 + row + i);
    const nvfuser_index_t b_N = *static_cast<volatile nvfuser_index_t*>(work_N + row + i);
    welfordCombine(acc_avg, acc_M2, acc_N, b_avg, b_M2, b_N);
  }
  blockWelford<X_REDUCE, Y_REDUCE>(out_avg, out_M2, out_N, acc_avg, acc_M2, acc_N, smem, true, write_pred);
  if (threadIdx.x == 0u && threadIdx.y == 0u) semaphores[blockIdx.x] = 0u;
  return true;
}
`;
