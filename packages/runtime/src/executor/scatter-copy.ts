// The copy that initializes a scatter segment's output: scatter and index_put_accumulate write
// into (a copy of) their input, so before the scatter kernel runs, the output buffer must hold
// the input's values. This builds that step: a one-op fusion `out = set(self)` compiled by the
// pointwise scheduler (so it reads any layout of `self` and writes the output's dense layout),
// reading the segment's self ref and writing the segment's output ref. The launch planner puts
// it right before the scatter kernel, in the same group; on one stream, the copy finishes before
// the scatter kernel starts.
// Invariant: returns a step only for segments scatterInitialization recognises (null otherwise);
// the step's refs are [self, out], with out the buffer the scatter kernel then writes.

import { Fusion, makeTensor, set, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { scatterInitialization, type RuntimeInfo } from '@tsfuser/scheduler';
import type { GroupKernelPlanner, PlanRef, PlanStep } from './launch-planner.js';
import type { SegmentPlanGroup as PlanGroup } from '@tsfuser/scheduler';

/** `out = set(self)` with self of `like`'s dtype and rank (symbolic sizes). */
export function scatterCopyFusion(like: TensorView): Fusion {
  const fusion = new Fusion();
  const input = makeTensor(fusion, { shape: like.domain.logicalNoReductions().map(() => -1), dtype: like.dtype });
  fusion.addInput(input);
  fusion.addOutput(set(input));
  return fusion;
}

export function scatterCopyStep<K>(
  group: PlanGroup,
  info: RuntimeInfo,
  refs: readonly PlanRef[],
  refOf: ReadonlyMap<Val, PlanRef>,
  groupId: number,
  kernelFor: GroupKernelPlanner<K>,
): PlanStep<K> | null {
  const init = scatterInitialization(group.fusion);
  if (init === null) return null;
  const self = group.fusion.inputs[init.input] as TensorView;
  const selfInfo = info.inputs[init.input];
  const selfRef = refs[init.input];
  const outRef = refOf.get(group.outputs[init.output] as Val);
  if (selfInfo === undefined || selfRef === undefined || outRef === undefined) throw new Error(`segment ${groupId}: the scatter's input or output has no place in the plan`);
  const copy = scatterCopyFusion(self);
  const { kernel, grid } = kernelFor(copy, { device: info.device, inputs: [selfInfo] }, groupId, 'pointwise');
  return { kernel, groupId, grid, refs: [selfRef, outRef], inputCount: 1 };
}
