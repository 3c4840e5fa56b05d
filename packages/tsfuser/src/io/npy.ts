// NumPy .npy files (format versions 1, 2 and 3), little-endian, C or Fortran order. Reading
// gives a HostTensor (Fortran order is copied into C order); writing always writes C order.
// Dtype mapping: <f4 Float, <f8 Double, <f2 Half, <i4 Int32, <i8 Int, <u8 UInt64, |b1 Bool; BFloat16 has no
// NumPy dtype and is stored as <u2 bit patterns (read back as BFloat16 when the caller asks).
// fp8 dtypes have no NumPy dtype either: they are stored as |u1 bit patterns (read back as the
// fp8 dtype the caller asks for). Other uint8 (|u1) is refused: fusion-ir has no UInt8, and reading it as Bool would keep raw values
// such as 2 and 255 in a Bool tensor. The header's shape is checked against the allocation
// limits and the file's length before any storage is allocated (a 100000×100000 header on a
// small file is one NpyError, at once).

import { HostTensor, allocateStorage, contiguousStrides, dataTypeSize, type DataType } from '@tsfuser/fusion-ir';
import { AllocationLimitError } from '../errors.js';
import { DEFAULT_ALLOCATION_LIMITS, checkTensorElements, exactElementCount, type AllocationLimits } from './allocation-limits.js';

export class NpyError extends Error {
  override readonly name = 'NpyError';
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

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

interface Header {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
}

function parseHeader(text: string): Header {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined) throw new NpyError(`malformed header ${JSON.stringify(text.trim())}`);
  const dims = shape
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const n = Number(s.replace(/L$/, ''));
      if (!/^\d+L?$/.test(s) || !Number.isSafeInteger(n)) throw new NpyError(`bad shape entry '${s}' (expected a non-negative integer below 2^53)`);
      return n;
    });
  return { descr, fortranOrder: fortran === 'True', shape: dims };
}

/** The header's element count, refused (NpyError) past the per-tensor limit. */
function checkedElementCount(header: Header, dtype: DataType, limits: AllocationLimits): number {
  try {
    return checkTensorElements(exactElementCount(header.shape, 'the array', null), dtype, `the array of shape (${header.shape.join(', ')})`, null, limits);
  } catch (e) {
    if (e instanceof AllocationLimitError) throw new NpyError(e.detail);
    throw e;
  }
}

/**
 * Parses a .npy file. `want` picks BFloat16 for <u2 data (the default) or Index for <i8, and an
 * fp8 dtype for |u1 bit patterns.
 * Every malformed file is an NpyError.
 */
export function readNpy(bytes: Uint8Array, want?: DataType, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): HostTensor {
  if (bytes.length < 10 || MAGIC.some((m, i) => bytes[i] !== m)) throw new NpyError('not a .npy file (bad magic)');
  const major = bytes[6] as number;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLen: number;
  let headerStart: number;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new NpyError('truncated header');
    headerLen = view.getUint32(8, true);
    headerStart = 12;
  } else {
    throw new NpyError(`unsupported .npy version ${major}`);
  }
  if (headerStart + headerLen > bytes.length) throw new NpyError(`truncated header: it claims ${headerLen} bytes, the file has ${bytes.length - headerStart}`);
  const header = parseHeader(new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, headerStart + headerLen)));
  const dtype = dtypeOf(header.descr, want);
  const numel = checkedElementCount(header, dtype, limits);
  const dataStart = headerStart + headerLen;
  const byteCount = numel * dataTypeSize(dtype);
  if (bytes.length - dataStart < byteCount) throw new NpyError(`truncated data: shape (${header.shape.join(', ')}) needs ${byteCount} bytes, the file has ${bytes.length - dataStart}`);
  const data = allocateStorage(dtype, numel);
  new Uint8Array(data.buffer, data.byteOffset, byteCount).set(bytes.subarray(dataStart, dataStart + byteCount));
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

/** A .npy (version 1.0, C order) holding `t`. */
export function writeNpy(t: HostTensor): Uint8Array {
  const dense = t.isDense() ? t : t.contiguous();
  const shape = dense.sizes.length === 1 ? `(${dense.sizes[0]},)` : `(${dense.sizes.join(', ')})`;
  let header = `{'descr': '${DESCR_OF[dense.dtype]}', 'fortran_order': False, 'shape': ${shape}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const data = dense.data;
  const dataBytes = new Uint8Array(data.buffer, data.byteOffset, dense.numel * dataTypeSize(dense.dtype));
  const out = new Uint8Array(10 + header.length + dataBytes.length);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i += 1) out[10 + i] = header.charCodeAt(i);
  out.set(dataBytes, 10 + header.length);
  return out;
}
