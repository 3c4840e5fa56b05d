// Pointwise heuristics (after nvFuser's getPointwiseHeuristics, with our own cost rules):
//   * reference: the output with the most iteration dims;
//   * vectorization: analyzeVectorization (≤ 16 bytes per access; the lookups of indexed loads
//     of whole rows take part through their own dim map; stride-ordered outputs with their
//     permuted strides; with slice / pad / cat only along the innermost dim, every shift a
//     multiple of the width: resize/vectorize.ts);
//   * 2-D schedule when broadcasts make a flat index wasteful: the smallest break point k
//     whose inner side [k, rank) every input/output holds either fully or not at all, while
//     some tensor is broadcast somewhere (e.g. [64,1,8192] + [64,512,8192] → k = 2); with
//     slice / pad / cat and no such k, rows of the innermost dim (k = rank − 1) when they hold
//     more vectors than a warp (resize/two-d.ts);
//   * block: 128 threads (TIDy takes the rest when the inner side is narrow);
//   * unroll: 1 with slice / pad / cat (measured below); otherwise enough bytes in flight (≈64 B of loads per thread, i.e. 128 KB per SM at full
//     occupancy on H100), limited so that at least ~2 waves of blocks remain (measured on H100:
//     bn+add+relu 8x256x56x56 f32 went 32.1 → 31.1 µs with unroll 2; 1 GB pointwise unchanged);
//   * grid: gridDim.x ≤ 2^31-1, gridDim.y ≤ 65535 (the outer side loops beyond that);
//   * divisibility of every split, proven from the sizes, so lowering can drop predicates.

