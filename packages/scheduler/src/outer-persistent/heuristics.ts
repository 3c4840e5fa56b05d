// Outer persistent heuristics (after nvFuser's outerPersistentHeuristic, with our own simpler
// rules). For a reduction over the outer dims (merged: Rd elements per column) keeping the
// inner dims (merged: I columns):
//   * batches B (serial, constant, the persistent batch): each thread keeps B elements of its
//     column of every persistent buffer in registers, at most 256 bytes (64 registers);
//   * bdimx (threadIdx.x, over the kept dim, coalesced): 32 when I ≥ 32, else I; halved while
//     the column does not fit bdimy = ⌈Rd / B⌉ ≤ 1024 / bdimx threads with B ≤ the register
//     budget; the smallest B that fits is taken (more threads, fewer registers);
//   * a column that fits no block (Rd > 1024 × max B) is refused with a reason (no grid
//     persistence yet: nvFuser would go cross-grid);
//   * blocks over blockIdx.x: ⌈I / bdimx⌉;
//   * divisibility of the two splits, proven from the sizes, so lowering drops predicates.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { collectIo } from '../pointwise/heuristics.js';
import { bindExtents, evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { persistentBufferBytes, persistentBuffers } from '../segmentation/persistent-buffer.js';
import { translateWelford } from '../normalization/translate-welford.js';
import type { OuterPersistentParams } from './params.js';

export const MAX_THREADS_PER_BLOCK = 1024;
/** Register bytes per thread the persistent buffers may take (64 32-bit registers). */
export const MAX_PERSISTENT_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 64;
const MAX_GRID_X = 2 ** 31 - 1;

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

/** Register bytes each column element costs across the persistent buffers (as computed). */
export function bytesPerColumnElement(fusion: Fusion, runtimeInfo: RuntimeInfo, reductionNumel: number): number {
  if (persistentBuffers(fusion).length === 0 || reductionNumel === 0) return 4;
  const size = persistentBufferBytes(fusion, runtimeInfo);
  return Math.max(1, size.bufferBytes / reductionNumel);
}

export interface OuterBlockChoice {
  bdimx: number;
  bdimy: number;
  batches: number;
}

/**
 * Threads and batches for `columns` kept elements and `columnLength` reduced elements with at
 * most `maxBatches` batches (see the header); null when the column fits no block.
 */
export function chooseOuterBlock(columns: number, columnLength: number, maxBatches: number): OuterBlockChoice | null {
  const limit = Math.max(1, maxBatches);
  for (let bdimx = Math.min(32, Math.max(1, columns)); bdimx >= 1; bdimx = Math.floor(bdimx / 2)) {
    const maxY = Math.floor(MAX_THREADS_PER_BLOCK / bdimx);
    const batches = Math.max(1, ceilDiv(columnLength, maxY));
    if (batches > limit) continue;
    // The fewest threads on threadIdx.y for this batch count.
    const bdimy = Math.max(1, ceilDiv(columnLength, batches));
    return { bdimx, bdimy, batches };
  }
  return null;
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

export function computeOuterPersistentHeuristics(original: Fusion, runtimeInfo: RuntimeInfo, overrides: OuterPersistentOverrides = {}): OuterPersistentParams {
  // Decide for the fusion the schedule will see: Welford translated to two sums.
  const hasWelford = original.exprs().some((e) => e.kind === 'WelfordOp');
  const fusion = hasWelford ? original.clone().fusion : original;
  if (hasWelford) translateWelford(fusion);
  const bindings = bindExtents(fusion, runtimeInfo);
  const r = firstOuterReduction(fusion);
  const { reductionNumel: Rd, iterationNumel: I } = columnShape(r, bindings);
  if (Rd === 0 || I === 0) throw new SchedulingError(`outer persistent heuristics: ${I} columns of ${Rd} elements (empty)`);
  const perElement = bytesPerColumnElement(fusion, runtimeInfo, Rd);
  const maxBatches = Math.min(MAX_PERSISTENT_BATCHES, Math.max(1, Math.floor(MAX_PERSISTENT_BYTES_PER_THREAD / perElement)));
  const forced = overrides.bdimx !== undefined && overrides.batches !== undefined ? { bdimx: overrides.bdimx, batches: overrides.batches, bdimy: ceilDiv(Rd, overrides.batches) } : null;
  if (forced !== null && forced.bdimx * forced.bdimy > MAX_THREADS_PER_BLOCK) {
    throw new SchedulingError(`outer persistent heuristics: ${forced.bdimx}×${forced.bdimy} threads per block, more than ${MAX_THREADS_PER_BLOCK}`);
  }
  const choice = forced ?? chooseOuterBlock(I, Rd, maxBatches);
  if (choice === null) {
    throw new SchedulingError(
      `outer persistent heuristics: a column of ${Rd} reduced elements (${perElement} bytes each in persistent buffers) needs more than ` +
        `${MAX_THREADS_PER_BLOCK} threads × ${maxBatches} batches in registers (no cross-grid persistence yet)`,
    );
  }
  const { bdimx, bdimy, batches } = choice;
  const gdimx = ceilDiv(I, bdimx);
  if (gdimx > MAX_GRID_X) throw new SchedulingError(`outer persistent heuristics: ${I} columns need ${gdimx} blocks, more than gridDim.x allows`);
  const size = persistentBufferBytes(fusion, runtimeInfo);
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
