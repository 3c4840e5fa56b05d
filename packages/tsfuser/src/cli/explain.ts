// `tsfuser run --explain`: how the GPU path would split the fusion for these inputs — the
// `fusion_ir_segments` dump (segments, their schedulers, and why each boundary exists). Needs
// no GPU: segmentation only reads sizes, strides and dtypes (device properties of an H100
// unless a GPU is present).

import type { Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/runtime';
import { SchedulingError, defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import type { ExecuteInput } from '../execute/backend.js';

export function explainSegments(fusion: Fusion, inputs: readonly ExecuteInput[]): string {
  const info = makeRuntimeInfo(
    fusion,
    inputs.map((v) => (v instanceof Tensor ? { sizes: [...v.sizes], strides: [...v.strides] } : null)),
  );
  try {
    return fusionIrSegmentsToString(segmentFusion(fusion, info, defaultSchedulerRegistry()));
  } catch (error) {
    if (!(error instanceof SchedulingError)) throw error;
    return `The GPU path cannot run this fusion yet: ${error.message}\n`;
  }
}
