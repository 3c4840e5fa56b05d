// Kernel argument packing: the byte layout of a kernel's parameter list, as the CUDA ABI lays
// it out (each parameter at the next offset aligned to its own alignment), and the packing of
// JS values into one Uint8Array in that layout. The addon checks the buffer against the
// kernel's own layout (cuFuncGetParamInfo) before launching.
//
// A `tensor` parameter is nvFuser's `Tensor<T, N>` struct:
//   struct Tensor { T* data; nvfuser_index_t logical_size[N]; nvfuser_index_t alloc_stride[N]; };
// with nvfuser_index_t int64_t (indexType 'Int') or int (indexType 'Int32'); N = 0 leaves only
// the pointer.

import { Complex, dataTypeSize, isComplexType, numberToBFloat16Bits, numberToFloat8E4M3FnBits, numberToFloat8E5M2Bits, numberToFloat8E8M0FnuBits, numberToHalfBits, type DataType } from '@tsfuser/fusion-ir';

export type KernelParameter =
  | { kind: 'scalar'; dtype: DataType }
  | { kind: 'pointer' }
  | { kind: 'tensor'; rank: number; indexType?: Extract<DataType, 'Int' | 'Int32'> };

/** Where one parameter sits in the argument buffer. */
export interface ParameterSlot {
  offset: number;
  size: number;
  align: number;
}

export interface ParameterLayout {
  parameters: readonly KernelParameter[];
  slots: readonly ParameterSlot[];
  /** Bytes up to the end of the last parameter (what the kernel's parameter space spans). */
  size: number;
}

/** A device tensor as a kernel sees it. */
export interface TensorArgument {
  dataPtr: bigint;
  sizes: readonly number[];
  strides: readonly number[];
}

export type KernelArgument = number | bigint | boolean | Complex | TensorArgument;

const POINTER_SIZE = 8;

function indexSize(indexType: Extract<DataType, 'Int' | 'Int32'> | undefined): number {
  return indexType === 'Int32' ? 4 : 8;
}

function alignUp(value: number, align: number): number {
  return Math.ceil(value / align) * align;
}

export function parameterSizeAndAlign(parameter: KernelParameter): { size: number; align: number } {
  switch (parameter.kind) {
    case 'scalar': {
      const size = dataTypeSize(parameter.dtype);
      return { size, align: size };
    }
    case 'pointer':
      return { size: POINTER_SIZE, align: POINTER_SIZE };
    case 'tensor': {
      if (!Number.isInteger(parameter.rank) || parameter.rank < 0) {
        throw new RangeError(`tensor parameter rank must be a non-negative integer, got ${parameter.rank}`);
      }
      const bytes = POINTER_SIZE + 2 * parameter.rank * indexSize(parameter.indexType);
      return { size: alignUp(bytes, POINTER_SIZE), align: POINTER_SIZE };
    }
    default: {
      const unreachable: never = parameter;
      throw new Error(`unknown kernel parameter ${JSON.stringify(unreachable)}`);
    }
  }
}

export function parameterLayout(parameters: readonly KernelParameter[]): ParameterLayout {
  const slots: ParameterSlot[] = [];
  let end = 0;
  for (const parameter of parameters) {
    const { size, align } = parameterSizeAndAlign(parameter);
    const offset = alignUp(end, align);
    slots.push({ offset, size, align });
    end = offset + size;
  }
  return { parameters, slots, size: end };
}

/** Packs `values` (one per parameter) into a fresh buffer of `layout.size` bytes. */
export function packArguments(layout: ParameterLayout, values: readonly KernelArgument[]): Uint8Array {
  const bytes = new Uint8Array(layout.size);
  packArgumentsInto(layout, values, new DataView(bytes.buffer));
  return bytes;
}

/**
 * As packArguments, into a caller's buffer of at least `layout.size` bytes (a launcher reuses one
 * per kernel: cuLaunchKernel copies the parameter buffer when it is called). Every slot is
 * rewritten; padding keeps what it held.
 */
export function packArgumentsInto(layout: ParameterLayout, values: readonly KernelArgument[], view: DataView): void {
  if (values.length !== layout.parameters.length) {
    throw new RangeError(`packArguments: ${values.length} values for ${layout.parameters.length} parameters`);
  }
  if (view.byteLength < layout.size) throw new RangeError(`packArgumentsInto: a ${view.byteLength}-byte buffer for ${layout.size} bytes of parameters`);
  for (let index = 0; index < layout.parameters.length; index += 1) {
    const slot = layout.slots[index] as ParameterSlot; // one slot per parameter by construction
    writeArgument(view, slot.offset, layout.parameters[index] as KernelParameter, values[index] as KernelArgument, index);
  }
}

/**
 * Rewrites one parameter's slot (a launcher that packed every slot once and, per launch, only
 * changes what differs: a tensor's data pointer, a scalar's value).
 */
export function packArgumentAt(layout: ParameterLayout, index: number, value: KernelArgument, view: DataView): void {
  const parameter = layout.parameters[index];
  const slot = layout.slots[index];
  if (parameter === undefined || slot === undefined) throw new RangeError(`packArgumentAt: parameter ${index} of ${layout.parameters.length}`);
  writeArgument(view, slot.offset, parameter, value, index);
}

/** Rewrites only the data pointer of tensor (or pointer) parameter `index`, at its slot's offset. */
export function packPointerAt(offset: number, pointer: bigint, view: DataView): void {
  view.setBigUint64(offset, pointer, true);
}

