// Element values inside the reference evaluator and the conversions between them.
// Floats compute as float64 numbers, 64-bit integers as bigint (exact), Int32 as bigint wrapped
// to 32 bits, Bool as boolean. Each op converts its operands to its compute kind first, exactly
// as the generated CUDA does after type promotion.

import { isFloatingType, type DataType } from '../ir/data-type.js';
import { roundToBFloat16, roundToHalf } from './float16.js';
import type { ElementValue } from './host-tensor.js';

export type ComputeKind = 'float' | 'int' | 'bool';

export function computeKindOf(dtype: DataType): ComputeKind {
  if (isFloatingType(dtype)) return 'float';
  if (dtype === 'Bool') return 'bool';
  return 'int';
}

export function toFloat(v: ElementValue): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Number(v);
}

/** Float → int truncates toward zero as a C++ cast; NaN and ±inf become 0 (undefined in C++). */
export function toInt(v: ElementValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (!Number.isFinite(v)) return 0n;
  return BigInt(Math.trunc(v));
}

export function toBool(v: ElementValue): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return v !== 0n;
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
      return BigInt.asIntN(32, toInt(v));
    case 'Int':
    case 'Index':
      return BigInt.asIntN(64, toInt(v));
    case 'Half':
      return roundToHalf(toFloat(v));
    case 'BFloat16':
      return roundToBFloat16(toFloat(v));
    case 'Float':
      return Math.fround(toFloat(v));
    case 'Double':
      return toFloat(v);
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}
