// Runtime helper: Philox-4x32-10 and nvFuser's conversions of its words to uniform and normal
// numbers (runtime/random_numbers.cu), bit for bit what fusion-ir's eval/philox.ts and
// eval/random.ts compute. Multiplies and adds are written with the _rn intrinsics so that no FMA
// contraction can change a bit (nvFuser's text leaves `from + range * u` to the compiler, which
// fuses it); only sinf/cosf/logf (normal numbers) differ from the reference, by their ulp
// error. A kernel that draws numbers declares one `NvfRngCache` per thread: consecutive
// elements of one subsequence (4 per Float, 2 per Double) reuse one Philox call, as nvFuser's
// `rng_subseq` check does.
//
// PHILOX_CORE compiles for the host too (NVF_HD, portable mulhi and rounding), so a host
// program can check the words and the Float/Double conversions against the reference without
// a GPU; PHILOX_16BIT needs the device half/bfloat conversions of fp16.ts.

export const PHILOX_CORE = `// ---- philox (core) ----
#ifdef __CUDA_ARCH__
#define NVF_HD __host__ __device__
#define NVF_MULHI32(a, b) __umulhi(a, b)
#define NVF_FMUL(a, b) __fmul_rn(a, b)
#define NVF_FADD(a, b) __fadd_rn(a, b)
#define NVF_DMUL(a, b) __dmul_rn(a, b)
#define NVF_DADD(a, b) __dadd_rn(a, b)
#else
#define NVF_HD
#define NVF_MULHI32(a, b) static_cast<unsigned int>((static_cast<unsigned long long>(a) * (b)) >> 32)
#define NVF_FMUL(a, b) ((a) * (b))
#define NVF_FADD(a, b) ((a) + (b))
#define NVF_DMUL(a, b) ((a) * (b))
#define NVF_DADD(a, b) ((a) + (b))
#endif

// Key (seed low, seed high), counter (offset low, offset high, subsequence low, subsequence high).
NVF_HD inline void nvf_philox(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, unsigned int* out) {
  unsigned int k0 = static_cast<unsigned int>(seed), k1 = static_cast<unsigned int>(seed >> 32);
  unsigned int c0 = static_cast<unsigned int>(offset), c1 = static_cast<unsigned int>(offset >> 32);
  unsigned int c2 = static_cast<unsigned int>(subsequence), c3 = static_cast<unsigned int>(subsequence >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const unsigned int hi0 = NVF_MULHI32(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const unsigned int hi1 = NVF_MULHI32(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// The last Philox output of a thread, reused while (seed, offset, subsequence) stay the same.
struct NvfRngCache {
  unsigned long long seed;
  unsigned long long offset;
  long long subsequence;
  unsigned int words[4];
};

NVF_HD inline void nvf_rng_cache_init(NvfRngCache& cache) {
  cache.seed = 0;
  cache.offset = 0;
  cache.subsequence = -1;
}

NVF_HD inline const unsigned int* nvf_philox_words(NvfRngCache& cache, long long seed, long long offset, long long subsequence) {
  const unsigned long long s = static_cast<unsigned long long>(seed), o = static_cast<unsigned long long>(offset);
  if (subsequence != cache.subsequence || s != cache.seed || o != cache.offset) {
    nvf_philox(s, static_cast<unsigned long long>(subsequence), o, cache.words);
    cache.seed = s;
    cache.offset = o;
    cache.subsequence = subsequence;
  }
  return cache.words;
}

// (0, 1]: (float)x * 2^-32 + 2^-33 (exact product, one rounding).
NVF_HD inline float nvf_raw_uniform_float(unsigned int x) {
  return NVF_FADD(NVF_FMUL(static_cast<float>(x), 2.3283064365386963e-10f), 1.1641532182693481e-10f);
}
// (0, 1]: z = x ^ (y << 21) (53 bits), z * 2^-53 + 2^-54.
NVF_HD inline double nvf_raw_uniform_double(unsigned int x, unsigned int y) {
  const unsigned long long z = static_cast<unsigned long long>(x) ^ (static_cast<unsigned long long>(y) << 21);
  return NVF_DADD(NVF_DMUL(static_cast<double>(z), 1.1102230246251565e-16), 5.5511151231257827e-17);
}
NVF_HD inline float nvf_uniformf(unsigned int x) {
  const float r = nvf_raw_uniform_float(x);
  return r == 1.0f ? 0.0f : r;
}
NVF_HD inline double nvf_uniform(unsigned int x, unsigned int y) {
  const double r = nvf_raw_uniform_double(x, y);
  return r == 1.0 ? 0.0 : r;
}

NVF_HD inline float nvf_rng_uniform_float(const unsigned int* w, int c) { return nvf_uniformf(w[c]); }
NVF_HD inline double nvf_rng_uniform_double(const unsigned int* w, int c) { return nvf_uniform(w[2 * c], w[2 * c + 1]); }
NVF_HD inline float nvf_rng_uniform_range_float(const unsigned int* w, int c, double low, double high) {
  const float from = static_cast<float>(low), to = static_cast<float>(high);
  const float range = NVF_FADD(to, -from);
  return NVF_FADD(from, NVF_FMUL(range, nvf_uniformf(w[c])));
}
NVF_HD inline double nvf_rng_uniform_range_double(const unsigned int* w, int c, double low, double high) {
  return NVF_DADD(low, NVF_DMUL(NVF_DADD(high, -low), nvf_uniform(w[2 * c], w[2 * c + 1])));
}

// Box-Muller (nvFuser's normalf): sqrt(-2 log u) * (sin v for even c, cos v for odd c).
NVF_HD inline float nvf_normalf(unsigned int x, unsigned int y, int c) {
  const float u = nvf_uniformf(x);
  const float v = NVF_FMUL(nvf_uniformf(y), 6.2831855f);
  const float radius = sqrtf(NVF_FMUL(-2.0f, logf(u)));
  return NVF_FMUL(radius, c % 2 == 0 ? sinf(v) : cosf(v));
}
NVF_HD inline double nvf_normal(unsigned int x0, unsigned int x1, unsigned int y0, unsigned int y1, int c) {
  const double u = nvf_uniform(x0, x1);
  const double v = NVF_DMUL(nvf_uniform(y0, y1), 6.283185307179586);
  const double radius = sqrt(NVF_DMUL(-2.0, log(u)));
  return NVF_DMUL(radius, c % 2 == 0 ? sin(v) : cos(v));
}
NVF_HD inline float nvf_rng_normal_standard_float(const unsigned int* w, int c) { return nvf_normalf(w[c / 2 * 2], w[c / 2 * 2 + 1], c); }
NVF_HD inline double nvf_rng_normal_standard_double(const unsigned int* w, int c) { return nvf_normal(w[0], w[1], w[2], w[3], c); }
NVF_HD inline float nvf_rng_normal_general_float(const unsigned int* w, int c, double mean, double std) {
  return NVF_FADD(NVF_FMUL(nvf_rng_normal_standard_float(w, c), static_cast<float>(std)), static_cast<float>(mean));
}
NVF_HD inline double nvf_rng_normal_general_double(const unsigned int* w, int c, double mean, double std) {
  return NVF_DADD(NVF_DMUL(nvf_rng_normal_standard_double(w, c), std), mean);
}
`;

