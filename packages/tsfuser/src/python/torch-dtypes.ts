// PyTorch dtype names (`torch.float16`, `torch.half`, `torch.long` …) as tsfuser DataTypes, for
// definitions that spell dtypes the PyTorch way where nvFuser accepts them (`dtype=torch.bfloat16`).
//
// Invariant: every alias PyTorch defines for a supported dtype maps to the same DataType as its
// canonical name; a real PyTorch dtype tsfuser lacks is reported as such, not as an unknown name.

import type { DataType } from '@tsfuser/fusion-ir';

/** `torch.<name>` → DataType, PyTorch's canonical names and aliases. */
export const TORCH_DTYPES: Readonly<Record<string, DataType>> = {
  bool: 'Bool',
  int32: 'Int32',
  int: 'Int32',
  int64: 'Int',
  long: 'Int',
  float16: 'Half',
  half: 'Half',
  bfloat16: 'BFloat16',
  float32: 'Float',
  float: 'Float',
  float64: 'Double',
  double: 'Double',
  float8_e4m3fn: 'Float8_e4m3fn',
  float8_e5m2: 'Float8_e5m2',
  float8_e8m0fnu: 'Float8_e8m0fnu',
  uint64: 'UInt64',
  complex64: 'ComplexFloat',
  cfloat: 'ComplexFloat',
  complex128: 'ComplexDouble',
  cdouble: 'ComplexDouble',
};

/** PyTorch dtypes that exist but have no tsfuser DataType (clear "unsupported" errors). */
const UNSUPPORTED_TORCH_DTYPES: ReadonlySet<string> = new Set([
  'uint8',
  'int8',
  'int16',
  'short',
  'uint16',
  'uint32',
  'complex32',
  'chalf',
  'float8_e4m3fnuz',
  'float8_e5m2fnuz',
  'float4_e2m1fn_x2',
  'qint8',
  'quint8',
  'qint32',
]);

export type TorchDtypeLookup = { readonly kind: 'dtype'; readonly dtype: DataType } | { readonly kind: 'unsupported' | 'unknown'; readonly message: string };

/** The DataType `torch.<name>` stands for, or why there is none. */
export function torchDtype(name: string): TorchDtypeLookup {
  const dtype = Object.hasOwn(TORCH_DTYPES, name) ? TORCH_DTYPES[name] : undefined;
  if (dtype !== undefined) return { kind: 'dtype', dtype };
  const supported = Object.keys(TORCH_DTYPES).map((k) => `torch.${k}`).join(', ');
  if (UNSUPPORTED_TORCH_DTYPES.has(name)) return { kind: 'unsupported', message: `torch.${name} has no tsfuser DataType (supported: ${supported})` };
  return { kind: 'unknown', message: `unsupported attribute 'torch.${name}' (dtypes: ${supported})` };
}
