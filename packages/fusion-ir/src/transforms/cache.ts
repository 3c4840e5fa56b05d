// Caching transforms (nvFuser's cacheAfter / cacheBefore / cacheFork): insert a copy
// (LoadStoreOp Set) next to a tensor so that it can be staged in registers or shared memory.
// The values every output receives never change; only which tensor holds them in between.
//
//   cacheAfter(tv):  c = set(tv); every consumer of tv reads c instead.        Returns c.
//   cacheBefore(tv): tv's definition now writes c (c takes over tv's domain, reduction IDs and
//                    loop transforms included) and tv = set(c) gets a fresh logical domain.
//                    Returns c.
//   cacheFork(tv):   tv is an output that is also used: a new output c = set(tv) replaces tv
//                    among the outputs; tv stays an intermediate for its other uses. Returns c.
// The tensor left in global memory (tv after cacheBefore, c after cacheFork) keeps the
// allocation order (stride order) tv had — as in nvFuser, where the output's allocation domain
// is what the runtime allocates and the kernel writes through; the Local copy has none.
// Caches are Local memory; none of these transforms is allowed on an inlined tensor.

import { TransformError } from '../ir/errors.js';
import { LoadStoreOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { replaceExprVals } from '../ir/clone.js';
import { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { Val } from '../ir/val.js';

function copyIdForCache(id: IterDomain): IterDomain {
  return id.fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration', {
    expandedExtent: id.expandedExtent,
  });
}

/** A new Local tensor holding the non-reduction logical dims of `tv`. */
function newCacheTensor(tv: TensorView): TensorView {
  const logical = tv.domain.logicalNoReductions().map(copyIdForCache);
  const c = tv.fusion.newTensorView(new TensorDomain({ logical }), tv.dtype);
  c.memoryType = 'Local';
  return c;
}

/**
 * The allocation order of `from` (a permutation of its non-reduction logical dims) carried onto
 * `to`'s logical IDs, with `from`'s contiguity; `to` keeps no allocation domain when `from` had
 * none or one that is not such a permutation.
 */
function carryAllocationOrder(from: TensorDomain, to: TensorDomain): void {
  const allocation = from.allocation?.filter((id) => !id.isReduction());
  if (allocation === undefined) return;
  const fromLogical = from.logicalNoReductions();
  const toLogical = to.logicalNoReductions();
  const order = allocation.map((id) => fromLogical.indexOf(id));
  if (order.length !== toLogical.length || order.some((d) => d < 0)) return;
  to.allocation = order.map((d) => toLogical[d] as IterDomain);
  const contiguity = from.logical.map((id, d) => (id.isReduction() ? undefined : from.contiguity[d])).filter((c) => c !== undefined);
  to.contiguity = contiguity.map((c) => c ?? null);
}

function checkNotInlined(tv: TensorView, op: string): void {
  if (tv.computeAtPosition > 0 || tv.maxProducerPosition > 0) {
    throw new TransformError(`${op} of T${tv.name}: the tensor is already inlined; cache before inlining`);
  }
}

/** c = set(tv); all current consumers of tv read c. Returns c. */
export function cacheAfter(tv: TensorView): TensorView {
  checkNotInlined(tv, 'cacheAfter');
  const uses = [...tv.uses];
  const c = newCacheTensor(tv);
  new LoadStoreOp(tv.fusion, 'Set', c, tv, null);
  const replace = new Map<Val, Val>([[tv, c]]);
  for (const use of uses) replaceExprVals(use, replace);
  return c;
}

/** tv's definition writes a new cache c; tv = set(c). Returns c. */
export function cacheBefore(tv: TensorView): TensorView {
  checkNotInlined(tv, 'cacheBefore');
  const def = tv.definition;
  if (def === null) throw new TransformError(`cacheBefore of T${tv.name}: the tensor has no definition (is it a fusion input?)`);
  const fusion = tv.fusion;
  // c takes over tv's domain: the definition's semantics (reduction IDs, reshape root) live in it.
  const c = fusion.newTensorView(tv.domain, tv.dtype);
  c.memoryType = 'Local';
  const logical = c.domain.logicalNoReductions().map(copyIdForCache);
  tv.domain = new TensorDomain({ logical });
  carryAllocationOrder(c.domain, tv.domain);
  c.domain.allocation = null;
  replaceExprVals(def, new Map<Val, Val>([[tv, c]]));
  new LoadStoreOp(fusion, 'Set', tv, c, null);
  return c;
}

/** For an output that is also used: a new output c = set(tv) replaces tv among the outputs. Returns c. */
export function cacheFork(tv: TensorView): TensorView {
  checkNotInlined(tv, 'cacheFork');
  if (!tv.isFusionOutput()) throw new TransformError(`cacheFork of T${tv.name}: the tensor is not a fusion output`);
  if (tv.uses.length === 0) throw new TransformError(`cacheFork of T${tv.name}: the output has no other uses (use cacheBefore)`);
  const c = newCacheTensor(tv);
  carryAllocationOrder(tv.domain, c.domain);
  tv.domain.allocation = null;
  new LoadStoreOp(tv.fusion, 'Set', c, tv, null);
  tv.fusion.replaceOutput(tv, c);
  return c;
}
