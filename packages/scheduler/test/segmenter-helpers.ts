// Re-exports for the segmenter tests (package API plus the tensor-expr predicate).
export {
  ReductionScheduler, SchedulerRegistry, defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, segmentFusion, segmentedFusionToString,
} from '../src/index.js';
export { isTensorExpr as isTensorExprForTests } from '../src/segmentation/group-fusion.js';
export { recomputableExprs } from '../src/segmentation/recompute-inputs.js';
