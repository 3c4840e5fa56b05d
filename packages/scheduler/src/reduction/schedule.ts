// Applies ReductionParams to a fusion (in place), the way nvFuser's reduction scheduler does:
//   1. cache every used input (cacheAfter) and every output (cacheBefore, or cacheFork when
//      the output is also used), so the reduction itself is a Local tensor R;
//   2. transform R: reorder its kept dims first, merge them into one iteration dim I and the
//      reduced dims into one reduction dim Rd, then split (a grid reduction adds rBIDy, split
//      off the serial dim, before it)
//        inner:  [I/bdimy, bdimy, bdimx, Rd/(v·bdimx), v]   (BIDx, TIDy, rTIDx, rS, rS|V)
//                (unrolled, not vectorized: Rd = (Ro·u + j)·bdimx + tidx, same positions)
//        outer:  [I/bdimx, bdimx, bdimy, Rd/(u·bdimy), u]   (BIDx, TIDx, rTIDy, rS, rS)
//                (iteration vectors: [I/(vi·bdimx), bdimx, bdimy, Ro, u, vi]; the lanes vi
//                innermost, a vector load of the input caches; after rFactor the reduction
//                R is [BIDx, TIDx, rTIDy, vi]: the lowering's gapped alignment)
//      (no iteration dim: [bdimx, Rd/(v·bdimx), v]); a parallel dim of extent 1 stays Serial;
//   3. rFactor the serial reduction dims: P does the per-thread serial part, R reduces across
//      threads (a block reduction) or over a trivial dim (just rounds to R's dtype);
//   4. propagate P's transforms to every tensor, copy its parallel types, vectorize the input
//      caches of inner reductions, inline as deep as legal (unrolled input caches stop before
//      the unrolled position: all loads of a step are issued first); with slice / pad / cat
//      before the reduction, inputs are cached once per index space they are read in and a
//      resize's producers are inlined at its loops (resize-before-reduction.ts); tensors past a
//      reshape of the result take its iteration loops through the reshape
//      (views-after-reduction.ts).
// Invariant the lowering relies on: the reduction input (the lowering reference) has P's loop
// structure; every other tensor's loop domain is a prefix of it (tensors after the reduction
// have only the iteration positions; R also has the parallel reduction position) — or, with
// iteration vectors, such a prefix followed by the lanes position (the reference's last).

