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
//   * with bulk row copies of several stages (bulkStages, an override), blocksPerSm also fits
//     that many row slots of every full-row input per block in the SM's shared memory;
//   * rows per block bdimy (rows-per-block.ts): several rows at once (threadIdx.y) when one row
//     fills at most half the target block; the grid then counts blocks of bdimx · bdimy threads
//     and gdimx ≤ ⌈I / bdimy⌉;
//   * divisibility of the splits, proven from the sizes, so lowering drops predicates.

import { dataTypeSize, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { chooseBatches, forcedBatches } from '../inner-persistent/batches.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { collectIo } from '../analysis/io-tensors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { bulkRowPipelineAllowed, bulkRowPipelineByDefault } from './bulk-row-pipeline.js';
import type { InnerOuterPersistentParams } from './params.js';
import { innerOuterPersistentLaunchRefusal, innerOuterRowFit, MAX_THREADS_PER_BLOCK, rowTensors, TARGET_BLOCK_THREADS } from './launch-bounds.js';
import { chooseRowsPerBlock } from './rows-per-block.js';

export { innerOuterReductions, MAX_PERSISTENT_BATCHES, MAX_REGISTER_BYTES_PER_THREAD, MAX_THREADS_PER_BLOCK } from './launch-bounds.js';

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

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
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
  /**
   * Row slots of each bulk-copied buffer, 1 to MAX_BULK_STAGES (with bulkLoadRows): the next
   * bulkStages rows of a block in flight. Default 1. The resident blocks per SM then also fit
   * the shared memory of that many rows.
   */
  bulkStages?: number;
}

/** Most row slots a bulk-copied buffer may have. */
export const MAX_BULK_STAGES = 8;
/**
 * Shared memory per block besides the row slots, as the blocks-per-SM estimate counts it: the
 * block allreduces' scratch (a Float per thread at 512 threads) and the mbarriers, rounded up,
 * plus the 1 KB the driver reserves per block on sm_80+.
 */
const BULK_OTHER_SHARED_BYTES = 3 * 1024;

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
  // The bounds acceptance checked (launch-bounds.ts), from the same memoized row fit.
  const refusal = innerOuterPersistentLaunchRefusal(analysis, overrides);
  if (refusal !== null) throw new SchedulingError(refusal);
  const fit = innerOuterRowFit(analysis);
  const { reduction: r, outer, rowLength: R, rows: I, vec, vectors, project, bufferBytesPerElement, perElement, maxBatches } = fit;
  const device = runtimeInfo.device;
  const v = vec.factor;
  const forced = overrides.batches;
  const choice = forced !== undefined ? forcedBatches(vectors, forced) : chooseBatches(vectors, maxBatches, TARGET_BLOCK_THREADS);
  if (choice === null) throw new Error('inner-outer persistent heuristics: no batch although the launch bounds hold (a bug)');
  const { batches, bdimx } = choice;
  const resized = hasResizeExprs(fusion);
  const size = analysis.persistentBufferSize();
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
  const bulkStages = overrides.bulkStages ?? 1;
  if (!Number.isInteger(bulkStages) || bulkStages < 1 || bulkStages > MAX_BULK_STAGES) {
    throw new SchedulingError(`inner-outer persistent heuristics: bulkStages ${bulkStages} is not a row slot count from 1 to ${MAX_BULK_STAGES}`);
  }
  // The row slots of several stages bound the blocks per SM by shared memory too (one stage fits several blocks at every row the registers allow).
  const slotBytes = fullRowInputs.reduce((sum, tv) => sum + batches * bdimx * v * dataTypeSize(tv.dtype), 0);
  const bySharedMemory = bulkLoadRows && bulkStages > 1 && device.sharedMemPerSm !== undefined ? Math.floor(device.sharedMemPerSm / (bulkStages * slotBytes + BULK_OTHER_SHARED_BYTES)) : Infinity;
  if (bySharedMemory < 1) {
    throw new SchedulingError(`inner-outer persistent heuristics: ${bulkStages} bulk stages of ${slotBytes} bytes per row do not fit one block in ${device.sharedMemPerSm ?? 0} bytes of shared memory per SM`);
  }
  const blocksPerSm =
    overrides.blocksPerSm ??
    Math.max(1, Math.min(MAX_BLOCKS_PER_SM, bySharedMemory, Math.floor(device.maxThreadsPerSm / threads), Math.floor(REGISTERS_PER_SM / (threads * registers))));
  const gdimx = Math.min(ceilDiv(I, bdimy), device.smCount * blocksPerSm);
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
    bulkStages: bulkLoadRows ? bulkStages : 1,
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
