// Ops that change how a tensor's elements are viewed without computing new values: expand,
// squeeze, permute/transpose, set and segmentSet. Each builds one Expr; the output's logical
// domain is built from the input's non-reduction logical IDs.

import { FusionIrError } from '../ir/errors.js';
import { ExpandOp, LoadStoreOp, SqueezeOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe } from './operand.js';
import { normalizeDim, shape, sizesText, toExtent, type SizeOperand } from './shape.js';

/** A fresh ID with the same extent and iter type (reductions are never copied by these ops). */
function copyId(id: IterDomain): IterDomain {
  return id.fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent });
}

/**
 * expand(tv, sizes): broadcast dims (size 1) take the given sizes without copying data (stride 0,
 * torch.Tensor.expand). `-1` keeps a dim; a non-broadcast dim may only be given its own size
 * (a symbolic size is taken and checked against the extent when evaluated, as nvFuser accepts it).
 * The expanded dims stay Broadcast IDs with `expandedExtent` set.
 */
export function expand(tv: TensorView, sizes: readonly SizeOperand[]): TensorView {
  const fusion = tv.fusion;
  const ids = tv.domain.logicalNoReductions();
  if (sizes.length !== ids.length) {
    throw new FusionIrError(`expand: ${describe(tv)} has rank ${ids.length} but ${sizes.length} sizes were given`);
  }
  const extents: Scalar[] = [];
  const logical = ids.map((id, d) => {
    const s = sizes[d] as SizeOperand;
    if (s === -1) {
      extents.push(id.logicalExtent());
      return copyId(id);
    }
    const e = toExtent(fusion, 'expand', s);
    extents.push(e);
    if (!id.isBroadcast()) {
      const have = id.extent.constNumber();
      const want = e.constNumber();
      // A symbolic size for a non-broadcast dim (expand(T0, [T1.size(0), …]), as nvFuser takes it)
      // must equal the dim's extent at run time: the evaluator checks the recorded size then.
      if (have !== null && want !== null && have !== want) {
        throw new FusionIrError(`expand: dim ${d} of ${describe(tv)} is not a broadcast and cannot be expanded to ${want}`);
      }
      return copyId(id);
    }
    if (e.constNumber() === 1) return fusion.newIterDomain(fusion.index(1), 'Broadcast');
    return fusion.newIterDomain(fusion.index(1), 'Broadcast', { expandedExtent: e });
  });
  const out = fusion.newTensorFromDomain(logical, tv.dtype);
  new ExpandOp(fusion, out, tv, extents);
  return out;
}

/**
 * squeeze(tv, dims): removes size-1 dims. A dim with a constant extent other than 1 is an error;
 * a symbolic extent is checked when the fusion runs.
 */
export function squeeze(tv: TensorView, dims: readonly number[], options: { squeezeExpanded?: boolean } = {}): TensorView {
  const ids = tv.domain.logicalNoReductions();
  const flags = new Array<boolean>(ids.length).fill(false);
  for (const dim of dims) {
    const d = normalizeDim('squeeze', tv, dim);
    if (flags[d] === true) throw new FusionIrError(`squeeze: dim ${dim} of T${tv.name} given twice`);
    const id = ids[d] as IterDomain;
    if (id.isBroadcast() && id.expandedExtent !== null) {
      // nvFuser refuses to drop an expanded broadcast unless asked (squeeze_expanded=True).
      if (options.squeezeExpanded !== true) {
        throw new FusionIrError(`squeeze: dim ${d} of ${describe(tv)} is an expanded broadcast (size ${id.expandedExtent.symbolicName()}); pass squeeze_expanded=True to squeeze it`);
      }
      flags[d] = true;
      continue;
    }
    const extent = id.logicalExtent().constNumber();
    if (extent !== null && extent !== 1) {
      throw new FusionIrError(`squeeze: cannot squeeze dim ${d} of ${describe(tv)}: its size is ${extent}, not 1`);
    }
    flags[d] = true;
  }
  const logical = ids.filter((_, d) => flags[d] !== true).map(copyId);
  const out = tv.fusion.newTensorFromDomain(logical, tv.dtype);
  new SqueezeOp(tv.fusion, out, tv, flags);
  return out;
}

/**
 * permute(tv, dims): output dim i is input dim dims[i] (torch.permute). A LoadStoreOp whose output
 * root domain lists the IDs in input order and whose logical domain is the permuted root.
 */
export function permute(tv: TensorView, dims: readonly number[]): TensorView {
  const ids = tv.domain.logicalNoReductions();
  const rank = ids.length;
  const perm = dims.map((d) => {
    if (!Number.isInteger(d) || d < -rank || d >= rank) {
      throw new FusionIrError(`permute: [${dims.join(', ')}] is not a permutation of the ${rank} dims of ${describe(tv)}`);
    }
    return d < 0 ? d + rank : d;
  });
  if (perm.length !== rank || new Set(perm).size !== rank) {
    throw new FusionIrError(`permute: [${dims.join(', ')}] is not a permutation of the ${rank} dims of ${describe(tv)}`);
  }
  const root = ids.map(copyId);
  const logical = perm.map((p) => root[p] as IterDomain);
  const out = tv.fusion.newTensorView(new TensorDomain({ root, logical }), tv.dtype);
  new LoadStoreOp(tv.fusion, 'Set', out, tv, perm);
  return out;
}

/** transpose(tv, dim0, dim1): swaps two dims (a permute). */
export function transpose(tv: TensorView, dim0 = 0, dim1 = 1): TensorView {
  const rank = tv.rank();
  const a = normalizeDim('transpose', tv, dim0);
  const b = normalizeDim('transpose', tv, dim1);
  const perm = Array.from({ length: rank }, (_, d) => d);
  perm[a] = b;
  perm[b] = a;
  return permute(tv, perm);
}

function copyOp(tv: TensorView, opType: 'Set' | 'SegmenterSet'): TensorView {
  const out = tv.fusion.newTensorFromDomain(tv.domain.logicalNoReductions().map(copyId), tv.dtype);
  new LoadStoreOp(tv.fusion, opType, out, tv, null);
  return out;
}

/** set(tv): a copy (LoadStoreOp Set); the values are those of `tv`. */
export function set(tv: TensorView): TensorView {
  return copyOp(tv, 'Set');
}

/** segmentSet(tv): a copy that forces a segment boundary (LoadStoreOp SegmenterSet). */
export function segmentSet(tv: TensorView): TensorView {
  return copyOp(tv, 'SegmenterSet');
}

/** Checks `tv` has exactly `expected` sizes where both are constant (used by composites). */
export function checkShape(op: string, tv: TensorView, expected: readonly Scalar[]): void {
  const have = shape(tv);
  const mismatch =
    have.length !== expected.length ||
    have.some((h, d) => {
      const a = h.constNumber();
      const b = (expected[d] as Scalar).constNumber();
      return a !== null && b !== null && a !== b;
    });
  if (mismatch) throw new FusionIrError(`${op}: ${describe(tv)} should have sizes ${sizesText(expected)}`);
}
