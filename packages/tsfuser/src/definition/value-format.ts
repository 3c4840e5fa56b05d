// Literal formatting for the two printers: TypeScript and python spellings of numbers, booleans,
// None/null and DataTypes. Numbers print in their shortest round-trip form, so parsing a
// printed definition gives back bit-identical constants.

import { isFloatingType, type DataType } from '@tsfuser/fusion-ir';

export function tsNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** Python literal; floating dtypes always show as floats (`3.0`), as python would. */
export function pythonNumber(v: number, asFloat: boolean): string {
  if (Number.isNaN(v)) return 'float("nan")';
  if (v === Infinity) return 'float("inf")';
  if (v === -Infinity) return 'float("-inf")';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  if (asFloat && /^-?\d+$/.test(s)) return `${s}.0`;
  return s;
}

export function pythonScalar(v: number | boolean | null, dtype: DataType): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return pythonNumber(v, isFloatingType(dtype));
}

export function pythonBool(v: boolean): string {
  return v ? 'True' : 'False';
}

/**
 * A python complex literal as nvFuser's printer writes one: `re+imj` (`1.5+-2.0j` for a negative
 * imaginary part, as nvFuser prints "+" then the signed part), parts in shortest round-trip
 * form; `complex(re, im)` when a part is not finite (no literal spells inf or nan).
 */
export function pythonComplex(re: number, im: number): string {
  if (!Number.isFinite(re) || !Number.isFinite(im)) return `complex(${pythonNumber(re, true)}, ${pythonNumber(im, true)})`;
  return `${pythonNumber(re, true)}+${pythonNumber(im, true)}j`;
}
