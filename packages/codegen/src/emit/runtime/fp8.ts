// Runtime helper: own 8-bit float types __e4m3 / __e5m2 / __e8m0 (nvFuser's names) and their
// conversions, written with integer operations on float bits so that no CUDA header (cuda_fp8.h)
// is needed and every conversion is bit-exact with PyTorch's and the reference evaluator's
// (fusion-ir eval/float8.ts):
//   to fp8: a double first rounds to float (as PyTorch's .to() does), then round to nearest even;
//           e4m3 saturates every non-NaN overflow (±inf included) to ±448; e5m2 overflows to
//           ±inf; NaN → 0x7f whatever its sign (float arithmetic's NaNs carry no reliable sign); e8m0 drops the sign, NaN/±inf → 0xff, and
//           rounds up when the first dropped bit is set and the float is normal or more bits are set.
//   from fp8: exact (every fp8 value is a float; to half/bfloat16 one rounding from float); every
//           NaN pattern decodes to the canonical float NaN 0x7fc00000, as the reference's does.
// Scaling a float by a power of two is exact, so the subnormal branch's __float2uint_rn (RNE)
// is the only rounding; it does not depend on flush-to-zero (a flushed input rounds to 0 anyway).
export const FP8_RUNTIME = `// ---- fp8 (e4m3fn, e5m2, e8m0fnu) ----
struct alignas(1) __e4m3 {
  unsigned char x;
};
struct alignas(1) __e5m2 {
  unsigned char x;
};
struct alignas(1) __e8m0 {
  unsigned char x;
};

// |f| (bits a, not NaN) rounded to nearest even with mbits mantissa bits and exponent bias
// bias; the code may carry past the largest finite (callers clamp).
__device__ __forceinline__ unsigned nvf_fp8_round(const unsigned a, const unsigned mbits, const unsigned bias) {
  if ((a >> 23) < 128u - bias) {
    // below the smallest normal 2^(1-bias): multiples of 2^(1-bias-mbits)
    const float scale = __uint_as_float((126u + bias + mbits) << 23);
    return __float2uint_rn(__uint_as_float(a) * scale);
  }
  const unsigned shift = 23u - mbits;
  unsigned keep = a >> shift;
  const unsigned rem = a & ((1u << shift) - 1u);
  const unsigned half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (keep & 1u) != 0u)) keep += 1u;
  return keep - ((127u - bias) << mbits);
}
// e4m3fn and e5m2 differ only in their mantissa bits, bias, the magnitude from which they
// saturate and their largest finite code: one encoder, two wrappers. NaN is written 0x7f.
__device__ __forceinline__ unsigned char nvf_float2fp8(const float f, const unsigned mbits, const unsigned bias, const unsigned saturate_from, const unsigned max_code) {
  const unsigned u = __float_as_uint(f);
  const unsigned sign = (u >> 24) & 0x80u;
  const unsigned a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7fu;
  const unsigned code = a >= saturate_from ? max_code : nvf_fp8_round(a, mbits, bias);
  return static_cast<unsigned char>(sign | (code > max_code ? max_code : code));
}
__device__ __forceinline__ __e4m3 __float2e4m3(const float f) {
  __e4m3 r;
  r.x = nvf_float2fp8(f, 3u, 7u, 0x43e00000u, 0x7eu);
  return r;
}
__device__ __forceinline__ __e5m2 __float2e5m2(const float f) {
  __e5m2 r;
  r.x = nvf_float2fp8(f, 2u, 15u, 0x47800000u, 0x7cu);
  return r;
}
__device__ __forceinline__ __e8m0 __float2e8m0(const float f) {
  const unsigned u = __float_as_uint(f);
  const unsigned e = (u >> 23) & 0xffu;
  __e8m0 r;
  const bool up = e != 0xffu && (u & 0x400000u) != 0u && ((u & 0x3fffffu) != 0u || e > 0u);
  r.x = static_cast<unsigned char>(up ? e + 1u : e);
  return r;
}
__device__ __forceinline__ float __e4m32float(const __e4m3 v) {
  const unsigned b = v.x;
  const unsigned sign = (b & 0x80u) << 24;
  const unsigned e = (b >> 3) & 0xfu;
  const unsigned m = b & 0x7u;
  if ((b & 0x7fu) == 0x7fu) return __uint_as_float(0x7fc00000u);
  if (e == 0u) return __uint_as_float(sign) + (sign != 0u ? -1.0f : 1.0f) * static_cast<float>(m) * 0.001953125f;
  return __uint_as_float(sign | ((e + 120u) << 23) | (m << 20));
}
__device__ __forceinline__ float __e5m22float(const __e5m2 v) {
  const unsigned b = v.x;
  const unsigned sign = (b & 0x80u) << 24;
  const unsigned e = (b >> 2) & 0x1fu;
  const unsigned m = b & 0x3u;
  if (e == 0x1fu) return __uint_as_float(m == 0u ? (sign | 0x7f800000u) : 0x7fc00000u);
  if (e == 0u) return __uint_as_float(sign) + (sign != 0u ? -1.0f : 1.0f) * static_cast<float>(m) * 1.52587890625e-05f;
  return __uint_as_float(sign | ((e + 112u) << 23) | (m << 21));
}
__device__ __forceinline__ float __e8m02float(const __e8m0 v) {
  if (v.x == 0xffu) return __uint_as_float(0x7fc00000u);
  if (v.x == 0u) return __uint_as_float(0x00400000u);
  return __uint_as_float(static_cast<unsigned>(v.x) << 23);
}
__device__ __forceinline__ __e4m3 __double2e4m3(const double d) {
  return __float2e4m3(__double2float_rn(d));
}
__device__ __forceinline__ __e5m2 __double2e5m2(const double d) {
  return __float2e5m2(__double2float_rn(d));
}
__device__ __forceinline__ __e8m0 __double2e8m0(const double d) {
  return __float2e8m0(__double2float_rn(d));
}
// Reduction accumulators of fp8 outputs are float (reduction-primitives.ts has the half forms).
__device__ __forceinline__ void nvf_load_acc(float& a, const __e4m3& x) { a = __e4m32float(x); }
__device__ __forceinline__ void nvf_load_acc(float& a, const __e5m2& x) { a = __e5m22float(x); }
__device__ __forceinline__ void nvf_load_acc(float& a, const __e8m0& x) { a = __e8m02float(x); }
__device__ __forceinline__ void nvf_store_acc(__e4m3& x, const float& a) { x = __float2e4m3(a); }
__device__ __forceinline__ void nvf_store_acc(__e5m2& x, const float& a) { x = __float2e5m2(a); }
__device__ __forceinline__ void nvf_store_acc(__e8m0& x, const float& a) { x = __float2e8m0(a); }
`;
