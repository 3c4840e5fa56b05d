// Inner persistent heuristics (after nvFuser's innerPersistentHeuristic, with our own simpler
// rules). For rows of R elements (the merged reduced dims, innermost) and I rows:
//   * vec: the widest vector (≤ 16 bytes of the widest row input) dividing R, every outer
//     stride and the pointer alignment of the full-rank row inputs and of the row parameters
//     (weight, bias: read through their broadcast, see row-params.ts; outputs are contiguous);
//   * batches B (serial, constant, the persistent batch) and the TIDx extent ⌈R/vec/B⌉ per row,
//     chosen among B ≤ maxB (each thread keeps B·vec elements of every persistent
//     buffer in registers: at most 256 bytes, i.e. 64 registers) so that bdimx ≤ 1024, at least
//     128 threads when the row has that many vectors, little padding (B·bdimx·vec − R) and
//     close to 256 threads (1024 when there are fewer rows than SMs: one block per row, so
//     wider blocks), and a batch that divides the row's vectors over one that does not (an
//     uneven batch keeps its predicates: layer_norm f32 at 16384 ran 13 × 320 threads at 70% of
//     the copy floor, 8 × 512 and 16 × 256 at 98%, H100 2026-11-24); bdimx is the TIDx extent ⌈R/vec/B⌉ rounded up to a warp multiple (from
//     one warp up), the extra threads predicated off by lowering, so block reductions always
//     take the warp-shuffle path;
//   * short rows (bdimx < 128): several rows per block on threadIdx.y (up to 256 threads,
//     fewer when that would leave SMs idle); rows over blockIdx.x;
//   * divisibility of the three splits, proven from the sizes, so lowering drops predicates;
//   * row parameters (weight, bias) loaded before the reductions when the row inputs are 4-byte,
//     each thread keeps ≥ 64 row bytes in flight and the parameters' registers stay within
//     budget (hoistRowParamsByDefault).

import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { collectIo } from '../analysis/io-tensors.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import { bulkRowLoadsWith } from './bulk-row-loads.js';
import type { InnerPersistentParams } from './params.js';
import { chooseBatches, forcedBatches, TARGET_BLOCK_THREADS } from './batches.js';
import { innerPersistentLaunchRefusal, innerRowFit, targetRowThreads } from './launch-bounds.js';
import type { RowInputs } from './row-analysis.js';

export { MAX_THREADS_PER_ROW } from './batches.js';
export { MAX_PERSISTENT_BATCHES, MAX_PERSISTENT_BYTES_PER_THREAD } from './launch-bounds.js';
export { bytesPerRowElement, firstReduction, rowShape } from './row-analysis.js';
export { chooseBatches, forcedBatches, paddedThreads, UNEVEN_BATCH_COST } from './batches.js';

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

/** Whether some persistent buffer is a widening cast of an input (persistence.ts projects it). */
function projectsToInputs(fusion: Fusion): boolean {
  return persistentBuffers(fusion).some(({ tv }) => {
    const def = tv.definition;
    const src = def?.inputs[0];
    return def !== null && def.kind === 'UnaryOp' && def.op === 'cast' && src !== undefined && src.kind === 'tensorView' && src.isFusionInput() && dataTypeSize(src.dtype) < dataTypeSize(tv.dtype);
  });
}

/** Register bytes per thread that row parameters loaded first may take (32 registers). */
export const MAX_HOISTED_PARAM_BYTES_PER_THREAD = 128;
/** Row bytes each thread must keep in flight for hoisting to be worth its registers. */
export const MIN_ROW_BYTES_PER_THREAD_TO_HOIST = 64;

/**
 * Whether the row parameters (weight, bias) are loaded before the row's reductions, when no
 * override says. Loaded first, their loads overlap the row's instead of waiting behind both
 * block allreduces, but their B·vec elements per thread stay live across the reductions
 * (+11 to +21 registers measured), so a block fewer fits on each SM. That is cheap when each
 * resident thread keeps at least 64 bytes of row in flight (4 blocks of 256 such threads still
 * hold 64 KB per SM) and expensive when it keeps fewer: layer_norm bf16 at 4096 (32 bytes per
 * thread) fell from 6 blocks per SM (48 KB in flight) to 4 (32 KB), under the ~35 KB Little's
 * law asks of ~3 TB/s at ~1.5 µs latency over 132 SMs. Measured on the H100 at 16384×4096 in
 * one process beside torch.compile: layer_norm f32 176.2–176.6 → 175.2–175.7 µs; layer_norm
 * bf16 87.4 → 98.7. Only 4-byte rows qualify (16-bit rows were not measured at widths where
 * they would keep 64 bytes per thread), and the parameters' registers stay within budget.
 */
function hoistRowParamsByDefault({ rows: rowSet, params }: RowInputs, batches: number, vec: number): boolean {
  const rows = [...rowSet];
  if (params.size === 0 || rows.length === 0) return false;
  const rowBytes = Math.min(...rows.map((tv) => dataTypeSize(tv.dtype)));
  if (rowBytes < 4 || batches * vec * rowBytes < MIN_ROW_BYTES_PER_THREAD_TO_HOIST) return false;
  const paramBytes = [...params].reduce((sum, tv) => sum + dataTypeSize(tv.dtype), 0);
  return batches * vec * paramBytes <= MAX_HOISTED_PARAM_BYTES_PER_THREAD;
}

/**
 * Choices a caller may force instead of the heuristic's (tuning experiments, tests): the
 * persistent batch B, rows per block (bdimy), the widest vector in bytes, and whether a
 * widening cast of an input is projected (the narrow input kept in registers).
 */