import { dataTypeSize, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { PointwiseParams } from '../heuristic-params.js';
import { chooseIndexType } from '../index-type.js';
import { tensorSizes, type RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { ExactLogicalMap, findReferenceOutput } from '../analysis/domain-map.js';
import { collectIo, type IoTensor } from '../analysis/io-tensors.js';
import { lookupOnlyTensors, lookupRefMap } from './indexed-loads.js';
import { analyzeVectorization, lastPow2 } from './vectorize.js';
import { hasResizeExprs } from './resize/index-space.js';
import { resizeVectorLimit } from './resize/vectorize.js';
import { resizeBreakPoint } from './resize/two-d.js';

export const THREADS_PER_BLOCK = 128;
/** Threads per block of a pointwise kernel with slice / pad / cat (see computePointwiseHeuristics). */
export const RESIZE_THREADS_PER_BLOCK = 256;
/** blockDim.x of a slice / pad / cat 2-D schedule whose row of vectors it divides. */
const RESIZE_ROW_TILE_BDIMX = 512;
/**
 * A slice / pad / cat 2-D schedule over rows of at least this × RESIZE_ROW_UNROLL vectors runs
 * blockDim.x = this, one row a block, each thread RESIZE_ROW_UNROLL vectors of the row.
 */
const RESIZE_UNROLLED_BDIMX = 128;
const RESIZE_ROW_UNROLL = 2;
export const MAX_GRID_Y = 65535;
const MAX_GRID_X = 2 ** 31 - 1;
/** Bytes of loads each thread keeps in flight (128 KB per SM at 2048 threads per SM). */
const BYTES_IN_FLIGHT_PER_THREAD = 64;
/** Unrolling stops when fewer waves of blocks than this would remain. */
const MIN_WAVES_AFTER_UNROLL = 2;
const MAX_UNROLL = 4;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

function nextPow2(x: number): number {
  let p = 1;
  while (p < x) p *= 2;
  return p;
}

/** `io` with each vectorizable lookup's dim map filled in (the same array when there is none). */
function lookupCandidates(fusion: Fusion, io: IoTensor[], map: ExactLogicalMap, ref: TensorView): IoTensor[] {
  const lookups = lookupOnlyTensors(fusion);
  if (lookups.size === 0) return io;
  let changed = false;
  const out = io.map((t) => {
    if (t.role !== 'input' || !lookups.has(t.tv)) return t;
    const refMap = lookupRefMap(fusion, t.tv, map, ref);
    if (refMap === null) return t;
    changed = true;
    return { ...t, refMap };
  });
  return changed ? out : io;
}

/** Whether tensor `t` holds ref dims [from, to) all (true), none (false) or some (null). */
function holds(m: readonly number[], from: number, to: number): boolean | null {
  let n = 0;
  for (let d = from; d < to; d += 1) if (m.includes(d)) n += 1;
  if (n === 0) return false;
  if (n === to - from) return true;
  return null;
}

function chooseBreakPoint(io: readonly IoTensor[], map: ExactLogicalMap, ref: TensorView, refSizes: readonly number[], vector: number, warp: number): number {
  const r = refSizes.length;
  const refLogical = ref.domain.logicalNoReductions();
  const maps = io.map((t) => map.mapToReference(t.tv, ref));
  const iterDims = refLogical.map((id, d) => (id.isBroadcast() ? -1 : d)).filter((d) => d >= 0);
  const anyBroadcast = maps.some((m) => iterDims.some((d) => !m.includes(d)));
  if (!anyBroadcast) return 0;
  for (let b = 1; b < r; b += 1) {
    const left = refSizes.slice(0, b).reduce((x, y) => x * y, 1);
    const right = refSizes.slice(b).reduce((x, y) => x * y, 1);
    if (left <= 1 || ceilDiv(right, vector) <= warp) continue;
    const rightIter = iterDims.filter((d) => d >= b);
    if (rightIter.length === 0) continue;
    const clean = maps.every((m) => rightIter.every((d) => m.includes(d)) || rightIter.every((d) => !m.includes(d)));
    if (!clean) continue;
    // The inner side is uniform; the 2-D split pays off only if the broadcast is on the outer side
    // or some tensor skips the inner side entirely.
    const gain = maps.some((m) => holds(m, 0, b) !== true || rightIter.every((d) => !m.includes(d)));
    if (gain) return b;
  }
  return 0;
}

/**
 * Fixed choices that replace the heuristic's (tuning experiments and tests, as nvFuser's
 * manual scheduling knobs): the rest of the parameters are derived from them consistently.
 */
export interface PointwiseOverrides {
  breakPoint?: number;
  bdimx?: number;
  unroll?: number;
  /** Largest vector width (elements; a power of two): narrows the analysed one, never widens it. */
  maxVectorize?: number;
  /**
   * Which vectorized inputs load with L1 + L2 evict_last hints: 'all', 'cached' (only those the
   * grid reads again, served from cache) or 'none'. Default: those re-read only after more than
   * half the L2 has streamed past when there are some (RoPE's cos / sin), else 'all' (see
   * `evictLastInputs`).
   */
  evictLastLoads?: 'all' | 'cached' | 'none';
  /**
   * false: divisions by run-time extents stay C divisions (default true: fast division where
   * `fastDivisionFits`; PointwiseParams.fastDivision). The one switch of codegen's fast division.
   */
  fastDivision?: boolean;
}

/** `cache`: the analyses of this fusion and info (the extent bindings acceptance made are reused). */
export function computePointwiseHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, overrides: PointwiseOverrides = {}, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): PointwiseParams {
  const bindings = cache.bindings();
  const ref = findReferenceOutput(fusion);
  if (ref === null) throw new SchedulingError('pointwise heuristics: the fusion has no tensor outputs');
  const device = runtimeInfo.device;
  // The kernel iterates over the reference's un-expanded extents: an expanded broadcast dim of an
  // output is written once (its stride is 0), so it counts as size 1 here.
  const refLogical = ref.domain.logicalNoReductions();
  const refSizes = tensorSizes(ref, bindings).map((s, d) => (refLogical[d]?.isBroadcast() === true ? 1 : s));
  const nElems = refSizes.reduce((a, b) => a * b, 1);
  const io = collectIo(fusion, runtimeInfo, bindings);
  const indexType = chooseIndexType(io);
  const resize = hasResizeExprs(fusion);
  const map = new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: resize });
  const base: PointwiseParams = {
    schedulerType: 'pointwise',
    tag: 'Pointwise heuristics',
    breakPoint: 0,
    splitBlock: false,
    splitGridYDim: false,
    flipGridBinding: false,
    vectorizationFactor: 1,
    unrollFactorOuter: 1,
    unrollFactorInner: 1,
    indexType,
    lparams: { gdimx: 1, gdimy: 1, gdimz: 1, bdimx: 1, bdimy: 1, bdimz: 1 },
    divisibleSplits: [],
    vectorizedInputs: [],
    vectorizedOutputs: [],
    evictLastInputs: [],
    fastDivision: false,
  };
  const hasIteration = ref.domain.logicalNoReductions().some((id) => !id.isBroadcast());
  if (!hasIteration) return base; // one thread computes the single element
  const fullWave = device.smCount * THREADS_PER_BLOCK;
  const waveLimit = nElems < fullWave ? Math.max(1, ceilDiv(nElems, fullWave)) : 16;
  // Resize ops: vectors only along the innermost dim, with every shift a multiple of the width.
  const analysed = resize ? resizeVectorLimit(fusion, map, ref, bindings, lastPow2(waveLimit)) : waveLimit;
  const limit = overrides.maxVectorize === undefined ? analysed : Math.min(analysed, overrides.maxVectorize);
  const firstVecDim = resize ? Math.max(0, refSizes.length - 1) : 0;

  // Lookups of indexed loads join the analysis through their own dim map (vector loads of whole
  // rows) unless that would narrow the vectors of the other tensors.
  const withLookups = lookupCandidates(fusion, io, map, ref);
  const analyze = (firstDim: number): ReturnType<typeof analyzeVectorization> => {
    const plain = analyzeVectorization(io, map, ref, refSizes, firstDim, limit);
    if (withLookups === io) return plain;
    const joined = analyzeVectorization(withLookups, map, ref, refSizes, firstDim, limit);
    return joined.factor >= plain.factor ? joined : plain;
  };
  let vec = analyze(firstVecDim);
  let breakPoint = overrides.breakPoint ?? (nElems * 2 > fullWave ? chooseBreakPoint(io, map, ref, refSizes, vec.factor, device.warpSize) : 0);
  // Slice / pad / cat with no broadcast break: rows on blockIdx.y, no per-vector div/mod (resize/two-d.ts).
  const resize2d = resize && overrides.breakPoint === undefined && breakPoint === 0 && nElems * 2 > fullWave;
  if (resize2d) breakPoint = resizeBreakPoint(ref, refSizes, vec.factor, device.warpSize);
  if (breakPoint > 0) vec = analyze(Math.max(breakPoint, firstVecDim));
  const v = vec.factor;
  const left = refSizes.slice(0, breakPoint).reduce((a, b) => a * b, 1);
  const right = breakPoint > 0 ? refSizes.slice(breakPoint).reduce((a, b) => a * b, 1) : nElems;
  const afterVect = ceilDiv(right, v);

  let bdimx: number;
  let bdimy = 1;
  // Slice / pad / cat: 256 threads a block, the 2-D schedule's blockDim.x up to all of them even
  // where it does not divide the row, and 512 where 512 threads tile the row exactly
  // (kernel_ab.py, H100, 2026-11-25, against 128: RoPE 1-D 0.3–0.5 µs faster in five runs, pad
  // as 256 × 1 instead of 32 × 4 0.2–0.5, cat3_dim0 0.2–0.4, cat3_dim1 0–0.25 and at 512 (three
  // blocks a row) 0.2–0.4; 512 was 2–4 µs slower for RoPE and for pad, whose row of 514 vectors
  // it would leave half idle) — except rows of ≥ 256 vectors: 128 threads, each two vectors of
  // the row (tsfuser-resize-variants, H200, 2026-12-03, against 512 / 256 × 1: cat3_dim0 96.4 →
  // 94.0 µs, cat3_dim1 94.7 → 94.4, pad 34.2 → 32.6; 512 × 2 made cat3_dim1 slower, 96.0).
  const threadsPerBlock = resize ? RESIZE_THREADS_PER_BLOCK : THREADS_PER_BLOCK;
  const rowUnrolled = resize2d && breakPoint > 0 && overrides.bdimx === undefined && afterVect >= RESIZE_UNROLLED_BDIMX * RESIZE_ROW_UNROLL;
  if (breakPoint === 0) {
    bdimx = Math.min(threadsPerBlock, Math.max(device.warpSize, nextPow2(afterVect)));
  } else if (rowUnrolled) {
    bdimx = RESIZE_UNROLLED_BDIMX;
  } else if (resize2d) {
    bdimx = afterVect % RESIZE_ROW_TILE_BDIMX === 0 ? RESIZE_ROW_TILE_BDIMX : Math.min(threadsPerBlock, nextPow2(afterVect));
    if (bdimx < threadsPerBlock) bdimy = Math.min(threadsPerBlock / bdimx, nextPow2(left));
  } else {
    bdimx = Math.min(afterVect, device.warpSize);
    while (bdimx * 2 <= THREADS_PER_BLOCK && bdimx * 2 <= afterVect && afterVect % (bdimx * 2) === 0) bdimx *= 2;
    bdimx = nextPow2(bdimx);
    if (bdimx < THREADS_PER_BLOCK) bdimy = Math.min(THREADS_PER_BLOCK / bdimx, nextPow2(left));
  }
  if (overrides.bdimx !== undefined) {
    bdimx = overrides.bdimx;
    bdimy = breakPoint > 0 && bdimx < THREADS_PER_BLOCK ? Math.min(THREADS_PER_BLOCK / bdimx, nextPow2(left)) : 1;
  }
  const threads = bdimx * bdimy;

  // Unroll: bytes of loads per thread and iteration, over every input read per element.
  // Streaming inputs only: a tensor much smaller than the reference (per-channel parameters,
  // broadcast rows) is served from cache and keeps no DRAM bytes in flight.
  const loadBytes = io
    .filter((t) => t.role === 'input' && isStreaming(t, nElems))
    .reduce((acc, t) => acc + (vec.vectorized.includes(t) ? v : 1) * dataTypeSize(t.dtype), 0);
  const empirical = Math.min(MAX_UNROLL, lastPow2(Math.max(1, Math.floor(BYTES_IN_FLIGHT_PER_THREAD / Math.max(1, loadBytes)))));
  const blocksNoUnroll = ceilDiv(afterVect, bdimx) * (breakPoint > 0 ? ceilDiv(left, bdimy) : 1);
  const blocksPerSm = Math.max(1, Math.floor(device.maxThreadsPerSm / threads));
  const waves = ceilDiv(blocksNoUnroll, blocksPerSm * device.smCount);
  const elementLimited = lastPow2(Math.max(1, Math.floor(waves / MIN_WAVES_AFTER_UNROLL)));
  let unroll = Math.max(1, Math.min(empirical, elementLimited, nextPow2(ceilDiv(afterVect, bdimx))));
  unroll = overrides.unroll ?? lastPow2(unroll);
  // Slice / pad / cat: no unroll but along wide rows (rowUnrolled, above). Every variant of
  // tsfuser-resize-variants (H100, 2026-11-24: both cats, pad, RoPE; 1-D and 2-D, blockDim.x
  // 32–128) was fastest at unroll 1 — RoPE 180.6 µs against 185.5 at the bytes-in-flight rule's
  // 4, the cats and pad ~1% — as each resized input is read through its own predicated (or
  // shifted) load, whose unrolled copies only add registers; on the H200 128 threads × 2 vectors
  // of a wide row beat every unroll-1 block (2026-12-03, above).
  if (resize && overrides.unroll === undefined) unroll = rowUnrolled ? RESIZE_ROW_UNROLL : 1;

  const divisible: boolean[] = [];
  let rem = right;
  if (v > 1) divisible.push(rem % v === 0);
  rem = ceilDiv(rem, v);
  divisible.push(rem % bdimx === 0);
  rem = ceilDiv(rem, bdimx);
  if (unroll > 1) divisible.push(rem % unroll === 0);
  const gdimx = ceilDiv(rem, unroll);
  if (gdimx > MAX_GRID_X) throw new SchedulingError(`pointwise heuristics: ${nElems} elements need ${gdimx} blocks, more than gridDim.x allows`);
  let gdimy = 1;
  let splitGridYDim = false;
  if (breakPoint > 0) {
    let outer = left;
    if (bdimy > 1) {
      divisible.push(outer % bdimy === 0);
      outer = ceilDiv(outer, bdimy);
    }
    if (outer > MAX_GRID_Y) {
      splitGridYDim = true;
      divisible.push(outer % MAX_GRID_Y === 0);
      gdimy = MAX_GRID_Y;
    } else {
      gdimy = outer;
    }
  }
  return {
    ...base,
    breakPoint,
    splitBlock: bdimy > 1,
    splitGridYDim,
    vectorizationFactor: v,
    unrollFactorInner: unroll,
    lparams: { gdimx, gdimy, gdimz: 1, bdimx, bdimy, bdimz: 1 },
    divisibleSplits: divisible,
    vectorizedInputs: vec.vectorized.filter((t) => t.role === 'input').map((t) => t.position),
    vectorizedOutputs: vec.vectorized.filter((t) => t.role === 'output').map((t) => t.position),
    evictLastInputs: evictLastInputs(vec.vectorized.filter((t) => t.role === 'input'), io, { map, ref, refSizes, nElems, l2Bytes: device.l2CacheBytes }, overrides.evictLastLoads),
    fastDivision: overrides.fastDivision !== false && indexType === 'Int32' && fastDivisionFits(fusion, bindings, io, gdimx * gdimy * bdimx * bdimy * unroll * v),
  };
}

