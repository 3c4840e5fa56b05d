// Runtime helper: the grid step of an inner-outer persistent kernel (layer_norm backward's
// grad_weight / grad_bias). Every block has stored its per-column partials in
// `work[blockIdx.x · columns + column]`; then
//   * nvf_grid_sync: a grid-wide barrier over a sense-reversing counter (block 0 adds
//     2^31 − (blocks − 1), every other block 1, so the top bit flips once all have arrived and
//     the low bits return to their value: the static counter never needs a reset). All blocks
//     must be resident at once — the scheduler sizes the persistent grid so (gdimx ≤ SMs ×
//     blocks per SM);
//   * gridOuterReduce: the blocks take chunks of 32 consecutive columns round-robin (coalesced
//     reads of the work buffer); inside a block, the threads are 32 lanes × groups, each group
//     combining every groups-th partial of the chunk's columns, then group 0 folds the groups'
//     results from shared memory (`smem`: blockDim.x·blockDim.y elements of T) and writes the
//     output (nvf_store_acc converts Float to Half/BFloat16). Partials are read through
//     volatile loads (other blocks wrote them in this launch).
// Every thread of every block must call both (they synchronize). Launches of one kernel must
// not overlap in time (they share the static work buffers and counter): the executor launches
// on one stream.
export const GRID_OUTER_REDUCE_RUNTIME = `// ---- grid outer reduction (inner-outer persistent) ----
__device__ void nvf_grid_sync(unsigned int* sem) {
  __syncthreads();
  if (threadIdx.x == 0u && threadIdx.y == 0u && threadIdx.z == 0u) {
    const bool first = blockIdx.x == 0u && blockIdx.y == 0u && blockIdx.z == 0u;
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int add = first ? (0x80000000u - (blocks - 1u)) : 1u;
    __threadfence();
    const unsigned int old = atomicAdd(sem, add);
    while (((old ^ *static_cast<volatile unsigned int*>(sem)) & 0x80000000u) == 0u) {
    }
    __threadfence();
  }
  __syncthreads();
}

template <typename TOut, typename T, typename Func>
__device__ void gridOuterReduce(TOut* out, T* work, nvfuser_index_t columns, Func op, T init, T* smem) {
  const unsigned threads = blockDim.x * blockDim.y;
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned lanes = threads < 32u ? threads : 32u;
  const unsigned groups = threads / lanes;
  const unsigned lane = tid % lanes;
  const unsigned group = tid / lanes;
  const nvfuser_index_t blocks = static_cast<nvfuser_index_t>(gridDim.x);
  for (nvfuser_index_t c0 = static_cast<nvfuser_index_t>(blockIdx.x) * lanes; c0 < columns; c0 += blocks * lanes) {
    const nvfuser_index_t col = c0 + lane;
    T acc = init;
    if (group < groups && col < columns) {
      #pragma unroll 4
      for (nvfuser_index_t b = group; b < blocks; b += groups) {
        T p = *static_cast<volatile T*>(work + b * columns + col);
        op(acc, p);
      }
    }
    if (group < groups) smem[group * lanes + lane] = acc;
    __syncthreads();
    if (group == 0u && col < columns) {
      T r = smem[lane];
      for (unsigned g = 1u; g < groups; ++g) op(r, smem[g * lanes + lane]);
      nvf_store_acc(out[col], r);
    }
    __syncthreads();
  }
}
`;
