// Inner-outer persistent heuristics (after nvFuser's innerOuterPersistentHeuristic, with our
// own simpler rules). For rows of R elements (the merged dims the inner reductions reduce) and
// I rows:
//   * vec: the widest vector (≤ 16 bytes of the widest row tensor) dividing R, the outer
//     strides and the pointer alignment of the row inputs (grad_out, x, weight);
//   * batches B and threads per row as the inner persistent scheduler chooses them
//     (inner-persistent/heuristics.ts chooseBatches), under a register budget of 256 bytes per
//     thread that counts the persistent buffers (projected to the inputs) and the outer
//     reductions' Float accumulators (B·vec per outer reduction): a row that does not fit is
//     refused with the sizes;
//   * the persistent grid: blocksPerSm blocks per SM (as many blocks of bdimx threads as fit
//     65536 registers at the estimated registers per thread — estimatedRegisters — at most
//     2048 threads and 8 blocks), gdimx =
//     min(I, SMs × blocksPerSm): every block must be resident at once for the grid barrier
//     before the outer reductions' final step — the kernel's __launch_bounds__(bdimx,
//     blocksPerSm) makes ptxas keep registers within that. Each block takes ⌈I / gdimx⌉
//     contiguous rows;
//   * the outer reductions' work buffer: gdimx × R Float partials each;
//   * rows per block bdimy (rows-per-block.ts): several rows at once (threadIdx.y) when one row
//     fills at most half the target block; the grid then counts blocks of bdimx · bdimy threads
//     and gdimx ≤ ⌈I / bdimy⌉;
//   * divisibility of the splits, proven from the sizes, so lowering drops predicates.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { chooseBatches, forcedBatches, rowShape } from '../inner-persistent/heuristics.js';
import { rowVectorChoice, type VectorChoice } from '../persistent/row-vectorization.js';
import { resizeRowVectorChoice } from '../persistent/resize-row-vectorization.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { collectIo } from '../analysis/io-tensors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import { bulkRowPipelineAllowed, bulkRowPipelineByDefault } from './bulk-row-pipeline.js';
import type { InnerOuterPersistentParams } from './params.js';
import { recomputeChain } from './projection.js';
import { isInnerReduction } from './schedule.js';
import { chooseRowsPerBlock } from './rows-per-block.js';

export const MAX_THREADS_PER_BLOCK = 1024;
/** Register bytes per thread for persistent buffers and outer accumulators (64 registers). */
export const MAX_REGISTER_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 32;
/**
 * Registers per thread the persistent grid counts on when deciding resident blocks: the
 * persistent bytes per thread / 4 plus 24 for indices and temporaries, in steps of 8 (ptxas
 * allocates in 8s). Fitted on nvcc 12 sm_90 ptxas for layer_norm backward 16384×4096
 * (BFloat16: 80 registers without spills at 3 blocks of 256; Float: 123 at 2 blocks).
 */
export function estimatedRegisters(persistentBytesPerThread: number): number {
  return Math.min(255, Math.ceil((24 + persistentBytesPerThread / 4) / 8) * 8);
}
const REGISTERS_PER_SM = 65536;
/** Resident blocks per SM the persistent grid counts on (the hardware allows 32). */
const MAX_BLOCKS_PER_SM = 8;
/**
 * Threads per row the batch choice aims at. Measured on the H100 (layer_norm backward
 * 16384×4096, grouped allreduces): 512 threads (Float B=2, Half/BFloat16 B=1) against 256
 * (B=4 / B=2): Float 0.298 vs 0.303 ms, Half 0.206 vs 0.224, BFloat16 0.198 vs 0.205; 128
 * threads are slower still. Fewer rows in flight per SM, but each row's reductions end sooner.
 */
