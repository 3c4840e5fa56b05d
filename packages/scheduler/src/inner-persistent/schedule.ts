// Applies InnerPersistentParams to a fusion (in place), the way nvFuser's inner persistent
// scheduler does:
//   0. translate Welford ops to two-pass sums (translate-welford.ts, nvFuser's
//      TranslateApplicableWelford);
//   1. cache every used input (cacheAfter) and every output (cacheBefore, or cacheFork when
//      the output is also used); a row parameter (weight, bias) is read by its broadcast to the
//      rows instead (row-params.ts), so it takes the rows' loops and vector loads;
//   2. transform the first reduction R0: merge its kept dims into I and its reduced dims into
//      the row Rd, then split
//        [I/bdimy, bdimy, ceilDiv(Rd/vec, B), B, vec]   (BIDx, TIDy, rTIDx, rS, rS)
//      (Rd by vec, Rd/vec by B as an outer split — B, the persistent batch, stays a constant —
//      I by bdimy; a TIDy of extent 1 stays Serial); with a persistent grid (blocksPerSm > 0)
//      I is split by gdimx as an outer split instead, [gdimx, ceilDiv(I, gdimx), …]
//      (BIDx, S: each block's contiguous chunk of rows in a serial row loop, as the inner-outer
//      persistent schedule does);
//   3. rFactor the serial positions [3, 4]: the partial P0 reduces each thread's B·vec
//      elements, R0 reduces across threadIdx.x (a block allreduce: every consumer of R0 reads
//      it in every thread, through the broadcast back over the row);
//   4. propagate P0's transforms to every tensor and copy its parallel types; rFactor every
//      other reduction the same way; give tensors after a reshape of the row the reference's
//      loops through the reshape (loops-past-views.ts); vectorize the row accesses of the input
//      caches and outputs (reshaped-back outputs included);
//   5. inline as deep as legal, except the persistent buffers (persistence.ts): a tensor read
//      both before a block reduction and after it (x in x − max(x)) stays at position 3, so its
//      [B, vec] registers are filled once and read by both loops — the row is read from global
//      memory once. A widening cast of an input is first duplicated per phase, so the narrow
//      input cache is the buffer. A tensor read only after a reduction (a weight) is inlined
//      into that loop.
// Invariant the lowering relies on: the reference (P0's input) has the 5-position loop
// structure above; tensors after a block reduction are prefix-aligned ([BIDx, TIDy, rTIDx])
// or full 5-position tensors; a tensor's loops at positions 3 and 4 are shared only with
// consumers in the same phase (the same number of block reductions upstream).

import {
  inlineMost,
  loopExprs,
  type Fusion,
  type ParallelType,
  type Split,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { ScheduledFusion } from '../scheduler.js';
import { reductionTensors } from '../schedule-steps.js';
import type { InnerPersistentParams } from './params.js';
import { replayLoopsPastViews } from '../persistent/loops-past-views.js';
import { keepPersistentBuffers, projectCastBuffers } from '../persistent/persistence.js';
import { inlineResizeProducers } from '../persistent/resize-row-schedule.js';
import {
  divisibleSplitsOf,
  partialReductionInput,
  scheduleReductionsLike,
  splitRowIntoBatches,
  translateAndCacheRowInputs,
  vectorizeRowAccesses,
  type ReductionLoopShape,
} from '../persistent/persistent-steps.js';
import { scheduledFusion } from '../scheduler.js';

/** Loop position of the first serial (persistent batch) loop; buffers are allocated there. */
export const PERSISTENT_POSITION = 3;

/** Every reduction's loop after propagation: [BIDx, TIDy, rTIDx, rS, rS]; the serial [3, 4] are rFactored. */
export const ROW_REDUCTION_SHAPE: ReductionLoopShape = { dims: 5, reductionAxes: [3, 4], rFactorAxes: [3, 4] };

function scheduleReductionLoop(r: TensorView, params: InnerPersistentParams): void {
  const { bdimy, gdimx } = params.lparams;
  splitRowIntoBatches(r, params); //          [I, B, X, v]
  if (params.blocksPerSm > 0) r.split(0, gdimx, false); // [G, ceilDiv(I, G), B, X, v] (persistent grid)
  else r.split(0, bdimy, true); //            [I/bdimy, bdimy, B, X, v]
  r.reorder({ 2: 3, 3: 2 }); //               [·, ·, X, B, v]
  const types: ParallelType[] = ['BIDx', bdimy > 1 ? 'TIDy' : 'Serial', 'TIDx', 'Serial', 'Serial'];
  types.forEach((t, p) => r.axis(p).parallelize(t));
}

/**
 * Index in params.divisibleSplits of each split of the reference: the outer split by B is 1,
 * the split whose outer output it splits (the row by vec) is 0, the rows' split (by bdimy, or
 * the persistent grid's outer split by gdimx) is 2.
 */
function referenceSplitOrder(ref: TensorView): Map<Split, number> {
  const splits = loopExprs(ref).filter((e): e is Split => e.kind === 'Split');
  const keys = new Map<Split, number>();
  for (const s of splits) {
    if (!s.innerSplit) keys.set(s, splits.some((o) => o.innerSplit && o.outer() === s.in()) ? 1 : 2);
    else if (splits.some((o) => !o.innerSplit && o.in() === s.outer())) keys.set(s, 0);
    else keys.set(s, 2);
  }
  return keys;
}

export function scheduleInnerPersistent(fusion: Fusion, params: InnerPersistentParams): ScheduledFusion {
  const inputCaches = translateAndCacheRowInputs(fusion);
  if (params.projectPersistentBuffers) projectCastBuffers(fusion, new Set(inputCaches.keys()));
  const reductions = reductionTensors(fusion);
  const r0 = reductions[0];
  if (r0 === undefined) throw new SchedulingError('inner persistent schedule: the fusion has no reduction');
  const p0 = scheduleReductionsLike(r0, reductions.slice(1), ROW_REDUCTION_SHAPE, (r) => scheduleReductionLoop(r, params), 'inner persistent');

  const ref = partialReductionInput(p0, 5, 'inner persistent');
  replayLoopsPastViews(fusion, ref);
  vectorizeRowAccesses(fusion, inputCaches, params);
  inlineMost(fusion);
  inlineResizeProducers(fusion, 5);
  keepPersistentBuffers(fusion, PERSISTENT_POSITION);

  const divisibleSplits = divisibleSplitsOf(referenceSplitOrder(ref), params.divisibleSplits);
  return scheduledFusion(fusion, ref, divisibleSplits, params);
}
