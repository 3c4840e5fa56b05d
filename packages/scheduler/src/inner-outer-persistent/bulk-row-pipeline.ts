// When an inner-outer persistent kernel pipelines its rows through shared memory by
// cp.async.bulk (InnerOuterPersistentParams.bulkLoadRows; codegen's lower/bulk-row-pipeline.ts).
//
// Each block of the persistent grid walks its rows serially; without the copies a row's loads
// start only after the previous row's reductions and stores, and at 2 blocks of 512 threads per
// SM (layer_norm backward at 4096) too few bytes are in flight to hide the memory latency. A
// register prefetch of the next row (prefetchNextRow) costs the registers of a second row and
// with them blocks per SM; a bulk copy into shared memory costs none. Measured on the H100
// (codegen-inner-outer-persistent-suite, 16384×4096, L2 flushed, median of 20; 2026-11-23):
//
//   dtype     default   bulk copies   bulk, ungrouped   bulk, B = 2 (256 threads)
//   BFloat16  0.1981    0.1786        0.1829            0.1941     ms  (torch.compile 0.190)
//   Half      0.2065    0.1862        0.1950            0.2082
//   Float     0.2950    0.2952        0.2985            0.2958
//
// 16-bit rows gain 10%; Float rows (64 registers, 2 blocks either way, twice the bytes per
// row) are even. So the default applies where it was measured to help: sm_90 or later, every
// full-row input 2 bytes per element and read as 16-byte vectors of a row the vector divides,
// no register prefetch.
// Invariant: a pure function of the heuristic's decisions and the device; no fusion is changed.

import { dataTypeSize, type TensorView } from '@tsfuser/fusion-ir';
import type { SchedulerDevice } from '../runtime-info.js';

export interface BulkRowPipelineFacts {
  device: SchedulerDevice;
  /** Inputs of the row's full rank (grad_out, x): the ones the copies take. */
  fullRowInputs: readonly TensorView[];
  /** Whether every full-row input is read with vectors (of `vec` elements). */
  vectorizedFullRows: boolean;
  vec: number;
  /** Whether the vector divides the row (no partial vector, so whole rows of 16-byte multiples). */
  divisibleRow: boolean;
  prefetchNextRow: boolean;
}

/** Whether the copies can apply at all: sm_90+ (cp.async.bulk) and not with the register prefetch. */
export function bulkRowPipelineAllowed(f: Pick<BulkRowPipelineFacts, 'device' | 'prefetchNextRow'>): boolean {
  return f.device.computeCapability[0] >= 9 && !f.prefetchNextRow;
}

/** The default (see the header). */
export function bulkRowPipelineByDefault(f: BulkRowPipelineFacts): boolean {
  if (!bulkRowPipelineAllowed(f) || f.fullRowInputs.length === 0 || !f.vectorizedFullRows || !f.divisibleRow) return false;
  return f.fullRowInputs.every((tv) => dataTypeSize(tv.dtype) === 2) && f.vec * 2 === 16;
}
