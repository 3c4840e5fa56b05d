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

import { dataTypeSize, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { collectIo } from '../analysis/io-tensors.js';
import { ReshapeIndexGraph } from '../pointwise/reshape-index-graph.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import { bulkRowLoadsByDefault, bulkRowLoadsWith, NO_BULK_ROW_LOADS } from './bulk-row-loads.js';
import type { InnerPersistentParams } from './params.js';
import { rowVectorChoice, type VectorChoice } from '../persistent/row-vectorization.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { resizeRowVectorChoice } from '../persistent/resize-row-vectorization.js';

export const MAX_THREADS_PER_ROW = 1024;
/** Register bytes per thread the persistent buffers may take (64 32-bit registers). */
export const MAX_PERSISTENT_BYTES_PER_THREAD = 256;
export const MAX_PERSISTENT_BATCHES = 32;
const TARGET_BLOCK_THREADS = 256;
const MAX_GRID_X = 2 ** 31 - 1;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

/** The first ReductionOp (or Welford avg) output: the pattern every reduction of the fusion shares. */
export function firstReduction(fusion: Fusion): TensorView {
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') continue;
    const out = e.outputs[0];
    if (out !== undefined && out.kind === 'tensorView') return out;
  }
  throw new SchedulingError('inner persistent scheduler: the fusion has no reduction');
}

/** Merged row length and number of rows of a reduction tensor. */
export function rowShape(r: TensorView, bindings: ExtentBindings): { rowLength: number; rows: number } {
  let rowLength = 1;
  let rows = 1;
  for (const id of r.domain.logical) {
    if (id.isBroadcast()) continue;
    const n = evaluateExtent(id.extent, bindings);
    if (id.isReduction()) rowLength *= n;
    else rows *= n;
  }
  return { rowLength, rows };
}

/** Fusion tensors (inputs or outputs) whose innermost non-broadcast dim is the row's innermost dim (through resizes), full rank. */
function rowTensors(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  // Across a slice / pad / cat of the row, an input is read shifted along the same loops
  // (vectorized within resize-row-vectorization.ts's limit).
  const map = hasResizeExprs(fusion) ? new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: true }) : new ExactLogicalMap(fusion);
  const logical = r.domain.logical;
  const innermost = logical[logical.length - 1];
  const rank = logical.length;
  const out = new Set<TensorView>();
  if (innermost === undefined || !innermost.isReduction()) return out;
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions();
    const last = dims[dims.length - 1];
    if (dims.length !== rank || last === undefined || last.isBroadcast() || !map.same(last, innermost)) continue;
    out.add(tv);
  }
  return out;
}

/**
 * Fusion inputs read through reshapes into the row tensor (persistent-reshapes.ts): no broadcast
 * dims and every dim indexed from the reduction input through a view. Candidates for the row
 * vector when they hold all of the row tensor's elements (row-vectorization.ts checks the sizes).
 */
function reshapedRowInputs(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  const out = new Set<TensorView>();
  const ref = r.definition?.inputs[0];
  if (ref === undefined || ref.kind !== 'tensorView' || !fusion.exprs().some((e) => e.kind === 'ViewOp')) return out;
  const map = new ExactLogicalMap(fusion);
  const graph = new ReshapeIndexGraph(fusion, ref);
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions();
    if (dims.length === 0 || dims.some((id) => id.isBroadcast())) continue;
    const direct = map.mapToReference(tv, ref);
    if (direct.every((p) => p !== -1)) continue;
    if (graph.deriveLogical(tv).every((d) => d !== null)) out.add(tv);
  }
  return out;
}

/** Inputs over the row only (a weight or bias) whose innermost dim is the row's innermost dim. */
function rowParams(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  const map = new ExactLogicalMap(fusion);
  const logical = r.domain.logical;
  const innermost = logical[logical.length - 1];
  const reduced = logical.filter((id) => id.isReduction());
  const out = new Set<TensorView>();
  if (innermost === undefined || !innermost.isReduction()) return out;
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions().filter((id) => !id.isBroadcast());
    const last = dims[dims.length - 1];
    if (last === undefined || !map.same(last, innermost)) continue;
    if (dims.every((id) => reduced.some((x) => map.same(x, id)))) out.add(tv);
  }
  return out;
}

/** The fusion's tensor inputs over full rows, those over the row only (weight, bias), and those read through reshapes. */
interface RowInputs {
  rows: Set<TensorView>;
  params: Set<TensorView>;
  reshaped: Set<TensorView>;
}

