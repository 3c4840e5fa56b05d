// What an outer persistent launch must fit, checked without choosing the launch (nvFuser's
// canScheduleRunTime for the outer persistent scheduler): the column analysis — the first
// reduction's column shape (elements per column, columns) and the register bytes a column
// element costs in the persistent buffers — and the refusals those numbers decide: a column
// that does not fit MAX_THREADS_PER_BLOCK threads × the register batches (chooseOuterBlock has a
// block exactly when its largest batch does), more columns than gridDim.x holds, and forced
// block shapes (an override) over the block limit. The acceptance asks this for every candidate
// merge; the heuristics call the same function first and then choose within these bounds.
// Invariant: the refusal is exactly the heuristics' SchedulingError for the same fusion,
// runtime info and overrides, and for an accepted fusion the heuristics raise none of these.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';

export const MAX_THREADS_PER_BLOCK = 1024;
/** Register bytes per thread the persistent buffers may take (64 32-bit registers). */
export const MAX_PERSISTENT_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 64;
export const MAX_GRID_X = 2 ** 31 - 1;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

/** The first ReductionOp (or Welford avg) output: the pattern every reduction of the fusion shares. */
export function firstOuterReduction(fusion: Fusion): TensorView {
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') continue;
    const out = e.outputs[0];
    if (out !== undefined && out.kind === 'tensorView') return out;
  }
  throw new SchedulingError('outer persistent scheduler: the fusion has no reduction');
}

/** Merged reduced extent (elements per column) and kept extent (columns) of a reduction tensor. */
export function columnShape(r: TensorView, bindings: ExtentBindings): { reductionNumel: number; iterationNumel: number } {
  let reductionNumel = 1;
  let iterationNumel = 1;
  for (const id of r.domain.logical) {
    if (id.isBroadcast()) continue;
    const n = evaluateExtent(id.extent, bindings);
    if (id.isReduction()) reductionNumel *= n;
    else iterationNumel *= n;
  }
  return { reductionNumel, iterationNumel };
}

/**
 * Register bytes each column element costs across the persistent buffers, projected to the
 * inputs where that is smaller (nvFuser's persistent_buffer_size): the measure the block
 * choice was fitted to on the GPU (chooseOuterBlock).
 */
export function bytesPerColumnElement(analysis: HeuristicDataCache, reductionNumel: number): number {
  if (persistentBuffers(analysis.fusion).length === 0 || reductionNumel === 0) return 4;
  const size = analysis.persistentBufferSize();
  return Math.max(1, size.bytes / reductionNumel);
}


/** The block-shape overrides the bounds depend on (OuterPersistentOverrides). */
export interface OuterLaunchOverrides {
  bdimx?: number;
  batches?: number;
}

/** Why no outer persistent launch fits `cache`'s (Welford-translated) fusion with `overrides`, or null. */
export function outerPersistentLaunchRefusal(cache: HeuristicDataCache, overrides: OuterLaunchOverrides): string | null {
  const analysis = cache.welfordTranslated();
  const r = firstOuterReduction(analysis.fusion);
  const { reductionNumel: Rd, iterationNumel: I } = columnShape(r, analysis.bindings());
  if (Rd === 0 || I === 0) return `outer persistent heuristics: ${I} columns of ${Rd} elements (empty)`;
  if (overrides.bdimx !== undefined && overrides.batches !== undefined) {
    const bdimy = ceilDiv(Rd, overrides.batches);
    if (overrides.bdimx * bdimy > MAX_THREADS_PER_BLOCK) return `outer persistent heuristics: ${overrides.bdimx}×${bdimy} threads per block, more than ${MAX_THREADS_PER_BLOCK}`;
    const gdimx = ceilDiv(I, overrides.bdimx);
    if (gdimx > MAX_GRID_X) return `outer persistent heuristics: ${I} columns need ${gdimx} blocks, more than gridDim.x allows`;
    return null;
  }
  const perElement = bytesPerColumnElement(analysis, Rd);
  const maxBatches = maxColumnBatches(perElement);
  if (ceilDiv(Rd, maxBatches) > MAX_THREADS_PER_BLOCK) {
    return (
      `outer persistent heuristics: a column of ${Rd} reduced elements (${perElement} bytes each in persistent buffers) needs more than ` +
      `${MAX_THREADS_PER_BLOCK} threads × ${maxBatches} batches in registers (no cross-grid persistence yet)`
    );
  }
  if (I > MAX_GRID_X) return `outer persistent heuristics: ${I} columns need more than the ${MAX_GRID_X} blocks gridDim.x allows at one column per block`;
  return null;
}

/** Batches a thread may keep of a column whose elements cost `perElement` register bytes. */
export function maxColumnBatches(perElement: number): number {
  return Math.min(MAX_PERSISTENT_BATCHES, Math.max(1, Math.floor(MAX_PERSISTENT_BYTES_PER_THREAD / perElement)));
}
