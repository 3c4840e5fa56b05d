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
//   * divisibility of the two splits, proven from the sizes, so lowering drops predicates;
//   * re-read instead of persist (reread-buffers.ts, chooseRereadBlock) where the register
//     budget leaves a block less than a 32-byte sector of each row (bf16 softmax over 8192
//     rows: 8 columns, 16 bytes; issue 38, 12% of the copy floor with 64 batches in 1024
//     threads spilling) and nothing forbids recomputing (no Welford — nvFuser's grid
//     persistence, which it enables for Welford only, is the answer there —, no RNG, no resize).

import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { collectIo } from '../analysis/io-tensors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { bytesPerColumnElement, columnShape, firstOuterReduction, MAX_THREADS_PER_BLOCK, maxColumnBatches, outerPersistentLaunchRefusal } from './launch-bounds.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import type { OuterPersistentParams } from './params.js';
import { rereadRefusal } from './reread-buffers.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';

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

/** Bytes of one row segment a warp should read at least: a whole 32-byte L2 sector. */
const SECTOR_BYTES = 32;
/** Threads per block of the re-read form: 512 leaves room for several blocks per SM. */
const REREAD_THREADS = 512;

/**
 * The re-read form's block (no register budget): the widest bdimx ≤ 32 that still gives the
 * grid a block per SM, but never fewer columns than fill a 32-byte sector of each row
 * (`elementBytes` the widest input element); bdimy = REREAD_THREADS / bdimx rows, each thread
 * looping over ⌈Rd / bdimy⌉ of them per phase.
 */
export function chooseRereadBlock(columns: number, columnLength: number, elementBytes: number, smCount = 132): OuterBlockChoice {
  const minColumns = Math.max(1, Math.floor(SECTOR_BYTES / Math.max(1, elementBytes)));
  let bdimx = 32;
  while (bdimx > minColumns && ceilDiv(columns, bdimx) < smCount) bdimx /= 2;
  while (bdimx > 1 && bdimx / 2 >= columns) bdimx /= 2;
  const rows = Math.max(1, Math.min(Math.floor(REREAD_THREADS / bdimx), columnLength));
  const batches = Math.max(1, ceilDiv(columnLength, rows));
  return { bdimx, bdimy: ceilDiv(columnLength, batches), batches };
}

/** The widest element of the fusion's tensor inputs (bytes). */
function widestInputElement(fusion: Fusion): number {
  let w = 1;
  for (const v of fusion.inputs) if (v.kind === 'tensorView') w = Math.max(w, dataTypeSize(v.dtype));
  return w;
}

/**
 * Whether the heuristic re-reads instead of persisting (see the header): when a block of
 * sector-wide rows (min(32 bytes' worth, `columns`) columns) cannot keep its columns of
 * `columnLength` elements, `perElement` register bytes each, in one block's budget (threads ×
 * `maxBatches` registers, BLOCK_PERSISTENT_BYTES) — the register file, not the tensor's width
 * or the occupancy rule, is what narrows the persistent block.
 */
function rereadWanted(original: Fusion, columns: number, columnLength: number, perElement: number, maxBatches: number): boolean {
  if (original.exprs().some((e) => e.kind === 'WelfordOp') || hasResizeExprs(original) || rereadRefusal(original) !== null) return false;
  const sectorColumns = Math.min(columns, Math.max(1, Math.floor(SECTOR_BYTES / widestInputElement(original))));
  const threads = sectorColumns * ceilDiv(columnLength, maxBatches);
  return threads > MAX_THREADS_PER_BLOCK || sectorColumns * columnLength * perElement > BLOCK_PERSISTENT_BYTES;
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
  /** Re-read the inputs in every phase instead of keeping buffers (default: the heuristic's rereadWanted). */
  reread?: boolean;
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
  const persistentChoice = forced ?? chooseOuterBlock(I, Rd, maxBatches, perElement, runtimeInfo.device.smCount);
  if (persistentChoice === null) throw new Error('outer persistent heuristics: no block although the launch bounds hold (a bug)');
  const reread = overrides.reread ?? (forced === null && rereadWanted(original, I, Rd, perElement, maxBatches));
  if (reread) {
    const why = rereadRefusal(original) ?? (hasResizeExprs(original) ? 'outer persistent re-read: slice / pad / cat are not supported' : null);
    if (why !== null) throw new SchedulingError(why);
  }
  const choice = reread && forced === null ? chooseRereadBlock(I, Rd, widestInputElement(original), runtimeInfo.device.smCount) : persistentChoice;
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
    ...(reread ? { rereadPersistentBuffers: true as const } : {}),
    gridDimIterDom: 'BIDx',
    blockDimIterDom: 'TIDx',
    unrollFactorIterDom: 1,
    vectorizeIterDom: false,
    indexType: chooseIndexType(collectIo(fusion, runtimeInfo, bindings)),
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: [I % bdimx === 0, Rd % batches === 0],
  };
}
