// IterDomain-level transforms: one Split or Merge expression creating new IDs. These are the
// building blocks of every loop-domain transform (TensorView.split/merge, the propagator's
// replay, rFactor); they know nothing about TensorViews, so the tensor-level checks (compute-at
// positions, broadcast splits requested by a user) live in loop-transforms.ts.
//
// Invariant: an output's IterType follows nvFuser — a split keeps the input's type; a merge is
// Reduction if both are, Broadcast if both are, Iteration when an Iteration meets a Broadcast,
// Reduction when a Reduction meets a Broadcast; Iteration with Reduction is refused.

import { TransformError } from '../ir/errors.js';
import { BinaryOp, Merge, Split } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { IterType } from '../ir/types.js';

/** How new IDs are marked: rFactor and reshape products carry `isRFactorProduct`. */
export interface NewIdOptions {
  isRFactorProduct?: boolean;
  /** Overrides the IterType derived from the inputs (rFactor turns reductions into iterations). */
  iterType?: IterType;
  /** For a split: separate overrides of the outer and inner output IterTypes. */
  splitIterTypes?: readonly [IterType, IterType];
}

/** Index arithmetic on extents, constant-folded when both sides are constants. */
export function indexOp(op: 'ceilDiv' | 'mul', a: Scalar, b: Scalar): Scalar {
  const fusion = a.fusion;
  const x = a.constNumber();
  const y = b.constNumber();
  // x * 1 = x keeps a merge with a size-1 broadcast at the other ID's extent (nvFuser's
  // simplifying builder does the same); ceilDiv(x, 1) is kept, as nvFuser prints it.
  if (op === 'mul' && y === 1) return a;
  if (op === 'mul' && x === 1) return b;
  if (x !== null && y !== null) {
    if (op === 'mul') return fusion.index(x * y);
    if (y !== 0) return fusion.index(Math.ceil(x / y));
  }
  const out = fusion.newSymbolicScalar('Index');
  new BinaryOp(fusion, op, out, a, b);
  return out;
}

/** A split factor as an Index scalar; JS numbers must be positive integers. */
export function toFactor(fusion: Fusion, factor: number | Scalar, where: string): Scalar {
  if (typeof factor === 'number') {
    if (!Number.isInteger(factor) || factor < 1) {
      throw new TransformError(`${where}: split factor must be a positive integer, got ${factor}`);
    }
    return fusion.index(factor);
  }
  if (factor.fusion !== fusion) throw new TransformError(`${where}: split factor ${factor.symbolicName()} belongs to another fusion`);
  if (factor.dtype !== 'Index' && factor.dtype !== 'Int' && factor.dtype !== 'Int32') {
    throw new TransformError(`${where}: split factor ${factor.symbolicName()} must be integral, got ${factor.dtype}`);
  }
  const c = factor.constNumber();
  if (c !== null && (!Number.isInteger(c) || c < 1)) {
    throw new TransformError(`${where}: split factor must be a positive integer, got ${c}`);
  }
  return factor;
}

/** Splits `id`; returns [outer, inner]. Inner split: inner = factor; outer split: outer = factor. */
export function splitId(id: IterDomain, factor: Scalar, innerSplit: boolean, opts: NewIdOptions = {}): [IterDomain, IterDomain] {
  const fusion = id.fusion;
  const remainder = indexOp('ceilDiv', id.extent, factor);
  const iterType = opts.iterType ?? id.iterType;
  const [outerType, innerType] = opts.splitIterTypes ?? [iterType, iterType];
  const make = (extent: Scalar, t: IterType): IterDomain =>
    fusion.newIterDomain(extent, t, { isRFactorProduct: opts.isRFactorProduct ?? false });
  const outer = make(innerSplit ? remainder : factor, outerType);
  const inner = make(innerSplit ? factor : remainder, innerType);
  new Split(fusion, outer, inner, id, factor, innerSplit);
  return [outer, inner];
}

/** The IterType of merge(outer, inner), or null when nvFuser refuses the merge. */
export function mergedIterType(a: IterType, b: IterType): IterType | null {
  const norm = (t: IterType): IterType => (t === 'Symbolic' ? 'Iteration' : t);
  const x = norm(a);
  const y = norm(b);
  if (x === y) return x;
  if (x === 'Broadcast') return y;
  if (y === 'Broadcast') return x;
  return null; // Iteration with Reduction
}

/** Merges two IDs into one of extent outer * inner. Throws TransformError for iteration × reduction. */
export function mergeIds(outer: IterDomain, inner: IterDomain, opts: NewIdOptions = {}, where = 'merge'): IterDomain {
  const fusion = outer.fusion;
  const derived = mergedIterType(outer.iterType, inner.iterType);
  if (derived === null && opts.iterType === undefined) {
    throw new TransformError(
      `${where}: cannot merge ${outer.iterType} ID ${outer.name} with ${inner.iterType} ID ${inner.name} (iteration and reduction IDs never merge)`,
    );
  }
  const iterType = opts.iterType ?? (derived as IterType);
  const out = fusion.newIterDomain(indexOp('mul', outer.extent, inner.extent), iterType, {
    isRFactorProduct: opts.isRFactorProduct ?? false,
  });
  new Merge(fusion, out, outer, inner);
  return out;
}
