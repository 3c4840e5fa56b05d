// Runtime helper: device math for every unary/binary/ternary op kind, with the reference
// evaluator's (PyTorch's) semantics — NaN-propagating min/max/clamp, relu keeping NaN,
// floor division and remainder with the divisor's sign, C truncating integer division,
// width-aware shifts, exact integer powers — as overloads for float and double (and int /
// long long for integer ops). CUDA builtins (erfinvf, lgammaf, erfcxf …) where they exist.
const FLOAT_UNARY: readonly [string, string][] = [
  ['abs', 'fabs'], ['acos', 'acos'], ['acosh', 'acosh'], ['asin', 'asin'], ['asinh', 'asinh'], ['atan', 'atan'],
  ['atanh', 'atanh'], ['ceil', 'ceil'], ['cos', 'cos'], ['cosh', 'cosh'], ['exp', 'exp'], ['exp2', 'exp2'],
  ['expm1', 'expm1'], ['erf', 'erf'], ['erfc', 'erfc'], ['erfinv', 'erfinv'], ['erfcx', 'erfcx'], ['erfcinv', 'erfcinv'], ['floor', 'floor'],
  ['lgamma', 'lgamma'], ['log', 'log'], ['log10', 'log10'], ['log1p', 'log1p'], ['log2', 'log2'], ['round', 'rint'],
  ['rsqrt', 'rsqrt'], ['sin', 'sin'], ['sinh', 'sinh'], ['sqrt', 'sqrt'], ['tan', 'tan'], ['tanh', 'tanh'], ['trunc', 'trunc'],
];

const FLOAT_BINARY: readonly [string, string][] = [
  ['pow', 'pow'], ['atan2', 'atan2'], ['fmod', 'fmod'], ['nextafter', 'nextafter'], ['hypot', 'hypot'], ['copysign', 'copysign'],
];

function wrappers(): string {
  const lines: string[] = [];
  for (const [name, fn] of FLOAT_UNARY) {
    lines.push(`__device__ __forceinline__ float nvf_${name}(float x) { return ${fn}f(x); }`);
    lines.push(`__device__ __forceinline__ double nvf_${name}(double x) { return ${fn}(x); }`);
  }
  for (const [name, fn] of FLOAT_BINARY) {
    lines.push(`__device__ __forceinline__ float nvf_${name}(float a, float b) { return ${fn}f(a, b); }`);
    lines.push(`__device__ __forceinline__ double nvf_${name}(double a, double b) { return ${fn}(a, b); }`);
  }
  return lines.join('\n');
}

