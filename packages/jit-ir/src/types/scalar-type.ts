// The tensor element types of c10::ScalarType, spelled as PyTorch prints them in tensor types
// (`Float(8, 256, ...)`).

export const SCALAR_TYPES = [
  'Byte',
  'Char',
  'Short',
  'Int',
  'Long',
  'Half',
  'Float',
  'Double',
  'ComplexHalf',
  'ComplexFloat',
  'ComplexDouble',
  'Bool',
  'QInt8',
  'QUInt8',
  'QInt32',
  'BFloat16',
  'QUInt4x2',
  'QUInt2x4',
  'Float8_e5m2',
  'Float8_e4m3fn',
  'Float8_e5m2fnuz',
  'Float8_e4m3fnuz',
  'UInt16',
  'UInt32',
  'UInt64',
  'Float8_e8m0fnu',
] as const;

export type ScalarType = (typeof SCALAR_TYPES)[number];

const SCALAR_TYPE_SET: ReadonlySet<string> = new Set(SCALAR_TYPES);

export function isScalarType(name: string): name is ScalarType {
  return SCALAR_TYPE_SET.has(name);
}

/** c10::ScalarType's integer codes (what `prim::dtype` returns and `aten::to.dtype` takes). */
export const SCALAR_TYPE_CODES: Readonly<Record<ScalarType, number>> = {
  Byte: 0,
  Char: 1,
  Short: 2,
  Int: 3,
  Long: 4,
  Half: 5,
  Float: 6,
  Double: 7,
  ComplexHalf: 8,
  ComplexFloat: 9,
  ComplexDouble: 10,
  Bool: 11,
  QInt8: 12,
  QUInt8: 13,
  QInt32: 14,
  BFloat16: 15,
  QUInt4x2: 16,
  QUInt2x4: 17,
  Float8_e5m2: 23,
  Float8_e4m3fn: 24,
  Float8_e5m2fnuz: 25,
  Float8_e4m3fnuz: 26,
  UInt16: 27,
  UInt32: 28,
  UInt64: 29,
  // 30–43 are UInt1…UInt7 and Int1…Int7 (no tensor type prints them); c10/core/ScalarType.h.
  Float8_e8m0fnu: 44,
};
