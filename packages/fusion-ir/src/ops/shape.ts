// Shape arithmetic for ops that compute new extents (reshape, slice, pad, cat, mean): extents are
// Index scalars; constants fold here so static shapes stay constant (and print as numbers), and
// symbolic extents become scalar expressions the evaluator computes on demand. A size computed
// from constants only (`(int64)(2.5f * 7)`, test_pad_dynamic's widths) folds to its value, with
// the reference evaluator's scalar semantics, so it is as static as a literal.

import { EvalContext } from '../eval/evaluator.js';
import { FusionIrError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { BinaryOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { binaryOp } from './binary.js';
import { categoryOf } from './type-promotion.js';

/** A size given by the user: a JS integer or an integral Scalar of the fusion. */
export type SizeOperand = number | Scalar;

/** Converts a size to an Index scalar; JS numbers must be integers. */
export function toExtent(fusion: Fusion, op: string, size: SizeOperand): Scalar {
  if (typeof size === 'number') {
    if (!Number.isInteger(size)) throw new FusionIrError(`${op}: size ${size} is not an integer`);
    return fusion.index(size);
  }
  if (size.fusion !== fusion) throw new FusionIrError(`${op}: size ${size.symbolicName()} belongs to another fusion`);
  if (categoryOf(size.dtype) !== 1) throw new FusionIrError(`${op}: size ${size.symbolicName()} must be integral, got ${size.dtype}`);
  return hasOnlyConstantLeaves(size) ? fusion.index(Number(new EvalContext(fusion).scalar(size))) : size;
}

/** Whether a computed scalar's expression reads constants only (no input, extent or tensor). */
function hasOnlyConstantLeaves(s: Scalar): boolean {
  if (s.value !== null || s.definition === null) return false;
  const pending: Scalar[] = [s];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (v.value !== null) continue;
    const def = v.definition;
    if (def === null) return false;
    for (const input of def.inputs) {
      if (input.kind !== 'scalar') return false;
      pending.push(input);
    }
  }
  return true;
}

/** Index arithmetic with constant folding. */
export function extentOp(op: 'add' | 'sub' | 'mul' | 'div' | 'ceilDiv' | 'maximum' | 'minimum', a: Scalar, b: Scalar): Scalar {
  const x = a.constNumber();
  const y = b.constNumber();
  if (x !== null && y !== null) {
    const folded = foldIndex(op, x, y);
    if (folded !== null) return a.fusion.index(folded);
  }
  // Identities (1 · e, e · 1, e / 1, ceilDiv(e, 1)) return e itself: a reshape that only
  // squeezes size-1 dims then has the same extent on both sides and needs no ViewOp (one that
  // did made a 1-D → 1-D view the reduction scheduler could not propagate through). e ± 0 is
  // kept as an expression: a pad or slice by 0 must still give a resized extent of its own (the
  // resize index spaces tell resized IDs apart by their extents; folded, a zero pad next to a
  // real one read out of bounds).
  if (op === 'mul' && x === 1) return b;
  if ((op === 'mul' || op === 'div' || op === 'ceilDiv') && y === 1) return a;
  return binaryOp(op as BinaryOpType, a, b);
}

function foldIndex(op: 'add' | 'sub' | 'mul' | 'div' | 'ceilDiv' | 'maximum' | 'minimum', x: number, y: number): number | null {
  switch (op) {
    case 'add':
      return x + y;
    case 'sub':
      return x - y;
    case 'mul':
      return x * y;
    case 'div':
      return y === 0 ? null : Math.trunc(x / y);
    case 'ceilDiv':
      return y === 0 ? null : Math.ceil(x / y);
    case 'maximum':
      return Math.max(x, y);
    case 'minimum':
      return Math.min(x, y);
    default: {
      const unreachable: never = op;
      throw new Error(`unknown index op ${String(unreachable)}`);
    }
  }
}

/** The sizes a consumer sees: one Index scalar per non-reduction logical dim (expanded extents for expanded broadcasts). */
export function shape(tv: TensorView): Scalar[] {
  return tv.domain.logicalNoReductions().map((id) => id.logicalExtent());
}

/** The size of dim `dim` (negative counts from the end). */
export function size(tv: TensorView, dim: number): Scalar {
  const ids = tv.domain.logicalNoReductions();
  const d = normalizeDim('size', tv, dim);
  return (ids[d] as IterDomain).logicalExtent();
}

/** Product of extents (1 for an empty list), folded where constant. */
export function productOfExtents(fusion: Fusion, extents: readonly Scalar[]): Scalar {
  let acc = fusion.index(1);
  for (const e of extents) acc = extentOp('mul', acc, e);
  return acc;
}

/** Normalizes one dim index (negative from the end) or throws naming the tensor. */
export function normalizeDim(op: string, tv: TensorView, dim: number, rank = tv.rank()): number {
  if (!Number.isInteger(dim) || dim < -rank || dim >= rank) {
    throw new FusionIrError(`${op}: dim ${dim} is out of range for T${tv.name} of rank ${rank}`);
  }
  return dim < 0 ? dim + rank : dim;
}

/** Extents as text for error messages: numbers where constant, names where symbolic. */
export function sizesText(sizes: readonly Scalar[]): string {
  return `[${sizes.map((s) => (s.constNumber() === null ? s.symbolicName() : String(s.constNumber()))).join(', ')}]`;
}