function writeArgument(view: DataView, offset: number, parameter: KernelParameter, value: KernelArgument, index: number): void {
  switch (parameter.kind) {
    case 'scalar':
      writeScalar(view, offset, parameter.dtype, expectScalar(value, index));
      return;
    case 'pointer':
      view.setBigUint64(offset, toPointer(expectScalar(value, index), index), true);
      return;
    case 'tensor': {
      if (typeof value !== 'object' || value instanceof Complex) {
        throw new TypeError(`argument ${index}: expected a tensor, got ${typeof value === 'object' ? 'a complex scalar' : typeof value}`);
      }
      const { rank } = parameter;
      if (value.sizes.length !== rank || value.strides.length !== rank) {
        throw new RangeError(
          `argument ${index}: tensor of rank ${value.sizes.length} (strides ${value.strides.length}) for a rank-${rank} parameter`,
        );
      }
      view.setBigUint64(offset, toPointer(value.dataPtr, index), true);
      const width = indexSize(parameter.indexType);
      for (let d = 0; d < rank; d += 1) {
        writeIndex(view, offset + POINTER_SIZE + d * width, width, value.sizes[d] as number, index);
        writeIndex(view, offset + POINTER_SIZE + (rank + d) * width, width, value.strides[d] as number, index);
      }
      return;
    }
    default: {
      const unreachable: never = parameter;
      throw new Error(`unknown kernel parameter ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * One size or stride of a tensor argument, as the kernel's index type (4 or 8 bytes). The 8-byte
 * case writes the two 32-bit halves of the safe integer: this runs for every dim of every tensor
 * on each launch, and a BigInt conversion per value was a tenth of a cached call's host time.
 */
function writeIndex(view: DataView, offset: number, width: number, value: number, index: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`argument ${index}: tensor size or stride ${String(value)} is not an integer`);
  if (width === 4) {
    if (value < -(2 ** 31) || value > 2 ** 31 - 1) throw new RangeError(`argument ${index}: ${value} does not fit the kernel's 32-bit index type`);
    view.setInt32(offset, value, true);
    return;
  }
  const high = Math.floor(value / 2 ** 32);
  view.setUint32(offset, value - high * 2 ** 32, true);
  view.setInt32(offset + 4, high, true);
}

function expectScalar(value: KernelArgument, index: number): number | bigint | boolean | Complex {
  if (value instanceof Complex) return value;
  if (typeof value === 'object') throw new TypeError(`argument ${index}: expected a scalar, got a tensor`);
  return value;
}

function toPointer(value: number | bigint | boolean | Complex, index: number): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw new TypeError(`argument ${index}: a pointer must be a non-negative bigint, got ${String(value)}`);
}

function writeScalar(view: DataView, offset: number, dtype: DataType, value: number | bigint | boolean | Complex): void {
  if (isComplexType(dtype)) {
    const z = value instanceof Complex ? value : new Complex(Number(value), 0);
    if (dtype === 'ComplexFloat') {
      view.setFloat32(offset, z.re, true);
      view.setFloat32(offset + 4, z.im, true);
    } else {
      view.setFloat64(offset, z.re, true);
      view.setFloat64(offset + 8, z.im, true);
    }
    return;
  }
  if (value instanceof Complex) throw new RangeError(`complex value ${String(value)} for a ${dtype} parameter`);
  const asNumber = typeof value === 'boolean' ? Number(value) : Number(value);
  switch (dtype) {
    case 'Bool':
      view.setUint8(offset, asNumber !== 0 ? 1 : 0);
      return;
    case 'Int32':
      checkInteger(value, -(2 ** 31), 2 ** 31 - 1, dtype);
      view.setInt32(offset, asNumber, true);
      return;
    case 'Int':
    case 'Index':
      view.setBigInt64(offset, typeof value === 'bigint' ? value : BigInt(checkInteger(value, -(2 ** 63), 2 ** 63, dtype)), true);
      return;
    case 'Half':
      view.setUint16(offset, numberToHalfBits(asNumber), true);
      return;
    case 'BFloat16':
      view.setUint16(offset, numberToBFloat16Bits(asNumber), true);
      return;
    case 'Float':
      view.setFloat32(offset, asNumber, true);
      return;
    case 'Double':
      view.setFloat64(offset, asNumber, true);
      return;
    case 'UInt64':
      if (typeof value === 'bigint') {
        if (value < 0n || value >= 2n ** 64n) throw new RangeError(`${String(value)} is not a valid UInt64 value`);
        view.setBigUint64(offset, value, true);
      } else {
        view.setBigUint64(offset, BigInt(checkInteger(value, 0, Number.MAX_SAFE_INTEGER, dtype)), true);
      }
      return;
    case 'Float8_e4m3fn':
      view.setUint8(offset, numberToFloat8E4M3FnBits(asNumber));
      return;
    case 'Float8_e5m2':
      view.setUint8(offset, numberToFloat8E5M2Bits(asNumber));
      return;
    case 'Float8_e8m0fnu':
      view.setUint8(offset, numberToFloat8E8M0FnuBits(asNumber));
      return;
    case 'ComplexFloat':
    case 'ComplexDouble':
      return; // written above
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

function checkInteger(value: number | bigint | boolean, min: number, max: number, dtype: DataType): number {
  const n = typeof value === 'boolean' ? Number(value) : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new RangeError(`${String(value)} is not a valid ${dtype} value`);
  }
  return n;
}
