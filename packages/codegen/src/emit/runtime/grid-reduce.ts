// Runtime helper: grid reduction over blockIdx.y (after a block reduction over the reduced
// thread dims). Each block stores its partial per segment (the thread dims not reduced,
// nvfSegmentOf in segment-total.ts) in `work[nvf_grid_row(segment) + blockIdx.y]`, where
// nvf_grid_row = (blockIdx.x · segments + segment) · gridDim.y; then nvf_last_block fences and
// counts the block in `semaphores[blockIdx.x]`; the block that arrives last reads every
// partial of its row (volatile loads after a fence, as CUDA's threadFenceReduction sample),
// reduces them with one more block reduction, folds the result into `out` (write_pred) and
// resets the semaphore to 0, so the static buffers (zero at module load) serve the next
// launch. Returns whether this block is the last one: only there does `out` hold the result.
// gridWelford (welford.ts) uses the same row layout and nvf_last_block.
// Every thread of every block must call it; launches of one kernel must not overlap in time
// (they share the buffers) — the executor launches on one stream.
export const GRID_REDUCE_RUNTIME = `// ---- grid reduction (blockIdx.y) ----
__device__ __forceinline__ unsigned long long nvf_grid_row(const NvfSegment& s) {
  return (static_cast<unsigned long long>(blockIdx.x) * s.count + s.seg) * gridDim.y;
}

// After this block's partials are stored: true in every thread of the block that arrives last
// in semaphores[blockIdx.x] (its loads of the other blocks' partials are ordered after theirs).
__device__ bool nvf_last_block(unsigned int* semaphores) {
  __shared__ bool nvf_is_last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0u && threadIdx.y == 0u) {
    const unsigned int arrived = atomicAdd(&semaphores[blockIdx.x], 1u);
    nvf_is_last = arrived == gridDim.y - 1u;
  }
  __syncthreads();
  if (!nvf_is_last) return false;
  __threadfence();
  return true;
}

template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ bool gridReduce(TOut& out, const T& inp, Func op, T* smem, T* work, unsigned int* semaphores,
                           bool read_pred, bool write_pred, T init) {
  const NvfSegment s = nvfSegmentOf<X_REDUCE, Y_REDUCE>();
  T* row = work + nvf_grid_row(s);
  T partial = init;
  blockReduce<X_REDUCE, Y_REDUCE>(partial, inp, op, smem, read_pred, true, init);
  if (s.idx == 0u) row[blockIdx.y] = partial;
  if (!nvf_last_block(semaphores)) return false;
  T acc = init;
  for (unsigned i = s.idx; i < gridDim.y; i += s.size) {
    T p = *static_cast<volatile T*>(row + i);
    op(acc, p);
  }
  blockReduce<X_REDUCE, Y_REDUCE>(out, acc, op, smem, true, write_pred, init);
  if (threadIdx.x == 0u && threadIdx.y == 0u) semaphores[blockIdx.x] = 0u;
  return true;
}
`;
