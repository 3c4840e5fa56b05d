// The layout algebra of an InputSpec's view ops: sizes, strides, storage offset and storage
// extent after each op, in PyTorch's semantics, computed without touching any data. The importer
// uses it to reject a bad view at its line, the CLI to check ranks, strides and sizes against
// the definition and the allocation limits before anything is allocated, and input-generation.ts
// to build the tensor (a view shares storage; contiguous/to may copy into new storage).
// Invariant: every layout returned has non-negative safe-integer sizes and strides, and every
// element it addresses lies inside [0, storageElements).

import { contiguousStrides, type DataType } from '@tsfuser/fusion-ir';
import type { TensorViewOp } from './input-spec.js';

export interface StridedLayout {
  readonly dtype: DataType;
  readonly sizes: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
  /** Elements of the storage the layout views. */
  readonly storageElements: number;
}

/** A view op that PyTorch would reject (bad dim, size or bounds); the caller adds where. */
export class ViewError extends Error {
  override readonly name = 'ViewError';
}

function product(sizes: readonly number[]): number {
  return Number(sizes.reduce((a, s) => a * BigInt(s), 1n));
}

function checkSizes(sizes: readonly number[], what: string): void {
  sizes.forEach((s, d) => {
    if (!Number.isSafeInteger(s) || s < 0) throw new ViewError(`${what}: size ${s} of dim ${d} is not a non-negative integer below 2^53`);
  });
}

/** A factory's tensor: `shape`, contiguous, over storage of exactly its elements. */
export function baseLayout(dtype: DataType, shape: readonly number[]): StridedLayout {
  checkSizes(shape, 'shape');
  return { dtype, sizes: [...shape], strides: contiguousStrides(shape), offset: 0, storageElements: product(shape) };
}

/** Elements from the first to one past the last element addressed (0 for an empty tensor). */
export function spanOf(sizes: readonly number[], strides: readonly number[]): number {
  if (sizes.some((s) => s === 0)) return 0;
  return 1 + sizes.reduce((acc, s, d) => acc + (s - 1) * (strides[d] as number), 0);
}

function wrapDim(dim: number, rank: number, what: string): number {
  const r = Math.max(rank, 1);
  if (!Number.isInteger(dim) || dim < -r || dim >= r) throw new ViewError(`${what}: dim ${dim} is out of range for rank ${rank} (expected [${-r}, ${r - 1}])`);
  return dim < 0 ? dim + r : dim;
}

/** Non-overlapping and dense (some permutation of the dims is contiguous): `.to()` keeps such strides. */
export function isNonOverlappingAndDense(l: StridedLayout): boolean {
  const dims = [...l.sizes.keys()].filter((d) => (l.sizes[d] as number) !== 1).sort((a, b) => (l.strides[a] as number) - (l.strides[b] as number));
  let expected = 1;
  for (const d of dims) {
    if (l.strides[d] !== expected) return false;
    expected *= l.sizes[d] as number;
  }
  return true;
}

/**
 * The strides PyTorch's empty_like (memory_format=torch.preserve_format) gives a copy of `l`, as
 * clone(), to(dtype) and pointwise results such as `x > 0.3` get them: `l`'s own strides when it
 * is non-overlapping and dense, else dense strides in the order of `l`'s strides (c10's
 * infer_dense_strides: an insertion sort of the dims by stride, innermost last, where a stride-0
 * dim keeps its place and equal strides put the smaller size inside).
 */
