// InnerPersistentParams: the decisions of the inner persistent (normalization) scheduler for
// one fusion and one set of runtime sizes — nvFuser's ReductionParams fields for a persistent
// kernel (camelCase), and their `scheduler_params` dump in the layout of nvFuser's
// ReductionParams::toString ("Persistent Kernel", "Batches per block", "pad to warp",
// "persistent batch - N", plus tsfuser's buffer size, vectorized tensors, index type and
// divisibility lines). Equal parameters mean the same kernel.
//
// The row (the merged reduced dims, innermost) is split as
//   [batches (serial, constant), ceilDiv(row / vec, batches) (threadIdx.x), vec (vectorize)]
// so each thread keeps `batches · vec` elements of every persistent buffer in registers; the
// rows (merged kept dims) as [ceilDiv(rows, bdimy) (blockIdx.x), bdimy (threadIdx.y)], or with
// a persistent grid as [gdimx (blockIdx.x), ceilDiv(rows, gdimx) (serial row loop)].

import type { LaunchDims } from '../launch-dims.js';
import type { IndexType } from '../index-type.js';
import { launchParamsLine, reductionDumpClosing, reductionDumpOpening, rowReductionLine, vectorizedTensorsLine } from '../reduction/params-dump.js';

/**
 * The row reduction of a persistent kernel over threadIdx.x, with its vectorized accesses
 * (nvFuser's ReductionParams fields): what the inner and inner-outer persistent params share.
 */
export interface PersistentRowReductionParams {
  /** The row is reduced across threadIdx.x with a block allreduce (always, even one thread). */
  crossBlockInnerReduction: true;
  blockDimInnerReduction: 'TIDx';
  /** Vector width of the row's contiguous accesses (1: scalar accesses). */
  unrollFactorInnerReduction: number;
  vectorizeInnerReduction: boolean;
  /** Serial persistent batches per thread (nvFuser's batches_per_block_inner_reduction). */
  batchesPerBlockInnerReduction: number;
  /** bdimx is the TIDx extent rounded up to a warp multiple (nvFuser's pad_inner_reduction_to_warp). */
  padInnerReductionToWarp: boolean;
  /** A Half/BFloat16 input, not its Float cast, is kept in registers (projection to inputs). */
  projectPersistentBuffers: boolean;
  /** Fusion input positions whose row accesses are vectorized. */
  vectorizedInputs: readonly number[];
  /** Fusion output positions whose row stores are vectorized. */
  vectorizedOutputs: readonly number[];
}

