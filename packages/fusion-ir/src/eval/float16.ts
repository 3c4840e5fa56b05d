// IEEE binary16 and bfloat16 conversions with round-to-nearest-even, as the GPU's
// __float2half_rn / __float2bfloat16_rn do. Values travel as 16-bit patterns in Uint16Arrays.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function halfBitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export function numberToHalfBits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  // Round through float32 first would double-round; work from the float64 value directly.
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const abs = Math.abs(value);
  if (abs === Infinity) return sign | 0x7c00;
  if (abs >= 65520) return sign | 0x7c00; // rounds to inf (max half is 65504)
  if (abs < 2 ** -14) {
    // subnormal: units of 2^-24
    const units = roundHalfEven(abs / 2 ** -24);
    return sign | units; // units == 1024 becomes the smallest normal, which is the right pattern
  }
  let exponent = Math.floor(Math.log2(abs));
  // guard against log2 rounding at exact powers of two
  if (2 ** exponent > abs) exponent -= 1;
  if (2 ** (exponent + 1) <= abs) exponent += 1;
  let mantissa = roundHalfEven((abs / 2 ** exponent - 1) * 1024);
  if (mantissa === 1024) {
    mantissa = 0;
    exponent += 1;
  }
  if (exponent > 15) return sign | 0x7c00;
  return sign | ((exponent + 15) << 10) | mantissa;
}

export function bfloat16BitsToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

export function numberToBFloat16Bits(value: number): number {
  if (Number.isNaN(value)) return 0x7fc0;
  // bf16 is the top half of a float32; round the float64 value to float32 first would double-round,
  // so round directly: find the float32 bits, then apply RNE on the dropped 16 bits with the
  // float64 remainder as the sticky information.
  f32[0] = value;
  const asFloat = f32[0] as number;
  let bits = u32[0] as number;
  const upper = bits >>> 16;
  const lower = bits & 0xffff;
  if (!Number.isFinite(asFloat)) return upper;
  // Exact comparison against the two bf16 candidates decides ties correctly.
  const down = bfloat16BitsToNumber(upper);
  const up = bfloat16BitsToNumber(upper + 1);
  const distDown = Math.abs(value - down);
  const distUp = Math.abs(up - value);
  if (lower === 0 && asFloat === value) return upper;
  if (distDown < distUp) return upper;
  if (distUp < distDown) return (upper + 1) & 0xffff;
  bits = upper & 1 ? upper + 1 : upper;
  return bits & 0xffff;
}

export function roundToHalf(value: number): number {
  return halfBitsToNumber(numberToHalfBits(value));
}

export function roundToBFloat16(value: number): number {
  return bfloat16BitsToNumber(numberToBFloat16Bits(value));
}

function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
