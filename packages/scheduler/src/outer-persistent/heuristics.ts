// Outer persistent heuristics (after nvFuser's outerPersistentHeuristic, with our own simpler
// rules). For a reduction over the outer dims (merged: Rd elements per column) keeping the
// inner dims (merged: I columns):
//   * batches B (serial, constant, the persistent batch): each thread keeps B elements of its
//     column of every persistent buffer in registers, at most 256 bytes (64 registers);
//   * B as large as the budget allows (fewer threads, each with a longer slice of the column)
//     while the grid keeps ≥ 128 threads per SM; bdimy = ⌈Rd / B⌉ (threadIdx.y); bdimx
//     (threadIdx.x, over the kept dim, coalesced) the widest ≤ 32 whose block fits 1024 threads
//     and one SM's registers (see chooseOuterBlock);
//   * a column that fits no block (Rd > 1024 × max B) is refused with a reason (no grid
//     persistence yet: nvFuser would go cross-grid);
//   * blocks over blockIdx.x: ⌈I / bdimx⌉;
//   * divisibility of the two splits, proven from the sizes, so lowering drops predicates.

import type { Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { collectIo } from '../analysis/io-tensors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { bytesPerColumnElement, columnShape, firstOuterReduction, MAX_THREADS_PER_BLOCK, maxColumnBatches, outerPersistentLaunchRefusal } from './launch-bounds.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import type { OuterPersistentParams } from './params.js';

export { bytesPerColumnElement, columnShape, firstOuterReduction, MAX_PERSISTENT_BATCHES, MAX_PERSISTENT_BYTES_PER_THREAD, MAX_THREADS_PER_BLOCK } from './launch-bounds.js';

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

export interface OuterBlockChoice {
  bdimx: number;
  bdimy: number;
  batches: number;
}

/** Persistent bytes one block may keep: half of an SM's 256 KiB register file. */
const BLOCK_PERSISTENT_BYTES = 128 * 1024;
/** Threads the grid should have at least (per SM) before the batch is made smaller. */
const MIN_THREADS_PER_SM = 128;

/**
 * Threads and batches for `columns` kept elements and `columnLength` reduced elements, each
 * element costing `bytesPerElement` of (projected) persistent registers, with at most
 * `maxBatches` batches; null when the column fits no block. The largest batch that leaves the
 * grid at least MIN_THREADS_PER_SM threads per SM wins, and for it the widest bdimx (≤ 32
 * columns) whose block fits 1024 threads and keeps at most BLOCK_PERSISTENT_BYTES. Measured on
 * the H100 (codegen-outer-persistent-variants, 2026-11-23): fewer threads with longer column
 * slices win — batch_norm f32 4096×4096 65 µs at 8 columns × 64 batches vs 70 µs at 8 × 32 and
 * 80 µs at 16 × 64; bf16 56 µs at 16 × 64 vs 76 µs at 8 × 32; channels-last bf16
 * 8×32×32×1024 41 µs at 8 × 64 vs 60 µs at 4 × 32 — which this rule picks in every case.
 */
export function chooseOuterBlock(columns: number, columnLength: number, maxBatches: number, bytesPerElement = 4, smCount = 132): OuterBlockChoice | null {
  const limit = Math.max(1, maxBatches);
  let fallback: (OuterBlockChoice & { threads: number }) | null = null;
  for (let b = limit; b >= 1; b = b === 1 ? 0 : Math.max(1, Math.floor(b / 2))) {
    const bdimy = Math.max(1, ceilDiv(columnLength, b));
    if (bdimy > MAX_THREADS_PER_BLOCK) break;
    const batches = Math.max(1, ceilDiv(columnLength, bdimy));
    const perThread = batches * bytesPerElement;
    let bdimx = Math.min(32, Math.max(1, columns));
    while (bdimx > 1 && (bdimx * bdimy > MAX_THREADS_PER_BLOCK || bdimx * bdimy * perThread > BLOCK_PERSISTENT_BYTES)) bdimx = Math.floor(bdimx / 2);
    if (bdimx * bdimy > MAX_THREADS_PER_BLOCK) continue;
    const threads = ceilDiv(columns, bdimx) * bdimx * bdimy;
    if (threads >= MIN_THREADS_PER_SM * smCount) return { bdimx, bdimy, batches };
    if (fallback === null || threads > fallback.threads) fallback = { bdimx, bdimy, batches, threads };
  }
  return fallback === null ? null : { bdimx: fallback.bdimx, bdimy: fallback.bdimy, batches: fallback.batches };
}

/** Whether some persistent buffer is a widening cast of an input (projected by the schedule). */
function projectsToInputs(fusion: Fusion): boolean {
  return persistentBuffers(fusion).some(({ tv }) => {
    const def = tv.definition;
    const src = def?.inputs[0];
    return def !== null && def.kind === 'UnaryOp' && def.op === 'cast' && src !== undefined && src.kind === 'tensorView' && src.isFusionInput();
  });
}

/** Choices a caller may force instead of the heuristic's (tuning experiments, tests). */
export interface OuterPersistentOverrides {
  /** Columns per block (threadIdx.x). */
  bdimx?: number;
  /** Persistent batch: column elements each thread keeps; threadIdx.y covers the rest. */
  batches?: number;
}

export function computeOuterPersistentHeuristics(
  original: Fusion,
  runtimeInfo: RuntimeInfo,
  overrides: OuterPersistentOverrides = {},
  cache?: HeuristicDataCache,
): OuterPersistentParams {
  // Decide for the fusion the schedule will see: Welford translated to two sums.
  // (the analyses come from the cache canSchedule filled: computed once per fusion and sizes)
  const analysis = HeuristicDataCache.for(original, runtimeInfo, cache).welfordTranslated();
  const fusion = analysis.fusion;
  const bindings = analysis.bindings();
  // The bounds acceptance checked (launch-bounds.ts).
  const refusal = outerPersistentLaunchRefusal(analysis, overrides);
  if (refusal !== null) throw new SchedulingError(refusal);
  const r = firstOuterReduction(fusion);
  const { reductionNumel: Rd, iterationNumel: I } = columnShape(r, bindings);
  const perElement = bytesPerColumnElement(analysis, Rd);
  const maxBatches = maxColumnBatches(perElement);
  const forced = overrides.bdimx !== undefined && overrides.batches !== undefined ? { bdimx: overrides.bdimx, batches: overrides.batches, bdimy: ceilDiv(Rd, overrides.batches) } : null;
  const choice = forced ?? chooseOuterBlock(I, Rd, maxBatches, perElement, runtimeInfo.device.smCount);
  if (choice === null) throw new Error('outer persistent heuristics: no block although the launch bounds hold (a bug)');
  const { bdimx, bdimy, batches } = choice;
  const gdimx = ceilDiv(I, bdimx);
  const size = analysis.persistentBufferSize();
  return {
    schedulerType: 'outer_persistent',
    tag: 'Outer Persistent Heuristic.',
    fastestDim: false,
    persistentKernel: true,
    persistentBufferSize: size.bytes,
    crossBlockInnerReduction: true,
    blockDimInnerReduction: 'TIDy',
    crossGridInnerReduction: false,
    batchesPerBlockInnerReduction: batches,
    projectPersistentBuffers: projectsToInputs(fusion),
    gridDimIterDom: 'BIDx',
    blockDimIterDom: 'TIDx',
    unrollFactorIterDom: 1,
    vectorizeIterDom: false,
    indexType: chooseIndexType(collectIo(fusion, runtimeInfo, bindings)),
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: [I % bdimx === 0, Rd % batches === 0],
  };
}
