// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", Random123) and
// nvFuser's conversions of its 32-bit words to uniform and normal floats
// (runtime/random_numbers.cu), in exact 32-bit integer arithmetic: the product high words come
// from 16-bit limbs, the low words from Math.imul. Every function here is pure; the CUDA helper
// (codegen's emit/runtime/philox.ts) computes the same bits on the GPU.
//
// Invariant: `philox(seed, subsequence, offset)` is the Random123 philox4x32 with 10 rounds for
// key (seed low, seed high) and counter (offset low, offset high, subsequence low, subsequence
// high), exactly as nvFuser keys and counts it.

const PHILOX_M0 = 0xd2511f53;
const PHILOX_M1 = 0xcd9e8d57;
const PHILOX_W0 = 0x9e3779b9;
const PHILOX_W1 = 0xbb67ae85;

/** High 32 bits of the 64-bit product of two unsigned 32-bit integers (CUDA's __umulhi). */
export function mulhi32(a: number, b: number): number {
  const aHi = a >>> 16;
  const aLo = a & 0xffff;
  const bHi = b >>> 16;
  const bLo = b & 0xffff;
  const lowLow = aLo * bLo;
  const lowHigh = aLo * bHi;
  const highLow = aHi * bLo;
  const carry = ((lowLow >>> 16) + (lowHigh & 0xffff) + (highLow & 0xffff)) >>> 16;
  return (aHi * bHi + (lowHigh >>> 16) + (highLow >>> 16) + carry) >>> 0;
}

/** Philox-4x32 with `rounds` rounds on counter words c and key words k (all unsigned 32-bit). */
export function philox4x32(counter: readonly [number, number, number, number], key: readonly [number, number], rounds = 10): [number, number, number, number] {
  let [c0, c1, c2, c3] = counter;
  let [k0, k1] = key;
  for (let r = 0; r < rounds; r += 1) {
    if (r > 0) {
      k0 = (k0 + PHILOX_W0) >>> 0;
      k1 = (k1 + PHILOX_W1) >>> 0;
    }
    const hi0 = mulhi32(PHILOX_M0, c0);
    const lo0 = Math.imul(PHILOX_M0, c0) >>> 0;
    const hi1 = mulhi32(PHILOX_M1, c2);
    const lo1 = Math.imul(PHILOX_M1, c2) >>> 0;
    c0 = (hi1 ^ c1 ^ k0) >>> 0;
    c1 = lo1;
    c2 = (hi0 ^ c3 ^ k1) >>> 0;
    c3 = lo0;
  }
  return [c0, c1, c2, c3];
}

const TWO_32 = 2 ** 32;

/** The low and high 32-bit words of a non-negative integer below 2^64 (a number or bigint). */
export function splitWords(value: number | bigint): [number, number] {
  const v = BigInt.asUintN(64, typeof value === 'bigint' ? value : BigInt(value));
  return [Number(v & 0xffffffffn), Number(v >> 32n)];
}

/** nvFuser's philox(seed, subsequence, offset): key = seed, counter = (offset, subsequence). */
export function philox(seed: number | bigint, subsequence: number, offset: number | bigint): [number, number, number, number] {
  const [s0, s1] = splitWords(seed);
  const [o0, o1] = splitWords(offset);
  const q0 = subsequence % TWO_32;
  const q1 = Math.floor(subsequence / TWO_32);
  return philox4x32([o0, o1, q0, q1], [s0, s1]);
}

/** float in (0, 1]: (float)x · 2⁻³² + 2⁻³³ rounded to float (nvFuser's raw_uniform_float). */
export function rawUniformFloat(x: number): number {
  return Math.fround(Math.fround(x) * 2 ** -32 + 2 ** -33);
}

/** double in (0, 1]: z = x ^ (y << 21) (53 bits), z · 2⁻⁵³ + 2⁻⁵⁴ (nvFuser's raw_uniform_double). */
export function rawUniformDouble(x: number, y: number): number {
  const low = (x ^ ((y & 0x7ff) << 21)) >>> 0;
  const z = (y >>> 11) * TWO_32 + low;
  return z * 2 ** -53 + 2 ** -54;
}

/** uniformf: rawUniformFloat with 1 mapped to 0, so the result is in [0, 1). */
export function uniformFloat(x: number): number {
  const r = rawUniformFloat(x);
  return r === 1 ? 0 : r;
}

/** uniform (double): rawUniformDouble with 1 mapped to 0. */
export function uniformDouble(x: number, y: number): number {
  const r = rawUniformDouble(x, y);
  return r === 1 ? 0 : r;
}

/** 2π rounded to float (the constant nvFuser's normalf multiplies by). */
export const TWO_PI_FLOAT = Math.fround(6.2831855);

/**
 * Box–Muller on two words in float (nvFuser's normalf): u = uniformf(x), v = uniformf(y) · 2π;
 * sqrt(−2 log u) · sin v for an even component, · cos v for an odd one. Each step is rounded to
 * float; the GPU's logf/sinf/cosf are within 1–2 ulp of these correctly rounded values.
 */
export function normalFloat(x: number, y: number, component: number): number {
  const u = uniformFloat(x);
  const v = Math.fround(uniformFloat(y) * TWO_PI_FLOAT);
  const radius = Math.fround(Math.sqrt(Math.fround(-2 * Math.fround(Math.log(u)))));
  const angle = Math.fround(component % 2 === 0 ? Math.sin(v) : Math.cos(v));
  return Math.fround(radius * angle);
}

/** Box–Muller in double on four words (nvFuser's normal): u from (x0, x1), v from (y0, y1). */
export function normalDouble(x0: number, x1: number, y0: number, y1: number, component: number): number {
  const u = uniformDouble(x0, x1);
  const v = uniformDouble(y0, y1) * 6.283185307179586;
  const radius = Math.sqrt(-2 * Math.log(u));
  return radius * (component % 2 === 0 ? Math.sin(v) : Math.cos(v));
}
