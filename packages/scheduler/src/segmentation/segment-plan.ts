// The segmentation plan: what segmentation hands the runtime's executor — groups in execution
// order, each with the scheduler segmentation chose for it. Invariant: every group input is an
// original fusion input or an output of an earlier group.

import type { Fusion, Val } from '@tsfuser/fusion-ir';
import type { SchedulerType } from '../heuristic-params.js';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { SegmentedFusion } from './segment-fusion.js';

/**
 * One group of a segmentation plan: a standalone Fusion plus the ORIGINAL fusion's vals feeding
 * and leaving it (same order as the group fusion's inputs and outputs), and the scheduler the
 * segmentation chose for it (null: none chosen yet, the executor picks). The one plan-group
 * shape: the segmenter's SegmentGroup extends it, the runtime's executor takes it.
 */
export interface SegmentPlanGroup {
  fusion: Fusion;
  inputs: readonly Val[];
  outputs: readonly Val[];
  schedulerType: SchedulerType | null;
  /**
   * The analyses the scheduler's acceptance computed for `fusion` and the runtime info the
   * segmenter saw (heuristics and schedule included where acceptance made them): whoever
   * compiles the group with an equal runtime info reuses them instead of computing them again.
   */
  analysis?: HeuristicDataCache;
}

/** A segmented fusion as the runtime's executor takes it: groups in execution order. */
export interface SegmentPlan {
  groups: readonly SegmentPlanGroup[];
  /** The `segmented_fusion` / `fusion_ir_segments` dumps, when the segmenter made them. */
  dumps?: { segmentedFusion?: string; fusionIrSegments?: string };
  /** The segmenter's full record (edges and the reasons behind them), when it made one. */
  segmented?: SegmentedFusion;
}

/** Splits a fusion for one input signature (sizes come from `runtimeInfo`). */
/**
 * `bindings`: the inputs' extents already bound and checked by the caller (bindExtents of the
 * same fusion and info), so the segmenter does not check them again.
 */
export type Segmenter = (fusion: Fusion, runtimeInfo: RuntimeInfo, bindings?: ExtentBindings) => SegmentPlan;