export function denseStridesLike(l: StridedLayout): number[] {
  if (isNonOverlappingAndDense(l)) return [...l.strides];
  const rank = l.sizes.length;
  // perm[0] is the innermost dim.
  const perm = [...Array(rank).keys()].reverse();
  const shouldSwap = (d0: number, d1: number): number => {
    const s0 = l.strides[d0] as number;
    const s1 = l.strides[d1] as number;
    if (s0 === 0 || s1 === 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return (l.sizes[d0] as number) > (l.sizes[d1] as number) ? 1 : 0;
  };
  for (let i = 1; i < rank; i += 1) {
    let d1 = i;
    for (let d0 = i - 1; d0 >= 0; d0 -= 1) {
      const c = shouldSwap(perm[d0] as number, perm[d1] as number);
      if (c > 0) {
        [perm[d0], perm[d1]] = [perm[d1] as number, perm[d0] as number];
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  const strides = new Array<number>(rank).fill(1);
  let acc = 1;
  for (const d of perm) {
    strides[d] = acc;
    acc *= Math.max(l.sizes[d] as number, 1);
  }
  return strides;
}

function copyLayout(l: StridedLayout, dtype: DataType, keepStrides: boolean): StridedLayout {
  const strides = keepStrides ? denseStridesLike(l) : contiguousStrides(l.sizes);
  return { dtype, sizes: [...l.sizes], strides, offset: 0, storageElements: product(l.sizes) };
}

/**
 * The strides of `l` viewed with `sizes` (same element count), or null when no view can have
 * them: ATen's computeStride, which splits and merges runs of dims that are contiguous with each
 * other ("chunks") and nothing else.
 */
export function viewStrides(l: StridedLayout, sizes: readonly number[]): number[] | null {
  if (l.sizes.length === 0) return sizes.map(() => 1);
  const numel = product(l.sizes);
  if (numel === 0) return l.sizes.length === sizes.length && l.sizes.every((s, d) => s === sizes[d]) ? [...l.strides] : contiguousStrides(sizes);
  const out = new Array<number>(sizes.length).fill(1);
  let viewD = sizes.length - 1;
  let chunkBaseStride = l.strides[l.strides.length - 1] as number;
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let tensorD = l.sizes.length - 1; tensorD >= 0; tensorD -= 1) {
    tensorNumel *= l.sizes[tensorD] as number;
    const chunkEnds = tensorD === 0 || ((l.sizes[tensorD - 1] as number) !== 1 && (l.strides[tensorD - 1] as number) !== tensorNumel * chunkBaseStride);
    if (!chunkEnds) continue;
    while (viewD >= 0 && (viewNumel < tensorNumel || sizes[viewD] === 1)) {
      out[viewD] = viewNumel * chunkBaseStride;
      viewNumel *= sizes[viewD] as number;
      viewD -= 1;
    }
    if (viewNumel !== tensorNumel) return null;
    if (tensorD > 0) {
      chunkBaseStride = l.strides[tensorD - 1] as number;
      tensorNumel = 1;
      viewNumel = 1;
    }
  }
  return viewD === -1 ? out : null;
}

function reshape(l: StridedLayout, op: TensorViewOp & { kind: 'reshape' }): { layout: StridedLayout; copies: boolean } {
  checkSizes(op.sizes, op.viewOnly ? 'view' : 'reshape');
  if (product(op.sizes) !== product(l.sizes)) throw new ViewError(`shape '[${op.sizes.join(', ')}]' is invalid for input of size ${product(l.sizes)}`);
  const strides = viewStrides(l, op.sizes);
  if (strides !== null) return { layout: { ...l, sizes: [...op.sizes], strides }, copies: false };
  if (op.viewOnly) {
    throw new ViewError('view size is not compatible with input tensor\'s size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.');
  }
  return { layout: { dtype: l.dtype, sizes: [...op.sizes], strides: contiguousStrides(op.sizes), offset: 0, storageElements: product(op.sizes) }, copies: true };
}

function topk(l: StridedLayout, op: TensorViewOp & { kind: 'topk' }): StridedLayout {
  const rank = l.sizes.length;
  const dim = wrapDim(op.dim, rank, 'topk');
  const n = rank === 0 ? 1 : (l.sizes[dim] as number);
  if (!Number.isSafeInteger(op.k) || op.k < 0 || op.k > n) throw new ViewError(`topk: k (${op.k}) is out of range for dim ${dim} of size ${n} (selected index k out of range)`);
  const sizes = rank === 0 ? [] : l.sizes.map((s, d) => (d === dim ? op.k : s));
  const dtype: DataType = op.output === 'indices' ? 'Int' : l.dtype;
  return { dtype, sizes, strides: contiguousStrides(sizes), offset: 0, storageElements: product(sizes) };
}

function isContiguous(l: StridedLayout): boolean {
  const expected = contiguousStrides(l.sizes);
  return l.sizes.every((s, d) => s <= 1 || l.strides[d] === expected[d]);
}

function asStrided(l: StridedLayout, op: TensorViewOp & { kind: 'asStrided' }): StridedLayout {
  if (op.size.length !== op.stride.length) throw new ViewError(`as_strided: ${op.size.length} sizes but ${op.stride.length} strides`);
  checkSizes(op.size, 'as_strided');
  op.stride.forEach((s, d) => {
    if (!Number.isSafeInteger(s) || s < 0) throw new ViewError(`as_strided: stride ${s} of dim ${d} is not a non-negative integer`);
  });
  const offset = op.offset ?? l.offset;
  if (!Number.isSafeInteger(offset) || offset < 0) throw new ViewError(`as_strided: storage offset ${offset} is not a non-negative integer`);
  const span = spanOf(op.size, op.stride);
  if (span > 0 && offset + span > l.storageElements) {
    throw new ViewError(
      `as_strided: size [${op.size.join(', ')}] with stride [${op.stride.join(', ')}] and offset ${offset} needs ${offset + span} elements of storage, the tensor has ${l.storageElements}`,
    );
  }
  return { ...l, sizes: [...op.size], strides: [...op.stride], offset };
}

function permute(l: StridedLayout, dims: readonly number[], what: string): StridedLayout {
  if (dims.length !== l.sizes.length) throw new ViewError(`${what}: ${dims.length} dims for a tensor of rank ${l.sizes.length}`);
  const wrapped = dims.map((d) => wrapDim(d, l.sizes.length, what));
  if (new Set(wrapped).size !== wrapped.length) throw new ViewError(`${what}: dims [${dims.join(', ')}] repeat a dim`);
  return { ...l, sizes: wrapped.map((d) => l.sizes[d] as number), strides: wrapped.map((d) => l.strides[d] as number) };
}

function expand(l: StridedLayout, sizes: readonly number[]): StridedLayout {
  const rank = l.sizes.length;
  if (sizes.length < rank) throw new ViewError(`expand: ${sizes.length} sizes for a tensor of rank ${rank} (at least ${rank} needed)`);
  const lead = sizes.length - rank;
  const outSizes: number[] = [];
  const outStrides: number[] = [];
  sizes.forEach((s, d) => {
    const inDim = d - lead;
    const cur = inDim >= 0 ? (l.sizes[inDim] as number) : null;
    if (s === -1) {
      if (cur === null) throw new ViewError(`expand: size -1 is not allowed for the new leading dim ${d}`);
      outSizes.push(cur);
      outStrides.push(l.strides[inDim] as number);
      return;
    }
    if (!Number.isSafeInteger(s) || s < 0) throw new ViewError(`expand: size ${s} of dim ${d} is not a non-negative integer`);
    if (cur !== null && cur !== s && cur !== 1) throw new ViewError(`expand: the size ${cur} of dim ${inDim} must match ${s} or be 1`);
    outSizes.push(s);
    outStrides.push(cur !== null && cur === s ? (l.strides[inDim] as number) : 0);
  });
  return { ...l, sizes: outSizes, strides: outStrides };
}

function slice(l: StridedLayout, op: TensorViewOp & { kind: 'slice' }): StridedLayout {
  const dim = wrapDim(op.dim, l.sizes.length, 'slice');
  if (l.sizes.length === 0) throw new ViewError('slice: a 0-dim tensor cannot be sliced');
  if (!Number.isSafeInteger(op.step) || op.step <= 0) throw new ViewError(`slice: step ${op.step} must be a positive integer`);
  const n = l.sizes[dim] as number;
  const clamp = (v: number | null, fallback: number): number => {
    if (v === null) return fallback;
    if (!Number.isSafeInteger(v)) throw new ViewError(`slice: bound ${v} is not an integer`);
    return Math.min(Math.max(v < 0 ? v + n : v, 0), n);
  };
  const start = clamp(op.start, 0);
  const stop = Math.max(clamp(op.stop, n), start);
  const sizes = [...l.sizes];
  const strides = [...l.strides];
  sizes[dim] = Math.ceil((stop - start) / op.step);
  strides[dim] = (l.strides[dim] as number) * op.step;
  return { ...l, sizes, strides, offset: l.offset + (sizes[dim] === 0 ? 0 : start * (l.strides[dim] as number)) };
}

function select(l: StridedLayout, op: TensorViewOp & { kind: 'select' }): StridedLayout {
  if (l.sizes.length === 0) throw new ViewError('index: a 0-dim tensor cannot be indexed');
  const dim = wrapDim(op.dim, l.sizes.length, 'index');
  const n = l.sizes[dim] as number;
  if (!Number.isSafeInteger(op.index) || op.index < -n || op.index >= n) throw new ViewError(`index ${op.index} is out of bounds for dim ${dim} of size ${n}`);
  const index = op.index < 0 ? op.index + n : op.index;
  return {
    ...l,
    sizes: l.sizes.filter((_, d) => d !== dim),
    strides: l.strides.filter((_, d) => d !== dim),
    offset: l.offset + index * (l.strides[dim] as number),
  };
}

function unsqueeze(l: StridedLayout, dim: number): StridedLayout {
  const rank = l.sizes.length;
  if (!Number.isInteger(dim) || dim < -(rank + 1) || dim > rank) throw new ViewError(`unsqueeze: dim ${dim} is out of range for rank ${rank}`);
  const d = dim < 0 ? dim + rank + 1 : dim;
  const stride = d < rank ? (l.sizes[d] as number) * (l.strides[d] as number) : 1;
  const sizes = [...l.sizes];
  const strides = [...l.strides];
  sizes.splice(d, 0, 1);
  strides.splice(d, 0, Math.max(stride, 1));
  return { ...l, sizes, strides };
}

/** The layout after `op`; `copies` when the result is new storage (contiguous of a strided view, a dtype change). */
export function applyViewOp(l: StridedLayout, op: TensorViewOp): { layout: StridedLayout; copies: boolean } {
  switch (op.kind) {
    case 'asStrided':
      return { layout: asStrided(l, op), copies: false };
    case 'transpose': {
      const rank = l.sizes.length;
      if (rank === 0) return { layout: l, copies: false };
      const a = wrapDim(op.dim0, rank, 'transpose');
      const b = wrapDim(op.dim1, rank, 'transpose');
      const dims = [...l.sizes.keys()];
      [dims[a], dims[b]] = [b, a];
      return { layout: permute(l, dims, 'transpose'), copies: false };
    }
    case 'permute':
      return { layout: permute(l, op.dims, 'permute'), copies: false };
    case 'expand':
      return { layout: expand(l, op.sizes), copies: false };
    case 'slice':
      return { layout: slice(l, op), copies: false };
    case 'select':
      return { layout: select(l, op), copies: false };
    case 'unsqueeze':
      return { layout: unsqueeze(l, op.dim), copies: false };
    case 'contiguous':
      return isContiguous(l) ? { layout: l, copies: false } : { layout: copyLayout(l, l.dtype, false), copies: true };
    case 'to':
      return op.dtype === l.dtype ? { layout: l, copies: false } : { layout: copyLayout(l, op.dtype, true), copies: true };
    case 'clone':
      return { layout: copyLayout(l, l.dtype, true), copies: true };
    case 'reshape':
      return reshape(l, op);
    case 'compare':
      return { layout: copyLayout(l, 'Bool', true), copies: true };
    case 'arith':
      return { layout: copyLayout(l, op.dtype, true), copies: true };
    case 'topk':
      return { layout: topk(l, op), copies: true };
    default: {
      const unreachable: never = op;
      throw new ViewError(`unknown view op ${String(unreachable)}`);
    }
  }
}

/** The final layout of ops applied to `base`, and the storages (elements, dtype) that get allocated. */
export function planLayout(base: StridedLayout, ops: readonly TensorViewOp[]): { layout: StridedLayout; storages: { elements: number; dtype: DataType }[] } {
  let layout = base;
  const storages = [{ elements: base.storageElements, dtype: base.dtype }];
  for (const op of ops) {
    const next = applyViewOp(layout, op);
    layout = next.layout;
    if (next.copies) storages.push({ elements: layout.storageElements, dtype: layout.dtype });
  }
  return { layout, storages };
}
