// Applies PointwiseParams to a fusion (in place):
//   1. cache every input of the reference's rank (cacheAfter; not the lookup tensors of indexed
//      loads, read in place at computed addresses) and every output (cacheBefore,
//      or cacheFork when the output is also used inside the fusion); a vectorized lower-rank
//      input's broadcasts serve as its cache (broadcast-reads.ts);
//   2. transform the reference: merge to [outer, inner] at the break point (or to one dim),
//      split the inner by the vector width, blockDim.x and the unroll factor, the outer by
//      blockDim.y and the gridDim.y limit; loop order
//      1-D: [BIDx, (Unroll), TIDx, (V)]
//      2-D: [BIDy, (serial rest of y), (TIDy), BIDx, (Unroll), TIDx, (V)];
//   3. propagate the transforms to every tensor (TransformPropagator) and copy the reference's
//      parallel types position by position;
//   4. vectorize the innermost ID of the vectorizable input caches and outputs, and of the
//      outputs of indexed loads whose lookup is vectorized (whole-row vector loads);
//   5. inline: input caches at the first per-thread position (so each thread issues all its
//      unrolled vector loads before computing), everything else as deep as legal but never
//      inside a consumer's vectorized ID.
// With slice / pad / cat (resize/prepare.ts): tensors wanted in two index spaces are
// recomputed first, inputs get one cache per index space they are read in, and a resize's
// producers are inlined into it as if their resized IDs were mapped.
// Invariant: every tensor that is not a fusion input and has the reference's rank ends with a
// loop domain positionally aligned with the reference's (lowering relies on it).

