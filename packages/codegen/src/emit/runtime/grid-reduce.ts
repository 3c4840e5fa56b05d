// Runtime helper: grid reduction over blockIdx.y (after a block reduction over the reduced
// thread dims). Each block stores its partial per segment (the thread dims not reduced) in
// `work[(blockIdx.x · segments + segment) · gridDim.y + blockIdx.y]`, fences, and counts
// itself in `semaphores[blockIdx.x]`; the block that arrives last reads every partial of its
// row (L2 loads after a fence, as CUDA's threadFenceReduction sample reads them volatile), reduces them with
// one more block reduction, folds the result into `out` (write_pred) and resets the semaphore
// to 0, so the static buffers (zero at module load) serve the next launch. Returns whether this
// block is the last one: only there does `out` hold the result.
// Every thread of every block must call it; launches of one kernel must not overlap in time
// (they share the buffers) — the executor launches on one stream.
// nvf_load_l2 reads a partial another block wrote in this launch: ld.global.cg (__ldcg: L2, never
// a stale L1 line) in 8-, 4- or 1-byte words, so it serves every accumulation type, the complex
// structs included (a volatile struct has no copy constructor).
export const GRID_REDUCE_RUNTIME = `// ---- grid reduction (blockIdx.y) ----
template <typename T>
__device__ __forceinline__ T nvf_load_l2(const T* p) {
  T r;
  if constexpr (sizeof(T) % 8 == 0 && alignof(T) >= 8) {
    unsigned long long* d = reinterpret_cast<unsigned long long*>(&r);
    const unsigned long long* s = reinterpret_cast<const unsigned long long*>(p);
    #pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 8); ++k) d[k] = __ldcg(s + k);
  } else if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* d = reinterpret_cast<unsigned int*>(&r);
    const unsigned int* s = reinterpret_cast<const unsigned int*>(p);
    #pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k) d[k] = __ldcg(s + k);
  } else {
    unsigned char* d = reinterpret_cast<unsigned char*>(&r);
    const unsigned char* s = reinterpret_cast<const unsigned char*>(p);
    #pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T)); ++k) d[k] = __ldcg(s + k);
  }
  return r;
}

template <bool X_REDUCE, bool Y_REDUCE, typename TOut, typename T, typename Func>
__device__ bool gridReduce(TOut& out, const T& inp, Func op, T* smem, T* work, unsigned int* semaphores,
                           bool read_pred, bool write_pred, T init) {
  __shared__ bool nvf_last_block;
  const auto [bdx, bdy, tx, ty, red_size, red_idx, seg, segments] = nvf_reduction_layout<X_REDUCE, Y_REDUCE>();
  const unsigned gdy = gridDim.y;
  T* row = work + (static_cast<unsigned long long>(blockIdx.x) * segments + seg) * gdy;
  T partial = init;
  blockReduce<X_REDUCE, Y_REDUCE>(partial, inp, op, smem, read_pred, true, init);
  if (red_idx == 0u) row[blockIdx.y] = partial;
  __threadfence();
  __syncthreads();
  if (tx == 0u && ty == 0u) {
    const unsigned int arrived = atomicAdd(&semaphores[blockIdx.x], 1u);
    nvf_last_block = arrived == gdy - 1u;
  }
  __syncthreads();
  if (!nvf_last_block) return false;
  __threadfence();
  T acc = init;
  for (unsigned i = red_idx; i < gdy; i += red_size) {
    T p = nvf_load_l2(row + i);
    op(acc, p);
  }
  blockReduce<X_REDUCE, Y_REDUCE>(out, acc, op, smem, true, write_pred, init);
  if (tx == 0u && ty == 0u) semaphores[blockIdx.x] = 0u;
  return true;
}
`;
