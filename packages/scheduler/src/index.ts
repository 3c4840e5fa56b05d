// Public API of @tsfuser/scheduler.
export const packageName = '@tsfuser/scheduler';
export { SchedulingError } from './errors.js';
export * from './runtime-info.js';
export * from './heuristic-params.js';
export * from './index-type.js';
export * from './scheduler.js';
export * from './lowering-options.js';
export { LoweringAnalyses, type LoweringAnalysisCounts } from './lowering-analyses.js';
export { registryPriority, schedulerPriority } from './scheduler-priority.js';
export { HeuristicDataCache, sameRuntimeInfo, type HeuristicDataCacheCounts } from './heuristic-data-cache.js';
export { ExactLogicalMap, findReferenceOutput, iterationRank } from './analysis/domain-map.js';
export { ReshapeIndexGraph, referencePositionsOf, type IndexDerivation } from './pointwise/reshape-index-graph.js';
export { analyzeVectorization, type VectorizationResult } from './pointwise/vectorize.js';
export { collectIo, type IoTensor } from './analysis/io-tensors.js';
export { canSchedulePointwise } from './pointwise/can-schedule.js';
export { computePointwiseHeuristics, THREADS_PER_BLOCK, MAX_GRID_Y, type PointwiseOverrides } from './pointwise/heuristics.js';
export { schedulePointwise } from './pointwise/schedule.js';
export { PointwiseScheduler } from './pointwise/index.js';
export { permutedAllocationOrder, stridedOutputRefusal, stridesInOrder } from './stride-order.js';
export { materializeStrideOrders, pointwiseWritable } from './materialize-stride-orders.js';
export { ExprEvalScheduler } from './expr-eval/index.js';
export { NoOpScheduler, canScheduleEmptyOutputs } from './no-op/index.js';
export { canScheduleExprEvalViews } from './expr-eval/can-schedule.js';
export { metadataOpRefusal, viewLayouts, viewStrides, type ViewLayout, type MaterializeCopy } from './expr-eval/views.js';
export { type ReductionParams, type ReductionParallelType, reductionParamsToString } from './reduction/params.js';
export { canScheduleReduction, type ReductionSchedulerOptions } from './reduction/can-schedule.js';
export { computeReductionHeuristics, type ReductionOverrides } from './reduction/heuristics.js';
export { scheduleReduction } from './reduction/schedule.js';
export { ReductionScheduler } from './reduction/index.js';
export { type InnerPersistentParams, innerPersistentParamsToString } from './inner-persistent/params.js';
export { RESERVED_SHARED_MEM_PER_BLOCK, sharedMemForBlockCap, type BulkRowLoadChoice } from './inner-persistent/bulk-row-loads.js';
export { canScheduleInnerPersistent } from './inner-persistent/can-schedule.js';
export { computeInnerPersistentHeuristics, chooseBatches, type InnerPersistentOverrides } from './inner-persistent/heuristics.js';
export { scheduleInnerPersistent, PERSISTENT_POSITION } from './inner-persistent/schedule.js';
export { reductionPhases, loopPhases } from './persistent/persistence.js';
export { InnerPersistentScheduler } from './inner-persistent/index.js';
export { type OuterPersistentParams, outerPersistentParamsToString } from './outer-persistent/params.js';
export { canScheduleOuterPersistent } from './outer-persistent/can-schedule.js';
export { computeOuterPersistentHeuristics, chooseOuterBlock, chooseRereadBlock } from './outer-persistent/heuristics.js';
export { scheduleOuterPersistent, OUTER_PERSISTENT_POSITION } from './outer-persistent/schedule.js';
export { OuterPersistentScheduler } from './outer-persistent/index.js';
export { type InnerOuterPersistentParams, innerOuterPersistentParamsToString } from './inner-outer-persistent/params.js';
export { canScheduleInnerOuterPersistent, outerResultUseRefusal } from './inner-outer-persistent/can-schedule.js';
export { computeInnerOuterPersistentHeuristics, innerOuterReductions, type InnerOuterPersistentOverrides } from './inner-outer-persistent/heuristics.js';
export { scheduleInnerOuterPersistent, INNER_OUTER_PERSISTENT_POSITION } from './inner-outer-persistent/schedule.js';
export { isInnerReduction } from './inner-outer-persistent/launch-bounds.js';
export { InnerOuterPersistentScheduler } from './inner-outer-persistent/index.js';
export { bulkRowPipelineByDefault, type BulkRowPipelineFacts } from './inner-outer-persistent/bulk-row-pipeline.js';
export { chooseRowsPerBlock, MULTI_ROW_MAX_ROW_THREADS, type RowsPerBlockFacts } from './inner-outer-persistent/rows-per-block.js';
export * from './greedy/index.js';
export * from './transpose/index.js';
export * from './matmul/index.js';
export * from './attention/index.js';
export * from './segmentation/segmentation-planner.js';
export * from './segmentation/index.js';
export { kernelParamsOf, segmentKindOf, type LoopKernelParams, type SegmentKind } from './segmentation/segment-kind.js';