/** Index values below this keep the fast division's `(umulhi(n, m) + n) >> s` exact (it needs n < 2^31). */
const FAST_DIVISION_INDEX_LIMIT = 2 ** 30;

/**
 * Whether every index value the kernel can divide stays below 2^30: a flat index of some
 * tensor's iteration space (any tensor of the fusion: a reshape or resize divides indices of
 * intermediates), a thread's point past the end of the last block (`launchedPoints`, the grid
 * times each thread's elements), or an offset into an input or output. Int32 indexing only
 * promises < 2^31 for the tensors themselves, not for the overshoot of the launch; the fast
 * division's sum umulhi(n, m) + n must not wrap, so the margin is a factor 2 (RoPE's 2^27).
 */
function fastDivisionFits(fusion: Fusion, bindings: ReturnType<HeuristicDataCache['bindings']>, io: readonly IoTensor[], launchedPoints: number): boolean {
  if (launchedPoints >= FAST_DIVISION_INDEX_LIMIT) return false;
  for (const t of io) {
    const offset = t.sizes.reduce((acc, n, d) => acc + Math.max(0, n - 1) * Math.abs(t.strides[d] ?? 0), 0);
    if (offset >= FAST_DIVISION_INDEX_LIMIT) return false;
  }
  try {
    for (const tv of fusion.allTvs()) {
      if (tensorSizes(tv, bindings).reduce((a, b) => a * b, 1) >= FAST_DIVISION_INDEX_LIMIT) return false;
    }
  } catch {
    return false; // an extent the bindings cannot evaluate: no bound, no fast division
  }
  return true;
}

