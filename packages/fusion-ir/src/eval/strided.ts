// Fast strided iteration over HostTensors. An odometer walks the outer dims of a shape and hands
// whole innermost rows to a callback (one call per row, not per element); gathers copy a strided
// (possibly broadcast, stride-0) view into a dense row-major typed array, either bit for bit
// (`gatherRaw`) or decoded to float64 (`gatherFloat64`) for the evaluator's float kernels.

import { Complex } from '../ir/complex-value.js';
import { isComplexType, type DataType } from '../ir/data-type.js';
import { EvaluationError } from '../ir/errors.js';
import { allocateStorage, type ElementValue, type HostStorage, type HostTensor } from './host-tensor.js';
import { bfloat16DecodeTable, halfDecodeTable } from './float16.js';
import { float8DecodeTable } from './float8.js';

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
      const table = halfDecodeTable();
      return (p) => table[d[p] as number] as number;
    }
    case 'BFloat16': {
      const d = data as Uint16Array;
      const table = bfloat16DecodeTable();
      return (p) => table[d[p] as number] as number;
    }
    case 'Int32': {
      const d = data as Int32Array;
      return (p) => BigInt(d[p] as number);
    }
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu': {
      const d = data as Uint8Array;
      const table = float8DecodeTable(dtype);
      return (p) => table[d[p] as number] as number;
    }
    case 'Int':
    case 'Index':
    case 'UInt64': {
      const d = data as BigInt64Array | BigUint64Array;
      return (p) => d[p] as bigint;
    }
    case 'Float':
    case 'Double': {
      const d = data as Float32Array | Float64Array;
      return (p) => d[p] as number;
    }
    case 'ComplexFloat':
    case 'ComplexDouble': {
      const d = data as Float32Array | Float64Array;
      return (p) => new Complex(d[2 * p] as number, d[2 * p + 1] as number);
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

export interface StridedOperand {
  readonly strides: readonly number[];
  readonly offset: number;
}

/**
 * Calls `row(linear, offsets, n)` once per innermost row of `sizes` in row-major order: the row
 * holds elements linear … linear+n−1, and operand k's element j of the row sits at
 * offsets[k] + j·strides[k][rank−1]. Rank-0 shapes are one row of one element.
 */
export function forEachRow(
  sizes: readonly number[],
  operands: readonly StridedOperand[],
  row: (linear: number, offsets: Float64Array, n: number) => void,
): void {
  const rank = sizes.length;
  let numel = 1;
  for (const s of sizes) numel *= s;
  if (numel === 0) return;
  const m = operands.length;
  const offsets = new Float64Array(m);
  for (let k = 0; k < m; k += 1) offsets[k] = (operands[k] as StridedOperand).offset;
  if (rank === 0) {
    row(0, offsets, 1);
    return;
  }
  const n = sizes[rank - 1] as number;
  const counter = new Array<number>(rank).fill(0);
  for (let linear = 0; linear < numel; linear += n) {
    row(linear, offsets, n);
    for (let d = rank - 2; d >= 0; d -= 1) {
      const c = (counter[d] as number) + 1;
      if (c < (sizes[d] as number)) {
        counter[d] = c;
        for (let k = 0; k < m; k += 1) offsets[k] = (offsets[k] as number) + ((operands[k] as StridedOperand).strides[d] as number);
        break;
      }
      counter[d] = 0;
      for (let k = 0; k < m; k += 1) {
        offsets[k] = (offsets[k] as number) - (c - 1) * ((operands[k] as StridedOperand).strides[d] as number);
      }
    }
  }
}

/** Per-element visitor (for the generic, non-float paths): `visit(linear, offsets)`. */
export function forEachElement(
  sizes: readonly number[],
  operands: readonly StridedOperand[],
  visit: (linear: number, offsets: Float64Array) => void,
): void {
  const rank = sizes.length;
  const m = operands.length;
  const inner = operands.map((o) => (rank === 0 ? 0 : (o.strides[rank - 1] as number)));
  const cur = new Float64Array(m);
  forEachRow(sizes, operands, (linear, offsets, n) => {
    cur.set(offsets);
    for (let j = 0; j < n; j += 1) {
      visit(linear + j, cur);
      for (let k = 0; k < m; k += 1) cur[k] = (cur[k] as number) + (inner[k] as number);
    }
  });
}

type NumericArray = Uint8Array | Int32Array | Uint16Array | Float32Array | Float64Array;

/** The elements of `t` read with `strides` over `sizes`, as a dense row-major array of t's storage type. */
export function gatherRaw(t: HostTensor, sizes: readonly number[], strides: readonly number[] = t.strides): HostStorage {
  let numel = 1;
  for (const s of sizes) numel *= s;
  const dst = allocateStorage(t.dtype, numel);
  const inner = sizes.length === 0 ? 0 : (strides[sizes.length - 1] as number);
  if (isComplexType(t.dtype)) {
    // Interleaved (re, im): element p occupies slots 2p and 2p + 1.
    const d = dst as Float32Array | Float64Array;
    const src = t.data as Float32Array | Float64Array;
    forEachRow(sizes, [{ strides, offset: t.offset }], (linear, offsets, n) => {
      let p = offsets[0] as number;
      for (let j = 0; j < n; j += 1, p += inner) {
        d[2 * (linear + j)] = src[2 * p] as number;
        d[2 * (linear + j) + 1] = src[2 * p + 1] as number;
      }
    });
    return dst;
  }
  if (dst instanceof BigInt64Array || dst instanceof BigUint64Array) {
    const src = t.data as BigInt64Array | BigUint64Array;
    forEachRow(sizes, [{ strides, offset: t.offset }], (linear, offsets, n) => {
      let p = offsets[0] as number;
      for (let j = 0; j < n; j += 1, p += inner) dst[linear + j] = src[p] as bigint;
    });
    return dst;
  }
  const d = dst as NumericArray;
  const src = t.data as NumericArray;
  forEachRow(sizes, [{ strides, offset: t.offset }], (linear, offsets, n) => {
    let p = offsets[0] as number;
    if (inner === 1) {
      d.set(src.subarray(p, p + n) as never, linear);
      return;
    }
    for (let j = 0; j < n; j += 1, p += inner) d[linear + j] = src[p] as number;
  });
  return dst;
}

/** The elements of `t` read with `strides` over `sizes`, decoded to float64 (bools 0/1). */
export function gatherFloat64(t: HostTensor, sizes: readonly number[], strides: readonly number[] = t.strides): Float64Array {
  let numel = 1;
  for (const s of sizes) numel *= s;
  const dst = new Float64Array(numel);
  const inner = sizes.length === 0 ? 0 : (strides[sizes.length - 1] as number);
  const op = [{ strides, offset: t.offset }];
  switch (t.dtype) {
    case 'Half':
    case 'BFloat16': {
      const table = t.dtype === 'Half' ? halfDecodeTable() : bfloat16DecodeTable();
      const src = t.data as Uint16Array;
      forEachRow(sizes, op, (linear, offsets, n) => {
        let p = offsets[0] as number;
        for (let j = 0; j < n; j += 1, p += inner) dst[linear + j] = table[src[p] as number] as number;
      });
      return dst;
    }
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu': {
      const table = float8DecodeTable(t.dtype);
      const src = t.data as Uint8Array;
      forEachRow(sizes, op, (linear, offsets, n) => {
        let p = offsets[0] as number;
        for (let j = 0; j < n; j += 1, p += inner) dst[linear + j] = table[src[p] as number] as number;
      });
      return dst;
    }
    case 'Int':
    case 'Index':
    case 'UInt64': {
      const src = t.data as BigInt64Array | BigUint64Array;
      forEachRow(sizes, op, (linear, offsets, n) => {
        let p = offsets[0] as number;
        for (let j = 0; j < n; j += 1, p += inner) dst[linear + j] = Number(src[p] as bigint);
      });
      return dst;
    }
    case 'Bool':
    case 'Int32':
    case 'Float':
    case 'Double': {
      const src = t.data as Uint8Array | Int32Array | Float32Array | Float64Array;
      forEachRow(sizes, op, (linear, offsets, n) => {
        let p = offsets[0] as number;
        for (let j = 0; j < n; j += 1, p += inner) dst[linear + j] = src[p] as number;
      });
      return dst;
    }
    case 'ComplexFloat':
    case 'ComplexDouble':
      throw new EvaluationError(`internal: a ${t.dtype} tensor read as float64 (complex values take the evaluator's complex path)`);
    default: {
      const unreachable: never = t.dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}
