// TorchScript scalar types (c10::ScalarType, by name in tensor types and by integer code in
// `aten::to(x, 6)`) mapped to Fusion IR data types. Types a fusion cannot hold map to null
// (ComplexHalf, the fnuz float8 variants, the quantized and small integer types).

import { SCALAR_TYPE_CODES, type ScalarType } from '@tsfuser/jit-ir';
import type { DataType } from '@tsfuser/fusion-ir';

export function dataTypeOfScalarType(st: ScalarType): DataType | null {
  switch (st) {
    case 'Bool':
      return 'Bool';
    case 'Int':
      return 'Int32';
    case 'Long':
      return 'Int';
    case 'Half':
      return 'Half';
    case 'BFloat16':
      return 'BFloat16';
    case 'Float':
      return 'Float';
    case 'Double':
      return 'Double';
    case 'ComplexFloat':
      return 'ComplexFloat';
    case 'ComplexDouble':
      return 'ComplexDouble';
    case 'Float8_e4m3fn':
      return 'Float8_e4m3fn';
    case 'Float8_e5m2':
      return 'Float8_e5m2';
    case 'Float8_e8m0fnu':
      return 'Float8_e8m0fnu';
    default:
      return null;
  }
}

/** The ScalarType named by a c10 code (6 → Float), or null for an unknown code. */
export function scalarTypeOfCode(code: number): ScalarType | null {
  for (const [name, c] of Object.entries(SCALAR_TYPE_CODES)) {
    if (c === code) return name as ScalarType;
  }
  return null;
}

export type DtypeOrError = { dtype: DataType; error?: undefined } | { dtype?: undefined; error: string };

/** The fusion dtype for a c10 ScalarType code, or why it has none. */
export function dataTypeOfCode(code: number): DtypeOrError {
  const st = scalarTypeOfCode(code);
  if (st === null) return { error: `unknown ScalarType code ${code}` };
  const dtype = dataTypeOfScalarType(st);
  return dtype === null ? { error: `dtype ${st} (code ${code}) is not supported in fusions` } : { dtype };
}
