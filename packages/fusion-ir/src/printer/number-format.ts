// Numbers as nvFuser prints them: C++ `std::ostream << value` after `std::setprecision(p)`, i.e.
// printf's `%.{p}g` — p significant digits, trailing zeros dropped, scientific notation with a
// signed two-digit exponent when the exponent is < -4 or >= p, and `inf` / `-inf` / `nan`.
// Floating constants use p = max_digits10 of their dtype, so printing then parsing round-trips.

import type { DataType } from '../ir/data-type.js';

/** std::numeric_limits<T>::max_digits10 (nvFuser's table for half, bfloat16 and fp8). */
export function maxDigits10(dtype: DataType): number {
  switch (dtype) {
    case 'Double':
    case 'ComplexDouble':
      return 17;
    case 'Float':
    case 'ComplexFloat':
      return 9;
    case 'Half':
      return 5;
    case 'BFloat16':
      return 4;
    case 'Float8_e4m3fn':
      return 3;
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return 2;
    case 'Bool':
    case 'Int32':
    case 'Int':
    case 'Index':
    case 'UInt64':
      return 0;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

function stripFractionZeros(digits: string): string {
  return digits.includes('.') ? digits.replace(/0+$/, '').replace(/\.$/, '') : digits;
}

/** `%.{precision}g` of a double, as C++ streams print it. */
export function formatCppFloat(value: number, precision: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const p = Math.max(1, precision);
  // toExponential rounds the exact binary value, as glibc's printf does.
  const sci = value.toExponential(p - 1);
  const match = /^(-?[\d.]+)e([+-]\d+)$/.exec(sci);
  if (match === null) throw new Error(`unexpected exponential form ${sci}`);
  const exponent = Number(match[2]);
  if (exponent < -4 || exponent >= p) {
    const mantissa = stripFractionZeros(match[1] as string);
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return stripFractionZeros(value.toFixed(p - 1 - exponent));
}