import {
  dataTypeSize,
  inlineAt,
  inlineMost,
  loopExprs,
  parallelizeAllLike,
  propagateTransforms,
  type Fusion,
  type IterDomain,
  type Merge,
  type ParallelType,
  type Split,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { ScheduledFusion } from '../scheduler.js';
import { reductionPattern, type ReductionPattern } from './analysis.js';
import { requirePattern } from './heuristics.js';
import type { ReductionParams } from './params.js';
import { cacheReductionInputsAndOutputs } from './resize-before-reduction.js';
import { feedsResize, inlineResizeProducer } from '../pointwise/resize/prepare.js';
import { scheduleViewsAfterReduction } from './views-after-reduction.js';
import { scheduledFusion } from '../scheduler.js';

/** Which chain a split of the reference belongs to and how many splits precede it there. */
type SplitKey = `${'iter' | 'red'}${number}`;

/** Reorders R's loop to [kept..., reduced...] and merges each group into one dim. */
function mergeToIterationAndReduction(r: TensorView, p: ReductionPattern): boolean {
  const order = [...p.iterationDims, ...p.reducedDims];
  const map: Record<number, number> = {};
  order.forEach((old, pos) => {
    map[old] = pos;
  });
  r.reorder(map);
  let nI = p.iterationDims.length;
  for (let k = p.reducedDims.length; k > 1; k -= 1) r.merge(nI);
  for (; nI > 1; nI -= 1) r.merge(0);
  return p.iterationDims.length > 0;
}

function splitAt(tv: TensorView, axis: number, factor: number): void {
  tv.split(axis, factor, true);
}

/** Root logical IDs an ID of `tv` derives from (through its loop exprs). */
function logicalSources(id: IterDomain, producerOf: ReadonlyMap<IterDomain, Split | Merge>): IterDomain[] {
  const def = producerOf.get(id);
  if (def === undefined) return [id];
  return (def.inputs as IterDomain[]).flatMap((i) => logicalSources(i, producerOf));
}

/** Keys of the reference's splits: chain (iteration / reduction) and depth within it. */
function referenceSplitKeys(ref: TensorView, reducedDims: readonly number[]): Map<Split, SplitKey> {
  const logical = ref.domain.logicalNoReductions();
  const reduced = new Set(reducedDims.map((d) => logical[d]));
  const producerOf = new Map<IterDomain, Split | Merge>();
  const exprs = loopExprs(ref);
  for (const e of exprs) for (const o of e.outputs) producerOf.set(o as IterDomain, e);
  const depth = new Map<IterDomain, number>();
  const keys = new Map<Split, SplitKey>();
  for (const e of exprs) {
    const d = Math.max(0, ...(e.inputs as IterDomain[]).map((i) => depth.get(i) ?? 0));
    if (e.kind === 'Split') {
      const chain = logicalSources(e.in(), producerOf).some((s) => reduced.has(s)) ? 'red' : 'iter';
      keys.set(e, `${chain}${d}`);
      for (const o of e.outputs) depth.set(o as IterDomain, d + 1);
    } else {
      for (const o of e.outputs) depth.set(o as IterDomain, d);
    }
  }
  return keys;
}

export function scheduleReduction(fusion: Fusion, params: ReductionParams): ScheduledFusion {
  const inputCaches = cacheReductionInputsAndOutputs(fusion, requirePattern(fusion).input);
  const before = requirePattern(fusion);
  const pattern = reductionPattern(before.expr);
  if (pattern === null) throw new SchedulingError('reduction schedule: lost the reduction');
  const r = pattern.reduction;
  const hasIteration = mergeToIterationAndReduction(r, pattern);
  const { bdimx, bdimy } = params.lparams;
  const gdimy = params.gridReductionBlocksY;
  const grid = params.crossGridInnerReduction && gdimy > 1;
  const v = params.unrollFactorInnerReduction;
  const par = (extent: number, t: ParallelType): ParallelType => (extent > 1 ? t : 'Serial');
  let types: ParallelType[];
  let rFactorAxes: number[];
  // Keys of the splits in the order the heuristics list their divisibility.
  let order: SplitKey[];
  if (params.fastestDim) {
    const ra = hasIteration ? 1 : 0;
    if (params.vectorizeInnerReduction || v === 1) {
      splitAt(r, ra, v); //                   [I, Rd/v, v]
      splitAt(r, ra, bdimx); //               [I, Rd/v/bdimx, bdimx, v]
    } else {
      splitAt(r, ra, bdimx); //               [I, Rd/bdimx, bdimx]
      splitAt(r, ra, v); //                   [I, Rd/bdimx/u, u, bdimx]
      r.reorder({ [ra + 1]: ra + 2, [ra + 2]: ra + 1 }); // [I, Ro, bdimx, u]
    }
    // [I, Ro, bdimx, v]: the grid split takes blockIdx.y out of Ro → [I, Ro/gdimy, gdimy, bdimx, v]
    if (grid) splitAt(r, ra, gdimy);
    const g = grid ? 1 : 0;
    if (hasIteration) {
      splitAt(r, 0, bdimy); //                [I/bdimy, bdimy, Ro, (gdimy), bdimx, v]
      // → [I/bdimy, bdimy, bdimx, (gdimy), Ro, v]
      r.reorder(grid ? { 2: 4, 3: 3, 4: 2 } : { 2: 3, 3: 2 });
      types = ['BIDx', par(bdimy, 'TIDy'), par(bdimx, 'TIDx'), ...(grid ? (['BIDy'] as const) : []), 'Serial', 'Serial'];
      rFactorAxes = [3 + g, 4 + g];
      order = ['red0', 'red1', ...(grid ? (['red2'] as const) : []), 'iter0'];
    } else {
      // → [bdimx, (gdimy), Ro, v]
      r.reorder(grid ? { 0: 2, 1: 1, 2: 0 } : { 0: 1, 1: 0 });
      types = [par(bdimx, 'TIDx'), ...(grid ? (['BIDy'] as const) : []), 'Serial', 'Serial'];
      rFactorAxes = [1 + g, 2 + g];
      order = ['red0', 'red1', ...(grid ? (['red2'] as const) : [])];
    }
  } else {
    if (!hasIteration) throw new SchedulingError('reduction schedule: an outer reduction needs a kept dim');
    const vi = params.unrollFactorIterDom;
    if (vi > 1) {
      splitAt(r, 0, vi); //                   [I/vi, vi, Rd]
      splitAt(r, 0, bdimx); //                [I/vi/bdimx, bdimx, vi, Rd]
      r.reorder({ 2: 3, 3: 2 }); //           [I/vi/bdimx, bdimx, Rd, vi]
    } else {
      splitAt(r, 0, bdimx); //                [I/bdimx, bdimx, Rd]
    }
    splitAt(r, 2, v); //                      [I/bdimx, bdimx, Rd/u, u, (vi)]
    splitAt(r, 2, bdimy); //                  [I/bdimx, bdimx, Rd/u/bdimy, bdimy, u, (vi)]
    if (grid) {
      splitAt(r, 2, gdimy); //                [I/bdimx, bdimx, Ro, gdimy, bdimy, u, (vi)]
      r.reorder({ 2: 4, 4: 2 }); //           [I/bdimx, bdimx, bdimy, gdimy, Ro, u, (vi)]
    } else {
      r.reorder({ 2: 3, 3: 2 }); //           [I/bdimx, bdimx, bdimy, Ro, u, (vi)]
    }
    const g = grid ? 1 : 0;
    types = ['BIDx', par(bdimx, 'TIDx'), par(bdimy, 'TIDy'), ...(grid ? (['BIDy'] as const) : []), 'Serial', 'Serial', ...(vi > 1 ? (['Serial'] as const) : [])];
    rFactorAxes = [3 + g, 4 + g];
    order = [...(vi > 1 ? (['iter0', 'iter1'] as const) : (['iter0'] as const)), 'red0', 'red1', ...(grid ? (['red2'] as const) : [])];
  }
  types.forEach((t, p) => r.axis(p).parallelize(t));
  const partial = r.rFactor(rFactorAxes);
  propagateTransforms(partial);
  parallelizeAllLike(partial);
  scheduleViewsAfterReduction(fusion, r, pattern.outputs);

  const ref = partial.definition?.inputs[0];
  if (ref === undefined || ref.kind !== 'tensorView') throw new SchedulingError('reduction schedule: the partial reduction has no tensor input');
  if (ref.nDims() !== partial.nDims()) {
    throw new SchedulingError(`reduction schedule: reduction input T${ref.name} has ${ref.nDims()} loop dims, the partial T${partial.name} ${partial.nDims()}`);
  }
  const iterVector = params.vectorizeIterDom && params.unrollFactorIterDom > 1;
  if ((params.vectorizeInnerReduction && v > 1) || iterVector) {
    for (const [cache, i] of inputCaches) {
      if (params.vectorizedInputs.includes(i) && cache.nDims() === partial.nDims()) cache.axis(-1).parallelize('Vectorize');
    }
  }
  // Outputs written inside the reduction loops (pre-reduction outputs) store their lanes as one
  // vector too, where it is at most 16 bytes and the output is dense (no stride order).
  if (iterVector) {
    for (const o of fusion.outputs) {
      if (o.kind !== 'tensorView' || o.nDims() !== partial.nDims() || o.axis(-1).isBroadcast() || o.domain.allocation !== null) continue;
      if (params.unrollFactorIterDom * dataTypeSize(o.dtype) <= 16) o.axis(-1).parallelize('Vectorize');
    }
  }
  inlineMost(fusion);
  // Unrolled (not vectorized) loads: the input caches stop before the unrolled position, so
  // each thread issues all its loads of a serial step before computing on them (outer
  // reductions with iteration vectors: the unrolled rows are the position before the lanes).
  const last = partial.nDims() - (iterVector ? 2 : 1);
  if (!params.vectorizeInnerReduction && v > 1) {
    for (const cache of inputCaches.keys()) {
      if (cache.nDims() === partial.nDims() && cache.computeAtPosition > last) inlineAt(cache, last);
    }
  }
  // Iteration vectors: the block (grid) reduction keeps its lanes in one buffer outside the
  // loop of its consumers, so the lowering reduces all lanes in one call (grouped reduction).
  if (iterVector && r.computeAtPosition > r.nDims() - 1) inlineAt(r, r.nDims() - 1);

  // Slice / pad / cat before the reduction: a resize's producers are computed at the
  // consumer's point (read at the shifted index), inside all of its loops but a vectorized one.
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() || !feedsResize(tv) || tv.nDims() !== partial.nDims()) continue;
    let pos = tv.domain.loop.findIndex((id) => id.parallelType === 'Vectorize');
    if (pos < 0) pos = tv.nDims();
    if (!params.vectorizeInnerReduction && v > 1 && inputCaches.has(tv)) pos = Math.min(pos, last);
    if (pos > 0) inlineResizeProducer(tv, pos);
  }

  const keys = referenceSplitKeys(ref, pattern.reducedDims);
  const divisibleSplits = new Set<Split>();
  for (const [split, key] of keys) {
    const i = order.indexOf(key);
    if (i < 0) throw new SchedulingError(`reduction schedule: unexpected split ${key} of the reference T${ref.name}`);
    if (params.divisibleSplits[i] === true) divisibleSplits.add(split);
  }
  if (keys.size !== order.length) {
    throw new SchedulingError(`reduction schedule: the reference T${ref.name} has ${keys.size} splits, the heuristics describe ${order.length}`);
  }
  return scheduledFusion(fusion, ref, divisibleSplits, params);
}
