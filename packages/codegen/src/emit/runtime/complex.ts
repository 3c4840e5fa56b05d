// Runtime helper: complex numbers for ComplexFloat / ComplexDouble kernels. `nvf_cfloat` and
// `nvf_cdouble` are plain aggregates {re, im} (8 and 16 bytes, aligned to their size, so a
// tensor of them is interleaved (re, im) storage and one element is one 8/16-byte vector
// access); arithmetic is by operators, math by `nvf_*` overloads beside the real ones in
// math.ts. The formulas are the reference evaluator's (fusion-ir eval/complex-math.ts): plain
// products, C99 Annex G division with infinity recovery, exp/sqrt/sin/cos/tanh exact for
// real inputs, zeros and infinities. No constructors (shared-memory reduction buffers need
// trivial types): `nvf_cfloat_make(re, im)` builds one, `nvf_to_cfloat(x)` converts.
//
// COMPLEX_CORE compiles on the host too (NVF_HD empty there) so a host program can check the
// helpers against the reference evaluator (test/complex-host.test.ts).

function typeCore(c: string, r: string): string {
  const f = r === 'float' ? 'f' : '';
  const one = r === 'float' ? '1.0f' : '1.0';
  const zero = r === 'float' ? '0.0f' : '0.0';
  return `
struct alignas(${r === 'float' ? 8 : 16}) ${c} { ${r} re; ${r} im; };
NVF_HD ${c} ${c}_make(${r} re, ${r} im) { ${c} z; z.re = re; z.im = im; return z; }
NVF_HD ${c} operator+(${c} a, ${c} b) { return ${c}_make(a.re + b.re, a.im + b.im); }
NVF_HD ${c} operator-(${c} a, ${c} b) { return ${c}_make(a.re - b.re, a.im - b.im); }
NVF_HD ${c} operator-(${c} a) { return ${c}_make(-a.re, -a.im); }
NVF_HD ${c} operator*(${c} a, ${c} b) { return ${c}_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
NVF_HD bool operator==(${c} a, ${c} b) { return a.re == b.re && a.im == b.im; }
NVF_HD bool operator!=(${c} a, ${c} b) { return !(a == b); }
NVF_HD ${r} nvf_cunit_or_zero(${r} x) { const ${r} m = nvf_cisinf(x) ? ${one} : ${zero}; return signbit(x) ? -m : m; }
NVF_HD ${c} operator/(${c} x, ${c} y) {
  ${r} a = x.re, b = x.im, c = y.re, d = y.im;
  const ${r} w = fmax${f}(fabs${f}(c), fabs${f}(d));
  int ilogbw = 0;
  const bool finite_w = nvf_cisfinite(w) && w != ${zero};
  if (finite_w) { ilogbw = static_cast<int>(logb${f}(w)); c = scalbn${f}(c, -ilogbw); d = scalbn${f}(d, -ilogbw); }
  const ${r} denom = c * c + d * d;
  ${r} re = scalbn${f}((a * c + b * d) / denom, -ilogbw);
  ${r} im = scalbn${f}((b * c - a * d) / denom, -ilogbw);
  if (nvf_cisnan(re) && nvf_cisnan(im)) {
    const ${r} inf = static_cast<${r}>(NVF_INFINITY);
    if (denom == ${zero} && (!nvf_cisnan(a) || !nvf_cisnan(b))) { re = inf * a; im = inf * b; }
    else if ((nvf_cisinf(a) || nvf_cisinf(b)) && nvf_cisfinite(c) && nvf_cisfinite(d)) {
      a = nvf_cunit_or_zero(a); b = nvf_cunit_or_zero(b); re = inf * (a * c + b * d); im = inf * (b * c - a * d);
    } else if (nvf_cisinf(w) && nvf_cisfinite(a) && nvf_cisfinite(b)) {
      c = nvf_cunit_or_zero(c); d = nvf_cunit_or_zero(d); re = ${zero} * (a * c + b * d); im = ${zero} * (b * c - a * d);
    }
  }
  return ${c}_make(re, im);
}
NVF_HD ${r} nvf_abs(${c} z) { return hypot${f}(z.re, z.im); }
NVF_HD ${r} nvf_real(${c} z) { return z.re; }
NVF_HD ${r} nvf_imag(${c} z) { return z.im; }
NVF_HD ${c} nvf_neg(${c} z) { return -z; }
NVF_HD ${c} nvf_reciprocal(${c} z) { return ${c}_make(${one}, ${zero}) / z; }
NVF_HD ${c} nvf_exp(${c} z) {
  if (z.im == ${zero}) return ${c}_make(exp${f}(z.re), z.im);
  if (nvf_cisinf(z.re) && !nvf_cisfinite(z.im)) return z.re < ${zero} ? ${c}_make(${zero}, ${zero}) : ${c}_make(z.re, static_cast<${r}>(NVF_NAN));
  const ${r} e = exp${f}(z.re);
  return ${c}_make(e * cos${f}(z.im), e * sin${f}(z.im));
}
NVF_HD ${c} nvf_log(${c} z) { return ${c}_make(log${f}(hypot${f}(z.re, z.im)), atan2${f}(z.im, z.re)); }
NVF_HD ${c} nvf_sqrt(${c} z) {
  const ${r} x = z.re, y = z.im;
  const ${r} inf = static_cast<${r}>(NVF_INFINITY), nan = static_cast<${r}>(NVF_NAN);
  if (nvf_cisinf(y)) return ${c}_make(inf, y);
  if (nvf_cisnan(x)) return ${c}_make(nan, nan);
  if (nvf_cisinf(x) && x > ${zero}) return ${c}_make(x, nvf_cisnan(y) ? y : copysign${f}(${zero}, y));
  if (nvf_cisinf(x)) return ${c}_make(nvf_cisnan(y) ? nan : ${zero}, nvf_cisnan(y) ? inf : copysign${f}(inf, y));
  if (nvf_cisnan(y)) return ${c}_make(nan, nan);
  if (x == ${zero} && y == ${zero}) return ${c}_make(${zero}, y);
  const ${r} t = sqrt${f}((fabs${f}(x) + hypot${f}(x, y)) * static_cast<${r}>(0.5));
  if (x >= ${zero}) return ${c}_make(t, y / (2 * t));
  return ${c}_make(fabs${f}(y) / (2 * t), copysign${f}(t, y));
}
NVF_HD ${c} nvf_sin(${c} z) {
  if (z.im == ${zero}) return ${c}_make(sin${f}(z.re), nvf_cisfinite(z.re) ? z.im * cos${f}(z.re) : z.im);
  if (z.re == ${zero}) return ${c}_make(z.re, sinh${f}(z.im));
  return ${c}_make(sin${f}(z.re) * cosh${f}(z.im), cos${f}(z.re) * sinh${f}(z.im));
}
NVF_HD ${c} nvf_cos(${c} z) {
  if (z.im == ${zero}) return ${c}_make(cos${f}(z.re), nvf_cisfinite(z.re) ? -z.im * sin${f}(z.re) : z.im);
  if (z.re == ${zero}) return ${c}_make(cosh${f}(z.im), -z.re * (z.im > ${zero} ? ${one} : z.im < ${zero} ? -${one} : ${zero}));
  return ${c}_make(cos${f}(z.re) * cosh${f}(z.im), -sin${f}(z.re) * sinh${f}(z.im));
}
NVF_HD ${c} nvf_tanh(${c} z) {
  const ${r} x = z.re, y = z.im;
  if (y == ${zero}) return ${c}_make(tanh${f}(x), y);
  if (x == ${zero}) return ${c}_make(x, tan${f}(y));
  if (fabs${f}(x) > 22) return ${c}_make(x > ${zero} ? ${one} : -${one}, 4 * sin${f}(y) * cos${f}(y) * exp${f}(-2 * fabs${f}(x)));
  const ${r} t = tan${f}(y), beta = ${one} + t * t, s = sinh${f}(x), rho = sqrt${f}(${one} + s * s), denom = ${one} + beta * s * s;
  return ${c}_make(beta * rho * s / denom, t / denom);
}
NVF_HD bool nvf_isfinite(${c} z) { return nvf_cisfinite(z.re) && nvf_cisfinite(z.im); }
NVF_HD bool nvf_isnan(${c} z) { return nvf_cisnan(z.re) || nvf_cisnan(z.im); }
NVF_HD bool nvf_isinf(${c} z) { return nvf_cisinf(z.re) || nvf_cisinf(z.im); }
NVF_HD bool nvf_isreal(${c} z) { return z.im == ${zero}; }
`;
}

