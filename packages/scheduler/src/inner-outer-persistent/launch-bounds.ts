// What an inner-outer persistent launch must fit, checked without choosing the launch
// (nvFuser's canScheduleRunTime for the inner-outer persistent scheduler: the persistent buffers
// and the outer reductions' accumulators fit the register budget): the row fit — the inner
// reduction's row shape, the vector width, the register bytes a row element costs (the
// persistent buffers, projected to the inputs where they can be recomputed, plus one Float
// accumulator per outer reduction) and the batches a thread may keep — memoized per (fusion,
// runtime info) in the HeuristicDataCache, and the refusals it decides: a row that does not fit
// MAX_THREADS_PER_BLOCK threads × those batches, a forced batch (an override) leaving too many
// threads, next-row prefetch or bulk row loads (overrides) with a resize in the row. The
// acceptance asks this for every candidate merge; the heuristics call it first and then choose
// within these bounds (rows per block, resident blocks per SM, the grid).
// Invariant: the refusal is exactly the heuristics' SchedulingError for the same fusion,
// runtime info and overrides, and for an accepted fusion the heuristics raise none of these.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import type { AnalysisKey, HeuristicDataCache } from '../heuristic-data-cache.js';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import { rowVectorChoice, type VectorChoice } from '../persistent/row-vectorization.js';
import { resizeRowVectorChoice } from '../persistent/resize-row-vectorization.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { chooseBatches, forcedBatches } from '../inner-persistent/batches.js';
import { forcedRowsPerBlockRefusal } from './rows-per-block.js';
import { rowShape } from '../inner-persistent/row-analysis.js';
import { recomputeChain } from './projection.js';

export const MAX_THREADS_PER_BLOCK = 1024;
/** Register bytes per thread for persistent buffers and outer accumulators (64 registers). */
export const MAX_REGISTER_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 32;
/**
 * Threads per row the batch choice aims at. Measured on the H100 (layer_norm backward
 * 16384×4096, grouped allreduces): 512 threads (Float B=2, Half/BFloat16 B=1) against 256
 * (B=4 / B=2): Float 0.298 vs 0.303 ms, Half 0.206 vs 0.224, BFloat16 0.198 vs 0.205; 128
 * threads are slower still. Fewer rows in flight per SM, but each row's reductions end sooner.
 */
export const TARGET_BLOCK_THREADS = 512;

/** Whether a reduction output reduces its innermost logical dim (an inner reduction). */
export function isInnerReduction(r: TensorView): boolean {
  const logical = r.domain.logical.filter((id) => !id.isBroadcast());
  const last = logical[logical.length - 1];
  return last !== undefined && last.isReduction();
}

/** Reduction outputs of the fusion (ReductionOp), split into inner and outer. */
export function innerOuterReductions(fusion: Fusion): { inner: TensorView[]; outer: TensorView[] } {
  const inner: TensorView[] = [];
  const outer: TensorView[] = [];
  for (const e of fusion.exprs()) {
    const out = e.outputs[0];
    if (e.kind !== 'ReductionOp' || out === undefined || out.kind !== 'tensorView') continue;
    (isInnerReduction(out) ? inner : outer).push(out);
  }
  return { inner, outer };
}

/** Tensors whose innermost non-broadcast dim is the row's innermost dim. */
export function rowTensors(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): TensorView[] {
  const map = new ExactLogicalMap(fusion);
  const logical = r.domain.logical;
  const innermost = logical[logical.length - 1];
  if (innermost === undefined) return [];
  return tvs.filter((tv) => {
    const dims = tv.domain.logicalNoReductions().filter((id) => !id.isBroadcast());
    const last = dims[dims.length - 1];
    return last !== undefined && map.same(last, innermost);
  });
}

function vectorization(fusion: Fusion, runtimeInfo: RuntimeInfo, bindings: ExtentBindings, r: TensorView, rowLength: number): VectorChoice {
  const inputTvs = fusion.inputs.filter((v): v is TensorView => v.kind === 'tensorView');
  const rowInputs = new Set(rowTensors(fusion, r, inputTvs));
  // Full-rank row outputs (grad_input); the outer reductions' outputs are written by the grid step.
  const rank = r.domain.logical.length;
  const outputTvs = fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView' && v.domain.logicalNoReductions().length === rank);
  return resizeRowVectorChoice(fusion, bindings, r, rowVectorChoice(fusion, runtimeInfo, rowInputs, new Set(rowTensors(fusion, r, outputTvs)), rowLength, 16));
}

/**
 * Whether some persistent buffer can be recomputed from the inputs by pointwise ops
 * (projection.ts; a widening cast of an input is one such), so the inputs are what is kept.
 */
function projectsToInputs(fusion: Fusion): boolean {
  return persistentBuffers(fusion).some(({ tv }) => !tv.isFusionInput() && recomputeChain(tv, new Set()) !== null);
}


