// Applies InnerOuterPersistentParams to a fusion (in place), after nvFuser's inner-outer
// persistent scheduler (layer_norm backward as one kernel):
//   0. drop dead expressions; translate Welford ops to two-pass sums; read row parameters (weight) through their
//      broadcast (inner-persistent/row-params.ts); cache every used input and every output; a
//      persistent buffer computed from the inputs by pointwise ops (xhat, g, broadcast(rstd))
//      is recomputed per phase (projection.ts) and a widening cast of an input cache duplicated
//      per phase (persistent/persistence.ts), so the narrow inputs are the buffers;
//   1. transform the first inner reduction R0 (reduced over the innermost dim): merge its kept
//      dims into the rows I and its reduced dims into the row Rd, then split
//        [gdimx, ceilDiv(I, gdimx), ceilDiv(Rd/vec, B), B, vec]   (BIDx, S, rTIDx, rS, rS)
//      (Rd by vec, Rd/vec by B and I by gdimx as outer splits: B and gdimx stay constants,
//      each block takes a contiguous chunk of rows and loops over it serially);
//   2. rFactor R0's serial positions [3, 4]: a partial per thread, then a block allreduce over
//      threadIdx.x inside the row loop; propagate to every tensor, copy the parallel types,
//      rFactor every other inner reduction the same way;
//   3. the outer reductions (reduced over the rows, kept over the row: grad_weight,
//      grad_bias) now read [rBIDx, rS, TIDx, B, vec]: no rFactor — lowering accumulates the
//      serial row loop in registers ([B, vec] per thread, allocated outside the row loop) and
//      reduces the blocks' partials across blockIdx.x (work buffer + grid barrier);
//   4. vectorize the row accesses of the input caches and full-row outputs;
//   5. inline as deep as legal, except the persistent buffers, kept at position 3 (filled
//      once per row, read before and after the block allreductions); the outer reductions'
//      results stay at position 0 (they are complete only after the row loop and the grid
//      step). With slice / pad / cat on the input side of the row (persistent/
//      resize-before-row.ts), inputs are cached once per index space (step 1) and a resize's
//      producers are computed at the consumer's point (persistent/resize-row-schedule.ts).
// With several rows per block (params.lparams.bdimy > 1) step 1 splits the block's chunk of
// rows once more, [gdimx, ceilDiv(ceilDiv(I, gdimx), bdimy), bdimy, ceilDiv(Rd/vec, B), B, vec]
// (BIDx, S, TIDy, rTIDx, rS, rS; an inner split: each threadIdx.y takes every bdimy-th row of
// the chunk), and every position named below from 2 on moves one further: rFactor [4, 5],
// persistent buffers at 4, the outer reductions read [rBIDx, rS, rTIDy, TIDx, B, vec] (lowering
// reduces their partials across threadIdx.y in the block before the grid step).
// Invariant the lowering relies on: the reference (R0's partial's input) has the 5-position
// structure above; every outer reduction has reduction IDs exactly at positions 0 (BIDx) and
// 1 (serial row loop) and iteration IDs at 2..4, and is consumed only by a chain of casts /
// copies ending in a fusion output.

