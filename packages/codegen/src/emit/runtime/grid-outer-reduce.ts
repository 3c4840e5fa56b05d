// Runtime helper: the grid step of an inner-outer persistent kernel (layer_norm backward's
// grad_weight / grad_bias). Every block has stored its per-column partials in
// `work[blockIdx.x · columns + column]`; then
//   * nvf_grid_sync: a grid-wide barrier over a sense-reversing counter (block 0 adds
//     2^31 − (blocks − 1), every other block 1, so the top bit flips once all have arrived and
//     the low bits return to their value: the static counter never needs a reset). All blocks
//     must be resident at once — the scheduler sizes the persistent grid so (gdimx ≤ SMs ×
//     blocks per SM);
//   * gridOuterReduce: the blocks take chunks of consecutive columns round-robin (coalesced
//     reads of the work buffer), as wide as possible (up to the block's threads) while every
//     block still gets a chunk, and at least 8 columns (whole 32-byte sectors of 4-byte
//     partials). Few columns over many blocks (layer_norm backward at hidden 768 over 1024
//     blocks) get narrow chunks, so more blocks and more thread groups share the partials; many
//     columns over few blocks (16 rows of 16384) get wide ones, so a block folds few groups.
//     Inside a block, the threads are lanes × groups, each group combining every groups-th
//     partial of the chunk's columns into four independent accumulators (four loads in flight),
//     then the groups' results are folded pairwise in shared memory (`smem`: blockDim.x·blockDim.y
//     elements of T; log2(groups) steps) and group 0 writes the output (nvf_store_acc converts
//     Float to Half/BFloat16). Partials are read with nvf_load_l2 (grid-reduce.ts: ld.global.cg, L2, never a
//     stale L1 line; other blocks wrote them in this launch, before the barrier's fence).
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
  const nvfuser_index_t blocks = static_cast<nvfuser_index_t>(gridDim.x);
  unsigned width = 8u;
  while (width * 2u <= threads && (columns + 2 * static_cast<nvfuser_index_t>(width) - 1) / (2 * static_cast<nvfuser_index_t>(width)) >= blocks) width *= 2u;
  const unsigned lanes = threads < width ? threads : width;
  const unsigned groups = threads / lanes;
  const unsigned lane = tid % lanes;
  const unsigned group = tid / lanes;
  const nvfuser_index_t step = static_cast<nvfuser_index_t>(groups);
  for (nvfuser_index_t c0 = static_cast<nvfuser_index_t>(blockIdx.x) * lanes; c0 < columns; c0 += blocks * lanes) {
    const nvfuser_index_t col = c0 + lane;
    T acc = init;
    if (group < groups && col < columns) {
      T acc1 = init;
      T acc2 = init;
      T acc3 = init;
      nvfuser_index_t b = group;
      for (; b + 3 * step < blocks; b += 4 * step) {
        const T p0 = nvf_load_l2(work + b * columns + col);
        const T p1 = nvf_load_l2(work + (b + step) * columns + col);
        const T p2 = nvf_load_l2(work + (b + 2 * step) * columns + col);
        const T p3 = nvf_load_l2(work + (b + 3 * step) * columns + col);
        op(acc, p0);
        op(acc1, p1);
        op(acc2, p2);
        op(acc3, p3);
      }
      for (; b < blocks; b += step) op(acc, nvf_load_l2(work + b * columns + col));
      op(acc1, acc3);
      op(acc, acc2);
      op(acc, acc1);
    }
    if (group < groups) smem[group * lanes + lane] = acc;
    __syncthreads();
    for (unsigned active = groups; active > 1u;) {
      const unsigned half = (active + 1u) / 2u;
      if (group + half < active) {
        T r = smem[group * lanes + lane];
        op(r, smem[(group + half) * lanes + lane]);
        smem[group * lanes + lane] = r;
      }
      __syncthreads();
      active = half;
    }
    if (group == 0u && col < columns) nvf_store_acc(out[col], smem[lane]);
    __syncthreads();
  }
}
`;