/** The row of the (Welford-translated) fusion, as the launch is sized for it. */
export interface InnerOuterRowFit {
  reduction: TensorView;
  outer: TensorView[];
  rowLength: number;
  rows: number;
  vec: VectorChoice;
  vectors: number;
  /** Whether persistent buffers are projected to the inputs (the inputs are what is kept). */
  project: boolean;
  /** Register bytes per row element of the persistent buffers (projected where they can be). */
  bufferBytesPerElement: number;
  /** bufferBytesPerElement plus one Float accumulator per outer reduction. */
  perElement: number;
  /** Batches a thread may keep in MAX_REGISTER_BYTES_PER_THREAD (< 1: none fits). */
  maxBatches: number;
}

const ROW_FIT: AnalysisKey<InnerOuterRowFit> = Object.freeze({ name: 'inner-outer persistent row fit' });

/** The row fit of `cache`'s Welford-translated fusion, once per cache. */
export function innerOuterRowFit(cache: HeuristicDataCache): InnerOuterRowFit {
  const analysis = cache.welfordTranslated();
  return analysis.analysis(ROW_FIT, () => {
    const fusion = analysis.fusion;
    const bindings = analysis.bindings();
    const { inner, outer } = innerOuterReductions(fusion);
    const reduction = inner[0];
    if (reduction === undefined || outer.length === 0) throw new Error('inner-outer persistent row fit: needs an inner and an outer reduction (canSchedule checks this first)');
    const { rowLength, rows } = rowShape(reduction, bindings);
    const vec = vectorization(fusion, analysis.runtimeInfo, bindings, reduction, rowLength);
    const project = projectsToInputs(fusion);
    const size = analysis.persistentBufferSize();
    // Whole bytes per element: a broadcast buffer (rstd over the row) adds a few bytes per row.
    const bufferBytesPerElement = rowLength === 0 ? 1 : Math.max(1, Math.floor((project ? size.bytes : size.bufferBytes) / rowLength));
    const perElement = bufferBytesPerElement + 4 * outer.length;
    const maxBatches = Math.min(MAX_PERSISTENT_BATCHES, Math.floor(MAX_REGISTER_BYTES_PER_THREAD / (vec.factor * perElement)));
    return { reduction, outer, rowLength, rows, vec, vectors: Math.ceil(rowLength / vec.factor), project, bufferBytesPerElement, perElement, maxBatches };
  });
}

/** The overrides the bounds depend on (a subset of InnerOuterPersistentOverrides). */
export interface InnerOuterLaunchOverrides {
  batches?: number;
  bdimy?: number;
  prefetchNextRow?: boolean;
  bulkLoadRows?: boolean;
}

/** Why no inner-outer persistent launch fits `cache`'s fusion with `overrides`, or null (see the header). */
export function innerOuterPersistentLaunchRefusal(cache: HeuristicDataCache, overrides: InnerOuterLaunchOverrides): string | null {
  const { inner, outer } = innerOuterReductions(cache.welfordTranslated().fusion);
  if (inner.length === 0 || outer.length === 0) return 'inner-outer persistent heuristics: needs an inner and an outer reduction';
  const fit = innerOuterRowFit(cache);
  const { rowLength: R, rows: I, vectors, maxBatches, perElement } = fit;
  if (R === 0 || I === 0) return `inner-outer persistent heuristics: ${I} rows of ${R} elements (empty)`;
  // chooseBatches has a choice exactly when the largest batch leaves at most MAX_THREADS_PER_BLOCK lanes
  const bdimx = overrides.batches !== undefined ? forcedBatches(vectors, overrides.batches).bdimx : maxBatches < 1 ? Infinity : Math.ceil(vectors / maxBatches);
  if (bdimx > MAX_THREADS_PER_BLOCK) {
    return (
      `inner-outer persistent heuristics: a row of ${R} elements (${perElement} register bytes each: persistent buffers and ${outer.length} outer accumulators) ` +
      `needs more than ${MAX_THREADS_PER_BLOCK} threads × ${Math.max(1, maxBatches)} batches × ${fit.vec.factor} elements in ${MAX_REGISTER_BYTES_PER_THREAD} bytes of registers per thread`
    );
  }
  if ((overrides.prefetchNextRow === true || overrides.bulkLoadRows === true) && hasResizeExprs(cache.welfordTranslated().fusion)) {
    return 'inner-outer persistent heuristics: next-row prefetch and bulk row loads are not supported with slice, pad or cat in the row';
  }
  if (overrides.bdimy !== undefined) {
    // A forced row count per block is checked against the row's threads, as the heuristics choose them.
    const choice = overrides.batches !== undefined ? forcedBatches(vectors, overrides.batches) : chooseBatches(vectors, maxBatches, TARGET_BLOCK_THREADS);
    return forcedRowsPerBlockRefusal(overrides.bdimy, choice?.bdimx ?? 1, MAX_THREADS_PER_BLOCK, overrides.prefetchNextRow ?? false);
  }
  return null;
}
