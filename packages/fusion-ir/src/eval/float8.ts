// Bit-exact 8-bit float conversions, as PyTorch's c10::Float8_e4m3fn / Float8_e5m2 /
// Float8_e8m0fnu do them (and as the generated CUDA does, see codegen's fp8 runtime helpers).
//
// Invariant: encoding takes the float32 value of its input first (PyTorch converts a double to
// float before converting to fp8) and then rounds to nearest, ties to even, exactly:
//   e4m3fn  (bias 7, 3 mantissa bits, no inf): saturating, as PyTorch 2.13 measured (the fixture
//           pins it): every non-NaN value that rounds past 448, ±inf included, gives ±448 (0x7e);
//           NaN gives 0x7f.
//   e5m2    (bias 15, 2 mantissa bits): |x| >= 65536 gives ±inf 0x7c, NaN gives 0x7f.
//   e8m0fnu (exponent only, no sign, bias 127): the sign is dropped; NaN and ±inf give 0xff (NaN);
//           rounding is PyTorch's: up when the first dropped bit is set and the float is normal or
//           any further bit is set; 0 and float32 subnormals below 2^-127 give 0x00 (2^-127).
// NaN is always the positive pattern 0x7f: PyTorch keeps a NaN's sign bit (0xff for a negative
// NaN), but neither JS numbers nor CUDA's float arithmetic (canonical NaN) carry NaN signs
// reliably, so tsfuser writes one NaN on every backend. That is the only difference from PyTorch.
// Decoding is exact (every fp8 value is a float32 value).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function float32Bits(x: number): number {
  f32[0] = x;
  return u32[0] as number;
}

function bitsToFloat32(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0] as number;
}

/** Round half to even of a non-negative double computed exactly. */
function roundHalfEven(y: number): number {
  const fl = Math.floor(y);
  const diff = y - fl;
  if (diff > 0.5) return fl + 1;
  if (diff < 0.5) return fl;
  return fl % 2 === 0 ? fl : fl + 1;
}

/**
 * Encodes |x| (a float32 value, finite, below the format's overflow threshold) with `mbits`
 * mantissa bits, exponent `bias` and minimum normal exponent 1 - bias. A rounding carry flows into
 * the exponent field, which is what the format's bit layout means.
 */
function encodeMagnitude(abs: number, mbits: number, bias: number): number {
  const emin = 1 - bias;
  if (abs < 2 ** emin) return roundHalfEven(abs * 2 ** (mbits - emin)); // subnormal (or the smallest normal)
  const e = ((float32Bits(abs) >>> 23) & 0xff) - 127;
  return ((e + bias) << mbits) + roundHalfEven(abs * 2 ** (mbits - e)) - (1 << mbits);
}

export function numberToFloat8E4M3FnBits(x: number): number {
  const bits = float32Bits(x);
  const sign = (bits >>> 24) & 0x80;
  const abs = bitsToFloat32(bits & 0x7fffffff);
  if (abs !== abs) return 0x7f;
  if (abs >= 448) return sign | 0x7e;
  return sign | Math.min(encodeMagnitude(abs, 3, 7), 0x7e);
}

export function numberToFloat8E5M2Bits(x: number): number {
  const bits = float32Bits(x);
  const sign = (bits >>> 24) & 0x80;
  const abs = bitsToFloat32(bits & 0x7fffffff);
  if (abs !== abs) return 0x7f;
  if (abs >= 65536) return sign | 0x7c;
  return sign | encodeMagnitude(abs, 2, 15);
}

export function numberToFloat8E8M0FnuBits(x: number): number {
  const bits = float32Bits(x);
  const exponent = (bits >>> 23) & 0xff;
  if (exponent === 0xff) return 0xff;
  const guard = (bits & 0x400000) !== 0;
  const rest = (bits & 0x3fffff) !== 0;
  const lsb = exponent > 0;
  return guard && (rest || lsb) ? exponent + 1 : exponent;
}

export function float8E4M3FnBitsToNumber(b: number): number {
  const sign = (b & 0x80) !== 0 ? -1 : 1;
  const e = (b >> 3) & 0xf;
  const m = b & 0x7;
  if (e === 0xf && m === 0x7) return NaN;
  if (e === 0) return sign * m * 2 ** -9;
  return sign * (8 + m) * 2 ** (e - 10);
}

export function float8E5M2BitsToNumber(b: number): number {
  const sign = (b & 0x80) !== 0 ? -1 : 1;
  const e = (b >> 2) & 0x1f;
  const m = b & 0x3;
  if (e === 0x1f) return m === 0 ? sign * Infinity : NaN;
  if (e === 0) return sign * m * 2 ** -16;
  return sign * (4 + m) * 2 ** (e - 17);
}

export function float8E8M0FnuBitsToNumber(b: number): number {
  if (b === 0xff) return NaN;
  return 2 ** (b - 127);
}

/** The value a float rounds to when stored as e4m3fn / e5m2 / e8m0fnu. */
export function roundToFloat8E4M3Fn(x: number): number {
  return float8E4M3FnBitsToNumber(numberToFloat8E4M3FnBits(x));
}

export function roundToFloat8E5M2(x: number): number {
  return float8E5M2BitsToNumber(numberToFloat8E5M2Bits(x));
}

export function roundToFloat8E8M0Fnu(x: number): number {
  return float8E8M0FnuBitsToNumber(numberToFloat8E8M0FnuBits(x));
}

export type Float8Type = 'Float8_e4m3fn' | 'Float8_e5m2' | 'Float8_e8m0fnu';

const decodeTables = new Map<Float8Type, Float64Array>();

/** All 256 patterns of an fp8 format decoded (for the evaluator's bulk reads). */
export function float8DecodeTable(dtype: Float8Type): Float64Array {
  let table = decodeTables.get(dtype);
  if (table === undefined) {
    const decode = dtype === 'Float8_e4m3fn' ? float8E4M3FnBitsToNumber : dtype === 'Float8_e5m2' ? float8E5M2BitsToNumber : float8E8M0FnuBitsToNumber;
    table = Float64Array.from({ length: 256 }, (_, b) => decode(b));
    decodeTables.set(dtype, table);
  }
  return table;
}
