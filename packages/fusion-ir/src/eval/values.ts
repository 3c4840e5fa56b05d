// Element values inside the reference evaluator and the conversions between them.
// Floats compute as float64 numbers, 64-bit integers as bigint (exact), Int32 as bigint wrapped
// to 32 bits, Bool as boolean. Each op converts its operands to its compute kind first, exactly
// as the generated CUDA does after type promotion.

import { Complex } from '../ir/complex-value.js';
import { isComplexType, isFloatingType, type DataType } from '../ir/data-type.js';
import { numberToBFloat16Bits, numberToHalfBits, roundToBFloat16, roundToHalf } from './float16.js';
import { numberToFloat8E4M3FnBits, numberToFloat8E5M2Bits, numberToFloat8E8M0FnuBits, roundToFloat8E4M3Fn, roundToFloat8E5M2, roundToFloat8E8M0Fnu } from './float8.js';
import type { ElementValue, HostStorage } from './host-tensor.js';

export type ComputeKind = 'float' | 'int' | 'bool' | 'complex';

export function computeKindOf(dtype: DataType): ComputeKind {
  if (isFloatingType(dtype)) return 'float';
  if (isComplexType(dtype)) return 'complex';
  if (dtype === 'Bool') return 'bool';
  return 'int';
}

/** Complex → real keeps the real part (nvFuser's and PyTorch's cast discard the imaginary part). */
export function toFloat(v: ElementValue): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Complex) return v.re;
  return Number(v);
}

/**
 * Float → int truncates toward zero (a C++ cast). Out-of-range values are undefined behaviour in
 * C++; here NaN gives 0 and ±inf / huge values saturate to ±2^63, as CUDA's cvt.rzi does
 * (`castTo` then saturates again to the target width, see `saturate`).
 */
export function toInt(v: ElementValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (v instanceof Complex) return toInt(v.re);
  if (v !== v) return 0n;
  if (v >= 9223372036854775807) return 9223372036854775807n;
  if (v <= -9223372036854775808) return -9223372036854775808n;
  return BigInt(Math.trunc(v));
}

/** A float converted to a `bits`-wide signed int: truncation, saturating (CUDA cvt.rzi.sat), NaN → 0. */
export function floatToIntSaturating(v: number, bits: 32 | 64): bigint {
  if (v !== v) return 0n;
  const max = bits === 32 ? 2147483647 : 9223372036854775807;
  const min = bits === 32 ? -2147483648 : -9223372036854775808;
  if (v >= max) return bits === 32 ? 2147483647n : 9223372036854775807n;
  if (v <= min) return bits === 32 ? -2147483648n : -9223372036854775808n;
  return BigInt(Math.trunc(v));
}

/**
 * A float converted to uint64: truncation, saturating to [0, 2^64 − 1], NaN → 0 (CUDA's
 * cvt.rzi.u64). In-range values convert as PyTorch does; PyTorch's CPU result for negative or
 * too large floats is platform-defined (C++ undefined behaviour), tsfuser's is CUDA's.
 */
export function floatToUInt64Saturating(v: number): bigint {
  if (v !== v || v <= 0) return 0n;
  if (v >= 18446744073709551615) return 18446744073709551615n;
  return BigInt(Math.trunc(v));
}

/** An exact integer rounded once to float32 (round to nearest even), as CUDA's cvt.rn.f32.s64/u64. */
export function bigintToFloat32(v: bigint): number {
  const negative = v < 0n;
  let a = negative ? -v : v;
  const bits = a.toString(2).length;
  if (bits > 24) {
    const shift = BigInt(bits - 24);
    const rem = a & ((1n << shift) - 1n);
    const half = 1n << (shift - 1n);
    a >>= shift;
    if (rem > half || (rem === half && (a & 1n) === 1n)) a += 1n;
    a <<= shift;
  }
  // a now has at most 25 significant bits: exact in a double, then a float32 value.
  const r = Math.fround(Number(a));
  return negative ? -r : r;
}

export function toBool(v: ElementValue): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return v !== 0n;
  if (v instanceof Complex) return v.re !== 0 || v.im !== 0;
  return v !== 0; // NaN != 0 is true, as in C++
}

