// Segmentation's acceptance layer: the can-schedule predicates of every nvFuser scheduler type
// (with concrete refusal reasons), persistent-buffer analysis, and `segmentPlanFor`, the
// runtime's Segmenter contract (groups in execution order + dumps) over the schedulers tsfuser
// compiles. The merging itself is segment-fusion.ts (segmentFusion), which takes any
// SchedulerPicker: a SchedulerRegistry or an AcceptorSet from here.

import type { Fusion } from '@tsfuser/fusion-ir';
// A function-only import from the package entry (defaultSchedulerRegistry is read when
// segmentPlanFor runs, never while modules load), so the cycle is harmless.
import { defaultSchedulerRegistry } from '../index.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { segmentFusion } from './segment-fusion.js';
import type { SchedulerPicker } from './acceptors.js';
import { segmentationPlanOf, type SegmentationPlan } from './segmentation-planner.js';

export {
  AcceptorSet, canScheduleExprEval, canScheduleNoOp, canSchedulePointwiseConnected, nvFuserAcceptors, registryAcceptors, summarizeRejections,
  type Acceptor, type Rejection, type SchedulerPicker,
} from './acceptors.js';
export { canScheduleNormalization, canScheduleReductionPattern, connectedGraphRefusal, type NormalizationKind } from './normalization.js';
export {
  persistentBufferBudget, persistentBufferBytes, persistentBuffers, REGISTER_FILE_BYTES, RESERVED_SHARED_MEMORY_PER_BLOCK,
  SHARED_MEMORY_PER_BLOCK_OPTIN, type PersistentBuffer, type PersistentBufferSize,
} from '../persistent/persistent-buffer.js';
export { reductionInfos, reductionPatternGroups, reductionType, type ReductionInfo, type ReductionType } from './reduction-pattern.js';
export { tensorComponents } from './fusion-graph.js';

export type { SegmentPlan, SegmentPlanGroup, Segmenter } from './segment-plan.js';

/**
 * The runtime's Segmenter: segments `fusion` for `runtimeInfo` with `schedulers` (default: the
 * default registry, i.e. what tsfuser compiles) and returns the groups in execution order with
 * the `segmented_fusion` and `fusion_ir_segments` dumps.
 */
export function segmentPlanFor(
  fusion: Fusion,
  runtimeInfo: RuntimeInfo,
  schedulers: SchedulerPicker = defaultSchedulerRegistry(),
): SegmentationPlan {
  return segmentationPlanOf(segmentFusion(fusion, runtimeInfo, schedulers));
}
