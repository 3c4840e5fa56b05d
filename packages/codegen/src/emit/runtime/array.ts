// Runtime helper: aligned local arrays and vectorized (up to 16-byte) copies between global
// and local memory; the alignment is what lets the compiler issue one wide load/store.
export const ARRAY_RUNTIME = `// ---- local arrays and vector access ----
template <typename T, int N, int Align = 1>
struct alignas(sizeof(T) * Align) Array {
  __device__ T& operator[](unsigned int i) { return array[i]; }
  __device__ const T& operator[](unsigned int i) const { return array[i]; }
  T array[N];
};

template <int Bytes> struct NvfVec;
template <> struct NvfVec<1> { typedef unsigned char type; };
template <> struct NvfVec<2> { typedef unsigned short type; };
template <> struct NvfVec<4> { typedef unsigned int type; };
struct alignas(8) NvfU32x2 { unsigned int x, y; };
struct alignas(16) NvfU32x4 { unsigned int x, y, z, w; };
template <> struct NvfVec<8> { typedef NvfU32x2 type; };
template <> struct NvfVec<16> { typedef NvfU32x4 type; };

template <typename T, int N>
__device__ __forceinline__ void loadGlobalToLocal(T* to, const T* from) {
  typedef typename NvfVec<sizeof(T) * N>::type V;
  *reinterpret_cast<V*>(to) = *reinterpret_cast<const V*>(from);
}
// The same load with an L1::evict_last hint (PTX ld.global.L1::evict_last, sm_70+): for data
// every block of an SM reads again (row parameters), so streaming rows evict it last.
template <typename T, int N>
__device__ __forceinline__ void loadGlobalToLocalEvictLast(T* to, const T* from) {
  if constexpr (sizeof(T) * N == 16) {
    NvfU32x4& v = *reinterpret_cast<NvfU32x4*>(to);
    asm("ld.global.L1::evict_last.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(from));
  } else if constexpr (sizeof(T) * N == 8) {
    NvfU32x2& v = *reinterpret_cast<NvfU32x2*>(to);
    asm("ld.global.L1::evict_last.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(from));
  } else {
    loadGlobalToLocal<T, N>(to, from);
  }
}
// L1::evict_last plus an L2 evict_last cache policy (createpolicy, sm_80+), as Triton emits for
// Inductor's evict_last loads: slice / pad / cat kernels ran 1-1.6 us faster with it on an H100.
template <typename T, int N>
__device__ __forceinline__ void loadGlobalToLocalEvictLastL2(T* to, const T* from) {
  if constexpr (sizeof(T) * N == 16) {
    NvfU32x4& v = *reinterpret_cast<NvfU32x4*>(to);
    asm("{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0; ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], pol; }" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(from));
  } else if constexpr (sizeof(T) * N == 8) {
    NvfU32x2& v = *reinterpret_cast<NvfU32x2*>(to);
    asm("{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0; ld.global.L1::evict_last.L2::cache_hint.v2.u32 {%0,%1}, [%2], pol; }" : "=r"(v.x), "=r"(v.y) : "l"(from));
  } else {
    loadGlobalToLocal<T, N>(to, from);
  }
}
template <typename T, int N>
__device__ __forceinline__ void loadLocalToGlobal(T* to, const T* from) {
  typedef typename NvfVec<sizeof(T) * N>::type V;
  *reinterpret_cast<V*>(to) = *reinterpret_cast<const V*>(from);
}
template <typename T, int N>
__device__ __forceinline__ void loadGeneric(T* to, const T* from) {
  #pragma unroll
  for (int i = 0; i < N; ++i) to[i] = from[i];
}
// A vector read of shared memory (a bulk-copied row, a transpose tile) into registers.
template <typename T, int N>
__device__ __forceinline__ void loadSharedToLocal(T* to, const T* from) {
  typedef typename NvfVec<sizeof(T) * N>::type V;
  *reinterpret_cast<V*>(to) = *reinterpret_cast<const V*>(from);
}
`;
