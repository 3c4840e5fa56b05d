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
} as const satisfies Record<DataType, DataType>;

export function isDataType(name: string): name is DataType {
  return (DATA_TYPES as readonly string[]).includes(name);
}

export function isFloatingType(dtype: DataType): boolean {
  return dtype === 'Half' || dtype === 'BFloat16' || dtype === 'Float' || dtype === 'Double';
}

export function isIntegralType(dtype: DataType): boolean {
  return dtype === 'Int32' || dtype === 'Int' || dtype === 'Index';
}

export function isBooleanType(dtype: DataType): boolean {
  return dtype === 'Bool';
}

/** Reduced-precision floats are computed in float inside kernels and rounded on store. */
export function isReducedFloat(dtype: DataType): boolean {
  return dtype === 'Half' || dtype === 'BFloat16';
}

/** Size in bytes of one element (Index counted as 64-bit, its widest form). */
export function dataTypeSize(dtype: DataType): number {
  switch (dtype) {
    case 'Bool':
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
      return 8;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** The C++ type nvFuser's IR printer shows for a dtype (`float`, `__half`, `int64_t` …); kernel source text uses codegen's storageType. */
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
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}
