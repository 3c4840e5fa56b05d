// The ways nvFuser's frontend defines an input tensor, normalized to nvFuser's own record form
// (TensorRecord: shape, contiguity, dtype, is_cpu, stride_order):
//   1. by rank:                   defineTensor(3) / defineTensor(3, 'Half')  — not contiguous
//   2. by shape:                  { shape: [-1, 1, -1], contiguity: [true, null, true] | true, strideOrder }
//   3. by concrete sizes/strides: { sizes: [2, 4, 6], strides: [24, 6, 1], staticSizes? }
//   4. by symbolic sizes (old):   { symbolicSizes: [-1, 1, -1], contiguous: [...] }
//
// nvFuser's conventions, kept exactly:
//   - shape: -1 symbolic, 0 zero-size, 1 broadcast, >1 static;
//   - contiguity has one entry per ALLOCATION position (outermost first): with a stride order,
//     entry k describes the dim d with strideOrder[d] = rank-1-k; without one, entry k is dim k;
//   - None (null) marks a dim without a stride of its own: a broadcast (shape 1) or, on a dim
//     whose shape is not 1, an EXPANDED broadcast (stride 0, any size);
//   - stride_order[d] is the rank of dim d's stride (rank-1 = outermost), negatives wrap.
// Invariant: every normalized spec has shape.length === contiguity.length, shape-1 dims have
// null contiguity, strideOrder is [] or a permutation of 0..rank-1.

import { isDataType, type DataType } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';

export interface ShapeTensorOptions {
  shape: readonly number[];
  /** Per allocation position (null: broadcast or expanded dim), or one flag for every non-broadcast dim. Default false. */
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
  /** Keep the sizes as static extents (nvFuser's static_sizes); default: symbolic (-1, 1 for size 1). */
  staticSizes?: boolean;
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
  /** nvFuser's contiguity: one entry per allocation position, outermost first. */
  contiguity: (boolean | null)[];
  dtype: DataType;
  isCpu: boolean;
  /** As given (negatives wrapped); [] = logical order. */
  strideOrder: number[];
}

const fail = (message: string): never => {
  throw new DefinitionError(`defineTensor: ${message}`);
};

function checkDtype(dtype: unknown): DataType {
  if (dtype === undefined) return 'Float';
  if (typeof dtype === 'string' && isDataType(dtype)) return dtype;
  return fail(`unknown dtype ${JSON.stringify(dtype)}`);
}

function checkShape(shape: readonly unknown[], what: string): number[] {
  return shape.map((s, d) => {
    if (typeof s !== 'number' || !Number.isInteger(s) || s < -1) {
      return fail(`${what}[${d}] is ${String(s)}; expected -1 (symbolic), 0 (zero-size), 1 (broadcast) or a static size > 1`);
    }
    return s;
  });
}

/** Wraps negative entries and checks for a permutation, as nvFuser's normalizeStrideOrder. */
function checkStrideOrder(order: readonly number[] | undefined, rank: number): number[] {
  if (order === undefined || order.length === 0) return [];
  if (order.length !== rank) fail(`stride_order [${order.join(', ')}] has ${order.length} entries for a tensor of rank ${rank}`);
  const wrapped = order.map((v, d) => {
    if (!Number.isInteger(v) || v < -rank || v >= rank) fail(`stride_order[${d}] is ${v}; expected an integer in [${-rank}, ${rank})`);
    return v < 0 ? v + rank : v;
  });
  if (new Set(wrapped).size !== rank) fail(`stride_order [${order.join(', ')}] has duplicated entries`);
  return wrapped;
}

/** The allocation position of logical dim `d` (0 = outermost). */
export function allocationPosition(spec: Pick<NormalizedTensorSpec, 'shape' | 'strideOrder'>, d: number): number {
  const rank = spec.shape.length;
  return spec.strideOrder.length === 0 ? d : rank - 1 - (spec.strideOrder[d] as number);
}

/** Logical dims in allocation order, outermost first. */
export function allocationOrder(spec: Pick<NormalizedTensorSpec, 'shape' | 'strideOrder'>): number[] {
  const order = new Array<number>(spec.shape.length);
  spec.shape.forEach((_, d) => {
    order[allocationPosition(spec, d)] = d;
  });
  return order;
}

/** The contiguity flag of each logical dim (null: broadcast or expanded). */
export function logicalContiguity(spec: NormalizedTensorSpec): (boolean | null)[] {
  return spec.shape.map((_, d) => spec.contiguity[allocationPosition(spec, d)] ?? null);
}

/** Dims declared as expanded broadcasts: None contiguity on a dim whose shape is not 1. */
export function expandedDims(spec: NormalizedTensorSpec): boolean[] {
  return logicalContiguity(spec).map((c, d) => c === null && spec.shape[d] !== 1);
}

/** nvFuser's getContiguityVec: one flag for every dim whose shape is not 1. */
function contiguityFromFlag(shape: readonly number[], strideOrder: readonly number[], flag: boolean): (boolean | null)[] {
  const out = new Array<boolean | null>(shape.length).fill(null);
  const spec = { shape: [...shape], strideOrder: [...strideOrder] };
  shape.forEach((s, d) => {
    out[allocationPosition(spec, d)] = s === 1 ? null : flag;
  });
  return out;
}