export interface InnerPersistentParams extends PersistentRowReductionParams {
  schedulerType: 'inner_persistent';
  tag: string;
  /** Always true: the inner persistent scheduler reduces the innermost dim. */
  fastestDim: true;
  persistentKernel: true;
  /**
   * Projected persistent buffer bytes per row (nvFuser's persistent_buffer_size). The row count
   * is not a parameter: kernels are reused across batch sizes (gridDim.x is not in the key).
   */
  persistentBufferSize: number;
  /** Several rows per block on threadIdx.y (short rows). */
  multipleReductionsPerBlock: boolean;
  /**
   * Vector loads that are the same for every row (weight, bias) carry an L1 evict-last hint, so
   * the row stream does not push them out of L1 between the blocks of an SM (Inductor marks such
   * broadcast loads `evict_last`).
   */
  evictLastRowParams: boolean;
  /**
   * Block allreduces with one __syncthreads each instead of three (every warp combines the
   * warp partials itself; consecutive allreduces alternate two shared-memory areas, so none
   * needs a trailing barrier). Codegen applies it where every shared-memory use of the kernel
   * is such an allreduce, run once per thread.
   */
  singleBarrierAllreduce: boolean;
  /**
   * The row parameters' loads (weight, bias) are issued at the top of the kernel, before the
   * row's reductions, instead of in the last loop (their values are held in registers). On by
   * default for 4-byte rows within a register budget (heuristics.ts, hoistRowParamsByDefault).
   */
  hoistRowParamLoads: boolean;
  /**
   * The full-row inputs are copied to shared memory, one cp.async.bulk per row issued by one
   * thread at the top of the kernel and completed on an mbarrier, and the threads read their
   * vectors from there (sm_90+; off unless an override asks: bulk-row-loads.ts says why).
   */
  bulkLoadRows: boolean;
  /** Blocks per SM the kernel is capped at through its shared memory request (0: no cap). */
  maxBlocksPerSm: number;
  /** Dynamic shared memory each block requests at least, in bytes (the cap's means; 0: none). */
  minSharedMemBytes: number;
  /**
   * Blocks per SM of a persistent grid (0: none, one row — or bdimy rows — per block). With a
   * persistent grid, gdimx = min(rows, smCount · blocksPerSm) blocks each walk a contiguous chunk
   * of rowsPerBlock rows in a serial loop (the inner-outer persistent kernels' row loop), so a
   * block can load its next row while it reduces this one (prefetchNextRow, or bulk copies
   * pipelined over the loop) and keeps its hoisted row parameters for all its rows.
   */
  blocksPerSm: number;
  /** Rows each block takes: ceilDiv(rows, gdimx) with a persistent grid, else 1 (or bdimy at once). */
  rowsPerBlock: number;
  /**
   * With a persistent grid, each block loads its next row's inputs into a second set of
   * registers before reducing the current row (nvFuser's circular buffering, 2 stages).
   */
  prefetchNextRow: boolean;
  gridDimIterDom: 'BIDx';
  blockDimIterDom: 'Serial' | 'TIDy';
  indexType: IndexType;
  /**
   * bdimx: the TIDx extent ceilDiv(row / vec, batches) rounded up to a warp multiple (threads
   * beyond the extent are predicated off); bdimy rows per block.
   */
  lparams: LaunchDims;
  /**
   * Divisibility of each split the schedule applies to the reference, in order:
   * row by vec, row/vec by batches (outer split), rows by bdimy. true: no predicate needed.
   */
  divisibleSplits: readonly boolean[];
}

/** nvFuser's `ReductionParams::toString` layout for a persistent kernel (`scheduler_params`). */
export function innerPersistentParamsToString(p: InnerPersistentParams): string {
  const lines = reductionDumpOpening(p.tag, p.fastestDim, p);
  if (p.prefetchNextRow) {
    const at = lines.indexOf('Circular buffer: not used');
    if (at >= 0) lines[at] = 'Circular buffer: 2 stages over the row loop (registers; the next row loads during this row)';
  }
  let iter = 'Iteration Domain: blockIdx.x / ';
  if (p.blockDimIterDom === 'TIDy') iter += 'threadIdx.y / ';
  if (p.multipleReductionsPerBlock) iter += 'multiple reductions per block / ';
  if (p.blocksPerSm > 0) iter += `serial - ${p.rowsPerBlock} rows per block / `;
  lines.push(iter);
  lines.push(rowReductionLine(p));
  lines.push(launchParamsLine(p.lparams));
  lines.push(`Persistent buffer size: ${p.persistentBufferSize} bytes per row`);
  if (p.evictLastRowParams) lines.push('Row parameters loaded with L1::evict_last');
  if (p.singleBarrierAllreduce) lines.push('Block allreduces with one barrier');
  if (p.hoistRowParamLoads) lines.push('Row parameters loaded before the reductions');
  if (p.bulkLoadRows) lines.push('Rows copied to shared memory with cp.async.bulk');
  if (p.blocksPerSm > 0) lines.push(`Persistent grid: ${p.blocksPerSm} blocks per SM`);
  if (p.maxBlocksPerSm > 0) lines.push(`At most ${p.maxBlocksPerSm} blocks per SM (${p.minSharedMemBytes} bytes of shared memory per block)`);
  lines.push(vectorizedTensorsLine(p));
  return reductionDumpClosing(lines, p);
}
