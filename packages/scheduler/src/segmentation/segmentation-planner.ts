// Segmentation: public entry points. `segmentationPlan` is what the runtime's executor cache
// calls per input signature (its Segmenter contract: groups in execution order + dumps).

import type { Fusion, Val } from '@tsfuser/fusion-ir';
import type { SchedulerType } from '../heuristic-params.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { SchedulerRegistry } from '../scheduler.js';
import { fusionIrSegmentsToString, segmentedFusionToString } from './dumps.js';
import { segmentFusion } from './segment-fusion.js';

export { segmentFusion, type SegmentedFusion, type SegmentGroup, type SegmentEdge } from './segment-fusion.js';
export { segmentedFusionToString, fusionIrSegmentsToString } from './dumps.js';
export { buildGroupFusion, groupBoundary, type GroupFusion } from './group-fusion.js';

export interface SegmentationPlan {
  groups: { fusion: Fusion; inputs: readonly Val[]; outputs: readonly Val[]; schedulerType: SchedulerType | null }[];
  dumps: { segmentedFusion: string; fusionIrSegments: string };
}

/** A segmenter over `registry` in the shape the runtime's FusionExecutorCache takes. */
export function segmentationPlanner(registry: SchedulerRegistry): (fusion: Fusion, info: RuntimeInfo) => SegmentationPlan {
  return (fusion, info) => {
    const sf = segmentFusion(fusion, info, registry);
    return {
      groups: sf.groups.map((g) => ({ fusion: g.fusion, inputs: g.inputs, outputs: g.outputs, schedulerType: g.schedulerType })),
      dumps: { segmentedFusion: segmentedFusionToString(sf), fusionIrSegments: fusionIrSegmentsToString(sf) },
    };
  };
}
