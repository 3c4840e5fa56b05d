// Applies TransposeParams to a fusion (in place):
//   1. cache every used input of the reference's rank (cacheAfter) and every output
//      (cacheBefore, or cacheFork when it is also used inside the fusion);
//   2. tile the reference output: reorder its logical dims to [rest…, innerDim2, innerDim1],
//      split innerDim1 by tileSize1 and innerDim2 by tileSize2, order the tile dims innermost:
//      [rest…, d2/t2, d1/t1, t2, t1]; merge everything outside the tile into one dim; then the
//      tile (in the output's order, t1 innermost) splits by vectorizeFactor1 and blockDim.x:
//      loop domain [BIDx, Unroll, TIDx, (V)];
//   3. propagate the transforms to every tensor and copy the reference's parallel types;
//   4. vectorize the outputs and vectorizable group-1 input caches (vectorizeFactor1) and the
//      group-2 input caches, whose reads the codegen pass `transpose-smem-tile` turns into
//      vector reads of a shared-memory tile that the block filled with loads vectorized along
//      innerDim2 (the staged inputs' stride-1 dim);
//   5. inline as the pointwise scheduler does: input caches after BIDx (each thread's loads of
//      the tile before its math), everything else as deep as legal.
// Invariant: every non-input tensor of the reference's rank ends with a loop domain positionally
// aligned with the reference's, and the tile is the same for every tensor: position 0 is the
// tile index, positions 1.. the element within the tile in the reference's (output) order.

import { consumersOf, inlineAt, maxInlinePosition, propagateTransforms, type Fusion, type ParallelType, type Split, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { ScheduledFusion } from '../scheduler.js';
import { findReferenceOutput } from '../analysis/domain-map.js';
import type { TransposeParams } from './params.js';
import { scheduledFusion } from '../scheduler.js';

function tensorRank(tv: TensorView): number {
  return tv.domain.logicalNoReductions().length;
}

function splitAt(tv: TensorView, axis: number, factor: number): Split {
  tv.split(axis, factor, true);
  const def = tv.axis(axis).definition;
  if (def === null || def.kind !== 'Split') throw new SchedulingError(`transpose schedule: split of T${tv.name} axis ${axis} created no Split`);
  return def;
}

export function scheduleTranspose(fusion: Fusion, params: TransposeParams): ScheduledFusion {
  const refBefore = findReferenceOutput(fusion);
  if (refBefore === null) throw new SchedulingError('transpose schedule: the fusion has no tensor outputs');
  const refIndex = fusion.outputs.indexOf(refBefore);
  const rank = tensorRank(refBefore);
  const { innerDim1: d1, innerDim2: d2 } = params;
  if (d1 === d2 || d1 < 0 || d2 < 0 || d1 >= rank || d2 >= rank) throw new SchedulingError(`transpose schedule: bad inner dims ${d1}, ${d2} for rank ${rank}`);

  // 1. caches
  const inputCaches = new Map<TensorView, number>();
  const live = new Set(fusion.exprs());
  // Which inputs to cache is decided before any cacheAfter: caching one input rewrites the exprs
  // it feeds (a new expr replaces the old), so another input of the same expr would no longer
  // have a use in `live` and would be read uncached (seed 6012 case 37: where(T3, T1, T0)).
  const toCache = fusion.inputs.flatMap((v, i) => (v.kind === 'tensorView' && v.uses.some((u) => live.has(u)) && tensorRank(v) === rank ? [[v, i] as const] : []));
  for (const [v, i] of toCache) inputCaches.set(v.cacheAfter(), i);
  for (const o of [...fusion.outputs]) {
    if (o.kind !== 'tensorView') continue;
    if (o.uses.length > 0) o.cacheFork();
    else o.cacheBefore();
  }
  const ref = fusion.outputs[refIndex];
  if (ref === undefined || ref.kind !== 'tensorView') throw new SchedulingError('transpose schedule: lost the reference output');

  // 2. tile the reference
  const rest = [...Array(rank).keys()].filter((d) => d !== d1 && d !== d2);
  const order = [...rest, d2, d1];
  ref.reorder(order.map((from, to) => [from, to] as const));
  const t1 = params.tileSize1;
  const t2 = params.tileSize2;
  const v = params.vectorizeFactor1;
  const splits: Split[] = [];
  const divisible: Split[] = [];
  const tileSplit1 = splitAt(ref, rank - 1, t1); // [rest, d2, d1/t1, t1]
  const tileSplit2 = splitAt(ref, rank - 2, t2); // [rest, d2/t2, t2, d1/t1, t1]
  splits.push(tileSplit1, tileSplit2);
  if (params.divisibleSplits[0] === true) divisible.push(tileSplit1);
  if (params.divisibleSplits[1] === true) divisible.push(tileSplit2);
  ref.reorder([[rank - 1, rank], [rank, rank - 1]]); // [rest, d2/t2, d1/t1, t2, t1]
  while (ref.nDims() > 3) ref.merge(0); // [tiles, t2, t1]
  if (v > 1) divisible.push(splitAt(ref, 2, v)); // [tiles, t2, t1/v, v]
  ref.merge(1); // [tiles, t2·t1/v, (v)]
  divisible.push(splitAt(ref, 1, params.lparams.bdimx)); // [tiles, unroll, TIDx, (v)]
  const types: ParallelType[] = ['BIDx', 'Unroll', 'TIDx', ...(v > 1 ? (['Serial'] as const) : [])];
  if (types.length !== ref.nDims()) throw new SchedulingError(`transpose schedule: T${ref.name} has ${ref.nDims()} loop dims, expected ${types.length}`);

  // 3. propagate and parallelize positionally
  propagateTransforms(ref);
  const aligned = fusion.allTvs().filter((tv) => !tv.isFusionInput() && tv.nDims() === ref.nDims());
  for (const tv of aligned) types.forEach((t, p) => tv.axis(p).parallelize(t));

  // 4. vectorize
  if (v > 1) {
    for (const [cache, i] of inputCaches) {
      if (params.vectorizedInputs.includes(i) && cache.nDims() === ref.nDims()) cache.axis(-1).parallelize('Vectorize');
    }
    params.vectorizedOutputs.forEach((i) => {
      const o = fusion.outputs[i];
      if (o !== undefined && o.kind === 'tensorView' && o.nDims() === ref.nDims()) o.axis(-1).parallelize('Vectorize');
    });
  }

  // 5. inline
  for (const tv of aligned) {
    if (tv.isFusionOutput() && consumersOf(tv).length === 0) continue;
    let pos = maxInlinePosition(tv);
    if (inputCaches.has(tv)) pos = Math.min(pos, 1);
    for (const c of consumersOf(tv)) {
      const vpos = c.domain.loop.findIndex((id) => id.parallelType === 'Vectorize');
      if (vpos >= 0) pos = Math.min(pos, vpos);
    }
    if (pos > 0) inlineAt(tv, pos);
  }
  return scheduledFusion(fusion, ref, new Set(divisible), params);
}
