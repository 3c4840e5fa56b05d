// The executor's view of a segmented fusion: groups in execution order, each a standalone
// Fusion plus the ORIGINAL fusion's vals feeding and leaving it (same order as the group
// fusion's inputs and outputs). A fusion one scheduler accepts whole is a single group over
// itself. Invariant: every group input is an original fusion input or an output of an earlier
// group, so running groups in order with intermediates in global memory computes the fusion.

import type { Fusion, Val } from '@tsfuser/fusion-ir';
import type { RuntimeInfo, SchedulerType } from '@tsfuser/scheduler';

export interface PlanGroup {
  fusion: Fusion;
  inputs: readonly Val[];
  outputs: readonly Val[];
  schedulerType: SchedulerType | null;
}

export interface SegmentPlan {
  groups: readonly PlanGroup[];
  /** The `segmented_fusion` / `fusion_ir_segments` dumps, when the segmenter made them. */
  dumps?: { segmentedFusion?: string; fusionIrSegments?: string };
}

/** Splits a fusion for one input signature (sizes come from `runtimeInfo`). */
export type Segmenter = (fusion: Fusion, runtimeInfo: RuntimeInfo) => SegmentPlan;

/** The whole fusion as one kernel. */
export const wholeFusion: Segmenter = (fusion) => ({
  groups: [{ fusion, inputs: fusion.inputs, outputs: fusion.outputs, schedulerType: null }],
});