import { PointwiseScheduler } from './pointwise/index.js';
import type { PointwiseOverrides } from './pointwise/heuristics.js';
import { ExprEvalScheduler } from './expr-eval/index.js';
import { NoOpScheduler } from './no-op/index.js';
import { ReductionScheduler } from './reduction/index.js';
import { InnerPersistentScheduler } from './inner-persistent/index.js';
import { OuterPersistentScheduler } from './outer-persistent/index.js';
import { InnerOuterPersistentScheduler } from './inner-outer-persistent/index.js';
import { GreedyScheduler } from './greedy/index.js';
import { TransposeScheduler } from './transpose/index.js';
import { MatmulScheduler } from './matmul/scheduler.js';
import { AttentionScheduler } from './attention/scheduler.js';
import { SchedulerRegistry, type Scheduler } from './scheduler.js';
import type { SchedulerType } from './heuristic-params.js';
import { registryPriority } from './scheduler-priority.js';

/** What a default registry's schedulers take instead of their defaults (one switch each). */
export interface DefaultRegistryOptions {
  /** The pointwise scheduler's overrides (e.g. `{ fastDivision: false }`: no fast division anywhere). */
  pointwise?: PointwiseOverrides;
}

/** A fresh scheduler of `type` (every SchedulerType has one). */
function newScheduler(type: SchedulerType, options: DefaultRegistryOptions = {}): Scheduler {
  switch (type) {
    case 'expr_eval': return new ExprEvalScheduler();
    // One matmul / linear with its cuBLASLt-fusable epilogue (nvFuser: after expr_eval and no_op).
    case 'matmul': return new MatmulScheduler();
    // One sdpfa_fwd / sdpfa_bwd: generated flash-attention kernels (nvFuser hands it to ATen).
    case 'attention': return new AttentionScheduler();
    case 'transpose': return new TransposeScheduler();
    case 'pointwise': return new PointwiseScheduler(options.pointwise);
    case 'reduction': return new ReductionScheduler();
    case 'inner_persistent': return new InnerPersistentScheduler();
    case 'outer_persistent': return new OuterPersistentScheduler();
    case 'inner_outer_persistent': return new InnerOuterPersistentScheduler();
    case 'greedy': return new GreedyScheduler();
    case 'no_op': return new NoOpScheduler();
    default: {
      const unreachable: never = type;
      throw new Error(`unknown scheduler type ${String(unreachable)}`);
    }
  }
}

/**
 * The registry in `registryPriority()` order (scheduler-priority.ts: nvFuser's list and the
 * two deviations the registry keeps). A batch-norm-like fusion whose column does not fit the
 * outer persistent register budget is refused by every scheduler as a whole and segmented
 * into reduction + pointwise groups; so is a layer_norm backward whose row does not fit the
 * inner-outer persistent register budget.
 */
export function defaultSchedulerRegistry(options: DefaultRegistryOptions = {}): SchedulerRegistry {
  return new SchedulerRegistry(registryPriority().map((type) => newScheduler(type, options)));
}
export {
  computeIndexSpaces, hasResizeExprs, identitySpace, isIdentitySpace, isResizeExpr, pullback, resizeStep, spaceKey,
  type DimSpace, type IndexSpace, type IndexSpaces, type OffsetTerm, type ResizeStep,
} from './pointwise/resize/index-space.js';
export { indexSpacesOf } from './pointwise/resize/prepare.js';
export { resizeRefusal } from './pointwise/resize/can-schedule.js';
export { normalizedSliceStart, resizeVectorLimit } from './pointwise/resize/vectorize.js';
export { resizeBreakPoint } from './pointwise/resize/two-d.js';