import {
  inlineAt,
  maxInlinePosition,
  consumersOf,
  propagateTransforms,
  type Fusion,
  type ParallelType,
  type Split,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { PointwiseParams } from '../heuristic-params.js';
import type { ScheduledFusion } from '../scheduler.js';
import { findReferenceOutput } from '../analysis/domain-map.js';
import { broadcastReadsOf } from './broadcast-reads.js';
import { indexedLoadOf, lookupOnlyTensors } from './indexed-loads.js';
import { MAX_GRID_Y } from './heuristics.js';
import { cacheInputBySpace, feedsResize, inlineResizeProducer, prepareResize } from './resize/prepare.js';
import { scheduledFusion } from '../scheduler.js';

function tensorRank(tv: TensorView): number {
  return tv.domain.logicalNoReductions().length;
}

/** Splits `tv` at `axis` and returns the Split expression created. */
function splitAt(tv: TensorView, axis: number, factor: number, innerSplit = true): Split {
  tv.split(axis, factor, innerSplit);
  const def = tv.axis(axis).definition;
  if (def === null || def.kind !== 'Split') throw new SchedulingError(`split of T${tv.name} axis ${axis} created no Split`);
  return def;
}

export function schedulePointwise(fusion: Fusion, params: PointwiseParams): ScheduledFusion {
  const refBefore = findReferenceOutput(fusion);
  if (refBefore === null) throw new SchedulingError('pointwise schedule: the fusion has no tensor outputs');
  const refIndex = fusion.outputs.indexOf(refBefore);
  const rank = tensorRank(refBefore);

  // 1. caches
  const resizePlan = prepareResize(fusion, refBefore);
  const inputCaches = new Map<TensorView, number>();
  const lookups = lookupOnlyTensors(fusion);
  fusion.inputs.forEach((v, i) => {
    if (v.kind !== 'tensorView' || v.uses.length === 0 || lookups.has(v)) return;
    if (tensorRank(v) !== rank) {
      // A lower-rank input's broadcasts are its loads (broadcast-reads.ts).
      for (const b of broadcastReadsOf(v, rank, params.vectorizedInputs.includes(i))) inputCaches.set(b, i);
      return;
    }
    for (const c of cacheInputBySpace(v, resizePlan)) inputCaches.set(c, i);
  });
  for (const o of [...fusion.outputs]) {
    if (o.kind !== 'tensorView') continue;
    if (o.uses.length > 0) o.cacheFork();
    else o.cacheBefore();
  }
  const ref = fusion.outputs[refIndex];
  if (ref === undefined || ref.kind !== 'tensorView') throw new SchedulingError('pointwise schedule: lost the reference output');

  // 2. reference transforms
  const splits: Split[] = [];
  const types: ParallelType[] = [];
  const v = params.vectorizationFactor;
  const u = params.unrollFactorInner;
  const hasIteration = ref.domain.logicalNoReductions().some((id) => !id.isBroadcast());
  let innerStart = 0;
  if (hasIteration) {
    const bp = params.breakPoint;
    if (bp === 0) {
      while (ref.nDims() > 1) ref.merge(0);
    } else {
      while (ref.nDims() > rank - bp + 1) ref.merge(0);
      while (ref.nDims() > 2) ref.merge(1);
    }
    const innerAxis = bp === 0 ? 0 : 1;
    if (v > 1) splits.push(splitAt(ref, innerAxis, v));
    splits.push(splitAt(ref, innerAxis, params.lparams.bdimx));
    if (u > 1) splits.push(splitAt(ref, innerAxis, u));
    const inner: ParallelType[] = ['BIDx', ...(u > 1 ? (['Unroll'] as const) : []), 'TIDx', ...(v > 1 ? (['Serial'] as const) : [])];
    const outer: ParallelType[] = [];
    if (bp > 0) {
      outer.push('BIDy');
      if (params.lparams.bdimy > 1) {
        splits.push(splitAt(ref, 0, params.lparams.bdimy));
        outer.push('TIDy');
      }
      if (params.splitGridYDim) {
        splits.push(splitAt(ref, 0, MAX_GRID_Y, false));
        outer.splice(1, 0, 'Serial');
      }
    }
    types.push(...outer, ...inner);
    innerStart = outer.length + 1;
    if (types.length !== ref.nDims()) {
      throw new SchedulingError(`pointwise schedule: T${ref.name} has ${ref.nDims()} loop dims, expected ${types.length}`);
    }
  }

  // 3. propagate and parallelize positionally
  propagateTransforms(ref);
  const aligned = fusion.allTvs().filter((tv) => !tv.isFusionInput() && tv.nDims() === ref.nDims());
  for (const tv of aligned) types.forEach((t, p) => tv.axis(p).parallelize(t));

  // 4. vectorize
  if (v > 1 && hasIteration) {
    for (const [cache, i] of inputCaches) {
      if (params.vectorizedInputs.includes(i) && cache.nDims() === ref.nDims()) cache.axis(-1).parallelize('Vectorize');
    }
    // A vectorized lookup: the indexed loads reading it write whole vectors into their (local) outputs.
    for (const e of fusion.exprs()) {
      const load = indexedLoadOf(e);
      const out = e.outputs[0];
      if (load === null || out === undefined || out.kind !== 'tensorView' || out.memoryType !== 'Local' || out.nDims() !== ref.nDims()) continue;
      if (params.vectorizedInputs.includes(fusion.inputs.indexOf(load.lookup))) out.axis(-1).parallelize('Vectorize');
    }
    params.vectorizedOutputs.forEach((i) => {
      const o = fusion.outputs[i];
      if (o !== undefined && o.kind === 'tensorView' && o.nDims() === ref.nDims()) o.axis(-1).parallelize('Vectorize');
    });
  }

  // 5. inline
  for (const tv of aligned) {
    if (tv.isFusionOutput() && consumersOf(tv).length === 0) continue;
    const resizeProducer = feedsResize(tv);
    let pos = resizeProducer ? tv.domain.loop.findIndex((id) => id.parallelType === 'Vectorize') : maxInlinePosition(tv);
    if (resizeProducer && pos < 0) pos = tv.nDims();
    if (inputCaches.has(tv)) pos = Math.min(pos, innerStart);
    for (const c of consumersOf(tv)) {
      const vpos = c.domain.loop.findIndex((id) => id.parallelType === 'Vectorize');
      if (vpos >= 0) pos = Math.min(pos, vpos);
    }
    if (pos > 0 && resizeProducer) inlineResizeProducer(tv, pos);
    else if (pos > 0) inlineAt(tv, pos);
  }

  const divisibleSplits = new Set<Split>();
  splits.forEach((s, i) => {
    if (params.divisibleSplits[i] === true) divisibleSplits.add(s);
  });
  if (splits.length !== params.divisibleSplits.length && hasIteration) {
    throw new SchedulingError(`pointwise schedule: applied ${splits.length} splits but the heuristics describe ${params.divisibleSplits.length}`);
  }
  return scheduledFusion(fusion, ref, divisibleSplits, params);
}
