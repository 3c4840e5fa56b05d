// The pointwise schedule's resize steps (nvFuser's ResizeScheduler::schedule, in small), run on
// the scheduler's own copy of the fusion:
//   prepareResize       a cat reading one tensor twice reads a copy the second time; computed
//                       tensors wanted in two index spaces are recomputed (index-space.ts);
//   cacheInputBySpace   an input read in several index spaces gets one cache per space (the
//                       reference space's cache is the ordinary one), so each cache is loaded
//                       at its own shifted index;
//   inlineResizeProducer a resize's producer is computed at the consumer's point (its index
//                       shifted), so it shares all of the consumer's loops although the resized
//                       IDs have other extents — nvFuser propagates the resize into the
//                       producer's loop domain to the same effect.
// Invariant: afterwards computeIndexSpaces finds no conflict.

import { CatOp, LoadStoreOp, replaceExprVals, TensorDomain, type Expr, type Fusion, type IterDomain, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../domain-map.js';
import { computeIndexSpaces, hasResizeExprs, identitySpace, isResizeExpr, spaceKey, type IndexSpaces } from './index-space.js';

function copyTensor(tv: TensorView): TensorView {
  const logical = tv.domain.logicalNoReductions().map((id: IterDomain) =>
    tv.fusion.newIterDomain(id.extent, id.isBroadcast() ? 'Broadcast' : 'Iteration', { expandedExtent: id.expandedExtent }),
  );
  const c = tv.fusion.newTensorView(new TensorDomain({ logical }), tv.dtype);
  c.memoryType = 'Local';
  return c;
}

/** cat([x, x]) reads x at two shifts: the second read goes through a copy. */
function separateRepeatedCatInputs(fusion: Fusion): void {
  for (const e of fusion.exprs()) {
    if (e.kind !== 'CatOp' || new Set(e.inputs).size === e.inputs.length) continue;
    const seen = new Set<Val>();
    const inputs = (e.inputs as TensorView[]).map((t) => {
      if (!seen.has(t)) {
        seen.add(t);
        return t;
      }
      const c = copyTensor(t);
      new LoadStoreOp(fusion, 'Set', c, t, null);
      return c;
    });
    fusion.removeExpr(e);
    new CatOp(fusion, e.out() as TensorView, inputs, e.axis);
  }
}

/** Index spaces of `fusion` with every output in `ref`'s space (exact logical map). */
export function indexSpacesOf(fusion: Fusion, ref: TensorView, opts: { privatize?: boolean } = {}): IndexSpaces {
  const plain = new ExactLogicalMap(fusion);
  return computeIndexSpaces(fusion, (o) => identitySpace(plain.mapToReference(o, ref)), opts);
}

/** Readies a fusion with resize ops for the pointwise schedule; null without resize ops. */
export function prepareResize(fusion: Fusion, ref: TensorView): IndexSpaces | null {
  if (!hasResizeExprs(fusion)) return null;
  separateRepeatedCatInputs(fusion);
  return indexSpacesOf(fusion, ref, { privatize: true });
}

/**
 * Caches input `tv`: one cache per index space its uses read it in (`spaces` null: one cache
 * for all uses, cacheAfter). Returns the caches.
 */
export function cacheInputBySpace(tv: TensorView, spaces: IndexSpaces | null): TensorView[] {
  if (spaces === null) return [tv.cacheAfter()];
  const groups = new Map<string, Expr[]>();
  for (const use of tv.uses) {
    const sp = spaces.ofAccess(use, tv);
    const key = sp === null ? 'none' : spaceKey(sp);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [use]);
    else g.push(use);
  }
  const caches: TensorView[] = [];
  for (const uses of groups.values()) {
    const c = copyTensor(tv);
    new LoadStoreOp(tv.fusion, 'Set', c, tv, null);
    for (const use of uses) replaceExprVals(use, new Map<Val, Val>([[tv, c]]));
    caches.push(c);
  }
  return caches;
}

/** Whether some consumer of `tv` is a resize op. */
export function feedsResize(tv: TensorView): boolean {
  return tv.uses.some(isResizeExpr);
}

/**
 * Inlines a resize's producer at `pos` without the loop-map check (the resized IDs differ in
 * extent but iterate together, the producer read at the shifted index); consumers' produce
 * positions are raised to match.
 */
export function inlineResizeProducer(tv: TensorView, pos: number): void {
  tv.computeAtPosition = pos;
  for (const use of tv.uses) {
    for (const o of use.outputs) if (o.kind === 'tensorView') o.maxProducerPosition = Math.max(o.maxProducerPosition, pos);
  }
}
