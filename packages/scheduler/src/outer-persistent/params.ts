// OuterPersistentParams: the decisions of the outer persistent (normalization) scheduler for
// one fusion and one set of runtime sizes — nvFuser's ReductionParams fields for an outer
// persistent kernel (camelCase), and their `scheduler_params` dump in the layout of nvFuser's
// ReductionParams::toString ("Red On Slow Dim", "Persistent Kernel", "persistent batch - N",
// plus tsfuser's buffer size, index type and divisibility lines). Equal parameters mean the
// same kernel.
//
// The kept (inner) dims, merged into I, are split as [ceilDiv(I, bdimx) (blockIdx.x), bdimx
// (threadIdx.x)]; the reduced (outer) dims, merged into Rd, as
//   [ceilDiv(Rd, batches) (threadIdx.y), batches (serial, constant)]
// so each thread keeps `batches` elements of its column of every persistent buffer in registers
// and the column is reduced across threadIdx.y with a block allreduce.

import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';
import { launchParamsLine, reductionDumpClosing, reductionDumpOpening } from '../reduction/params-dump.js';

export interface OuterPersistentParams {
  schedulerType: 'outer_persistent';
  tag: string;
  /** Always false: the outer persistent scheduler reduces outer (slow) dims. */
  fastestDim: false;
  persistentKernel: true;
  /** Persistent buffer bytes per column (nvFuser's persistent_buffer_size). */
  persistentBufferSize: number;
  /** The column is reduced across threadIdx.y with a block allreduce (always, even one thread). */
  crossBlockInnerReduction: true;
  blockDimInnerReduction: 'TIDy';
  /** No grid reduction: the whole reduced extent lives in one block. */
  crossGridInnerReduction: false;
  /** Serial persistent batches per thread (nvFuser's batches_per_block_inner_reduction). */
  batchesPerBlockInnerReduction: number;
  /** A Half/BFloat16 input, not its Float cast, is kept in registers (projection to inputs). */
  projectPersistentBuffers: boolean;
  /**
   * No buffer kept: each phase reads the inputs from global memory again and recomputes what
   * it needs (reread-buffers.ts); `batches` is then the serial loop count of each phase.
   */
  rereadPersistentBuffers?: true;
  gridDimIterDom: 'BIDx';
  blockDimIterDom: 'TIDx';
  /** Not yet: one element of the kept dim per thread (no vectorized or unrolled iteration). */
  unrollFactorIterDom: 1;
  vectorizeIterDom: false;
  indexType: IndexType;
  /** bdimx kept elements per block, bdimy = ceilDiv(reduced extent, batches). */
  lparams: LaunchDims;
  /**
   * Divisibility of each split the schedule applies to the reference, in order:
   * kept dim by bdimx, reduced dim by batches (outer split). true: no predicate needed.
   */
  divisibleSplits: readonly boolean[];
}

/** nvFuser's `ReductionParams::toString` layout for an outer persistent kernel (`scheduler_params`). */
export function outerPersistentParamsToString(p: OuterPersistentParams): string {
  const lines = reductionDumpOpening(p.tag, p.fastestDim, p);
  lines.push('Iteration Domain: blockIdx.x / threadIdx.x / ');
  lines.push(`Inner Reduction Domain: cross block - threadIdx.y / persistent batch - ${p.batchesPerBlockInnerReduction} / `);
  lines.push(launchParamsLine(p.lparams));
  lines.push(`Persistent buffer size: ${p.persistentBufferSize} bytes per column`);
  if (p.rereadPersistentBuffers === true) lines.push('Persistent buffers re-read from global memory in every phase (none kept in registers)');
  return reductionDumpClosing(lines, p);
}
