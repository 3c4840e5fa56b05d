// Device helpers of the greedy kernels (scan, bitonic sort, warp top-k), prepended to their
// source after the common runtime library. The combine ops follow the reference evaluator:
// integer add/mul wrap (computed unsigned), max/min propagate NaN; the sort order puts NaN above
// every number and breaks ties by the lower index, so every order is total and the sorted
// result is unique (stable, whatever the network).
export const GREEDY_RUNTIME = `// ---- greedy kernels: scans and sorts ----
template <typename T> struct NvfUnsigned { typedef T type; };
template <> struct NvfUnsigned<int> { typedef unsigned int type; };
template <> struct NvfUnsigned<long long> { typedef unsigned long long type; };

// OP: 0 add, 1 mul, 2 max, 3 min. The prefix comes first.
template <int OP, typename Acc>
__device__ __forceinline__ Acc nvfScanCombine(Acc a, Acc b) {
  typedef typename NvfUnsigned<Acc>::type U;
  if (OP == 0) return (Acc)((U)a + (U)b);
  if (OP == 1) return (Acc)((U)a * (U)b);
  if (OP == 2) return (a != a || a > b) ? a : b;
  return (a != a || a < b) ? a : b;
}

// Inclusive scan of one value per thread over the threadIdx.x of a row group of TPR threads
// (TPR a power of two >= 32); returns this thread's exclusive prefix in *prefix (valid when
// *has_prefix) and the row group's total. warp_totals: TPR / 32 entries for this row group.
// Every thread of the block must call it (it synchronizes the block when TPR > 32).
template <int OP, int TPR, typename Acc>
__device__ __forceinline__ Acc nvfRowScanPrefix(Acc v, Acc* warp_totals, Acc* prefix, bool* has_prefix) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    Acc n = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v = nvfScanCombine<OP>(n, v);
  }
  Acc before = __shfl_up_sync(0xffffffffu, v, 1);
  bool has = lane > 0;
  Acc total;
  if (TPR > 32) {
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
      Acc w = lane < TPR / 32 ? warp_totals[lane] : (Acc)0;
      #pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        Acc n = __shfl_up_sync(0xffffffffu, w, o);
        if (lane >= o) w = nvfScanCombine<OP>(n, w);
      }
      if (lane < TPR / 32) warp_totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) {
      Acc w = warp_totals[warp - 1];
      before = has ? nvfScanCombine<OP>(w, before) : w;
      has = true;
    }
    total = warp_totals[TPR / 32 - 1];
    __syncthreads();
  } else {
    total = __shfl_sync(0xffffffffu, v, 31);
  }
  *prefix = before;
  *has_prefix = has;
  return total;
}

// Sort order: true when (ka, ia) comes before (kb, ib). An index < 0 is padding (last).
template <bool DESC, typename Key>
__device__ __forceinline__ bool nvfSortBefore(Key ka, int ia, Key kb, int ib) {
  if (ia < 0) return false;
  if (ib < 0) return true;
  const bool an = ka != ka;
  const bool bn = kb != kb;
  if (an || bn) {
    if (an && bn) return ia < ib;
    return DESC ? an : bn;
  }
  if (ka != kb) return DESC ? ka > kb : ka < kb;
  return ia < ib;
}

// Bitonic sort of P (a power of two) keys with their indices in shared memory by THREADS threads.
template <bool DESC, int P, int THREADS, typename Key>
__device__ __forceinline__ void nvfBitonicSort(Key* keys, int* idx) {
  for (int size = 2; size <= P; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int t = threadIdx.x; t < P / 2; t += THREADS) {
        const int i = 2 * t - (t & (stride - 1));
        const int j = i + stride;
        const Key ki = keys[i];
        const Key kj = keys[j];
        const int ii = idx[i];
        const int ij = idx[j];
        const bool up = (i & size) == 0;
        const bool swap = up ? nvfSortBefore<DESC>(kj, ij, ki, ii) : nvfSortBefore<DESC>(ki, ii, kj, ij);
        if (swap) {
          keys[i] = kj;
          keys[j] = ki;
          idx[i] = ij;
          idx[j] = ii;
        }
      }
      __syncthreads();
    }
  }
}

// A sorted list of the best K (a power of two) (key, index) pairs in registers.
template <bool DESC, int K, typename Key>
__device__ __forceinline__ void nvfTopKInsert(Key* kk, int* ki, Key key, int index) {
  if (!nvfSortBefore<DESC>(key, index, kk[K - 1], ki[K - 1])) return;
  kk[K - 1] = key;
  ki[K - 1] = index;
  #pragma unroll
  for (int j = K - 1; j > 0; --j) {
    if (nvfSortBefore<DESC>(kk[j], ki[j], kk[j - 1], ki[j - 1])) {
      const Key tk = kk[j];
      kk[j] = kk[j - 1];
      kk[j - 1] = tk;
      const int ti = ki[j];
      ki[j] = ki[j - 1];
      ki[j - 1] = ti;
    }
  }
}

// Merges the sorted lists of the 32 lanes of a warp (butterfly): every lane ends with the best K.
template <bool DESC, int K, typename Key>
__device__ __forceinline__ void nvfWarpTopKMerge(Key* kk, int* ki) {
  #pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    Key ok[K];
    int oi[K];
    #pragma unroll
    for (int j = 0; j < K; ++j) {
      ok[j] = __shfl_xor_sync(0xffffffffu, kk[j], offset);
      oi[j] = __shfl_xor_sync(0xffffffffu, ki[j], offset);
    }
    // The best K of two sorted lists form a bitonic sequence: take them, then half-clean.
    #pragma unroll
    for (int j = 0; j < K; ++j) {
      if (!nvfSortBefore<DESC>(kk[j], ki[j], ok[K - 1 - j], oi[K - 1 - j])) {
        kk[j] = ok[K - 1 - j];
        ki[j] = oi[K - 1 - j];
      }
    }
    #pragma unroll
    for (int s = K / 2; s > 0; s >>= 1) {
      #pragma unroll
      for (int j = 0; j < K; ++j) {
        if ((j & s) == 0 && nvfSortBefore<DESC>(kk[j + s], ki[j + s], kk[j], ki[j])) {
          const Key tk = kk[j];
          kk[j] = kk[j + s];
          kk[j + s] = tk;
          const int ti = ki[j];
          ki[j] = ki[j + s];
          ki[j + s] = ti;
        }
      }
    }
  }
}
`;
