// Data types of Fusion IR values, with nvFuser's names and PyTorch's type categories.
//
// `Index` is the kernel's index type (32- or 64-bit, chosen at lowering); everywhere before
// lowering it behaves like `Int`.

// One name per line: new types are added as lines of their own.
export const DATA_TYPES = [
  'Bool',
  'Int32',
  'Int',
  'Half',
  'BFloat16',
  'Float',
  'Double',
  'Index',
  'Float8_e4m3fn',
  'Float8_e5m2',
  'Float8_e8m0fnu',
  'UInt64',
  'ComplexFloat',
  'ComplexDouble',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** Value-namespace accessor so callers can write `DataType.Float` as in nvFuser's frontend. */
export const DataType = {
  Bool: 'Bool',
  Int32: 'Int32',
  Int: 'Int',
  Half: 'Half',
  BFloat16: 'BFloat16',
  Float: 'Float',
  Double: 'Double',
  Index: 'Index',
  Float8_e4m3fn: 'Float8_e4m3fn',
  Float8_e5m2: 'Float8_e5m2',
  Float8_e8m0fnu: 'Float8_e8m0fnu',
  UInt64: 'UInt64',
  ComplexFloat: 'ComplexFloat',
  ComplexDouble: 'ComplexDouble',
} as const satisfies Record<DataType, DataType>;

export function isDataType(name: string): name is DataType {
  return (DATA_TYPES as readonly string[]).includes(name);
}

export function isFloatingType(dtype: DataType): boolean {
  return dtype === 'Half' || dtype === 'BFloat16' || dtype === 'Float' || dtype === 'Double' || isFloat8Type(dtype);
}

/** The 8-bit float storage types (PyTorch's float8_e4m3fn, float8_e5m2, float8_e8m0fnu). */
export function isFloat8Type(dtype: DataType): dtype is 'Float8_e4m3fn' | 'Float8_e5m2' | 'Float8_e8m0fnu' {
  return dtype === 'Float8_e4m3fn' || dtype === 'Float8_e5m2' || dtype === 'Float8_e8m0fnu';
}

export function isIntegralType(dtype: DataType): boolean {
  return dtype === 'Int32' || dtype === 'Int' || dtype === 'Index' || dtype === 'UInt64';
}

/** Complex types: (re, im) pairs of Float (ComplexFloat, torch.complex64) or Double (ComplexDouble, torch.complex128). */
export function isComplexType(dtype: DataType): boolean {
  return dtype === 'ComplexFloat' || dtype === 'ComplexDouble';
}

/** The real type of a complex type's components (Float for ComplexFloat, Double for ComplexDouble); other types map to themselves. */
export function complexComponentType(dtype: DataType): DataType {
  if (dtype === 'ComplexFloat') return 'Float';
  if (dtype === 'ComplexDouble') return 'Double';
  return dtype;
}

/** The complex type whose components are `dtype` (Double → ComplexDouble, every other type → ComplexFloat, as torch). */
export function complexTypeOf(dtype: DataType): DataType {
  if (isComplexType(dtype)) return dtype;
  return dtype === 'Double' ? 'ComplexDouble' : 'ComplexFloat';
}

export function isBooleanType(dtype: DataType): boolean {
  return dtype === 'Bool';
}

/** Reduced-precision floats are computed in float inside kernels and rounded on store. */
export function isReducedFloat(dtype: DataType): boolean {
  return dtype === 'Half' || dtype === 'BFloat16' || isFloat8Type(dtype);
}

/** Size in bytes of one element (Index counted as 64-bit, its widest form). */
export function dataTypeSize(dtype: DataType): number {
  switch (dtype) {
    case 'Bool':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return 1;
    case 'Half':
    case 'BFloat16':
      return 2;
    case 'Int32':
    case 'Float':
      return 4;
    case 'Int':
    case 'Double':
    case 'Index':
    case 'UInt64':
    case 'ComplexFloat':
      return 8;
    case 'ComplexDouble':
      return 16;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** The C++ type nvFuser's IR printer shows for a dtype (`float`, `__half`, `int64_t` …); kernel source text uses codegen's storageType. */
/**
 * torch.finfo(dtype).eps: the distance from 1 to the next representable value (the ulp at 1) —
 * the one place tolerances and sensitivity estimates get a dtype's precision from. Complex types
 * take their component's; integral and Bool types are exact (0).
 */
export function machineEpsilon(dtype: DataType): number {
  switch (dtype) {
    case 'Double':
    case 'ComplexDouble':
      return 2 ** -52;
    case 'Float':
    case 'ComplexFloat':
      return 2 ** -23;
    case 'Half':
      return 2 ** -10;
    case 'BFloat16':
      return 2 ** -7;
    case 'Float8_e4m3fn':
      return 2 ** -3;
    case 'Float8_e5m2':
      return 2 ** -2;
    case 'Float8_e8m0fnu':
      return 1;
    case 'Bool':
    case 'Int':
    case 'Int32':
    case 'Index':
    case 'UInt64':
      return 0;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export function cppTypeName(dtype: DataType): string {
  switch (dtype) {
    case 'Bool':
      return 'bool';
    case 'Int32':
      return 'int';
    case 'Int':
      return 'int64_t';
    case 'Half':
      return '__half';
    case 'BFloat16':
      return '__bfloat';
    case 'Float':
      return 'float';
    case 'Double':
      return 'double';
    case 'Index':
      return 'nvfuser_index_t';
    case 'Float8_e4m3fn':
      return '__e4m3';
    case 'Float8_e5m2':
      return '__e5m2';
    case 'Float8_e8m0fnu':
      return '__e8m0';
    case 'UInt64':
      return 'uint64_t';
    case 'ComplexFloat':
      return 'std::complex<float>';
    case 'ComplexDouble':
      return 'std::complex<double>';
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** The name PyTorch uses for the matching `torch.dtype` (for messages and repro scripts). */
export function torchDtypeName(dtype: DataType): string {
  switch (dtype) {
    case 'Bool':
      return 'torch.bool';
    case 'Int32':
      return 'torch.int32';
    case 'Int':
    case 'Index':
      return 'torch.int64';
    case 'Half':
      return 'torch.float16';
    case 'BFloat16':
      return 'torch.bfloat16';
    case 'Float':
      return 'torch.float32';
    case 'Double':
      return 'torch.float64';
    case 'Float8_e4m3fn':
      return 'torch.float8_e4m3fn';
    case 'Float8_e5m2':
      return 'torch.float8_e5m2';
    case 'Float8_e8m0fnu':
      return 'torch.float8_e8m0fnu';
    case 'UInt64':
      return 'torch.uint64';
    case 'ComplexFloat':
      return 'torch.complex64';
    case 'ComplexDouble':
      return 'torch.complex128';
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}
