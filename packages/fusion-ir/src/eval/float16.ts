// IEEE binary16 and bfloat16 conversions with round-to-nearest-even, as the GPU's
// __float2half_rn / __float2bfloat16_rn do. Values travel as 16-bit patterns in Uint16Arrays.
//
// Rounding works on the float64 value directly (rounding through float32 first would round twice
// and break ties): adding C = 2^(e + 52 − p) to |x| (x in binade e, p = significand bits kept)
// makes the FPU round x to a multiple of 2^(e − p) with ties to even, and subtracting C is exact.
// Decoding uses 64 Ki-entry tables, so the evaluator's inner loops never call Math.pow.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u64hi = new Uint32Array(f64.buffer);
// Index of the high 32-bit word of a float64 (little-endian hosts put it second).
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** Binade of a positive finite float64 (floor(log2 x)), exact; subnormal float64s count as −1023. */
function binade(x: number): number {
  f64[0] = x;
  return (((u64hi[HI] as number) >>> 20) & 0x7ff) - 1023;
}

// 2^k for every k a rounding constant can need (k = q + 52, q ≥ −1074 − 52): `2 ** k` per element
// was the evaluator's hottest instruction on Half/BFloat16 tensors.
const POW2_MIN = -1100;
const POW2 = Float64Array.from({ length: 2200 }, (_, i) => 2 ** (i + POW2_MIN));

/** x ≥ 0 rounded to a multiple of 2^q (ties to even), for q such that the sum stays finite. */
function roundToMultiple(x: number, q: number): number {
  const c = POW2[q + 52 - POW2_MIN] as number;
  return x + c - c;
}

let halfTable: Float64Array | null = null;
let bf16Table: Float64Array | null = null;

function decodeHalfSlow(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** float64 value of every half bit pattern. */
export function halfDecodeTable(): Float64Array {
  if (halfTable === null) {
    halfTable = new Float64Array(65536);
    for (let b = 0; b < 65536; b += 1) halfTable[b] = decodeHalfSlow(b);
  }
  return halfTable;
}

/** float64 value of every bfloat16 bit pattern. */
export function bfloat16DecodeTable(): Float64Array {
  if (bf16Table === null) {
    bf16Table = new Float64Array(65536);
    for (let b = 0; b < 65536; b += 1) {
      u32[0] = b << 16;
      bf16Table[b] = f32[0] as number;
    }
  }
  return bf16Table;
}

export function halfBitsToNumber(bits: number): number {
  return halfDecodeTable()[bits & 0xffff] as number;
}

export function numberToHalfBits(value: number): number {
  if (value !== value) return 0x7e00; // NaN
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a >= 65520) return sign | 0x7c00; // ≥ max half + half an ulp: rounds to inf
  if (a < 2 ** -14) {
    // subnormal range: multiples of 2^-24; 1024 units is the smallest normal, the right pattern
    return sign | (roundToMultiple(a, -24) * 2 ** 24);
  }
  const r = roundToMultiple(a, binade(a) - 10);
  if (r >= 65536) return sign | 0x7c00;
  f32[0] = r; // exact: every half is a float32
  const b = u32[0] as number;
  const exponent = ((b >>> 23) & 0xff) - 127 + 15;
  return sign | (exponent << 10) | ((b >>> 13) & 0x3ff);
}

export function bfloat16BitsToNumber(bits: number): number {
  return bfloat16DecodeTable()[bits & 0xffff] as number;
}

export function numberToBFloat16Bits(value: number): number {
  if (value !== value) return 0x7fc0; // NaN
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a >= 2 ** 128) return sign | 0x7f80;
  // bf16 keeps 8 significand bits; below 2^-126 its subnormals are multiples of 2^-133.
  const r = a < 2 ** -126 ? roundToMultiple(a, -133) : roundToMultiple(a, binade(a) - 7);
  f32[0] = r; // exact (r = 2^128 becomes +inf, which is the right pattern)
  return sign | ((u32[0] as number) >>> 16);
}

export function roundToHalf(value: number): number {
  return halfBitsToNumber(numberToHalfBits(value));
}

export function roundToBFloat16(value: number): number {
  return bfloat16BitsToNumber(numberToBFloat16Bits(value));
}