function conversions(): string {
  const lines: string[] = [];
  for (const [c, r] of [['nvf_cfloat', 'float'], ['nvf_cdouble', 'double']] as const) {
    lines.push(`NVF_HD ${c} nvf_to_${c.slice(4)}(float x) { return ${c}_make(static_cast<${r}>(x), 0); }`);
    lines.push(`NVF_HD ${c} nvf_to_${c.slice(4)}(double x) { return ${c}_make(static_cast<${r}>(x), 0); }`);
    lines.push(`NVF_HD ${c} nvf_to_${c.slice(4)}(nvf_cfloat z) { return ${c}_make(static_cast<${r}>(z.re), static_cast<${r}>(z.im)); }`);
    lines.push(`NVF_HD ${c} nvf_to_${c.slice(4)}(nvf_cdouble z) { return ${c}_make(static_cast<${r}>(z.re), static_cast<${r}>(z.im)); }`);
  }
  return lines.join('\n');
}

/** The helpers that compile on host and device (NVF_HD — inline on the host —, NVF_INFINITY and NVF_NAN defined by the includer). */
export const COMPLEX_CORE = `template <typename R> NVF_HD bool nvf_cisnan(R x) { return x != x; }
template <typename R> NVF_HD bool nvf_cisinf(R x) { return x == x && (x - x) != R(0); }
template <typename R> NVF_HD bool nvf_cisfinite(R x) { return (x - x) == R(0); }
${typeCore('nvf_cfloat', 'float')}${typeCore('nvf_cdouble', 'double')}${conversions()}
`;

/** The device library: the core plus warp shuffles of complex values (for block reductions). */
export const COMPLEX_RUNTIME = `// ---- complex ----
#define NVF_HD __device__ __forceinline__
${COMPLEX_CORE}
#undef NVF_HD
__device__ __forceinline__ nvf_cfloat nvf_shfl_xor(nvf_cfloat v, int m) {
  return nvf_cfloat_make(__shfl_xor_sync(0xffffffffu, v.re, m), __shfl_xor_sync(0xffffffffu, v.im, m));
}
__device__ __forceinline__ nvf_cdouble nvf_shfl_xor(nvf_cdouble v, int m) {
  return nvf_cdouble_make(__shfl_xor_sync(0xffffffffu, v.re, m), __shfl_xor_sync(0xffffffffu, v.im, m));
}
`;
