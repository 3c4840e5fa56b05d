// Reduction heuristics (after nvFuser's reduction_heuristic, with our own simpler rules):
//   * inner reduction (the innermost dim is reduced): TIDx over the reduction dim with a block
//     reduction; each thread first reduces `vector` contiguous elements per serial step
//     (one vectorized load when every stride and pointer allows; otherwise up to 4 unrolled
//     loads, each coalesced across TIDx; with slice / pad / cat along that dim, every shift and
//     boundary a multiple of the vector, as in the pointwise scheduler: resize/vectorize.ts);
//     iteration dim over BIDx,
//     and over TIDy too when the reduction is narrow (several rows per block);
//   * outer reduction (the innermost dim is kept): TIDx over the iteration dim (coalesced, 32
//     to 128 columns: narrower when that spreads the columns over more SMs), each thread
//     owning `vi` adjacent columns loaded as one vector (outer-vectorization.ts);
//     the reduction dim is serial (unrolled by 8 rows), and split over TIDy with a block
//     reduction when BIDx alone would leave the GPU idle;
//   * grid reduction when the blocks over the outputs leave SMs idle and the reduction is
//     long: the reduction dim is split over blockIdx.y too (≈ 2 blocks per SM, ≥ 4 serial
//     steps each); partials meet in a static work buffer, the last block combines them;
//   * divisibility of every split, proven from the sizes, so lowering can drop predicates.

import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { collectIo } from '../analysis/io-tensors.js';
import type { ExtentBindings, RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { patternSizes, reductionExprs, reductionPattern, type ReductionPattern } from './analysis.js';
import type { ReductionParams } from './params.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { resizeVectorLimit } from '../pointwise/resize/vectorize.js';
import { outerVectorization } from './outer-vectorization.js';

const MAX_GRID_X = 2 ** 31 - 1;
/** Threads per block the heuristics aim for when the problem is big enough. */
export const REDUCTION_TARGET_THREADS = 256;
/** Rows each thread loads per serial step of an outer reduction (bytes in flight). */
const MAX_OUTER_UNROLL = 8;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

export function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

/** The pattern of the fusion's single reduction; throws when there is none. */
export function requirePattern(fusion: Fusion): ReductionPattern {
  const exprs = reductionExprs(fusion);
  const first = exprs[0];
  if (exprs.length !== 1 || first === undefined) throw new SchedulingError(`reduction scheduler: expected one reduction, found ${exprs.length}`);
  const p = reductionPattern(first);
  if (p === null) throw new SchedulingError('reduction scheduler: the reduction has no tensor input or output');
  return p;
}

/**
 * Widest vector (≤ 16 bytes) for the inner reduction's innermost reduced dim: the full-rank
 * inputs whose innermost dim is that dim with stride 1; the factor divides its extent, every
 * outer stride and the pointer alignment.
 */
function innerVectorization(fusion: Fusion, runtimeInfo: RuntimeInfo, p: ReductionPattern, reductionSize: number, bindings: ExtentBindings): { factor: number; inputs: number[] } {
  const logical = p.reduction.domain.logical;
  const innermost = logical[logical.length - 1];
  if (innermost === undefined || !innermost.isReduction() || reductionSize === 0) return { factor: 1, inputs: [] };
  const map = new ExactLogicalMap(fusion);
  const rank = p.input.domain.logicalNoReductions().length;
  const cands: { position: number; dtypeSize: number; sizes: readonly number[]; strides: readonly number[]; alignment: number }[] = [];
  fusion.inputs.forEach((v, i) => {
    const info = runtimeInfo.inputs[i];
    if (v.kind !== 'tensorView' || info === undefined || info.kind !== 'tensor') return;
    const dims = v.domain.logicalNoReductions();
    const last = dims[dims.length - 1];
    if (dims.length !== rank || last === undefined || last.isBroadcast() || !map.same(last, innermost)) return;
    if (info.strides[dims.length - 1] !== 1) return;
    cands.push({ position: i, dtypeSize: dataTypeSize(v.dtype), sizes: info.sizes, strides: info.strides, alignment: info.alignment });
  });
  if (cands.length === 0) return { factor: 1, inputs: [] };
  const inner = cands[0]?.sizes[rank - 1] ?? 1;
  let factor = Math.floor(16 / Math.max(...cands.map((c) => c.dtypeSize)));
  const ok = (v: number): boolean =>
    inner % v === 0 &&
    cands.every((c) => c.alignment % (v * c.dtypeSize) === 0 && c.strides.every((s, d) => d === rank - 1 || (c.sizes[d] ?? 1) <= 1 || s % v === 0));
  while (factor > 1 && !ok(factor)) factor /= 2;
  // Slice / pad / cat along the innermost dim: every shift and boundary a multiple of the vector.
  if (factor > 1 && hasResizeExprs(fusion)) {
    const resizeMap = new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: true });
    factor = resizeVectorLimit(fusion, resizeMap, p.input, bindings, factor);
  }
  // Keep at least a warp's worth of vectors per row.
  while (factor > 1 && reductionSize / factor < 32) factor /= 2;
  return factor > 1 ? { factor, inputs: cands.map((c) => c.position) } : { factor: 1, inputs: [] };
}

