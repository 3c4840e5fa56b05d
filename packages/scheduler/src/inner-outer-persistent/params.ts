// InnerOuterPersistentParams: the decisions of the inner-outer persistent scheduler (layer_norm
// backward: inner reductions over each row plus outer reductions over the rows, one kernel)
// for one fusion and one set of runtime sizes — nvFuser's ReductionParams fields for a
// combined inner-outer persistent kernel (camelCase), and their `scheduler_params` dump in the
// layout of nvFuser's ReductionParams::toString (the inner persistent lines, then the outer
// reduction's), plus tsfuser's buffer size, work buffer, index type and divisibility lines.
// Equal parameters mean the same kernel.
//
// The reference (the inner reduction's input) is [rows, row]; the rows are split over a
// persistent grid as [gdimx (blockIdx.x), ceilDiv(rows, gdimx) (serial: each block takes a
// contiguous chunk of rows)], the row as for the inner persistent scheduler
//   [ceilDiv(row / vec, batches) (threadIdx.x), batches (serial, constant), vec (vectorize)].
// The outer reductions (reduced over the rows, kept over the row) follow the same five
// positions: each thread accumulates its batches·vec columns over the block's rows in
// registers, then the blocks' partials meet in a global work buffer [gdimx, row] and, after a
// grid barrier, every block sums a slice of the columns (all blocks must be resident at once:
// gdimx ≤ SMs × blocksPerSm).
//
// Multiple rows per block (nvFuser's multiple_reds_per_blk; small rows, where one row fills too
// few threads): the block's chunk of rows is split once more by bdimy,
//   [gdimx (BIDx), ceilDiv(ceilDiv(rows, gdimx), bdimy) (serial), bdimy (threadIdx.y), row...],
// the inner reductions run across threadIdx.x only (one per threadIdx.y), and each thread's
// outer partials are first reduced across threadIdx.y in shared memory (a block reduction
// after the row loop), so the work buffer keeps gdimx rows of partials.

import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';
import type { PersistentRowReductionParams } from '../inner-persistent/params.js';
import { launchParamsLine, reductionDumpClosing, reductionDumpOpening, rowReductionLine, vectorizedTensorsLine } from '../reduction/params-dump.js';

/** The row fields (PersistentRowReductionParams) are the inner persistent scheduler's. */
export interface InnerOuterPersistentParams extends PersistentRowReductionParams {
  schedulerType: 'inner_outer_persistent';
  tag: string;
  fastestDim: true;
  persistentKernel: true;
  /** nvFuser's combined_inner_outer: inner and outer reductions in one kernel. */
  combinedInnerOuter: true;
  /** Persistent buffer bytes per row (nvFuser's persistent_buffer_size). */
  persistentBufferSize: number;
  /** Rows: blockIdx.x over a persistent grid, each block looping over its chunk of rows. */
  gridDimIterDom: 'BIDx';
  /** TIDy: several rows per block (lparams.bdimy of them at once); Serial: one. */
  blockDimIterDom: 'Serial' | 'TIDy';
  /** nvFuser's multiple_reds_per_blk: bdimy > 1 rows reduced at once by each block. */
  multipleReductionsPerBlock: boolean;
  /** Rows each block takes: ceilDiv(rows, gdimx) (the serial row loop covers them bdimy at a time). */
  rowsPerBlock: number;
  /** Blocks per SM the persistent grid assumes resident (the grid barrier needs all of them). */
  blocksPerSm: number;
  /**
   * Each block loads its next row's inputs into a second set of registers before reducing the
   * current row (nvFuser's circular buffering, 2 stages, over the serial row loop): the row's
   * global latency overlaps the block reductions instead of following them.
   */
  prefetchNextRow: boolean;
  /**
   * Each block's rows of the full-row inputs go through shared memory by cp.async.bulk (sm_90+):
   * the next row's copy is issued as soon as this row is in registers, so it is in flight
   * during this row's reductions and stores without costing registers (a shared-memory
   * circular buffer of one stage, where prefetchNextRow is a register one).
   */
  bulkLoadRows: boolean;
  /**
   * Row slots of each bulk-copied buffer (with bulkLoadRows): the next `bulkStages` rows of the
   * block are in flight while it works on this one (a shared-memory circular buffer of that many
   * stages). 1: the next row only.
   */
  bulkStages: number;
  /**
   * The row's inner block allreduces run in pairs (nvFuser's grouped reductions): both sums of
   * layer_norm backward in one pass with one set of barriers.
   */
  groupInnerReductions: boolean;
  /** Outer reductions: partials per block per column, then reduced across blockIdx.x. */
  crossGridOuterReduction: true;
  /** Elements of the outer reductions' work buffer, per outer reduction: gdimx × row length. */
  outerReductionWorkSlots: number;
  /** Number of outer reductions (grad_weight, grad_bias: 2). */
  outerReductions: number;
  indexType: IndexType;
  lparams: LaunchDims;
  /**
   * Divisibility of each split the schedule applies to the reference, in order: row by vec,
   * row/vec by batches (outer split), rows by gdimx (outer split), and with bdimy > 1 the
   * block's chunk of rows by bdimy (inner split). true: no predicate needed.
   */
  divisibleSplits: readonly boolean[];
}

/** nvFuser's `ReductionParams::toString` layout for a combined inner-outer persistent kernel. */
export function innerOuterPersistentParamsToString(p: InnerOuterPersistentParams): string {
  const lines = reductionDumpOpening(p.tag, p.fastestDim, p);
  if (p.prefetchNextRow) {
    const at = lines.indexOf('Circular buffer: not used');
    if (at >= 0) lines[at] = 'Circular buffer: 2 stages over the row loop (registers; the next row loads during this row)';
  }
  const rows = p.blockDimIterDom === 'TIDy' ? 'threadIdx.y / multiple reductions per block / ' : '';
  lines.push(`Iteration Domain: blockIdx.x / ${rows}serial - ${p.rowsPerBlock} rows per block / `);
  lines.push(rowReductionLine(p));
  const acrossY = p.blockDimIterDom === 'TIDy' ? 'cross block - threadIdx.y / ' : '';
  lines.push(`Outer Reduction Domain: serial over rows / ${acrossY}cross grid - blockIdx.x (${p.outerReductions} reductions, work buffer ${p.outerReductionWorkSlots} slots each) / `);
  lines.push(launchParamsLine(p.lparams));
  lines.push(`Persistent buffer size: ${p.persistentBufferSize} bytes per row`);
  lines.push(`Blocks per SM: ${p.blocksPerSm}`);
  if (p.groupInnerReductions) lines.push('Grouped inner reductions: block allreduces in pairs');
  if (p.bulkLoadRows && p.bulkStages === 1) lines.push("Rows copied to shared memory with cp.async.bulk (the next row's copy in flight during this row)");
  if (p.bulkLoadRows && p.bulkStages > 1) lines.push(`Rows copied to shared memory with cp.async.bulk (${p.bulkStages} stages: the next ${p.bulkStages} rows' copies in flight during this row)`);
  lines.push(vectorizedTensorsLine(p));
  return reductionDumpClosing(lines, p);
}
