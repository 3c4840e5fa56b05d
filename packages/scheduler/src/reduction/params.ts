// ReductionParams: the decisions of the reduction scheduler for one fusion and one set of
// runtime sizes, with nvFuser's field names (camelCase), and their `scheduler_params` dump in
// the layout of nvFuser's ReductionParams::toString. Equal parameters mean the same kernel.

import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';
import { launchParamsLine, reductionDumpClosing, reductionDumpOpening } from './params-dump.js';

/** Parallel types the reduction scheduler binds (a subset of fusion-ir's ParallelType). */
export type ReductionParallelType = 'Serial' | 'BIDx' | 'TIDx' | 'TIDy';

export interface ReductionParams {
  schedulerType: 'reduction';
  tag: string;
  /** Reducing the innermost (fastest-changing) logical dim: TIDx reduces; else TIDx iterates. */
  fastestDim: boolean;
  /** Never set here: persistence is the normalization schedulers' job. */
  persistentKernel: false;
  /** The (merged) reduction dim is reduced across threads of a block (TIDx inner, TIDy outer). */
  crossBlockInnerReduction: boolean;
  /**
   * The reduction dim is also split over blockIdx.y (few outputs, long reduction): each block
   * reduces its slice, writes a partial to a global work buffer, and the last block of a row
   * (semaphore) combines them.
   */
  crossGridInnerReduction: boolean;
  gridDimInnerReduction: 'Serial' | 'BIDy';
  /**
   * Grid reduction storage baked into the kernel (static __device__ arrays, zero at module
   * load, semaphores reset by the last block): partial slots (gridDim.x · segments per block ·
   * gridDim.y) and semaphores (gridDim.x). 0 without a grid reduction. Part of the kernel key.
   */
  gridReductionWorkSlots: number;
  gridReductionSemaphores: number;
  /** gridDim.y of a grid reduction: a split factor baked into the kernel (lparams.gdimy is not). */
  gridReductionBlocksY: number;
  splitGridDimInnerReduction: false;
  /** Elements per thread and serial step over the reduction dim (contiguous ones for inner
   * reductions, rows for outer reductions). */
  unrollFactorInnerReduction: number;
  /** Those elements are one vectorized load (input caches). */
  vectorizeInnerReduction: boolean;
  /** Several outputs per block: TIDy over the iteration dim (inner reductions). */
  multipleReductionsPerBlock: boolean;
  /**
   * Adjacent columns of the iteration dim each thread owns (outer reductions; 1 otherwise):
   * the innermost position of the schedule, one vector load per row when `vectorizeIterDom`.
   */
  unrollFactorIterDom: number;
  vectorizeIterDom: boolean;
  /** Iteration dim beyond gridDim.x's limit: never needed (2^31-1 blocks). */
  splitGridDimIterDom: false;
  gridDimIterDom: ReductionParallelType;
  blockDimIterDom: ReductionParallelType;
  blockDimInnerReduction: ReductionParallelType;
  indexType: IndexType;
  lparams: LaunchDims;
  /** Divisibility of each split the schedule applies, in order (true: no predicate needed). */
  divisibleSplits: readonly boolean[];
  /** Fusion input positions whose loads are vectorized. */
  vectorizedInputs: readonly number[];
}

function ptName(p: ReductionParallelType): string {
  switch (p) {
    case 'Serial':
      return 'S';
    case 'BIDx':
      return 'blockIdx.x';
    case 'TIDx':
      return 'threadIdx.x';
    case 'TIDy':
      return 'threadIdx.y';
    default: {
      const unreachable: never = p;
      throw new Error(`unknown parallel type ${String(unreachable)}`);
    }
  }
}

/** nvFuser's `ReductionParams::toString` layout (the `scheduler_params` dump). */
export function reductionParamsToString(p: ReductionParams): string {
  const lines = reductionDumpOpening(p.tag, p.fastestDim, null);
  let iter = 'Iteration Domain: ';
  if (p.gridDimIterDom !== 'Serial') iter += `${ptName(p.gridDimIterDom)} / `;
  if (p.blockDimIterDom !== 'Serial') iter += `${ptName(p.blockDimIterDom)} / `;
  if (p.multipleReductionsPerBlock) iter += 'multiple reductions per block / ';
  if (p.vectorizeIterDom) iter += 'vectorize / ';
  else if (p.unrollFactorIterDom > 1) iter += 'unroll / ';
  if (p.unrollFactorIterDom > 1) iter += `factor ${p.unrollFactorIterDom}`;
  lines.push(iter);
  let red = 'Inner Reduction Domain: ';
  if (p.crossBlockInnerReduction) red += `cross block - ${ptName(p.blockDimInnerReduction)} / `;
  if (p.crossGridInnerReduction) red += 'cross grid - blockIdx.y / ';
  if (p.vectorizeInnerReduction) red += 'vectorize / ';
  else if (p.unrollFactorInnerReduction > 1) red += 'unroll / ';
  if (p.unrollFactorInnerReduction > 1) red += `factor ${p.unrollFactorInnerReduction}`;
  lines.push(red);
  lines.push(launchParamsLine(p.lparams));
  if (p.vectorizeIterDom) lines.push(`Vectorized inputs: [${p.vectorizedInputs.join(', ')}]`);
  if (p.crossGridInnerReduction) lines.push(`Grid reduction: ${p.gridReductionWorkSlots} work slots, ${p.gridReductionSemaphores} semaphores`);
  return reductionDumpClosing(lines, p);
}
