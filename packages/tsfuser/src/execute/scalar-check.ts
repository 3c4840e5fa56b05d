// Checks a scalar execute() input against the dtype its definition declares, so that no value is
// silently changed on its way into the fusion:
//   Bool             true/false (or the integers 0 and 1); 7 is refused, not read as true.
//   Int32            an integer number (or bigint) in [-2^31, 2^31).
//   Int, Index       a bigint in the int64 range, or a number that is a safe integer (|n| < 2^53):
//                    2.5, NaN, ±Inf, 1e30 and 2^53 + 1 as a number are refused (no truncation,
//                    clamping or wrapping); pass a bigint for exact 64-bit values.
//   floating types   any number (NaN and ±Inf included) or bigint.
// A refusal is one InputMismatchError naming the input index, its name and the value.

import { Complex, type DataType } from '@tsfuser/fusion-ir';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { InputMismatchError } from '../errors.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A value as an error message shows it: `the number 2.5`, `the bigint 7n`, `null`, `a string`. */
export function describeScalarValue(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined (no value)';
  switch (typeof v) {
    case 'number':
    case 'boolean':
      return `the ${typeof v} ${String(v)}`;
    case 'bigint':
      return `the bigint ${v}n`;
    case 'string':
      return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    case 'object':
      return Array.isArray(v) ? `an array of ${v.length} values` : 'an object';
    default:
      return `a ${typeof v}`;
  }
}

function integerProblem(v: number | bigint, dtype: 'Int32' | 'Int' | 'Index' | 'UInt64'): string | null {
  const [low, high] = dtype === 'Int32' ? [BigInt(INT32_MIN), BigInt(INT32_MAX)] : dtype === 'UInt64' ? [0n, 2n ** 64n - 1n] : [INT64_MIN, INT64_MAX];
  const range = dtype === 'Int32' ? 'int32' : dtype === 'UInt64' ? 'uint64' : 'int64';
  if (typeof v === 'bigint') return v < low || v > high ? `is outside the ${range} range` : null;
  if (Number.isNaN(v)) return 'is not a number';
  if (!Number.isFinite(v)) return 'is infinite';
  if (!Number.isInteger(v)) return 'is not an integer';
  if (dtype === 'Int32') return v < INT32_MIN || v > INT32_MAX ? 'is outside the int32 range' : null;
  if (BigInt(v) < low || BigInt(v) > high) return `is outside the ${range} range`;
  if (!Number.isSafeInteger(v)) return 'is past 2^53, where a JS number is not exact (pass a bigint)';
  return null;
}

function scalarProblem(dtype: DataType, v: unknown): string | null {
  switch (dtype) {
    case 'Bool':
      if (typeof v === 'boolean') return null;
      if (v === 0 || v === 1 || v === 0n || v === 1n) return null;
      return typeof v === 'number' || typeof v === 'bigint' ? 'is not a boolean (true, false, 0 or 1)' : 'is not a boolean';
    case 'Int32':
    case 'Int':
    case 'Index':
    case 'UInt64':
      if (typeof v === 'number' || typeof v === 'bigint') return integerProblem(v, dtype);
      return 'is not an integer';
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return typeof v === 'number' || typeof v === 'bigint' ? null : 'is not a number';
    case 'ComplexFloat':
    case 'ComplexDouble':
      return v instanceof Complex || typeof v === 'number' || typeof v === 'bigint' ? null : 'is not a number or a Complex';
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

/** Throws unless `v` is a value of the scalar input's dtype (see the header for the rules). */
export function checkScalarInput(index: number, d: InputDescriptor & { kind: 'scalar' }, v: unknown): void {
  const problem = scalarProblem(d.dtype, v);
  if (problem !== null) throw new InputMismatchError(index, `${d.name} expects a ${d.dtype} scalar, got ${describeScalarValue(v)}, which ${problem}`);
}
