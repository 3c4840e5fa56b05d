// Fast strided iteration over HostTensors: an odometer over the output shape that advances one
// storage offset per operand incrementally, so reading an element costs one add, not a
// per-dimension division.

import type { DataType } from '../ir/data-type.js';
import { bfloat16BitsToNumber, halfBitsToNumber } from './float16.js';
import type { ElementValue, HostStorage, HostTensor } from './host-tensor.js';

export type Reader = (pos: number) => ElementValue;

export function readerFor(t: HostTensor): Reader {
  return readerForStorage(t.dtype, t.data);
}

export function readerForStorage(dtype: DataType, data: HostStorage): Reader {
  switch (dtype) {
    case 'Bool': {
      const d = data as Uint8Array;
      return (p) => d[p] !== 0;
    }
    case 'Half': {
      const d = data as Uint16Array;
      return (p) => halfBitsToNumber(d[p] as number);
    }
    case 'BFloat16': {
      const d = data as Uint16Array;
      return (p) => bfloat16BitsToNumber(d[p] as number);
    }
    case 'Int32': {
      const d = data as Int32Array;
      return (p) => BigInt(d[p] as number);
    }
    case 'Int':
    case 'Index': {
      const d = data as BigInt64Array;
      return (p) => d[p] as bigint;
    }
    case 'Float':
    case 'Double': {
      const d = data as Float32Array | Float64Array;
      return (p) => d[p] as number;
    }
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

/**
 * Strides of `t` for reading it broadcast to `outSizes` (same rank): dims of size 1 that the
 * output has larger read with stride 0.
 */
export function broadcastStrides(t: HostTensor, outSizes: readonly number[]): number[] {
  return outSizes.map((size, d) => ((t.sizes[d] as number) === 1 && size !== 1 ? 0 : (t.strides[d] as number)));
}

/**
 * Calls `visit(linear, offsets)` for every element of `sizes` in row-major order; offsets[k] is
 * the storage position in operand k (start offset + Σ index·stride).
 */
export function forEachElement(
  sizes: readonly number[],
  operands: readonly { strides: readonly number[]; offset: number }[],
  visit: (linear: number, offsets: Int32Array | Float64Array) => void,
): void {
  const rank = sizes.length;
  const numel = sizes.reduce((a, b) => a * b, 1);
  if (numel === 0) return;
  const n = operands.length;
  const offsets = new Float64Array(n);
  for (let k = 0; k < n; k += 1) offsets[k] = (operands[k] as { offset: number }).offset;
  const counter = new Array<number>(rank).fill(0);
  for (let linear = 0; linear < numel; linear += 1) {
    visit(linear, offsets);
    for (let d = rank - 1; d >= 0; d -= 1) {
      const c = (counter[d] as number) + 1;
      if (c < (sizes[d] as number)) {
        counter[d] = c;
        for (let k = 0; k < n; k += 1) offsets[k] = (offsets[k] as number) + ((operands[k] as { strides: readonly number[] }).strides[d] as number);
        break;
      }
      counter[d] = 0;
      for (let k = 0; k < n; k += 1) {
        offsets[k] = (offsets[k] as number) - (c - 1) * ((operands[k] as { strides: readonly number[] }).strides[d] as number);
      }
    }
  }
}