/** Most partial results a grid reduction keeps (static work buffer of the kernel). */
const MAX_GRID_WORK_SLOTS = 1 << 18;
const MAX_GRID_Y = 65535;

/**
 * blockIdx.y blocks per row of outputs when the row blocks alone leave SMs idle and each
 * block would still get at least 4 serial steps of the reduction; 1 = no grid reduction.
 */
export function gridSplit(rowBlocks: number, serialSteps: number, segments: number, smCount: number): number {
  if (rowBlocks === 0 || rowBlocks >= smCount || serialSteps < 8) return 1;
  let g = Math.min(Math.floor(serialSteps / 4), Math.ceil((2 * smCount) / rowBlocks), MAX_GRID_Y);
  while (g > 1 && rowBlocks * segments * g > MAX_GRID_WORK_SLOTS) g = Math.floor(g / 2);
  return Math.max(1, g);
}

function withGrid(p: ReductionParams, gdimy: number, segments: number): ReductionParams {
  if (gdimy <= 1) return p;
  return {
    ...p,
    crossGridInnerReduction: true,
    gridDimInnerReduction: 'BIDy',
    gridReductionWorkSlots: p.lparams.gdimx * segments * gdimy,
    gridReductionSemaphores: p.lparams.gdimx,
    gridReductionBlocksY: gdimy,
    lparams: { ...p.lparams, gdimy },
  };
}

/**
 * Choices a caller may force for an outer reduction instead of the heuristic's (tuning
 * experiments, tests): columns per block (bdimx), rows unrolled per serial step, reduction
 * rows across threadIdx.y (bdimy) and blocks across blockIdx.y (grid reduction).
 */
export interface ReductionOverrides {
  bdimx?: number;
  /**
   * Largest iteration-dim vector of an outer reduction (adjacent columns per thread); 1 keeps
   * the scalar schedule of one column per thread (the schedule before iteration vectors).
   */
  iterVector?: number;
  unroll?: number;
  bdimy?: number;
  gdimy?: number;
}

