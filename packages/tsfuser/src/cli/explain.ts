// `tsfuser run --explain`: how the GPU path splits the fusion for these inputs — the
// `fusion_ir_segments` dump (segments, their schedulers, and why each boundary exists) of the
// compile plan that ran, or, where none ran (the reference backend), of the segmentation the
// same plan builder makes for the inputs' layouts on the target (an H100 by default: no GPU
// needed).

import type { Fusion } from '@tsfuser/fusion-ir';
import { ExecutorInputError, type CompilePlan } from '@tsfuser/runtime';
import { SchedulingError, fusionIrSegmentsToString, nvFuserAcceptors, segmentFusion, type RuntimeInfo, type SegmentedFusion } from '@tsfuser/scheduler';
import type { ExecuteInput } from '../execute/backend.js';
import { plannedInput, segmentForTarget, targetRuntimeInfo } from '../dumps/compile-for-target.js';
import { DEFAULT_TARGET, type CompileTarget } from '../dumps/target.js';

/**
 * The segmentation of the plan that ran (`ran`: the GPU backend's), or — nothing ran one — the
 * one the GPU path's builder makes for these inputs on `target`.
 */
export function explainSegments(fusion: Fusion, inputs: readonly ExecuteInput[], ran: CompilePlan | null = null, target: CompileTarget = DEFAULT_TARGET): string {
  let segmented: SegmentedFusion;
  let info: RuntimeInfo;
  let planned: Fusion = fusion;
  try {
    if (ran?.segmentation.segmented !== undefined) {
      segmented = ran.segmentation.segmented;
      info = ran.info;
      planned = ran.fusion;
    } else {
      const s = segmentForTarget(fusion, inputs.map(plannedInput), target);
      ({ segmented, info } = s);
      planned = s.fusion;
    }
  } catch (error) {
    if (!(error instanceof SchedulingError || error instanceof ExecutorInputError)) throw error;
    const nv = segmentForTargetInfo(fusion, inputs, target);
    return `The GPU path cannot run this fusion yet: ${error.message}\n${nv === null ? '' : withNvFuserSchedulers(nv.fusion, nv.info, Number.POSITIVE_INFINITY)}`;
  }
  return fusionIrSegmentsToString(segmented) + withNvFuserSchedulers(planned, info, segmented.groups.length);
}

/** The fusion and runtime info the GPU path segments, when the inputs bind (null otherwise). */
function segmentForTargetInfo(fusion: Fusion, inputs: readonly ExecuteInput[], target: CompileTarget): { fusion: Fusion; info: RuntimeInfo } | null {
  try {
    return targetRuntimeInfo(fusion, inputs.map(plannedInput), target);
  } catch {
    return null;
  }
}

/**
 * When nvFuser's full scheduler set (the persistent normalization schedulers included, which
 * tsfuser does not compile yet) would need fewer kernels, says so and shows that plan too.
 */
function withNvFuserSchedulers(fusion: Fusion, info: RuntimeInfo, kernels: number): string {
  try {
    const nv = segmentFusion(fusion, info, nvFuserAcceptors());
    if (nv.groups.length >= kernels) return '';
    return `\n--- with nvFuser's scheduler set (normalization schedulers tsfuser does not compile yet): ${nv.groups.length} kernel${nv.groups.length === 1 ? '' : 's'} ---\n${fusionIrSegmentsToString(nv)}`;
  } catch (error) {
    if (error instanceof SchedulingError) return '';
    throw error;
  }
}