/** An input read about once per element (not a small tensor the whole grid reads again from cache). */
function isStreaming(t: IoTensor, nElems: number): boolean {
  return t.sizes.reduce((a, b) => a * b, 1) * 8 >= nElems;
}

/**
 * Bytes the kernel streams between two reads of one element of `t` (an input the grid reads
 * again) along its outermost broadcast dim d: one step of d is every reference element inside it,
 * and each moves `bytesPerElement` bytes of the streaming tensors. 0 when `t` broadcasts nowhere.
 */
function reuseDistanceBytes(t: IoTensor, map: ExactLogicalMap, ref: TensorView, refSizes: readonly number[], bytesPerElement: number): number {
  const covered = map.mapToReference(t.tv, ref);
  const d = refSizes.findIndex((n, k) => n > 1 && !covered.includes(k));
  return d < 0 ? 0 : refSizes.slice(d + 1).reduce((a, b) => a * b, 1) * bytesPerElement;
}

/**
 * The vectorized inputs whose loads carry L1 + L2 evict_last hints, as torch.compile's Triton
 * kernels load. By default every one (H100, 2026-11-24, the same kernel with and without:
 * cat3_dim1 131.6 → 130.0 µs, pad 43.6 → 42.6, cat3_dim0 130.6 → 129.5, readme_pointwise
 * 713.4 → 707.3, permute_bshd 179.7 → 177.8; bn_add_relu either way) — unless an input the grid
 * reads again is re-read only after more than half the L2 has streamed past (RoPE's cos / sin,
 * re-read once per batch, 64 MiB later). Then only such inputs are hinted: an evict_last stream
 * competes with them for L2's evict_last share. kernel_ab.py, 2026-11-25, RoPE x [B, S, 32, 128]
 * with x plain and cos / sin evict_last against every load hinted: 3.2–3.8 µs faster at reuse
 * distances of 32, 64 and 128 MiB, the same at 16 MiB, within noise at 8 MiB; readme_pointwise,
 * whose broadcast row is re-read 64 KiB later, 6 µs slower with its stream plain.
 * torch.compile's Triton RoPE kernel hints cos / sin and x's two shifted loads, not x's first.
 */
function evictLastInputs(
  vectorized: readonly IoTensor[],
  io: readonly IoTensor[],
  reuse: { map: ExactLogicalMap; ref: TensorView; refSizes: readonly number[]; nElems: number; l2Bytes: number },
  mode: 'all' | 'cached' | 'none' | undefined,
): number[] {
  const { map, ref, refSizes, nElems, l2Bytes } = reuse;
  const bytesPerElement = io.filter((t) => isStreaming(t, nElems)).reduce((acc, t) => acc + dataTypeSize(t.dtype), 0);
  const cached = vectorized.filter((t) => !isStreaming(t, nElems));
  const farReuse = cached.filter((t) => reuseDistanceBytes(t, map, ref, refSizes, bytesPerElement) > l2Bytes / 2);
  const chosen = mode === 'none' ? [] : mode === 'all' ? vectorized : mode === 'cached' ? cached : farReuse.length > 0 ? farReuse : vectorized;
  return chosen.map((t) => t.position);
}