export function convert(v: ElementValue, kind: ComputeKind): ElementValue {
  switch (kind) {
    case 'float':
      return toFloat(v);
    case 'int':
      return toInt(v);
    case 'bool':
      return toBool(v);
    case 'complex':
      return toComplex(v);
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown compute kind ${String(unreachable)}`);
    }
  }
}

/** Rounds/wraps a computed value to what a variable of `dtype` holds. */
export function castTo(v: ElementValue, dtype: DataType): ElementValue {
  switch (dtype) {
    case 'Bool':
      return toBool(v);
    case 'Int32':
      return typeof v === 'number' ? floatToIntSaturating(v, 32) : BigInt.asIntN(32, toInt(v));
    case 'Int':
    case 'Index':
      return typeof v === 'number' ? floatToIntSaturating(v, 64) : BigInt.asIntN(64, toInt(v));
    case 'UInt64':
      return typeof v === 'number' ? floatToUInt64Saturating(v) : BigInt.asUintN(64, toInt(v));
    case 'Half':
      return roundToHalf(toFloat(v));
    case 'BFloat16':
      return roundToBFloat16(toFloat(v));
    case 'Float':
      return typeof v === 'bigint' ? bigintToFloat32(v) : Math.fround(toFloat(v));
    case 'Double':
      return toFloat(v);
    // An integer reaches fp8 through float32 rounded once, as CUDA's static_cast<float> does.
    case 'Float8_e4m3fn':
      return roundToFloat8E4M3Fn(typeof v === 'bigint' ? bigintToFloat32(v) : toFloat(v));
    case 'Float8_e5m2':
      return roundToFloat8E5M2(typeof v === 'bigint' ? bigintToFloat32(v) : toFloat(v));
    case 'Float8_e8m0fnu':
      return roundToFloat8E8M0Fnu(typeof v === 'bigint' ? bigintToFloat32(v) : toFloat(v));
    case 'ComplexFloat': {
      const z = toComplex(v);
      return new Complex(Math.fround(z.re), Math.fround(z.im));
    }
    case 'ComplexDouble':
      return toComplex(v);
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

/**
 * Float64 results rounded into the storage of `dtype` (the fast path of float kernels): Float by
 * the typed array's own round-to-nearest-even, Half/BFloat16 by float16.ts, ints by saturating
 * truncation, Bool as `!= 0`.
 */
export function storeFloat64(dtype: DataType, values: Float64Array): HostStorage {
  const n = values.length;
  switch (dtype) {
    case 'Double':
      return values;
    case 'Float':
      return Float32Array.from(values);
    case 'Half':
    case 'BFloat16': {
      const out = new Uint16Array(n);
      const encode = dtype === 'Half' ? numberToHalfBits : numberToBFloat16Bits;
      for (let i = 0; i < n; i += 1) out[i] = encode(values[i] as number);
      return out;
    }
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu': {
      const out = new Uint8Array(n);
      const encode = float8Encoder(dtype);
      for (let i = 0; i < n; i += 1) out[i] = encode(values[i] as number);
      return out;
    }
    case 'Bool': {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i += 1) out[i] = (values[i] as number) !== 0 ? 1 : 0;
      return out;
    }
    case 'Int32': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i += 1) {
        const v = values[i] as number;
        out[i] = v !== v ? 0 : v >= 2147483647 ? 2147483647 : v <= -2147483648 ? -2147483648 : Math.trunc(v);
      }
      return out;
    }
    case 'Int':
    case 'Index': {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i += 1) out[i] = floatToIntSaturating(values[i] as number, 64);
      return out;
    }
    case 'UInt64': {
      const out = new BigUint64Array(n);
      for (let i = 0; i < n; i += 1) out[i] = floatToUInt64Saturating(values[i] as number);
      return out;
    }
    case 'ComplexFloat':
    case 'ComplexDouble': {
      // Real results stored as complex: imaginary parts 0.
      const out = dtype === 'ComplexFloat' ? new Float32Array(2 * n) : new Float64Array(2 * n);
      for (let i = 0; i < n; i += 1) out[2 * i] = values[i] as number;
      return out;
    }
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

/** The bit encoder of an fp8 format (float8.ts). */
export function float8Encoder(dtype: 'Float8_e4m3fn' | 'Float8_e5m2' | 'Float8_e8m0fnu'): (x: number) => number {
  if (dtype === 'Float8_e4m3fn') return numberToFloat8E4M3FnBits;
  return dtype === 'Float8_e5m2' ? numberToFloat8E5M2Bits : numberToFloat8E8M0FnuBits;
}

/** Any element as a complex number (reals get imaginary part 0, bools 0/1). */
export function toComplex(v: ElementValue): Complex {
  if (v instanceof Complex) return v;
  return new Complex(toFloat(v), 0);
}
