// How many rows each block of the inner-outer persistent grid reduces at once (bdimy; nvFuser's
// multiple reductions per block, normalization_inner_outer*.cpp, with our own simpler rules).
//
// With one row per block a small row (bf16 hidden 768..2048: 96..256 vectors of 8) fills few
// threads, the block count per SM is capped (8 resident blocks), and each block's outer
// partials cover one row at a time. Several rows per block fill the SM with threads and reduce
// the outer partials of bdimy rows in the block before the grid step. The rules:
//   * the register prefetch and bulk row copies a caller asked for take one row per block;
//   * a row whose threads fill half the target block or more (bdimx > MULTI_ROW_MAX_ROW_THREADS)
//     keeps one row per block — the existing path for large hidden sizes;
//   * otherwise bdimy is the largest power of two with bdimx · bdimy ≤ the target block size
//     (512 threads, the inner-outer scheduler's TARGET_BLOCK_THREADS);
//   * halved while the SMs could not each take one block of bdimy rows (rows < SMs · bdimy):
//     few rows are better spread over more blocks than stacked in idle threadIdx.y slots.
// The dtype enters through the vector width (bdimx = the row's vectors / batches); the SM count
// through the last rule.
// Invariant: a pure function of its arguments; 1 ≤ bdimy and bdimx · bdimy ≤ maxThreadsPerBlock.

import { SchedulingError } from '../errors.js';

/** Threads of one row above which a block holds a single row. */
export const MULTI_ROW_MAX_ROW_THREADS = 256;

export interface RowsPerBlockFacts {
  /** Threads across one row (the inner reduction's threadIdx.x). */
  bdimx: number;
  /** Rows of the fusion (the outer reductions' extent). */
  rows: number;
  smCount: number;
  targetBlockThreads: number;
  maxThreadsPerBlock: number;
  /** A caller's choice (tuning); checked, not adjusted. */
  forced?: number;
  /** The register prefetch of the next row assumes one row per block. */
  prefetchNextRow: boolean;
  /** A caller asked for the bulk row copies (one row per block): the default is then 1. */
  bulkLoadRowsAsked: boolean;
}

/** Why a forced bdimy cannot be launched with the row's bdimx (and the prefetch asked), or null. */
export function forcedRowsPerBlockRefusal(forced: number, bdimx: number, maxThreadsPerBlock: number, prefetchNextRow: boolean): string | null {
  if (!Number.isInteger(forced) || forced < 1 || bdimx * forced > maxThreadsPerBlock) {
    return `inner-outer persistent heuristics: bdimy ${forced} is not a row count per block from 1 to ${Math.floor(maxThreadsPerBlock / bdimx)} (bdimx ${bdimx})`;
  }
  if (forced > 1 && prefetchNextRow) return 'inner-outer persistent heuristics: prefetchNextRow needs one row per block (bdimy 1)';
  return null;
}

export function chooseRowsPerBlock(f: RowsPerBlockFacts): number {
  if (f.forced !== undefined) {
    const refusal = forcedRowsPerBlockRefusal(f.forced, f.bdimx, f.maxThreadsPerBlock, f.prefetchNextRow);
    if (refusal !== null) throw new SchedulingError(refusal);
    return f.forced;
  }
  if (f.prefetchNextRow || f.bulkLoadRowsAsked || f.bdimx > MULTI_ROW_MAX_ROW_THREADS) return 1;
  let bdimy = 1;
  while (f.bdimx * bdimy * 2 <= Math.min(f.targetBlockThreads, f.maxThreadsPerBlock)) bdimy *= 2;
  while (bdimy > 1 && f.rows < f.smCount * bdimy) bdimy /= 2;
  return bdimy;
}