/** `cache`: the analyses of this fusion and info (the extent bindings acceptance made are reused). */
export function computeReductionHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, overrides: ReductionOverrides = {}, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): ReductionParams {
  const bindings = cache.bindings();
  const pattern = requirePattern(fusion);
  const { iterationSize: I, reductionSize: R } = patternSizes(pattern, bindings);
  const device = runtimeInfo.device;
  const hasIteration = pattern.iterationDims.length > 0;
  const indexType = chooseIndexType(collectIo(fusion, runtimeInfo, bindings));
  const base: ReductionParams = {
    schedulerType: 'reduction',
    tag: 'Reduction heuristics',
    fastestDim: pattern.fastestDim,
    persistentKernel: false,
    crossBlockInnerReduction: false,
    crossGridInnerReduction: false,
    gridDimInnerReduction: 'Serial',
    gridReductionWorkSlots: 0,
    gridReductionSemaphores: 0,
    gridReductionBlocksY: 1,
    splitGridDimInnerReduction: false,
    unrollFactorInnerReduction: 1,
    vectorizeInnerReduction: false,
    multipleReductionsPerBlock: false,
    unrollFactorIterDom: 1,
    vectorizeIterDom: false,
    splitGridDimIterDom: false,
    gridDimIterDom: hasIteration ? 'BIDx' : 'Serial',
    blockDimIterDom: 'Serial',
    blockDimInnerReduction: 'Serial',
    indexType,
    lparams: { gdimx: 1, gdimy: 1, gdimz: 1, bdimx: 1, bdimy: 1, bdimz: 1 },
    divisibleSplits: [],
    vectorizedInputs: [],
  };
  const maxThreads = Math.min(1024, device.maxThreadsPerBlock);
  if (pattern.fastestDim) {
    const vec = innerVectorization(fusion, runtimeInfo, pattern, R, bindings);
    const v = vec.factor;
    const rv = ceilDiv(R, v);
    // Few outputs: give each block more threads.
    const cap = !hasIteration || I < device.smCount ? maxThreads : rv >= 16384 ? 512 : REDUCTION_TARGET_THREADS;
    const bdimx = Math.min(nextPow2(Math.max(1, rv)), cap);
    const bdimy = hasIteration ? Math.max(1, Math.min(Math.floor(REDUCTION_TARGET_THREADS / bdimx), nextPow2(Math.max(1, I)))) : 1;
    const gdimx = hasIteration ? ceilDiv(I, bdimy) : 1;
    if (gdimx > MAX_GRID_X) throw new SchedulingError(`reduction heuristics: ${I} outputs need ${gdimx} blocks, more than gridDim.x allows`);
    // Without vector loads, unroll instead: u loads per thread in flight, each coalesced
    // across TIDx ([R/(bdimx·u), u, bdimx]).
    const steps = Math.ceil(R / bdimx);
    const u = v > 1 ? 1 : steps >= 8 ? 4 : steps >= 4 ? 2 : 1;
    // Splits in the order the schedule applies them: R by v, R/v by bdimx (unrolled: R by
    // bdimx, R/bdimx by u), then I by bdimy.
    const divisible = v > 1 || u === 1 ? [R % v === 0, rv % bdimx === 0] : [R % bdimx === 0, steps % u === 0];
    const serial = v > 1 || u === 1 ? ceilDiv(rv, bdimx) : ceilDiv(steps, u);
    const gdimy = gridSplit(gdimx, serial, bdimy, device.smCount);
    if (gdimy > 1) divisible.push(serial % gdimy === 0);
    if (hasIteration) divisible.push(I % bdimy === 0);
    return withGrid({
      ...base,
      crossBlockInnerReduction: bdimx > 1,
      unrollFactorInnerReduction: Math.max(v, u),
      vectorizeInnerReduction: v > 1,
      multipleReductionsPerBlock: bdimy > 1,
      blockDimIterDom: bdimy > 1 ? 'TIDy' : 'Serial',
      blockDimInnerReduction: bdimx > 1 ? 'TIDx' : 'Serial',
      lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
      divisibleSplits: divisible,
      vectorizedInputs: vec.inputs,
    }, gdimy, bdimy);
  }
  // Outer reduction: TIDx over the iteration dim (each thread `vi` adjacent columns, one
  // vector load per row: outer-vectorization.ts), rows of the reduction dim serial (× TIDy).
  // Up to 128 (vector) columns per block, but at least a warp: narrower blocks when that
  // gives more blocks to an otherwise idle GPU.
  const vec = outerVectorization(fusion, runtimeInfo, pattern, I, bindings, overrides.iterVector ?? 16);
  const vi = vec.factor;
  const Iv = ceilDiv(I, vi);
  const perSm = nextPow2(Math.max(1, Math.ceil(Iv / device.smCount)));
  const bdimx = overrides.bdimx ?? Math.min(nextPow2(Math.max(1, Iv)), 128, Math.max(device.warpSize, perSm));
  const gdimx = ceilDiv(Iv, bdimx);
  if (gdimx > MAX_GRID_X) throw new SchedulingError(`reduction heuristics: ${I} outputs need ${gdimx} blocks, more than gridDim.x allows`);
  const u = overrides.unroll ?? (R >= 16 * MAX_OUTER_UNROLL ? MAX_OUTER_UNROLL : R >= 64 ? 4 : 1);
  const ru = ceilDiv(R, u);
  const fewBlocks = gdimx < 2 * device.smCount;
  const bdimy = overrides.bdimy ?? (fewBlocks ? Math.max(1, Math.min(nextPow2(Math.max(1, ru)), Math.floor(512 / bdimx))) : 1);
  // Splits in order: (I by vi,) I/vi by bdimx, R by u, R/u by bdimy.
  const divisible = [...(vi > 1 ? [I % vi === 0] : []), Iv % bdimx === 0, R % u === 0, ru % bdimy === 0];
  const serial = ceilDiv(ru, bdimy);
  // Each thread's vi lanes are vi partials of the grid reduction.
  const gdimy = overrides.gdimy ?? gridSplit(gdimx, serial, bdimx * vi, device.smCount);
  if (gdimy > 1) divisible.push(serial % gdimy === 0);
  return withGrid({
    ...base,
    crossBlockInnerReduction: bdimy > 1,
    unrollFactorInnerReduction: u,
    unrollFactorIterDom: vi,
    vectorizeIterDom: vi > 1,
    blockDimIterDom: bdimx > 1 ? 'TIDx' : 'Serial',
    blockDimInnerReduction: bdimy > 1 ? 'TIDy' : 'Serial',
    lparams: { gdimx, gdimy: 1, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: divisible,
    vectorizedInputs: vec.inputs,
  }, gdimy, bdimx * vi);
}
