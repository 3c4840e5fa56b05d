// Applies OuterPersistentParams to a fusion (in place), the way nvFuser's outer persistent
// scheduler does (without its vectorization and cross-grid variants):
//   0. translate Welford ops to two-pass sums (persistent/translate-welford.ts);
//   1. cache every used input (cacheAfter) and every output (cacheBefore, or cacheFork when
//      the output is also used); a widening cast of an input cache that would be a persistent
//      buffer is duplicated per phase (persistent/persistence.ts), so the narrow input
//      cache is the buffer; with slice / pad / cat in the fusion (persistent/resize-before-row.ts),
//      inputs are cached once per index space they are read in and, after inlining, a
//      resize's producers are computed at the consumer's point (resize-row-schedule.ts);
//   2. transform the first reduction R0: merge its kept dims into I and its reduced dims into
//      the column Rd, then split
//        [ceilDiv(I, bdimx), bdimx, ceilDiv(Rd, B), B]   (BIDx, TIDx, rTIDy, rS)
//      (I by bdimx, Rd by B as an outer split — B, the persistent batch, stays a constant);
//   3. rFactor the serial position 3: the partial P0 reduces each thread's B elements, R0
//      reduces across threadIdx.y (a block allreduce: every consumer of R0 reads it in every
//      thread, through the broadcast back over the column);
//   4. propagate P0's transforms to every tensor and copy its parallel types; rFactor every
//      other reduction the same way;
//   5. inline as deep as legal, except the persistent buffers: a tensor read both before a
//      block reduction and after it (x in x − mean(x, 0)) stays at position 3, so its B
//      registers are filled once and read by both loops — x is read from global memory once.
// With rereadPersistentBuffers (reread-buffers.ts), step 1 is followed by recomputing every
// would-be buffer per phase from a fresh read of the inputs, so step 5 keeps nothing whole.
// Invariant the lowering relies on: the reference (P0's input) has the 4-position loop
// structure above; tensors after a block reduction are prefix-aligned ([BIDx, TIDx, rTIDy])
// or full 4-position tensors; a tensor's loop at position 3 is shared only with consumers in
// the same phase (the same number of block reductions upstream).

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
import { loopPhases, projectCastBuffers, reductionPhases } from '../persistent/persistence.js';
import { divisibleSplitsOf, partialReductionInput, scheduleReductionsLike, type ReductionLoopShape } from '../persistent/persistent-steps.js';
import { translateWelford } from '../persistent/translate-welford.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { cacheRowInputsBySpace, inlineResizeProducers } from '../persistent/resize-row-schedule.js';
import { cacheInputsAndOutputs, reductionTensors } from '../schedule-steps.js';
import type { OuterPersistentParams } from './params.js';
import { rereadPersistentBuffers } from './reread-buffers.js';
import { scheduledFusion } from '../scheduler.js';

/** Loop position of the serial persistent batch loop; buffers are allocated there. */
export const OUTER_PERSISTENT_POSITION = 3;

/** Every reduction's loop after propagation: [BIDx, TIDx, rTIDy, rS]; the serial 3 is rFactored. */
const COLUMN_REDUCTION_SHAPE: ReductionLoopShape = { dims: 4, reductionAxes: [2, 3], rFactorAxes: [3] };

function scheduleReductionLoop(r: TensorView, params: OuterPersistentParams): void {
  const { bdimx } = params.lparams;
  const b = params.batchesPerBlockInnerReduction;
  r.split(1, b, false); //                    [I, B, ceilDiv(Rd, B)]
  r.split(0, bdimx, true); //                 [I/bdimx, bdimx, B, Y]
  r.reorder({ 2: 3, 3: 2 }); //               [I/bdimx, bdimx, Y, B]
  const types: ParallelType[] = ['BIDx', 'TIDx', 'TIDy', 'Serial'];
  types.forEach((t, p) => r.axis(p).parallelize(t));
}

/** A scheduled reduction over threadIdx.y (after rFactor: the cross-thread part). */
function blockReducedOverY(out: TensorView): boolean {
  return out.domain.loop.some((id) => id.isReduction() && id.parallelType === 'TIDy');
}

/** Clamps every persistent buffer (after inlining) to the persistent position. */
function keepPersistentBuffers(fusion: Fusion): void {
  const { persistent } = loopPhases(fusion, reductionPhases(fusion, blockReducedOverY));
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() || !persistent.has(tv)) continue;
    if (tv.computeAtPosition > OUTER_PERSISTENT_POSITION) inlineAt(tv, OUTER_PERSISTENT_POSITION);
  }
}

/** Index in params.divisibleSplits of each split of the reference: the outer split by B is 1, the other 0. */
function referenceSplitOrder(ref: TensorView): Map<Split, number> {
  const keys = new Map<Split, number>();
  for (const s of loopExprs(ref).filter((e): e is Split => e.kind === 'Split')) keys.set(s, s.innerSplit ? 0 : 1);
  return keys;
}

export function scheduleOuterPersistent(fusion: Fusion, params: OuterPersistentParams): ScheduledFusion {
  translateWelford(fusion);
  const inputCaches = hasResizeExprs(fusion) ? cacheRowInputsBySpace(fusion, new Set()) : cacheInputsAndOutputs(fusion);
  if (params.rereadPersistentBuffers === true) {
    if (hasResizeExprs(fusion)) throw new SchedulingError('outer persistent schedule: re-read buffers with slice / pad / cat (not supported)');
    rereadPersistentBuffers(fusion);
  }
  projectCastBuffers(fusion, new Set(inputCaches.keys()));
  const reductions = reductionTensors(fusion);
  const r0 = reductions[0];
  if (r0 === undefined) throw new SchedulingError('outer persistent schedule: the fusion has no reduction');
  const p0 = scheduleReductionsLike(r0, reductions.slice(1), COLUMN_REDUCTION_SHAPE, (r) => scheduleReductionLoop(r, params), 'outer persistent');

  const ref = partialReductionInput(p0, 4, 'outer persistent');
  inlineMost(fusion);
  inlineResizeProducers(fusion, 4, blockReducedOverY);
  keepPersistentBuffers(fusion);

  const divisibleSplits = divisibleSplitsOf(referenceSplitOrder(ref), params.divisibleSplits);
  return scheduledFusion(fusion, ref, divisibleSplits, params);
}
