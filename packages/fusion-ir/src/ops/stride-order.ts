// Allocation order of a tensor from nvFuser's stride order: `strideOrder(tv, order)` (nvFuser's
// fd.ops.stride_order: a copy whose memory layout follows `order`) and `setStrideOrder(tv, order)`
// (what add_output(t, stride_order=…) does to an output). order[d] is the rank of dim d's stride,
// rank-1 being the outermost; negative entries wrap. The allocation domain is the logical IDs in
// that order, every non-broadcast dim contiguous (nvFuser's setAllocationDomain(…, true)).
// Invariant: the allocation domain is a permutation of the logical IDs (reductions last).

import { FusionIrError } from '../ir/errors.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { set } from './alias.js';

/** The stride order with negatives wrapped; throws unless it is a permutation of 0..rank-1. */
export function normalizeStrideOrder(op: string, order: readonly number[], rank: number): number[] {
  if (order.length !== rank) {
    throw new FusionIrError(`${op}: stride_order [${order.join(', ')}] has ${order.length} entries for a tensor of rank ${rank}`);
  }
  const wrapped = order.map((v) => (Number.isInteger(v) && v < 0 ? v + rank : v));
  if (wrapped.some((v) => !Number.isInteger(v) || v < 0 || v >= rank) || new Set(wrapped).size !== rank) {
    throw new FusionIrError(`${op}: stride_order [${order.join(', ')}] is not a permutation of 0..${rank - 1}`);
  }
  return wrapped;
}

/** Sets `tv`'s allocation domain from a stride order (in place; `tv` is typically an output). */
export function setStrideOrder(tv: TensorView, order: readonly number[], op = 'stride_order'): void {
  const logical = tv.domain.logicalNoReductions();
  const wrapped = normalizeStrideOrder(op, order, logical.length);
  const allocation = new Array<IterDomain>(logical.length);
  logical.forEach((id, d) => {
    allocation[logical.length - 1 - (wrapped[d] as number)] = id;
  });
  // Reduction IDs (a reduction's own output) hold no memory: they go last.
  tv.domain.allocation = [...allocation, ...tv.domain.logical.filter((id) => id.isReduction())];
  tv.domain.contiguity = tv.domain.logical.map((id) => (id.isBroadcast() || id.isReduction() ? null : true));
}

/** strideOrder(tv, order): a copy of `tv` laid out in memory as `order` says (nvFuser's stride_order op). */
export function strideOrder(tv: TensorView, order: readonly number[]): TensorView {
  const out = set(tv);
  setStrideOrder(out, order);
  return out;
}
