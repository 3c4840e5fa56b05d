// What an inner persistent launch must fit, checked without choosing the launch (nvFuser's
// canScheduleRunTime for the inner persistent scheduler: the persistent buffers fit on chip,
// the grid fits): the row fit — the row analysis (row-analysis.ts) with the vector width, the
// row's vector count and the batches a thread may keep in registers — memoized per (fusion,
// runtime info, max vector bytes) in the HeuristicDataCache, and the refusals those numbers
// decide: a row that does not fit MAX_THREADS_PER_ROW threads × the register batches, more
// rows than gridDim.x holds at one row per block, and the scheduler's overrides that cannot be
// launched (a forced batch leaving too many threads, forced rows per block over the block
// limit, bulk row loads with a resize in the row, a persistent grid with rows on threadIdx.y,
// a row prefetch without a persistent grid or together with bulk row loads). The acceptance asks this for every candidate
// merge; the heuristics call the same function first and then choose within these bounds.
// Invariant: the refusal is exactly the heuristics' SchedulingError for the same fusion,
// runtime info and overrides, and for an accepted fusion the heuristics raise none of these.

import type { TensorView } from '@tsfuser/fusion-ir';
import type { AnalysisKey, HeuristicDataCache } from '../heuristic-data-cache.js';
import type { SchedulerDevice } from '../runtime-info.js';
import type { VectorChoice } from '../persistent/row-vectorization.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { chooseBatches, forcedBatches, MAX_THREADS_PER_ROW, TARGET_BLOCK_THREADS } from './batches.js';
import { bytesPerRowElement, firstReduction, rowInputs, rowShape, vectorization, type RowInputs } from './row-analysis.js';

/** Register bytes per thread the persistent buffers may take (64 32-bit registers). */
export const MAX_PERSISTENT_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 32;
export const MAX_GRID_X = 2 ** 31 - 1;

/** The row of the (Welford-translated) fusion, as the launch is sized for it. */
export interface InnerRowFit {
  reduction: TensorView;
  rowLength: number;
  rows: number;
  inputs: RowInputs;
  vec: VectorChoice;
  /** ⌈rowLength / vec⌉. */
  vectors: number;
  /** Register bytes per row element in the persistent buffers. */
  perElement: number;
  /** Batches a thread may keep in MAX_PERSISTENT_BYTES_PER_THREAD. */
  maxBatches: number;
}

/** The launch overrides the bounds depend on (a subset of InnerPersistentOverrides). */
export interface InnerLaunchOverrides {
  maxVectorBytes?: number;
  batches?: number;
  bdimy?: number;
  bulkLoadRows?: boolean;
  blocksPerSm?: number;
  prefetchNextRow?: boolean;
}

const ROW_FIT: AnalysisKey<InnerRowFit> = Object.freeze({ name: 'inner persistent row fit' });

/** The row fit of `cache`'s Welford-translated fusion for a maximum vector of `maxVectorBytes`, once per cache. */
export function innerRowFit(cache: HeuristicDataCache, maxVectorBytes: number): InnerRowFit {
  const analysis = cache.welfordTranslated();
  return analysis.analysis(
    ROW_FIT,
    () => {
      const fusion = analysis.fusion;
      const bindings = analysis.bindings();
      const reduction = firstReduction(fusion);
      const { rowLength, rows } = rowShape(reduction, bindings);
      const inputs = rowInputs(fusion, reduction);
      const vec = vectorization(fusion, analysis.runtimeInfo, bindings, reduction, inputs, rowLength, rows, maxVectorBytes);
      const perElement = bytesPerRowElement(analysis, rowLength);
      const maxBatches = Math.min(MAX_PERSISTENT_BATCHES, Math.max(1, Math.floor(MAX_PERSISTENT_BYTES_PER_THREAD / (vec.factor * perElement))));
      return { reduction, rowLength, rows, inputs, vec, vectors: Math.ceil(rowLength / vec.factor), perElement, maxBatches };
    },
    maxVectorBytes,
  );
}

/** The TIDx width the heuristics give the row with no forced batch (fewer rows than SMs: wider blocks). */
export function targetRowThreads(fit: InnerRowFit, device: SchedulerDevice): number {
  return fit.rows < device.smCount ? MAX_THREADS_PER_ROW : TARGET_BLOCK_THREADS;
}

/** Why no inner persistent launch fits `cache`'s fusion with `overrides`, or null (see the header). */
export function innerPersistentLaunchRefusal(cache: HeuristicDataCache, overrides: InnerLaunchOverrides): string | null {
  const fit = innerRowFit(cache, overrides.maxVectorBytes ?? 16);
  const { rowLength: R, rows: I, vectors, maxBatches } = fit;
  if (R === 0 || I === 0) return `inner persistent heuristics: ${I} rows of ${R} elements (empty)`;
  const forced = overrides.batches;
  if (forced !== undefined) {
    const f = forcedBatches(vectors, forced);
    if (f.bdimx > MAX_THREADS_PER_ROW) return `inner persistent heuristics: ${forced} batches leave ${f.bdimx} threads per row`;
  } else if (Math.ceil(vectors / maxBatches) > MAX_THREADS_PER_ROW) {
    // chooseBatches has a choice exactly when the largest batch leaves at most MAX_THREADS_PER_ROW lanes
    return `inner persistent heuristics: a row of ${R} elements needs more than ${MAX_THREADS_PER_ROW} threads × ${maxBatches} batches × ${fit.vec.factor} elements in registers`;
  }
  if (overrides.bdimy !== undefined) {
    const choice = forced !== undefined ? forcedBatches(vectors, forced) : chooseBatches(vectors, maxBatches, targetRowThreads(fit, cache.runtimeInfo.device));
    const bdimx = choice?.bdimx ?? 0;
    if (bdimx * overrides.bdimy > MAX_THREADS_PER_ROW) return `inner persistent heuristics: ${bdimx}×${overrides.bdimy} threads per block, more than ${MAX_THREADS_PER_ROW}`;
    if (Math.ceil(I / overrides.bdimy) > MAX_GRID_X) return `inner persistent heuristics: ${I} rows need ${Math.ceil(I / overrides.bdimy)} blocks, more than gridDim.x allows`;
  } else if (I > MAX_GRID_X) {
    return `inner persistent heuristics: ${I} rows need more than the ${MAX_GRID_X} blocks gridDim.x allows at one row per block`;
  }
  const grid = overrides.blocksPerSm ?? 0;
  if (!Number.isInteger(grid) || grid < 0) return `inner persistent heuristics: blocksPerSm ${grid} (a persistent grid needs a whole number of blocks per SM ≥ 1; 0: none)`;
  if (grid > 0 && overrides.bdimy !== undefined && overrides.bdimy > 1) return `inner persistent heuristics: a persistent grid (blocksPerSm ${grid}) walks one row at a time, not bdimy ${overrides.bdimy} rows per block`;
  if (overrides.prefetchNextRow === true && grid === 0) return 'inner persistent heuristics: prefetchNextRow needs a persistent grid (blocksPerSm ≥ 1): with one row per block there is no next row';
  if (overrides.prefetchNextRow === true && overrides.bulkLoadRows === true) return 'inner persistent heuristics: prefetchNextRow and bulkLoadRows are two circular buffers for the same rows; choose one';
  if (overrides.bulkLoadRows === true && hasResizeExprs(cache.welfordTranslated().fusion)) {
    return 'inner persistent heuristics: bulk row loads are not supported with slice, pad or cat in the row';
  }
  return null;
}