function rowInputs(fusion: Fusion, r: TensorView): RowInputs {
  const inputTvs = fusion.inputs.filter((v): v is TensorView => v.kind === 'tensorView');
  return { rows: rowTensors(fusion, r, inputTvs), params: rowParams(fusion, r, inputTvs), reshaped: reshapedRowInputs(fusion, r, inputTvs) };
}

/**
 * Outputs written through reshapes of the row (the row reshaped back to [B, S, H]): contiguous,
 * holding all `numel` elements in the row-major order of the row tensor (no permute in the
 * fusion), each with its innermost extent; loops-past-views.ts gives them the reference's loops.
 */
function reshapedRowOutputs(fusion: Fusion, r: TensorView, bindings: ExtentBindings, numel: number): Map<TensorView, number> {
  const out = new Map<TensorView, number>();
  if (fusion.exprs().some((e) => e.kind === 'LoadStoreOp' && e.permutation !== null)) return out;
  const outputTvs = fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView' && v.domain.allocation === null && !v.isFusionInput());
  for (const tv of reshapedRowInputs(fusion, r, outputTvs)) {
    let sizes: number[];
    try {
      sizes = tv.domain.logicalNoReductions().map((id) => evaluateExtent(id.extent, bindings));
    } catch (err) {
      if (err instanceof SchedulingError) continue; // an extent not known here: stored as before
      throw err;
    }
    if (sizes.reduce((a, b) => a * b, 1) === numel) out.set(tv, sizes[sizes.length - 1] ?? 1);
  }
  return out;
}

function vectorization(fusion: Fusion, runtimeInfo: RuntimeInfo, bindings: ExtentBindings, r: TensorView, inputs: RowInputs, rowLength: number, rows: number, maxVectorBytes: number): VectorChoice {
  const rowInputs = new Set([...inputs.rows, ...inputs.params, ...inputs.reshaped]);
  const outputTvs = fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView');
  const reshaped = { tvs: inputs.reshaped, numel: rowLength * rows };
  const reshapedOutputs = reshapedRowOutputs(fusion, r, bindings, rowLength * rows);
  const rowOutputs = new Set([...rowTensors(fusion, r, outputTvs), ...reshapedOutputs.keys()]);
  const choice = rowVectorChoice(fusion, runtimeInfo, rowInputs, rowOutputs, rowLength, maxVectorBytes, reshaped, [...reshapedOutputs.values()]);
  return resizeRowVectorChoice(fusion, bindings, r, choice);
}

/** Register bytes each row element costs across the persistent buffers (as computed, not projected). */
export function bytesPerRowElement(analysis: HeuristicDataCache, rowLength: number): number {
  if (persistentBuffers(analysis.fusion).length === 0 || rowLength === 0) return 4;
  const size = analysis.persistentBufferSize();
  return Math.max(1, size.bufferBytes / rowLength);
}

/**
 * Cost of a persistent batch that does not divide the row's vectors (the batch loop keeps a
 * predicate per iteration): more than a factor 2 away from the target threads (0.25), less than
 * a factor 8 (0.75), so an even batch at 512 or 128 threads beats an uneven one at 256.
 */
export const UNEVEN_BATCH_COST = 0.5;

/** Threads launched for a TIDx extent: a warp multiple from one warp up (the rest predicated off). */
export function paddedThreads(extent: number, warp = 32): number {
  return extent >= warp ? Math.ceil(extent / warp) * warp : extent;
}

/** The TIDx extent and threads launched for a forced persistent batch (an override). */
export function forcedBatches(vectors: number, batches: number): { batches: number; bdimx: number; extent: number } {
  const extent = ceilDiv(vectors, batches);
  return { batches, extent, bdimx: paddedThreads(extent) };
}

/**
 * The persistent batch and threads per row for `vectors` vectors per row (see the header):
 * `extent` = ⌈vectors / batches⌉ is the TIDx extent, `bdimx` the threads launched for it.
 */
