// Runtime helper: own __half and __bfloat types and round-to-nearest-even conversions, so that
// NVRTC needs no CUDA headers. float<->half use PTX cvt; double→half/bfloat round once
// (round-to-odd to float first, then RNE), matching the reference evaluator's single rounding.
export const FP16_RUNTIME = `// ---- half / bfloat16 ----
#define NVF_INFINITY __longlong_as_double(0x7ff0000000000000LL)
#define NVF_NAN __longlong_as_double(0x7ff8000000000000LL)

struct alignas(2) __half {
  unsigned short x;
};
struct alignas(2) __bfloat {
  unsigned short x;
};

__device__ __forceinline__ __half __float2half(const float f) {
  __half h;
  asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h.x) : "f"(f));
  return h;
}
__device__ __forceinline__ float __half2float(const __half h) {
  float f;
  asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h.x));
  return f;
}
__device__ __forceinline__ __bfloat __float2bfloat(const float f) {
  __bfloat b;
  asm("{ cvt.rn.bf16.f32 %0, %1; }" : "=h"(b.x) : "f"(f));
  return b;
}
__device__ __forceinline__ float __bfloat2float(const __bfloat b) {
  return __uint_as_float(static_cast<unsigned>(b.x) << 16);
}
// double -> float rounded to odd: exact when representable, else the sticky bit is kept, so a
// second rounding to a narrower type is a correct single rounding.
__device__ __forceinline__ float nvf_double2float_odd(const double d) {
  float f = __double2float_rz(d);
  if (static_cast<double>(f) != d && f == f) {
    f = __uint_as_float(__float_as_uint(f) | 1u);
  }
  return f;
}
__device__ __forceinline__ __half __double2half(const double d) {
  __half h;
  asm("{ cvt.rn.f16.f64 %0, %1; }" : "=h"(h.x) : "d"(d));
  return h;
}
__device__ __forceinline__ __bfloat __double2bfloat(const double d) {
  return __float2bfloat(nvf_double2float_odd(d));
}
`;