function checkContiguity(shape: readonly number[], strideOrder: readonly number[], given: readonly (boolean | null | undefined)[]): (boolean | null)[] {
  if (given.length !== shape.length) fail(`contiguity has ${given.length} entries for a tensor of rank ${shape.length}`);
  const spec = { shape: [...shape], strideOrder: [...strideOrder] };
  const out = given.map((c, k) => {
    if (c !== null && c !== undefined && typeof c !== 'boolean') fail(`contiguity[${k}] is ${String(c)}; expected True, False or None`);
    return c ?? null;
  });
  shape.forEach((s, d) => {
    const k = allocationPosition(spec, d);
    if (s === 1 && out[k] !== null) {
      fail(`contiguity[${k}] (dim ${d}, shape 1) is ${String(out[k])} but a broadcast dim has no stride: it must be None`);
    }
  });
  return out;
}

/** nvFuser's computeTensorDescriptor: contiguity (allocation order) and stride order of a strided tensor. */
export function tensorDescriptor(sizes: readonly number[], strides: readonly number[]): { contiguity: (boolean | null)[]; strideOrder: number[] } {
  if (sizes.length !== strides.length) fail(`${sizes.length} sizes but ${strides.length} strides`);
  const rank = sizes.length;
  strides.forEach((s, d) => {
    if (!Number.isInteger(s) || s < 0) fail(`strides[${d}] is ${s}; negative strides are not supported`);
  });
  // Dims with a stride sort by decreasing stride (stable); stride-0 dims keep their logical slot.
  const strided = [...sizes.keys()].filter((d) => strides[d] !== 0).sort((a, b) => (strides[b] as number) - (strides[a] as number));
  const alloc = placeZeroStrideDims(strided, sizes.length, strides);
  const isBroadcast = (d: number): boolean => strides[d] === 0 || sizes[d] === 1;
  const contiguity = new Array<boolean | null>(rank).fill(null);
  for (let k = 0; k < rank; k += 1) {
    const d = alloc[k] as number;
    if (isBroadcast(d)) continue;
    let expected = 1;
    for (let j = k + 1; j < rank; j += 1) {
      const inner = alloc[j] as number;
      if (!isBroadcast(inner)) {
        expected = (strides[inner] as number) * (sizes[inner] as number);
        break;
      }
    }
    contiguity[k] = strides[d] === expected;
  }
  const strideOrder = new Array<number>(rank);
  alloc.forEach((d, k) => {
    strideOrder[d] = rank - 1 - k;
  });
  return { contiguity, strideOrder };
}

function placeZeroStrideDims(strided: readonly number[], rank: number, strides: readonly number[]): number[] {
  const out = [...strided];
  for (let d = 0; d < rank; d += 1) if (strides[d] === 0) out.splice(d, 0, d);
  return out;
}

export function normalizeTensorSpec(rankOrOptions: number | TensorOptions, dtype?: DataType): NormalizedTensorSpec {
  if (typeof rankOrOptions === 'number') {
    if (!Number.isInteger(rankOrOptions) || rankOrOptions < 0) fail(`rank must be a non-negative integer, got ${rankOrOptions}`);
    const shape = new Array<number>(rankOrOptions).fill(-1);
    return { shape, contiguity: shape.map(() => false), dtype: checkDtype(dtype), isCpu: false, strideOrder: [] };
  }
  const o = rankOrOptions;
  const isCpu = o.isCpu ?? false;
  let spec: NormalizedTensorSpec;
  if ('sizes' in o) {
    const sizes = checkShape(o.sizes, 'sizes');
    if (sizes.some((s) => s < 0)) fail(`sizes [${sizes.join(', ')}] must be >= 0`);
    const { contiguity, strideOrder } = tensorDescriptor(sizes, o.strides);
    const shape = sizes.map((s) => (o.staticSizes === true || s === 1 ? s : -1));
    spec = { shape, contiguity, dtype: checkDtype(o.dtype), isCpu, strideOrder };
  } else if ('symbolicSizes' in o) {
    const shape = checkShape(o.symbolicSizes, 'symbolicSizes');
    const flags = o.contiguous ?? shape.map(() => false);
    if (flags.length !== shape.length) fail(`contiguous has ${flags.length} entries for a tensor of rank ${shape.length}`);
    spec = { shape, contiguity: shape.map((s, d) => (s === 1 ? null : flags[d] === true)), dtype: checkDtype(o.dtype), isCpu, strideOrder: [] };
  } else {
    const shape = checkShape(o.shape, 'shape');
    const strideOrder = checkStrideOrder(o.strideOrder, shape.length);
    const given = o.contiguity ?? false;
    const contiguity = typeof given === 'boolean' ? contiguityFromFlag(shape, strideOrder, given) : checkContiguity(shape, strideOrder, given);
    spec = { shape, contiguity, dtype: checkDtype(o.dtype), isCpu, strideOrder };
  }
  if (spec.isCpu && spec.shape.length > 0) fail(`is_cpu=True is only supported for 0-dim (scalar) tensors, got rank ${spec.shape.length}`);
  return spec;
}
