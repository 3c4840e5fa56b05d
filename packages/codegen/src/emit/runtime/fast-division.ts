// Runtime helper: division of non-negative 32-bit indices by a run-time extent through
// host-computed magic numbers (PyTorch's IntDivider): n / d = (umulhi(n, magic) + n) >> shift,
// exact for 0 <= n < 2^31 (divisor-magic.ts computes the pair; lower/fast-division.ts decides
// which divisions use it). A kernel with fast divisions takes `NvfDivisorMagic<N>` as its last
// parameter (magic, shift per divisor) and declares one `NvfDivisor` per divisor from the extent
// and its pair. Only int and unsigned dividends have overloads: any other dividend type fails to
// compile rather than dividing silently in another way. Emitted only into kernels that use it.
export const FAST_DIVISION_RUNTIME = `// ---- fast division by run-time extents ----
template <int N> struct NvfDivisorMagic { unsigned v[2 * N]; };
struct NvfDivisor { int d; unsigned magic; unsigned shift; };
__device__ __forceinline__ unsigned nvfFastDiv(unsigned n, const NvfDivisor& f) { return (__umulhi(n, f.magic) + n) >> f.shift; }
__device__ __forceinline__ int operator/(int n, const NvfDivisor& f) { return static_cast<int>(nvfFastDiv(static_cast<unsigned>(n), f)); }
__device__ __forceinline__ unsigned operator/(unsigned n, const NvfDivisor& f) { return nvfFastDiv(n, f); }
__device__ __forceinline__ int operator%(int n, const NvfDivisor& f) { return n - (n / f) * f.d; }
__device__ __forceinline__ unsigned operator%(unsigned n, const NvfDivisor& f) { return n - (n / f) * static_cast<unsigned>(f.d); }
`;
