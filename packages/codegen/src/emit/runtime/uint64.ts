// Runtime helper: the unsigned long long (UInt64) overloads of the integer helpers whose
// int / long long forms in math.ts are signed: power (wrapping), shifts (a shift by ≥ 64 gives 0;
// right shifts are logical, as on any unsigned C++ type). The templates of math.ts (abs, sign,
// floordiv, remainder, ceildiv, gcd, clamp) are already right for an unsigned T. Also the warp
// shuffle of block reductions (reduction-primitives.ts has the signed forms), declared before the
// reduction templates that call it.
export const UINT64_RUNTIME = `// ---- uint64 integer helpers ----
__device__ __forceinline__ unsigned long long nvf_pow_int(unsigned long long a, unsigned long long b) {
  unsigned long long r = 1ull;
  while (b) { if (b & 1ull) r *= a; a *= a; b >>= 1; }
  return r;
}
__device__ __forceinline__ unsigned long long nvf_shl(unsigned long long a, unsigned long long b) { return b >= 64ull ? 0ull : a << b; }
__device__ __forceinline__ unsigned long long nvf_shr(unsigned long long a, unsigned long long b) { return b >= 64ull ? 0ull : a >> b; }
__device__ __forceinline__ unsigned long long nvf_shfl_xor(unsigned long long v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
__device__ __forceinline__ unsigned long long nvf_lshr(unsigned long long a, unsigned long long b) { return b >= 64ull ? 0ull : a >> b; }
`;