import { isInnerReduction } from './launch-bounds.js';
import {
  inlineAt,
  inlineMost,
  loopExprs,
  type Fusion,
  type ParallelType,
  type Split,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { ScheduledFusion } from '../scheduler.js';
import { keepPersistentBuffers, projectCastBuffers } from '../persistent/persistence.js';
import {
  divisibleSplitsOf,
  partialReductionInput,
  scheduleReductionsLike,
  splitRowIntoBatches,
  translateAndCacheRowInputs,
  vectorizeRowAccesses,
} from '../persistent/persistent-steps.js';
import { ROW_REDUCTION_SHAPE } from '../inner-persistent/schedule.js';
import type { ReductionLoopShape } from '../persistent/persistent-steps.js';
import { reductionTensors } from '../schedule-steps.js';
import type { InnerOuterPersistentParams } from './params.js';
import { projectToInputs } from './projection.js';
import { inlineResizeProducers } from '../persistent/resize-row-schedule.js';
import { scheduledFusion } from '../scheduler.js';

/** Loop position of the persistent batch loop (one row per block); persistent buffers are allocated there. */
export const INNER_OUTER_PERSISTENT_POSITION = 3;

/** Loop positions of the reference: 5, or 6 with a threadIdx.y position (several rows per block). */
export function innerOuterPositions(params: InnerOuterPersistentParams): number {
  return params.lparams.bdimy > 1 ? 6 : 5;
}

/** The loop structure every inner reduction takes: its serial row positions are rFactored. */
function reductionShape(params: InnerOuterPersistentParams): ReductionLoopShape {
  const dims = innerOuterPositions(params);
  return dims === 5 ? ROW_REDUCTION_SHAPE : { dims, reductionAxes: [4, 5], rFactorAxes: [4, 5] };
}


function scheduleReductionLoop(r: TensorView, params: InnerOuterPersistentParams): void {
  splitRowIntoBatches(r, params); //          [I, B, X, v]
  r.split(0, params.lparams.gdimx, false); // [G, ceilDiv(I, G), B, X, v]
  r.reorder({ 2: 3, 3: 2 }); //               [G, S, X, B, v]
  const { bdimy } = params.lparams;
  if (bdimy > 1) r.split(1, bdimy, true); //   [G, S', Y, X, B, v]
  const types: ParallelType[] = ['BIDx', 'Serial', ...(bdimy > 1 ? (['TIDy'] as const) : []), 'TIDx', 'Serial', 'Serial'];
  types.forEach((t, p) => r.axis(p).parallelize(t));
}

/**
 * Index in params.divisibleSplits of each split of the reference: the row by vec is 0, the
 * outer split by B is 1, the rows' outer split by gdimx is 2, the chunk's inner split by bdimy
 * (several rows per block) is 3.
 */
function referenceSplitOrder(ref: TensorView): Map<Split, number> {
  const splits = loopExprs(ref).filter((e): e is Split => e.kind === 'Split');
  const keys = new Map<Split, number>();
  for (const s of splits) {
    const ofChunk = splits.some((o) => !o.innerSplit && o.inner() === s.in());
    if (s.innerSplit) keys.set(s, ofChunk ? 3 : 0);
    else if (splits.some((o) => o.innerSplit && o.outer() === s.in())) keys.set(s, 1);
    else keys.set(s, 2);
  }
  return keys;
}

/** The outer reductions must read [rBIDx, rS, (rTIDy,) TIDx, B, vec] (see the header). */
function checkOuterReduction(r: TensorView, r0: TensorView, dims: number): void {
  const reduced = dims - 3;
  const ok = r.nDims() === dims && Array.from({ length: dims }, (_, p) => r.axis(p).isReduction() === p < reduced).every(Boolean);
  if (!ok) throw new SchedulingError(`inner-outer persistent schedule: outer reduction T${r.name} did not take T${r0.name}'s loop structure`);
}

/**
 * Unregisters expressions no output depends on (a definition's unused intermediates): their
 * uses would keep the live producers from being inlined (inlineMost checks every consumer).
 */
function removeDeadExprs(fusion: Fusion): void {
  const live = new Set(fusion.exprs());
  for (const tv of fusion.allTvs()) for (const u of [...tv.uses]) if (!live.has(u)) fusion.removeExpr(u);
}

export function scheduleInnerOuterPersistent(fusion: Fusion, params: InnerOuterPersistentParams): ScheduledFusion {
  removeDeadExprs(fusion);
  const inputCaches = translateAndCacheRowInputs(fusion);
  if (params.projectPersistentBuffers) {
    projectToInputs(fusion, new Set(inputCaches.keys()));
    projectCastBuffers(fusion, new Set(inputCaches.keys()));
  }
  const reductions = reductionTensors(fusion);
  const inner = reductions.filter(isInnerReduction);
  const outer = reductions.filter((r) => !isInnerReduction(r));
  const r0 = inner[0];
  if (r0 === undefined || outer.length === 0) throw new SchedulingError('inner-outer persistent schedule: needs inner and outer reductions');
  const dims = innerOuterPositions(params);
  const p0 = scheduleReductionsLike(r0, inner.slice(1), reductionShape(params), (r) => scheduleReductionLoop(r, params), 'inner-outer persistent');
  for (const r of outer) checkOuterReduction(r, r0, dims);

  const ref = partialReductionInput(p0, dims, 'inner-outer persistent');
  vectorizeRowAccesses(fusion, inputCaches, params, dims);
  inlineMost(fusion);
  inlineResizeProducers(fusion, dims);
  keepPersistentBuffers(fusion, INNER_OUTER_PERSISTENT_POSITION + dims - 5);
  for (const r of outer) if (r.computeAtPosition > 0) inlineAt(r, 0);

  const divisibleSplits = divisibleSplitsOf(referenceSplitOrder(ref), params.divisibleSplits);
  return scheduledFusion(fusion, ref, divisibleSplits, params);
}