export interface InnerPersistentOverrides {
  batches?: number;
  bdimy?: number;
  maxVectorBytes?: number;
  project?: boolean;
  /** Load the row parameters (weight, bias: the same for every row) with an L1 evict-last hint. */
  evictLastRowParams?: boolean;
  /** Block allreduces with one barrier each (InnerPersistentParams.singleBarrierAllreduce). */
  singleBarrierAllreduce?: boolean;
  /** Row parameter loads first (InnerPersistentParams.hoistRowParamLoads). */
  hoistRowParamLoads?: boolean;
  /** Rows copied to shared memory with cp.async.bulk (InnerPersistentParams.bulkLoadRows; sm_90+). */
  bulkLoadRows?: boolean;
  /** Blocks per SM cap through the shared memory request (0: none). */
  maxBlocksPerSm?: number;
  /**
   * A persistent grid of smCount · blocksPerSm blocks, each looping over a contiguous chunk of
   * rows (InnerPersistentParams.blocksPerSm; 0 or absent: one row per block). One row per block
   * in the loop (rows per block on threadIdx.y are refused with it); with bulkLoadRows the rows'
   * bulk copies are pipelined over the loop (the next row's copy in flight).
   */
  blocksPerSm?: number;
  /** With a persistent grid: the next row's loads into a second register buffer (InnerPersistentParams.prefetchNextRow). */
  prefetchNextRow?: boolean;
}

export function computeInnerPersistentHeuristics(
  original: Fusion,
  runtimeInfo: RuntimeInfo,
  overrides: InnerPersistentOverrides = {},
  cache?: HeuristicDataCache,
): InnerPersistentParams {
  // Decide for the fusion the schedule will see: Welford translated to two sums.
  // (the analyses come from the cache canSchedule filled: computed once per fusion and sizes)
  const analysis = HeuristicDataCache.for(original, runtimeInfo, cache).welfordTranslated();
  const fusion = analysis.fusion;
  const bindings = analysis.bindings();
  // The bounds acceptance checked (launch-bounds.ts), from the same memoized row fit.
  const refusal = innerPersistentLaunchRefusal(analysis, overrides);
  if (refusal !== null) throw new SchedulingError(refusal);
  const fit = innerRowFit(analysis, overrides.maxVectorBytes ?? 16);
  const { rowLength: R, rows: I, inputs, vec, vectors, maxBatches } = fit;
  const device = runtimeInfo.device;
  const v = vec.factor;
  const forced = overrides.batches;
  const choice = forced !== undefined ? forcedBatches(vectors, forced) : chooseBatches(vectors, maxBatches, targetRowThreads(fit, device));
  if (choice === null) throw new Error('inner persistent heuristics: no batch although the launch bounds hold (a bug)');
  const { batches, bdimx, extent } = choice;
  let bdimy = 1;
  if (bdimx < 128) {
    bdimy = Math.max(1, Math.floor(TARGET_BLOCK_THREADS / bdimx));
    let p = 1;
    while (p * 2 <= bdimy) p *= 2;
    bdimy = Math.min(p, Math.max(1, 2 ** Math.floor(Math.log2(Math.max(1, I)))));
    while (bdimy > 1 && ceilDiv(I, bdimy) < device.smCount) bdimy /= 2;
  }
  if (overrides.bdimy !== undefined) bdimy = overrides.bdimy;
  // A persistent grid walks one row at a time (launch-bounds.ts refused a forced bdimy > 1 with it).
  const blocksPerSm = overrides.blocksPerSm ?? 0;
  if (blocksPerSm > 0) bdimy = 1;
  const gdimx = blocksPerSm > 0 ? Math.min(I, device.smCount * blocksPerSm) : ceilDiv(I, bdimy);
  const rowsPerBlock = blocksPerSm > 0 ? ceilDiv(I, gdimx) : 1;
  const size = analysis.persistentBufferSize();
  const hoist = overrides.hoistRowParamLoads ?? hoistRowParamsByDefault(inputs, batches, v);
  // Bulk row copies only when asked (bulk-row-loads.ts: the H100's default of bulk copies capped
  // at 3 blocks per SM cost layer_norm f32 12 µs on the H200).
  const bulk = bulkRowLoadsWith(device, overrides.bulkLoadRows, overrides.maxBlocksPerSm);
  return {
    schedulerType: 'inner_persistent',
    tag: 'Inner Persistent Heuristic.',
    fastestDim: true,
    persistentKernel: true,
    persistentBufferSize: size.bytes,
    crossBlockInnerReduction: true,
    blockDimInnerReduction: 'TIDx',
    unrollFactorInnerReduction: v,
    vectorizeInnerReduction: v > 1,
    batchesPerBlockInnerReduction: batches,
    padInnerReductionToWarp: bdimx !== extent,
    projectPersistentBuffers: overrides.project !== false && projectsToInputs(fusion),
    evictLastRowParams: overrides.evictLastRowParams ?? false,
    singleBarrierAllreduce: overrides.singleBarrierAllreduce ?? false,
    hoistRowParamLoads: hoist,
    ...bulk,
    blocksPerSm,
    rowsPerBlock,
    prefetchNextRow: overrides.prefetchNextRow ?? false,
    multipleReductionsPerBlock: bdimy > 1,
    gridDimIterDom: 'BIDx',
    blockDimIterDom: bdimy > 1 ? 'TIDy' : 'Serial',
    indexType: chooseIndexType(collectIo(fusion, runtimeInfo, bindings)),
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: [R % v === 0, vectors % batches === 0, blocksPerSm > 0 ? I % gdimx === 0 : I % bdimy === 0],
    vectorizedInputs: vec.inputs,
    vectorizedOutputs: vec.outputs,
  };
}
