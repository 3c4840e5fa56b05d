// `tsfuser run --explain`: how the GPU path would split the fusion for these inputs — the
// `fusion_ir_segments` dump (segments, their schedulers, and why each boundary exists). Needs
// no GPU: segmentation only reads sizes, strides and dtypes (device properties of an H100
// unless a GPU is present).

import type { Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import {
  SchedulingError, defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, nvFuserAcceptors, segmentFusion, type RuntimeInfo,
} from '@tsfuser/scheduler';
import type { ExecuteInput } from '../execute/backend.js';

export function explainSegments(fusion: Fusion, inputs: readonly ExecuteInput[]): string {
  const info = makeRuntimeInfo(
    fusion,
    inputs.map((v) => (v instanceof Tensor ? { sizes: [...v.sizes], strides: [...v.strides] } : typeof v === 'number' || typeof v === 'bigint' ? { value: v } : null)),
  );
  try {
    const plan = segmentFusion(fusion, info, defaultSchedulerRegistry());
    return fusionIrSegmentsToString(plan) + withNvFuserSchedulers(fusion, info, plan.groups.length);
  } catch (error) {
    if (!(error instanceof SchedulingError)) throw error;
    return `The GPU path cannot run this fusion yet: ${error.message}\n${withNvFuserSchedulers(fusion, info, Number.POSITIVE_INFINITY)}`;
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
