// Scheduling steps the persistent schedulers share (inner persistent here, outer persistent,
// inner-outer persistent): the opening of the row schedulers (Welford translated to sums, row
// parameters read through their broadcast, inputs and outputs cached), the row split into
// persistent batches, the first reduction's merge, split, rFactor and propagation, rFactoring
// every further reduction the way the first was, finding the reference (the partial
// reduction's input), vectorizing the row accesses, and choosing the reference splits the
// params prove divisible. Each keeps the fusion computing the same values.

import { parallelizeAllLike, propagateTransforms, type Fusion, type Split, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { cacheInputsAndOutputs, mergeKeptThenReduced } from '../schedule-steps.js';
import type { PersistentRowReductionParams } from '../inner-persistent/params.js';
import { broadcastRowParamsFirst } from '../inner-persistent/row-params.js';
import { translateWelford } from './translate-welford.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { cacheRowInputsBySpace } from './resize-row-schedule.js';

/**
 * Translates Welford ops, reads row parameters through their broadcast and caches every other
 * used input and every output. Returns the tensors that read each input (its cache, or a row
 * parameter's broadcast) with the input's position.
 */
export function translateAndCacheRowInputs(fusion: Fusion): Map<TensorView, number> {
  translateWelford(fusion);
  const rowParams = broadcastRowParamsFirst(fusion);
  const inputCaches = hasResizeExprs(fusion) ? cacheRowInputsBySpace(fusion, new Set(rowParams.values())) : cacheInputsAndOutputs(fusion, new Set(rowParams.values()));
  for (const [b, i] of rowParams) inputCaches.set(b, i);
  return inputCaches;
}

/**
 * Splits the row (position 1 of [I, Rd]) to [I, B, ceilDiv(Rd/vec, B), vec]: by vec, then by
 * B as an outer split (B, the persistent batch, stays a constant).
 */
export function splitRowIntoBatches(r: TensorView, params: Pick<PersistentRowReductionParams, 'unrollFactorInnerReduction' | 'batchesPerBlockInnerReduction'>): void {
  r.split(1, params.unrollFactorInnerReduction, true); //      [I, Rd/v, v]
  r.split(1, params.batchesPerBlockInnerReduction, false); //  [I, B, ceilDiv(Rd/v, B), v]
}

/** The loop structure every reduction takes from the first one's (after propagation). */
export interface ReductionLoopShape {
  /** Loop positions of the scheduled reduction. */
  dims: number;
  /** Positions that must be reduction IDs. */
  reductionAxes: readonly number[];
  /** Serial positions rFactored into the per-thread partial. */
  rFactorAxes: readonly number[];
}

/** rFactors each of `others` like `r0`, refusing a reduction that did not take r0's loop structure. */
export function rFactorLikeFirst(others: readonly TensorView[], r0: TensorView, shape: ReductionLoopShape, scheduler: string): void {
  for (const r of others) {
    if (r.nDims() !== shape.dims || !shape.reductionAxes.every((p) => r.axis(p).isReduction())) {
      throw new SchedulingError(`${scheduler} schedule: reduction T${r.name} did not take T${r0.name}'s loop structure`);
    }
    r.rFactor(shape.rFactorAxes);
  }
}

/**
 * Schedules the reductions the way every persistent scheduler does: merges r0's loop to
 * [kept, reduced], splits it (`splitLoop`), rFactors its serial positions into the per-thread
 * partial P0, propagates P0's transforms and parallel types to every tensor, and rFactors the
 * `others` like r0. Returns P0.
 */
export function scheduleReductionsLike(r0: TensorView, others: readonly TensorView[], shape: ReductionLoopShape, splitLoop: (r: TensorView) => void, scheduler: string): TensorView {
  mergeKeptThenReduced(r0, scheduler);
  splitLoop(r0);
  const p0 = r0.rFactor(shape.rFactorAxes);
  propagateTransforms(p0);
  parallelizeAllLike(p0);
  rFactorLikeFirst(others, r0, shape, scheduler);
  parallelizeAllLike(p0);
  return p0;
}

/** The lowering reference: the input of the partial reduction `p0`, with `dims` loop positions. */
export function partialReductionInput(p0: TensorView, dims: number, scheduler: string): TensorView {
  const ref = p0.definition?.inputs[0];
  if (ref === undefined || ref.kind !== 'tensorView' || ref.nDims() !== dims) {
    throw new SchedulingError(`${scheduler} schedule: the partial reduction has no ${dims}-position tensor input`);
  }
  return ref;
}

/** The params fields that say which row accesses are vectorized. */
export type RowVectorization = Pick<PersistentRowReductionParams, 'vectorizeInnerReduction' | 'vectorizedInputs' | 'vectorizedOutputs'>;

/** Vectorizes the last position (vec) of the chosen input caches and full-row outputs of a `dims`-position row schedule (5 by default). */
export function vectorizeRowAccesses(fusion: Fusion, inputCaches: ReadonlyMap<TensorView, number>, params: RowVectorization, dims = 5): void {
  if (!params.vectorizeInnerReduction) return;
  const last = dims - 1;
  for (const [cache, i] of inputCaches) {
    if (params.vectorizedInputs.includes(i) && cache.nDims() === dims) cache.axis(last).parallelize('Vectorize');
  }
  params.vectorizedOutputs.forEach((i) => {
    const o = fusion.outputs[i];
    if (o !== undefined && o.kind === 'tensorView' && o.nDims() === dims && !o.axis(last).isBroadcast()) o.axis(last).parallelize('Vectorize');
  });
}

/** The reference splits whose index (in `order`) params.divisibleSplits marks divisible. */
export function divisibleSplitsOf(order: ReadonlyMap<Split, number>, divisible: readonly boolean[]): Set<Split> {
  const splits = new Set<Split>();
  for (const [split, i] of order) if (divisible[i] === true) splits.add(split);
  return splits;
}
