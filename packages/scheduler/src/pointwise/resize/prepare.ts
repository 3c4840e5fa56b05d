// The pointwise schedule's resize steps (nvFuser's ResizeScheduler::schedule, in small), run on
// the scheduler's own copy of the fusion:
//   prepareResize       a cat reading one tensor twice reads a copy the second time; computed
//                       tensors wanted in two index spaces are recomputed (index-space.ts);
//   cacheInputBySpace   an input read in several index spaces gets one cache per space (the
//                       reference space's cache is the ordinary one), so each cache is loaded
//                       at its own shifted index; the uses are grouped once, before caching
//                       rebuilds any expression (ResizePlan);
//   inlineResizeProducer a resize's producer is computed at the consumer's point (its index
//                       shifted), so it shares all of the consumer's loops although the resized
//                       IDs have other extents — nvFuser propagates the resize into the
//                       producer's loop domain to the same effect.
// Invariant: afterwards computeIndexSpaces finds no conflict.

import { CatOp, LoadStoreOp, replaceExprVals, TensorDomain, type Expr, type Fusion, type IterDomain, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../../analysis/domain-map.js';
import { computeIndexSpaces, hasResizeExprs, identitySpace, isResizeExpr, spaceKey, type DimSpace, type IndexSpace, type IndexSpaces } from './index-space.js';
import { outputSliceSpace } from './output-slice-space.js';

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

/**
 * Index spaces of `fusion` with every output in `ref`'s space (exact logical map); a dim a
 * reduction reduces is read in the space of the reference dim it maps to (the reduction
 * scheduler's reference is the reduction input).
 */
export function indexSpacesOf(fusion: Fusion, ref: TensorView, opts: { privatize?: boolean; plainMap?: ExactLogicalMap } = {}): IndexSpaces {
  // `plainMap`: the fusion's exact map not crossing resizes, when the caller has it (lowering's).
  const plain = opts.plainMap ?? new ExactLogicalMap(fusion);
  const refDims = ref.domain.logicalNoReductions();
  const reducedSpace = (id: IterDomain): DimSpace | null => {
    const d = refDims.findIndex((r) => plain.same(r, id));
    return d < 0 ? null : { refDim: d, steps: [] };
  };
  // An output past a slice of the reference's space is written at the shifted index (inner
  // persistent kernels; the other schedulers refuse such outputs): output-slice-space.ts.
  const outputSpace = (o: TensorView): IndexSpace => {
    const m = plain.mapToReference(o, ref);
    const mapped = o.domain.logicalNoReductions().every((id, d) => id.isBroadcast() || m[d] !== -1);
    return (mapped ? null : outputSliceSpace(o, ref, plain)) ?? identitySpace(m);
  };
  return computeIndexSpaces(fusion, outputSpace, { ...(opts.privatize === undefined ? {} : { privatize: opts.privatize }), reducedSpace });
}

/**
 * What the caching step needs, taken before any rewiring: each input's uses grouped by the index
 * space they read it in. Caching an input rebuilds its uses' expressions (an expression reading
 * two inputs is rebuilt twice), so `rebuilt` follows each expression to its current version.
 */
export interface ResizePlan {
  spaces: IndexSpaces;
  useGroups: Map<TensorView, Expr[][]>;
  rebuilt: Map<Expr, Expr>;
}

/** Readies a fusion with resize ops for the pointwise schedule; null without resize ops. */
export function prepareResize(fusion: Fusion, ref: TensorView): ResizePlan | null {
  if (!hasResizeExprs(fusion)) return null;
  separateRepeatedCatInputs(fusion);
  const spaces = indexSpacesOf(fusion, ref, { privatize: true });
  const useGroups = new Map<TensorView, Expr[][]>();
  for (const tv of fusion.inputs) {
    if (tv.kind !== 'tensorView') continue;
    const groups = new Map<string, Expr[]>();
    for (const use of tv.uses) {
      const sp = spaces.ofAccess(use, tv);
      const key = sp === null ? 'none' : spaceKey(sp);
      const g = groups.get(key);
      if (g === undefined) groups.set(key, [use]);
      else g.push(use);
    }
    useGroups.set(tv, [...groups.values()]);
  }
  return { spaces, useGroups, rebuilt: new Map() };
}

/**
 * Caches input `tv`: one cache per index space its uses read it in (`plan` null: one cache
 * for all uses, cacheAfter). Returns the caches.
 */
export function cacheInputBySpace(tv: TensorView, plan: ResizePlan | null): TensorView[] {
  if (plan === null) return [tv.cacheAfter()];
  const current = (e: Expr): Expr => {
    let x = e;
    for (let next = plan.rebuilt.get(x); next !== undefined; next = plan.rebuilt.get(x)) x = next;
    return x;
  };
  const caches: TensorView[] = [];
  for (const uses of plan.useGroups.get(tv) ?? [[...tv.uses]]) {
    const c = copyTensor(tv);
    new LoadStoreOp(tv.fusion, 'Set', c, tv, null);
    for (const use of uses) {
      const old = current(use);
      plan.rebuilt.set(old, replaceExprVals(old, new Map<Val, Val>([[tv, c]])));
    }
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
