// Kernel argument layout: where each parameter sits in the byte buffer the driver receives
// (CUDA ABI: each parameter at the next offset aligned to its own alignment). A Tensor struct
// is its data pointer (8 bytes), then `rank` sizes, then `rank` strides, each int32 or int64
// per the index type, padded to 8. `packKernelArguments` fills such a buffer (little-endian).

import { Complex, dataTypeSize, isComplexType, numberToBFloat16Bits, numberToFloat8E4M3FnBits, numberToFloat8E5M2Bits, numberToFloat8E8M0FnuBits, numberToHalfBits, type DataType } from '@tsfuser/fusion-ir';
import type { IndexType } from '@tsfuser/scheduler';
import { CodegenError } from './errors.js';
import type { KernelParam } from './kernel-ir/nodes.js';

export interface ArgumentSlot {
  param: KernelParam;
  offset: number;
  size: number;
  align: number;
}

export interface ArgumentLayout {
  indexType: IndexType;
  slots: ArgumentSlot[];
  size: number;
}

export interface TensorArgumentValue {
  dataPtr: bigint;
  sizes: readonly number[];
  strides: readonly number[];
}

export type ArgumentValue = number | bigint | boolean | Complex | TensorArgumentValue;

function alignUp(x: number, a: number): number {
  return Math.ceil(x / a) * a;
}

export function argumentLayout(params: readonly KernelParam[], indexType: IndexType): ArgumentLayout {
  const width = indexType === 'Int32' ? 4 : 8;
  let end = 0;
  const slots = params.map((param): ArgumentSlot => {
    const size = param.kind === 'tensor' ? alignUp(8 + 2 * param.rank * width, 8) : dataTypeSize(param.dtype);
    const align = param.kind === 'tensor' ? 8 : size;
    const offset = alignUp(end, align);
    end = offset + size;
    return { param, offset, size, align };
  });
  return { indexType, slots, size: end };
}

function writeScalar(view: DataView, offset: number, dtype: DataType, value: number | bigint | boolean | Complex, where: string): void {
  if (value instanceof Complex) {
    if (!isComplexType(dtype)) throw new CodegenError(`${where}: complex value ${String(value)} for a ${dtype} parameter`);
    writeComplex(view, offset, dtype, value);
    return;
  }
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  switch (dtype) {
    case 'Bool':
      view.setUint8(offset, n !== 0 ? 1 : 0);
      return;
    case 'Int32':
      if (!Number.isInteger(n) || n < -(2 ** 31) || n > 2 ** 31 - 1) throw new CodegenError(`${where}: ${String(value)} does not fit int32`);
      view.setInt32(offset, n, true);
      return;
    case 'Int':
    case 'Index':
      view.setBigInt64(offset, typeof value === 'bigint' ? value : BigInt(Math.trunc(n)), true);
      return;
    case 'Half':
      view.setUint16(offset, numberToHalfBits(n), true);
      return;
    case 'BFloat16':
      view.setUint16(offset, numberToBFloat16Bits(n), true);
      return;
    case 'Float':
      view.setFloat32(offset, n, true);
      return;
    case 'Double':
      view.setFloat64(offset, n, true);
      return;
    case 'UInt64':
      if (typeof value === 'bigint' ? value < 0n || value >= 2n ** 64n : !Number.isSafeInteger(n) || n < 0) throw new CodegenError(`${where}: ${String(value)} does not fit uint64`);
      view.setBigUint64(offset, typeof value === 'bigint' ? value : BigInt(n), true);
      return;
    case 'Float8_e4m3fn':
      view.setUint8(offset, numberToFloat8E4M3FnBits(n));
      return;
    case 'Float8_e5m2':
      view.setUint8(offset, numberToFloat8E5M2Bits(n));
      return;
    case 'Float8_e8m0fnu':
      view.setUint8(offset, numberToFloat8E8M0FnuBits(n));
      return;
    case 'ComplexFloat':
    case 'ComplexDouble':
      writeComplex(view, offset, dtype, new Complex(n, 0));
      return;
    default: {
      const unreachable: never = dtype;
      throw new CodegenError(`unknown dtype ${String(unreachable)}`);
    }
  }
}

/** Packs one value per parameter into the layout's byte buffer. */
export function packKernelArguments(layout: ArgumentLayout, values: readonly ArgumentValue[]): Uint8Array {
  if (values.length !== layout.slots.length) {
    throw new CodegenError(`packKernelArguments: ${values.length} values for ${layout.slots.length} parameters`);
  }
  const bytes = new Uint8Array(layout.size);
  const view = new DataView(bytes.buffer);
  const indexDtype: DataType = layout.indexType === 'Int32' ? 'Int32' : 'Int';
  const width = layout.indexType === 'Int32' ? 4 : 8;
  layout.slots.forEach((slot, i) => {
    const v = values[i] as ArgumentValue;
    const p = slot.param;
    const where = `argument ${i} (${p.name})`;
    if (p.kind === 'scalar') {
      if (typeof v === 'object' && !(v instanceof Complex)) throw new CodegenError(`${where}: expected a ${p.dtype} scalar, got a tensor`);
      writeScalar(view, slot.offset, p.dtype, v, where);
      return;
    }
    if (typeof v !== 'object' || v instanceof Complex) throw new CodegenError(`${where}: expected a tensor, got ${typeof v === 'object' ? 'a complex scalar' : typeof v}`);
    if (v.sizes.length !== p.rank || v.strides.length !== p.rank) {
      throw new CodegenError(`${where}: rank-${p.rank} parameter given sizes [${v.sizes.join(', ')}] and strides [${v.strides.join(', ')}]`);
    }
    view.setBigUint64(slot.offset, v.dataPtr, true);
    v.sizes.forEach((s, d) => writeScalar(view, slot.offset + 8 + d * width, indexDtype, s, where));
    v.strides.forEach((s, d) => writeScalar(view, slot.offset + 8 + (p.rank + d) * width, indexDtype, s, where));
  });
  return bytes;
}

/** A complex scalar as the kernel's struct: (re, im) of float (8 bytes) or double (16 bytes). */
function writeComplex(view: DataView, offset: number, dtype: DataType, z: Complex): void {
  if (dtype === 'ComplexFloat') {
    view.setFloat32(offset, z.re, true);
    view.setFloat32(offset + 4, z.im, true);
  } else {
    view.setFloat64(offset, z.re, true);
    view.setFloat64(offset + 8, z.im, true);
  }
}