const TARGET_BLOCK_THREADS = 512;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
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
function rowTensors(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): TensorView[] {
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

/**
 * Choices a caller may force instead of the heuristic's (tuning experiments on a GPU): the
 * persistent batch B and the resident blocks per SM (the grid barrier needs them all resident;
 * the kernel's __launch_bounds__ caps registers accordingly).
 */
export interface InnerOuterPersistentOverrides {
  batches?: number;
  blocksPerSm?: number;
  /** Load the next row's inputs while the current row reduces (a 2-stage register circular buffer). */
  prefetchNextRow?: boolean;
  /**
   * Rows through shared memory by cp.async.bulk, the next row's copy in flight (sm_90+; ignored
   * before, and with prefetchNextRow). Default: on for 16-bit rows read as 16-byte vectors
   * (bulk-row-pipeline.ts).
   */
  bulkLoadRows?: boolean;
  /**
   * Do the row's block allreduces in pairs, one set of barriers each (grouped reductions).
   * Default true (measured on the H100: 0.5–1.2% faster at 16384×4096 in every dtype).
   */
  groupInnerReductions?: boolean;
  /** Rows per block (threadIdx.y; nvFuser's multiple reductions per block). Default: rows-per-block.ts. */
  bdimy?: number;
}

export function computeInnerOuterPersistentHeuristics(
  original: Fusion,
  runtimeInfo: RuntimeInfo,
  overrides: InnerOuterPersistentOverrides = {},
  cache?: HeuristicDataCache,
): InnerOuterPersistentParams {
  // (the analyses come from the cache canSchedule filled: computed once per fusion and sizes)
  const analysis = HeuristicDataCache.for(original, runtimeInfo, cache).welfordTranslated();
  const fusion = analysis.fusion;
  const bindings = analysis.bindings();
  const { inner, outer } = innerOuterReductions(fusion);
  const r = inner[0];
  if (r === undefined || outer.length === 0) throw new SchedulingError('inner-outer persistent heuristics: needs an inner and an outer reduction');
  const { rowLength: R, rows: I } = rowShape(r, bindings);
  if (R === 0 || I === 0) throw new SchedulingError(`inner-outer persistent heuristics: ${I} rows of ${R} elements (empty)`);
  const device = runtimeInfo.device;
  const vec = vectorization(fusion, runtimeInfo, bindings, r, R);
  const v = vec.factor;
  const vectors = ceilDiv(R, v);
  const project = projectsToInputs(fusion);
  const size = analysis.persistentBufferSize();
  // Whole bytes per element: a broadcast buffer (rstd over the row) adds a few bytes per row.
  const bufferBytesPerElement = Math.max(1, Math.floor((project ? size.bytes : size.bufferBytes) / R));
  const perElement = bufferBytesPerElement + 4 * outer.length;
  const maxBatches = Math.min(MAX_PERSISTENT_BATCHES, Math.floor(MAX_REGISTER_BYTES_PER_THREAD / (v * perElement)));
  const forced = overrides.batches;
  const choice =
    forced !== undefined
      ? forcedBatches(vectors, forced)
      : maxBatches < 1
        ? null
        : chooseBatches(vectors, maxBatches, TARGET_BLOCK_THREADS);
  if (choice === null || choice.bdimx > MAX_THREADS_PER_BLOCK) {
    throw new SchedulingError(
      `inner-outer persistent heuristics: a row of ${R} elements (${perElement} register bytes each: persistent buffers and ${outer.length} outer accumulators) ` +
        `needs more than ${MAX_THREADS_PER_BLOCK} threads × ${Math.max(1, maxBatches)} batches × ${v} elements in ${MAX_REGISTER_BYTES_PER_THREAD} bytes of registers per thread`,
    );
  }
  const { batches, bdimx } = choice;
  // Slice / pad / cat in the row: no next-row prefetch or bulk row copies (not built for shifted reads).
  const resized = hasResizeExprs(fusion);
  if (resized && (overrides.prefetchNextRow === true || overrides.bulkLoadRows === true)) {
    throw new SchedulingError('inner-outer persistent heuristics: next-row prefetch and bulk row loads are not supported with slice, pad or cat in the row');
  }
  const prefetchNextRow = overrides.prefetchNextRow ?? false;
  // Prefetching holds a second copy of the row's persistent buffers (the next row's inputs).
  const registers = estimatedRegisters(batches * v * (perElement + (prefetchNextRow ? bufferBytesPerElement : 0)));
  const bdimy = chooseRowsPerBlock({
    bdimx,
    rows: I,
    smCount: device.smCount,
    targetBlockThreads: TARGET_BLOCK_THREADS,
    maxThreadsPerBlock: MAX_THREADS_PER_BLOCK,
    prefetchNextRow,
    bulkLoadRowsAsked: overrides.bulkLoadRows === true,
    ...(overrides.bdimy === undefined ? {} : { forced: overrides.bdimy }),
  });
  const threads = bdimx * bdimy;
  const blocksPerSm =
    overrides.blocksPerSm ??
    Math.max(1, Math.min(MAX_BLOCKS_PER_SM, Math.floor(device.maxThreadsPerSm / threads), Math.floor(REGISTERS_PER_SM / (threads * registers))));
  const gdimx = Math.min(ceilDiv(I, bdimy), device.smCount * blocksPerSm);
  const rank = r.domain.logical.length;
  const fullRowInputs = rowTensors(fusion, r, fusion.inputs.filter((x): x is TensorView => x.kind === 'tensorView' && x.domain.logicalNoReductions().length === rank));
  const bulkFacts = {
    device,
    fullRowInputs,
    vectorizedFullRows: v > 1 && fullRowInputs.every((tv) => vec.inputs.includes(fusion.inputs.indexOf(tv))),
    vec: v,
    divisibleRow: R % v === 0,
    prefetchNextRow,
  };
  // One circular buffer at a time: the register prefetch or the shared-memory one; the bulk
  // copies take one row per block.
  const bulkLoadRows =
    bdimy === 1 && !resized && (overrides.bulkLoadRows === undefined ? bulkRowPipelineByDefault(bulkFacts) : overrides.bulkLoadRows && bulkRowPipelineAllowed(bulkFacts));
  const rowsPerBlock = ceilDiv(I, gdimx);
  return {
    schedulerType: 'inner_outer_persistent',
    tag: 'Inner Outer Persistent Heuristic.',
    fastestDim: true,
    persistentKernel: true,
    combinedInnerOuter: true,
    persistentBufferSize: project ? size.bytes : size.bufferBytes,
    crossBlockInnerReduction: true,
    blockDimInnerReduction: 'TIDx',
    unrollFactorInnerReduction: v,
    vectorizeInnerReduction: v > 1,
    batchesPerBlockInnerReduction: batches,
    padInnerReductionToWarp: bdimx !== choice.extent,
    projectPersistentBuffers: project,
    prefetchNextRow,
    bulkLoadRows,
    groupInnerReductions: overrides.groupInnerReductions ?? true,
    gridDimIterDom: 'BIDx',
    blockDimIterDom: bdimy > 1 ? 'TIDy' : 'Serial',
    multipleReductionsPerBlock: bdimy > 1,
    rowsPerBlock,
    blocksPerSm,
    crossGridOuterReduction: true,
    outerReductionWorkSlots: gdimx * R,
    outerReductions: outer.length,
    indexType: chooseIndexType(collectIo(fusion, runtimeInfo, bindings)),
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: [R % v === 0, vectors % batches === 0, I % gdimx === 0, ...(bdimy > 1 ? [rowsPerBlock % bdimy === 0] : [])],
    vectorizedInputs: vec.inputs,
    vectorizedOutputs: vec.outputs,
  };
}