/** Half / BFloat16 results: float numbers rounded once to 16 bits (uniform ones that reach 1, or high, move to 0, or low). */
function sixteenBit(suffix: string, type: string, toFloat: string, fromFloat: string): string {
  return `__device__ __forceinline__ ${type} nvf_rng_uniform_${suffix}(const unsigned int* w, int c) {
  const ${type} r = ${fromFloat}(nvf_raw_uniform_float(w[c]));
  return ${toFloat}(r) == 1.0f ? ${fromFloat}(0.0f) : r;
}
__device__ __forceinline__ ${type} nvf_rng_uniform_range_${suffix}(const unsigned int* w, int c, double low, double high) {
  const float from = static_cast<float>(low), to = static_cast<float>(high);
  const float range = __fadd_rn(to, -from);
  const ${type} r = ${fromFloat}(__fadd_rn(from, __fmul_rn(range, nvf_raw_uniform_float(w[c]))));
  return ${toFloat}(r) == ${toFloat}(${fromFloat}(to)) ? ${fromFloat}(from) : r;
}
__device__ __forceinline__ ${type} nvf_rng_normal_standard_${suffix}(const unsigned int* w, int c) {
  return ${fromFloat}(nvf_rng_normal_standard_float(w, c));
}
__device__ __forceinline__ ${type} nvf_rng_normal_general_${suffix}(const unsigned int* w, int c, double mean, double std) {
  return ${fromFloat}(nvf_rng_normal_general_float(w, c, mean, std));
}`;
}

export const PHILOX_16BIT = `// ---- philox (half / bfloat16) ----
${sixteenBit('half', '__half', '__half2float', '__float2half')}
${sixteenBit('bfloat', '__bfloat', '__bfloat2float', '__float2bfloat')}
`;

export const PHILOX_RUNTIME = `${PHILOX_CORE}\n${PHILOX_16BIT}`;
