// The three ways nvFuser's frontend defines an input tensor, normalized to one form
// (symbolic shape, per-dim contiguity with null for broadcast dims, dtype, isCpu, stride order):
//   1. by rank:                  defineTensor(3) / defineTensor(3, 'Half')  — not contiguous
//   2. by concrete sizes/strides: { sizes: [2, 4, 6], strides: [24, 6, 1] } — translated
//   3. by symbolic sizes:         { symbolicSizes: [-1, 1, -1], contiguous: [...] } (older) or
//                                 { shape: [-1, 1, -1], contiguity: [true, null, true], strideOrder }
// Invariant: every normalized spec has shape.length === contiguity.length, broadcast (1) dims
// have null contiguity and all other dims a boolean; strideOrder is [] or a permutation.

import { isDataType, type DataType } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';

export interface ShapeTensorOptions {
  shape: readonly number[];
  /** Per dim (null for broadcast dims), or one flag for all dims. Default: not contiguous. */
  contiguity?: readonly (boolean | null)[] | boolean;
  dtype?: DataType;
  isCpu?: boolean;
  /** nvFuser's stride_order: strideOrder[d] = rank of dim d's stride (rank-1 = outermost). */
  strideOrder?: readonly number[];
}

export interface StridedTensorOptions {
  sizes: readonly number[];
  strides: readonly number[];
  dtype?: DataType;
  isCpu?: boolean;
}

export interface SymbolicTensorOptions {
  symbolicSizes: readonly number[];
  contiguous?: readonly boolean[];
  dtype?: DataType;
  isCpu?: boolean;
}

export type TensorOptions = ShapeTensorOptions | StridedTensorOptions | SymbolicTensorOptions;

export interface NormalizedTensorSpec {
  shape: number[];
  contiguity: (boolean | null)[];
  dtype: DataType;
  isCpu: boolean;
  strideOrder: number[];
}

function checkDtype(dtype: unknown): DataType {
  if (dtype === undefined) return 'Float';
  if (typeof dtype === 'string' && isDataType(dtype)) return dtype;
  throw new DefinitionError(`defineTensor: unknown dtype ${JSON.stringify(dtype)}`);
}

function checkShape(shape: readonly unknown[], what: string): number[] {
  return shape.map((s, d) => {
    if (typeof s !== 'number' || !Number.isInteger(s) || s < -1) {
      throw new DefinitionError(`defineTensor: ${what}[${d}] is ${String(s)}; expected -1 (symbolic), 1 (broadcast) or a size >= 0`);
    }
    return s;
  });
}

function contiguityFor(shape: readonly number[], given: readonly (boolean | null)[] | boolean | undefined): (boolean | null)[] {
  if (given === undefined || typeof given === 'boolean') return shape.map((s) => (s === 1 ? null : (given ?? false)));
  if (given.length !== shape.length) {
    throw new DefinitionError(`defineTensor: contiguity has ${given.length} entries for a tensor of rank ${shape.length}`);
  }
  return shape.map((s, d) => {
    if (s === 1) return null;
    const flag = given[d];
    if (typeof flag !== 'boolean') {
      throw new DefinitionError(`defineTensor: contiguity[${d}] is ${String(flag)} but dim ${d} (size ${s}) is not a broadcast`);
    }
    return flag;
  });
}

function checkStrideOrder(order: readonly number[] | undefined, rank: number): number[] {
  if (order === undefined || order.length === 0) return [];
  const sorted = [...order].sort((a, b) => a - b);
  if (order.length !== rank || sorted.some((v, i) => v !== i)) {
    throw new DefinitionError(`defineTensor: strideOrder [${order.join(', ')}] is not a permutation of 0..${rank - 1}`);
  }
  // The identity order (outermost dim has the largest stride) is the default: store it as [].
  return order.every((v, d) => v === rank - 1 - d) ? [] : [...order];
}

/** Sizes and strides → symbolic shape, contiguity and stride order, as nvFuser translates them. */
export function fromSizesAndStrides(sizes: readonly number[], strides: readonly number[]): { shape: number[]; contiguity: (boolean | null)[]; strideOrder: number[] } {
  if (sizes.length !== strides.length) {
    throw new DefinitionError(`defineTensor: ${sizes.length} sizes but ${strides.length} strides`);
  }
  checkShape(sizes, 'sizes');
  const rank = sizes.length;
  // Allocation order: outermost first = decreasing stride; ties keep the logical order.
  const alloc = [...sizes.keys()].sort((a, b) => (strides[b] as number) - (strides[a] as number) || a - b);
  const strideOrder = new Array<number>(rank);
  alloc.forEach((d, pos) => {
    strideOrder[d] = rank - 1 - pos;
  });
  const shape = sizes.map((s) => (s === 1 ? 1 : -1));
  const contiguity = new Array<boolean | null>(rank).fill(null);
  let expected = 1;
  for (let pos = rank - 1; pos >= 0; pos -= 1) {
    const d = alloc[pos] as number;
    const size = sizes[d] as number;
    if (size === 1) continue;
    const stride = strides[d] as number;
    contiguity[d] = stride === expected;
    expected = stride * size;
  }
  return { shape, contiguity, strideOrder: checkStrideOrder(strideOrder, rank) };
}

export function normalizeTensorSpec(rankOrOptions: number | TensorOptions, dtype?: DataType): NormalizedTensorSpec {
  if (typeof rankOrOptions === 'number') {
    if (!Number.isInteger(rankOrOptions) || rankOrOptions < 0) {
      throw new DefinitionError(`defineTensor: rank must be a non-negative integer, got ${rankOrOptions}`);
    }
    const shape = new Array<number>(rankOrOptions).fill(-1);
    return { shape, contiguity: shape.map(() => false), dtype: checkDtype(dtype), isCpu: false, strideOrder: [] };
  }
  const o = rankOrOptions;
  const isCpu = o.isCpu ?? false;
  if ('sizes' in o) {
    const t = fromSizesAndStrides(o.sizes, o.strides);
    return { ...t, dtype: checkDtype(o.dtype), isCpu };
  }
  if ('symbolicSizes' in o) {
    const shape = checkShape(o.symbolicSizes, 'symbolicSizes');
    return { shape, contiguity: contiguityFor(shape, o.contiguous ?? false), dtype: checkDtype(o.dtype), isCpu, strideOrder: [] };
  }
  const shape = checkShape(o.shape, 'shape');
  return {
    shape,
    contiguity: contiguityFor(shape, o.contiguity),
    dtype: checkDtype(o.dtype),
    isCpu,
    strideOrder: checkStrideOrder(o.strideOrder, shape.length),
  };
}