export const MATH_RUNTIME = `// ---- math ----
${wrappers()}

template <typename T> __device__ __forceinline__ T nvf_nan();
template <> __device__ __forceinline__ float nvf_nan<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ double nvf_nan<double>() { return NVF_NAN; }

template <typename T> __device__ __forceinline__ T nvf_neg(T x) { return -x; }
template <typename T> __device__ __forceinline__ T nvf_reciprocal(T x) { return T(1) / x; }
template <typename T> __device__ __forceinline__ T nvf_frac(T x) { return x - nvf_trunc(x); }
template <typename T> __device__ __forceinline__ T nvf_relu(T x) { return (x > T(0) || x != x) ? x : T(0); }
template <typename T> __device__ __forceinline__ T nvf_sigmoid(T x) { return T(1) / (T(1) + nvf_exp(-x)); }
template <typename T> __device__ __forceinline__ T nvf_silu(T x) { return x * nvf_sigmoid(x); }
template <typename T> __device__ __forceinline__ T nvf_gelu(T x) {
  return T(0.5) * x * (T(1) + nvf_erf(x * T(0.70710678118654752440)));
}
template <typename T> __device__ __forceinline__ T nvf_gelu_tanh(T x) {
  const T k = T(0.79788456080286535588);
  return T(0.5) * x * (T(1) + nvf_tanh(k * (x + T(0.044715) * x * x * x)));
}
template <typename T> __device__ __forceinline__ T nvf_sign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x)); }
template <typename T> __device__ __forceinline__ bool nvf_signbit(T x) { return signbit(x); }
template <typename T> __device__ __forceinline__ bool nvf_isfinite(T x) { return (x - x) == T(0); }
template <typename T> __device__ __forceinline__ bool nvf_isnan(T x) { return x != x; }
template <typename T> __device__ __forceinline__ bool nvf_isinf(T x) { return x == x && (x - x) != T(0); }
template <typename T> __device__ __forceinline__ bool nvf_isposinf(T x) { return nvf_isinf(x) && x > T(0); }
template <typename T> __device__ __forceinline__ bool nvf_isneginf(T x) { return nvf_isinf(x) && x < T(0); }

__device__ double nvf_digamma_d(double x) {
  const double pi = 3.14159265358979323846;
  if (x == 0) return copysign(NVF_INFINITY, -x);
  double result = 0;
  if (x < 0) {
    if (x == trunc(x)) return NVF_NAN;
    // Reflection: digamma(1 - x) - pi / tan(pi * x)
    result = -pi / tan(pi * x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double y = 1 / (x * x);
  const double poly = y * (1.0 / 12 - y * (1.0 / 120 - y * (1.0 / 252 - y * (1.0 / 240 - y * (1.0 / 132)))));
  return result + log(x) - 0.5 / x - poly;
}
__device__ __forceinline__ float nvf_digamma(float x) { return static_cast<float>(nvf_digamma_d(x)); }
__device__ __forceinline__ double nvf_digamma(double x) { return nvf_digamma_d(x); }

// NaN-propagating minimum/maximum (torch.minimum / torch.maximum).
template <typename T> __device__ __forceinline__ T nvf_fmax(T a, T b) {
  if (a != a || b != b) return nvf_nan<T>();
  return a > b ? a : b;
}
template <typename T> __device__ __forceinline__ T nvf_fmin(T a, T b) {
  if (a != a || b != b) return nvf_nan<T>();
  return a < b ? a : b;
}
template <typename T> __device__ __forceinline__ T nvf_clamp(T x, T lo, T hi) {
  if (x != x) return x;
  return nvf_fmin(nvf_fmax(x, lo), hi);
}
template <typename T> __device__ __forceinline__ T nvf_lerp(T s, T e, T w) {
  return (w < T(0.5) && w > T(-0.5)) ? s + w * (e - s) : e - (e - s) * (T(1) - w);
}
// Python remainder: the sign of the divisor.
template <typename T> __device__ __forceinline__ T nvf_remainder(T a, T b) {
  T r = nvf_fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
// torch.floor_divide for floats (derived from fmod, so a == b * q + r where it can).
template <typename T> __device__ __forceinline__ T nvf_floordiv(T a, T b) {
  if (b == T(0)) return a / b;
  T mod = nvf_fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return nvf_copysign(T(0), a / b);
  T fd = nvf_floor(div);
  if (div - fd > T(0.5)) fd += T(1);
  return fd;
}
template <typename T> __device__ __forceinline__ T nvf_ceildiv(T a, T b) { return nvf_ceil(a / b); }

// ---- integer ops ----
template <typename T> __device__ __forceinline__ T nvf_abs_int(T x) { return x < 0 ? -x : x; }
template <typename T> __device__ __forceinline__ T nvf_sign_int(T x) { return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0)); }
template <typename T> __device__ __forceinline__ T nvf_floordiv_int(T a, T b) {
  T q = a / b;
  return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> __device__ __forceinline__ T nvf_remainder_int(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// Mixed widths (an Int32-indexed extent over a 64-bit constant) compute in the common type.
template <typename T, typename U> __device__ __forceinline__ auto nvf_ceildiv_int(T a, U b) -> decltype(a + b) { return (a + b - 1) / b; }
template <typename T> __device__ __forceinline__ T nvf_gcd(T a, T b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) { T t = a % b; a = b; b = t; }
  return a;
}
// Exact integer power, wrapping at the type's width (computed on unsigned bits).
__device__ __forceinline__ int nvf_pow_int(int a, int b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b % 2 == 0) ? 1 : -1) : 0);
  unsigned r = 1u, base = static_cast<unsigned>(a);
  while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
  return static_cast<int>(r);
}
__device__ __forceinline__ long long nvf_pow_int(long long a, long long b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b % 2 == 0) ? 1 : -1) : 0);
  unsigned long long r = 1ull, base = static_cast<unsigned long long>(a);
  while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
  return static_cast<long long>(r);
}
__device__ __forceinline__ int nvf_shl(int a, int b) { return (b < 0 || b >= 32) ? 0 : static_cast<int>(static_cast<unsigned>(a) << b); }
__device__ __forceinline__ long long nvf_shl(long long a, long long b) {
  return (b < 0 || b >= 64) ? 0 : static_cast<long long>(static_cast<unsigned long long>(a) << b);
}
__device__ __forceinline__ int nvf_shr(int a, int b) { return (b < 0 || b >= 32) ? (a < 0 ? -1 : 0) : (a >> b); }
__device__ __forceinline__ long long nvf_shr(long long a, long long b) { return (b < 0 || b >= 64) ? (a < 0 ? -1 : 0) : (a >> b); }
__device__ __forceinline__ int nvf_lshr(int a, int b) { return (b < 0 || b >= 32) ? 0 : static_cast<int>(static_cast<unsigned>(a) >> b); }
__device__ __forceinline__ long long nvf_lshr(long long a, long long b) {
  return (b < 0 || b >= 64) ? 0 : static_cast<long long>(static_cast<unsigned long long>(a) >> b);
}
template <typename T> __device__ __forceinline__ T nvf_clamp_int(T x, T lo, T hi) {
  T m = x > lo ? x : lo;
  return m < hi ? m : hi;
}
`;
