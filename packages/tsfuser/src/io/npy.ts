// NumPy .npy files (format versions 1, 2 and 3), little-endian, C or Fortran order. Reading
// gives a HostTensor (Fortran order is copied into C order); writing always writes C order.
// Dtype mapping: <f4 Float, <f8 Double, <f2 Half, <i4 Int32, <i8 Int, <u8 UInt64, |b1 Bool; BFloat16 has no
// NumPy dtype and is stored as <u2 bit patterns (read back as BFloat16 when the caller asks).
// fp8 dtypes have no NumPy dtype either: they are stored as |u1 bit patterns (read back as the
// fp8 dtype the caller asks for). Other uint8 (|u1) is refused: fusion-ir has no UInt8, and reading it as Bool would keep raw values
// such as 2 and 255 in a Bool tensor. The header's shape is checked against the allocation
// limits and the file's length before any storage is allocated (a 100000×100000 header on a
// small file is one NpyError, at once).

import { HostTensor, allocateStorage, contiguousStrides, dataTypeSize, type DataType, type HostStorage } from '@tsfuser/fusion-ir';
import { NpyError, npyHeaderBytes, parseNpyHeader, parseNpyPreamble, type NpyHeader } from './npy-header.js';
import { AllocationLimitError } from '../errors.js';
import { DEFAULT_ALLOCATION_LIMITS, checkTensorElements, exactElementCount, type AllocationLimits } from './allocation-limits.js';

export { NpyError } from './npy-header.js';

const DESCR_OF: Readonly<Record<DataType, string>> = {
  Bool: '|b1',
  Int32: '<i4',
  Int: '<i8',
  Index: '<i8',
  Half: '<f2',
  BFloat16: '<u2',
  Float: '<f4',
  Double: '<f8',
  Float8_e4m3fn: '|u1',
  Float8_e5m2: '|u1',
  Float8_e8m0fnu: '|u1',
  UInt64: '<u8',
  ComplexFloat: '<c8',
  ComplexDouble: '<c16',
};

function dtypeOf(descr: string, want: DataType | undefined): DataType {
  const d = descr.replace(/^=/, '<');
  switch (d) {
    case '|b1':
    case '<b1':
      return 'Bool';
    case '|u1':
    case '<u1':
      if (want === 'Float8_e4m3fn' || want === 'Float8_e5m2' || want === 'Float8_e8m0fnu') return want;
      throw new NpyError(`uint8 data ('${descr}') is not supported: fusion-ir has no UInt8 dtype (save it as bool, int32 or int64)`);
    case '<i4':
      return 'Int32';
    case '<i8':
      return want === 'Index' ? 'Index' : 'Int';
    case '<u8':
      return 'UInt64';
    case '<f2':
      return 'Half';
    case '<u2':
      return 'BFloat16';
    case '<f4':
      return 'Float';
    case '<f8':
      return 'Double';
    case '<c8':
      return 'ComplexFloat';
    case '<c16':
      return 'ComplexDouble';
    default:
      if (d.startsWith('>')) throw new NpyError(`big-endian dtype '${descr}' is not supported`);
      throw new NpyError(`unsupported dtype '${descr}' (supported: <f2 <f4 <f8 <c8 <c16 <i4 <i8 <u8 |b1, <u2 for bfloat16 and |u1 for fp8 bit patterns)`);
  }
}

/** The header's element count, refused (NpyError) past the per-tensor limit. */
function checkedElementCount(header: NpyHeader, dtype: DataType, limits: AllocationLimits): number {
  try {
    return checkTensorElements(exactElementCount(header.shape, 'the array', null), dtype, `the array of shape (${header.shape.join(', ')})`, null, limits);
  } catch (e) {
    if (e instanceof AllocationLimitError) throw new NpyError(e.detail);
    throw e;
  }
}

/** What a parsed header describes: the tensor's dtype, element count and data size in bytes. */
export interface NpyLayout {
  dtype: DataType;
  numel: number;
  byteCount: number;
}

/** The dtype, element count and data size of `header`, checked against the allocation limits. */
export function npyLayout(header: NpyHeader, want: DataType | undefined, limits: AllocationLimits): NpyLayout {
  const dtype = dtypeOf(header.descr, want);
  const numel = checkedElementCount(header, dtype, limits);
  return { dtype, numel, byteCount: numel * dataTypeSize(dtype) };
}

/** The tensor of `header` over `data` (the file's bytes copied in); Fortran order becomes C order. */
export function npyTensor(header: NpyHeader, dtype: DataType, data: HostStorage): HostTensor {
  if (!header.fortranOrder) return new HostTensor(dtype, header.shape, contiguousStrides(header.shape), data);
  // Fortran order: the first dim varies fastest.
  const strides = new Array<number>(header.shape.length);
  let acc = 1;
  header.shape.forEach((s, d) => {
    strides[d] = acc;
    acc *= Math.max(s, 1);
  });
  return new HostTensor(dtype, header.shape, strides, data).contiguous();
}

/** The NumPy descr that stores `dtype`. */
export function npyDescr(dtype: DataType): string {
  return DESCR_OF[dtype];
}

/** The bytes of a storage (a view, no copy). */
export function storageBytes(data: HostStorage, byteCount: number): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, byteCount);
}

/**
 * Parses a .npy file held in memory (files on disk: readNpyFile, which streams). `want` picks
 * BFloat16 for <u2 data (the default) or Index for <i8, and an fp8 dtype for |u1 bit patterns.
 * Every malformed file is an NpyError.
 */
export function readNpy(bytes: Uint8Array, want?: DataType, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): HostTensor {
  const preamble = parseNpyPreamble(bytes, bytes.length);
  const headerEnd = preamble.headerStart + preamble.headerLength;
  const header = parseNpyHeader(new TextDecoder(preamble.major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(preamble.headerStart, headerEnd)));
  const { dtype, numel, byteCount } = npyLayout(header, want, limits);
  if (bytes.length - headerEnd < byteCount) throw new NpyError(`truncated data: shape (${header.shape.join(', ')}) needs ${byteCount} bytes, the file has ${bytes.length - headerEnd}`);
  const data = allocateStorage(dtype, numel);
  storageBytes(data, byteCount).set(bytes.subarray(headerEnd, headerEnd + byteCount));
  return npyTensor(header, dtype, data);
}

/** A .npy (version 1.0, C order) holding `t`, in memory (files on disk: writeNpyFile, which streams). */
export function writeNpy(t: HostTensor): Uint8Array {
  const dense = t.isDense() ? t : t.contiguous();
  const header = npyHeaderBytes(DESCR_OF[dense.dtype], dense.sizes);
  const dataBytes = storageBytes(dense.data, dense.numel * dataTypeSize(dense.dtype));
  const out = new Uint8Array(header.length + dataBytes.length);
  out.set(header, 0);
  out.set(dataBytes, header.length);
  return out;
}