export function chooseBatches(vectors: number, maxBatches: number, targetThreads = TARGET_BLOCK_THREADS): { batches: number; bdimx: number; extent: number } | null {
  let best: { batches: number; bdimx: number; extent: number; cost: number } | null = null;
  for (let b = 1; b <= Math.max(1, maxBatches); b += 1) {
    const extent = Math.max(1, ceilDiv(vectors, b));
    if (extent > MAX_THREADS_PER_ROW) continue;
    if (b > 1 && ceilDiv(vectors, b - 1) === extent) continue; // same threads, more padding
    const bdimx = paddedThreads(extent);
    const fewThreads = bdimx < Math.min(128, vectors) ? 8 : 0;
    // Idle lanes: padded batches and padded threads, as a fraction of the row.
    const waste = vectors === 0 ? 0 : ((b * bdimx - vectors) / vectors) * 4;
    const size = Math.abs(Math.log2(bdimx / targetThreads)) * 0.25;
    const uneven = vectors % b === 0 ? 0 : UNEVEN_BATCH_COST;
    const cost = fewThreads + waste + size + uneven;
    if (best === null || cost < best.cost) best = { batches: b, bdimx, extent, cost };
  }
  return best === null ? null : { batches: best.batches, bdimx: best.bdimx, extent: best.extent };
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
  const r = firstReduction(fusion);
  const { rowLength: R, rows: I } = rowShape(r, bindings);
  if (R === 0 || I === 0) throw new SchedulingError(`inner persistent heuristics: ${I} rows of ${R} elements (empty)`);
  const device = runtimeInfo.device;
  const inputs = rowInputs(fusion, r);
  const vec = vectorization(fusion, runtimeInfo, bindings, r, inputs, R, I, overrides.maxVectorBytes ?? 16);
  const v = vec.factor;
  const vectors = ceilDiv(R, v);
  const perElement = bytesPerRowElement(analysis, R);
  const maxBatches = Math.min(MAX_PERSISTENT_BATCHES, Math.max(1, Math.floor(MAX_PERSISTENT_BYTES_PER_THREAD / (v * perElement))));
  // Few rows (fewer blocks than SMs): wider blocks, so each row's work spreads over more threads.
  const forced = overrides.batches;
  const choice =
    forced !== undefined
      ? forcedBatches(vectors, forced)
      : chooseBatches(vectors, maxBatches, I < device.smCount ? MAX_THREADS_PER_ROW : TARGET_BLOCK_THREADS);
  if (choice !== null && choice.bdimx > MAX_THREADS_PER_ROW) throw new SchedulingError(`inner persistent heuristics: ${forced ?? 0} batches leave ${choice.bdimx} threads per row`);
  if (choice === null) {
    throw new SchedulingError(
      `inner persistent heuristics: a row of ${R} elements needs more than ${MAX_THREADS_PER_ROW} threads × ${maxBatches} batches × ${v} elements in registers`,
    );
  }
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
  if (bdimx * bdimy > MAX_THREADS_PER_ROW) throw new SchedulingError(`inner persistent heuristics: ${bdimx}×${bdimy} threads per block, more than ${MAX_THREADS_PER_ROW}`);
  const gdimx = ceilDiv(I, bdimy);
  if (gdimx > MAX_GRID_X) throw new SchedulingError(`inner persistent heuristics: ${I} rows need ${gdimx} blocks, more than gridDim.x allows`);
  const size = analysis.persistentBufferSize();
  const hoist = overrides.hoistRowParamLoads ?? hoistRowParamsByDefault(inputs, batches, v);
  const bulkFacts = {
    device,
    fullRowInputs: [...inputs.rows],
    rowParams: [...inputs.params],
    vectorizedFullRows: [...inputs.rows].every((tv) => vec.inputs.includes(fusion.inputs.indexOf(tv))),
    vec: v,
  };
  // Measured with the parameters hoisted and one row per block (bulk-row-loads.ts).
  const resized = hasResizeExprs(fusion);
  if (resized && overrides.bulkLoadRows === true) throw new SchedulingError('inner persistent heuristics: bulk row loads are not supported with slice, pad or cat in the row');
  const bulkDefault = hoist && bdimy === 1 && !resized ? bulkRowLoadsByDefault(bulkFacts, batches * bdimx * v) : NO_BULK_ROW_LOADS;
  const bulk = bulkRowLoadsWith(device, bulkDefault, overrides.bulkLoadRows, overrides.maxBlocksPerSm);
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
    multipleReductionsPerBlock: bdimy > 1,
    gridDimIterDom: 'BIDx',
    blockDimIterDom: bdimy > 1 ? 'TIDy' : 'Serial',
    indexType: chooseIndexType(collectIo(fusion, runtimeInfo, bindings)),
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: [R % v === 0, vectors % batches === 0, I % bdimy === 0],
    vectorizedInputs: vec.inputs,
    vectorizedOutputs: vec.outputs,
  };
}
