// Reductions: sum, prod, max, min over axes, with keepdim and an optional output dtype. The
// output's logical domain keeps the reduced dims as Reduction IDs (printed `rS`); keepdim adds a
// broadcast of the result so the user-visible rank is unchanged, as nvFuser does.
// Reduced expanded broadcast dims (a stride-0 dim of extent n, bS{1 ex n}) are no loop of the
// reduction, as in nvFuser's reductionOp ([Trivial reductions], csrc/ops/arith.cpp): they are
// squeezed first (squeeze_expanded), the rest is reduced, and the result is multiplied by the
// product of their extents for sum, raised to that power for prod, and left as it is for max /
// min. Invariant: no ReductionOp built here reduces an expanded broadcast dim (the reduction
// schedulers iterate broadcast dims with extent 1).

import { checkComplexReduction } from './complex-support.js';
import type { DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { ReductionOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { ReductionOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { squeeze } from './alias.js';
import { mul, pow } from './binary.js';
import { broadcast } from './broadcast.js';
import { productOfExtents } from './shape.js';
import { describe } from './operand.js';
import { categoryOf } from './type-promotion.js';
import { cast as castTo } from './unary.js';

/** Normalizes axes (negative counts from the end), rejects duplicates and out-of-range axes. */
export function normalizeAxes(op: string, tv: TensorView, axes: readonly number[]): number[] {
  const rank = tv.rank();
  const out = axes.map((a) => {
    if (!Number.isInteger(a) || a < -rank || a >= rank) {
      throw new FusionIrError(`${op}: axis ${a} is out of range for ${describe(tv)} of rank ${rank}`);
    }
    return a < 0 ? a + rank : a;
  });
  if (new Set(out).size !== out.length) throw new FusionIrError(`${op}: repeated axis in [${axes.join(', ')}]`);
  return out.sort((a, b) => a - b);
}

/** Output tensor of a reduction over `axes` (already normalized): reduced dims become Reduction IDs. */
export function reductionOutput(tv: TensorView, axes: readonly number[], dtype: DataType): TensorView {
  const fusion = tv.fusion;
  const input = tv.domain.logicalNoReductions();
  const logical: IterDomain[] = input.map((id, d) => {
    if (axes.includes(d)) {
      // Reducing a broadcast dim reduces one element; keep its (expanded) extent so sums of
      // expanded broadcasts count every element, as PyTorch does.
      const extent = id.expandedExtent ?? id.extent;
      return fusion.newIterDomain(extent, 'Reduction');
    }
    return fusion.newIterDomain(id.extent, id.iterType === 'Broadcast' ? 'Broadcast' : 'Iteration', {
      expandedExtent: id.expandedExtent,
    });
  });
  return fusion.newTensorFromDomain(logical, dtype);
}

/** The value reductions start from: 0 for sum, 1 for prod, -inf / lowest for max, +inf / highest for min. */
export function reductionInit(tv: TensorView, op: ReductionOpType, dtype: DataType): Scalar {
  const fusion = tv.fusion;
  switch (op) {
    case 'add':
      return fusion.constant(dtype === 'Bool' ? false : 0, dtype);
    case 'mul':
      return fusion.constant(dtype === 'Bool' ? true : 1, dtype);
    case 'max':
      if (categoryOf(dtype) === 2) return fusion.constant(-Infinity, dtype);
      if (dtype === 'UInt64') return fusion.constant(0n, dtype);
      if (dtype === 'Bool') return fusion.constant(false, dtype);
      return fusion.constant(dtype === 'Int32' ? -2147483648n : -9223372036854775808n, dtype);
    case 'min':
      if (categoryOf(dtype) === 2) return fusion.constant(Infinity, dtype);
      if (dtype === 'UInt64') return fusion.constant(18446744073709551615n, dtype);
      if (dtype === 'Bool') return fusion.constant(true, dtype);
      return fusion.constant(dtype === 'Int32' ? 2147483647n : 9223372036854775807n, dtype);
    default: {
      const unreachable: never = op;
      throw new Error(`unknown reduction ${String(unreachable)}`);
    }
  }
}

export function reductionOp(
  op: ReductionOpType,
  tv: TensorView,
  axes: readonly number[],
  keepdim = false,
  dtype?: DataType,
): TensorView {
  const name = op === 'add' ? 'sum' : op === 'mul' ? 'prod' : op;
  checkComplexReduction(op, tv);
  // An empty axis list reduces every dim, as torch.sum(t, dim=[]) does.
  const all = Array.from({ length: tv.rank() }, (_, d) => d);
  const dims = normalizeAxes(name, tv, axes.length === 0 ? all : axes);
  let outDtype = dtype ?? tv.dtype;
  // torch.sum/prod of integral or bool tensors accumulate in int64 unless a dtype is given
  // (uint64 stays uint64, as in PyTorch).
  if (dtype === undefined && (op === 'add' || op === 'mul') && categoryOf(tv.dtype) < 2 && tv.dtype !== 'UInt64') outDtype = 'Int';
  let input = tv;
  if (input.dtype !== outDtype) {
    // Computing in the requested dtype needs the input in that dtype first.
    input = castTo(input, outDtype);
  }
  const logical = input.domain.logicalNoReductions();
  const expanded = dims.filter((d) => isExpandedBroadcast(logical[d] as IterDomain));
  let out: TensorView;
  if (expanded.length === 0) {
    out = reductionOutput(input, dims, outDtype);
    new ReductionOp(tv.fusion, op, reductionInit(input, op, outDtype), out, input);
  } else {
    out = reduceExpandedDims(op, input, dims, expanded, outDtype);
  }
  if (!keepdim) return out;
  const flags = new Array<boolean>(tv.rank()).fill(false);
  for (const d of dims) flags[d] = true;
  return broadcast(out, flags);
}

function isExpandedBroadcast(id: IterDomain): boolean {
  return id.isBroadcast() && id.expandedExtent !== null;
}

/**
 * The reduction of `input` (already in `dtype`) over `dims` when `expanded` of them are expanded
 * broadcasts: squeeze those, reduce the others, then apply the expanded extents (sum: times their
 * product, prod: to its power, max / min: nothing). Without keepdim; the caller adds it.
 */
function reduceExpandedDims(op: ReductionOpType, input: TensorView, dims: readonly number[], expanded: readonly number[], dtype: DataType): TensorView {
  const logical = input.domain.logicalNoReductions();
  const squeezed = squeeze(input, expanded, { squeezeExpanded: true });
  // The remaining reduced dims, renumbered past the squeezed ones.
  const rest = dims.filter((d) => !expanded.includes(d)).map((d) => d - expanded.filter((e) => e < d).length);
  let out = squeezed;
  if (rest.length > 0) {
    out = reductionOutput(squeezed, rest, dtype);
    new ReductionOp(input.fusion, op, reductionInit(squeezed, op, dtype), out, squeezed);
  }
  const extents = expanded.map((d) => (logical[d] as IterDomain).expandedExtent as Scalar);
  switch (op) {
    case 'add':
      return mul(out, castTo(productOfExtents(input.fusion, extents), dtype)) as TensorView;
    case 'mul':
      return pow(out, castTo(productOfExtents(input.fusion, extents), dtype)) as TensorView;
    case 'max':
    case 'min':
      return out;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown reduction ${String(unreachable)}`);
    }
  }
}

export function sum(tv: TensorView, axes: readonly number[], keepdim = false, dtype?: DataType): TensorView {
  return reductionOp('add', tv, axes, keepdim, dtype);
}

export function prod(tv: TensorView, axes: readonly number[], keepdim = false, dtype?: DataType): TensorView {
  return reductionOp('mul', tv, axes, keepdim, dtype);
}

export function max(tv: TensorView, axes: readonly number[], keepdim = false, dtype?: DataType): TensorView {
  return reductionOp('max', tv, axes, keepdim, dtype);
}

export function min(tv: TensorView, axes: readonly number[], keepdim = false, dtype?: DataType): TensorView {
  return reductionOp('min', tv, axes, keepdim, dtype);
}
