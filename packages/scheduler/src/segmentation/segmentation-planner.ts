// segmentationPlanner: a Segmenter (segment-plan.ts) over a given registry — what the runtime's
// executor cache calls per input signature (groups in execution order + dumps) — and the
// exports of the merging itself (segment-fusion.ts, group-fusion.ts, dumps.ts).

import type { Fusion } from '@tsfuser/fusion-ir';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import type { SchedulerRegistry } from '../scheduler.js';
import { fusionIrSegmentsToString, segmentedFusionToString } from './dumps.js';
import { segmentFusion, type SegmentedFusion } from './segment-fusion.js';
import type { SegmentPlan } from './segment-plan.js';

export { segmentFusion, type SegmentedFusion, type SegmentGroup, type SegmentEdge } from './segment-fusion.js';
export { segmentedFusionToString, fusionIrSegmentsToString } from './dumps.js';
export { buildGroupFusion, groupBoundary, type GroupFusion } from './group-fusion.js';

/** A segmentation plan with both dumps made. */
export type SegmentationPlan = SegmentPlan & { dumps: { segmentedFusion: string; fusionIrSegments: string }; segmented: SegmentedFusion };

/** The plan of a segmented fusion: its groups in execution order (with their analyses) and both dumps. */
export function segmentationPlanOf(sf: SegmentedFusion): SegmentationPlan {
  return {
    groups: sf.groups.map((g) => ({ fusion: g.fusion, inputs: g.inputs, outputs: g.outputs, schedulerType: g.schedulerType, ...(g.analysis === undefined ? {} : { analysis: g.analysis }) })),
    dumps: { segmentedFusion: segmentedFusionToString(sf), fusionIrSegments: fusionIrSegmentsToString(sf) },
    segmented: sf,
  };
}

/** A segmenter over `registry` in the shape the runtime's FusionExecutorCache takes. */
export function segmentationPlanner(registry: SchedulerRegistry): (fusion: Fusion, info: RuntimeInfo, bindings?: ExtentBindings) => SegmentationPlan {
  return (fusion, info, bindings) => segmentationPlanOf(segmentFusion(fusion, info, registry, bindings));
}
