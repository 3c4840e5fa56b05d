// Transpose heuristics (after nvFuser's getTransposeHeuristics, with tsfuser's own choices):
//   * tiles: tileSize1 × tileSize2 = 32 × 32 for 4- and 8-byte dtypes, 64 × 64 for 1- and
//     2-byte ones (a tile row is at least 128 bytes, one full set of memory transactions);
//     large transposes of ≤ 4-byte dtypes take 64 × 64 tiles of 256 threads (at least two vectors
//     a thread: 128 for a Bool tile of 16-wide vectors) when those tiles
//     still fill two waves of blocks and the staged tiles fit in shared memory: measured with
//     tsfuser-transpose-variants (H100, 2026-11-24) on [16384, 4096], f32 181.3 µs against
//     186.8 for 32 × 32 × 128 threads (torch.compile 185), bf16 92.8 against 94.0;
//   * vectorizeFactor1: up to 16 bytes along the reference's innermost dim, a power of two
//     dividing that dim's size and the tile; every output is stored with it, and every
//     group-1 input whose stride-1 dim it is (other strides and alignment permitting) loads
//     with it;
//   * vectorizeFactor2: the same along innerDim2 for the group-2 (shared-memory staged) loads;
//   * block: 128 threads (nvFuser's getMaxThreadsPerBlock; 256 with the large tiles), fewer
//     only if a tile holds fewer vectors; one tile per block, gridDim.x = every tile;
//   * divisibility of the two tiling splits, proven from the sizes, so lowering drops their
//     predicates.

import { transposeTileSize } from './tile-size.js';
import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { chooseIndexType } from '../index-type.js';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { collectIo, type IoTensor } from '../analysis/io-tensors.js';
import { lastPow2 } from '../pointwise/vectorize.js';
import { analyzeTransposeGroups } from './groups.js';
import type { TransposeParams } from './params.js';

export const TRANSPOSE_THREADS_PER_BLOCK = 128;
/** The large-tile choice: 64 × 64 tiles, 256 threads a block. */
const LARGE_TILE = 64;
const LARGE_TILE_THREADS = 256;
/** Shared memory the staged tiles of one block may take (as can-schedule's limit). */
const MAX_STAGED_BYTES = 48 * 1024;
const MAX_GRID_X = 2 ** 31 - 1;
const MAX_VECTOR_BYTES = 16;

export { transposeTileSize } from './tile-size.js';

/** Fixed choices replacing the heuristic's (tests and tuning experiments). */
export interface TransposeOverrides {
  tileSize?: number;
  vectorizeFactor1?: number;
  vectorizeFactor2?: number;
  /** Threads per block; must divide the vectors of a tile. */
  bdimx?: number;
}

/**
 * The widest power-of-two width ≤ `start` for tensors `ts` along reference dim `refDim`: it must
 * divide the dim's size and the tile, each tensor's stride along it must be 1, its other strides
 * multiples of the width and its pointer aligned to a whole vector. Returns the width and the
 * tensors that can use it (the others are read or written one element at a time).
 */
function vectorWidth(ts: readonly { t: IoTensor; m: readonly number[] }[], refDim: number, size: number, tile: number, start: number): { width: number; tensors: IoTensor[] } {
  let width = start;
  while (width > 1 && (size % width !== 0 || tile % width !== 0)) width /= 2;
  const fits = (t: IoTensor, m: readonly number[], w: number): boolean => {
    const k = m.indexOf(refDim);
    if (k < 0 || t.strides[k] !== 1) return false;
    if (t.alignment < w * dataTypeSize(t.dtype)) return false;
    return t.strides.every((s, d) => d === k || s % w === 0 || (t.sizes[d] ?? 1) === 1);
  };
  // Outputs are allocated by the runtime, always aligned and dense: they never narrow the width.
  const required = ts.filter(({ t }) => t.role === 'output');
  while (width > 1 && !required.every(({ t, m }) => fits(t, m, width))) width /= 2;
  return { width, tensors: width > 1 ? ts.filter(({ t, m }) => fits(t, m, width)).map(({ t }) => t) : [] };
}

/** `cache`: the analyses of this fusion and info (the extent bindings acceptance made are reused). */
export function computeTransposeHeuristics(fusion: Fusion, runtimeInfo: RuntimeInfo, overrides: TransposeOverrides = {}, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): TransposeParams {
  const groups = analyzeTransposeGroups(fusion, runtimeInfo, cache);
  if (typeof groups === 'string') throw new SchedulingError(`transpose heuristics: ${groups}`);
  const { reference, refSizes, innerDim1, innerDim2, map } = groups;
  const bindings = cache.bindings();
  const io = collectIo(fusion, runtimeInfo, bindings);
  const indexType = chooseIndexType(io);
  const maxSize = Math.max(...io.map((t) => dataTypeSize(t.dtype)));
  const rest = refSizes.reduce((acc, s, d) => (d === groups.innerDim1 || d === groups.innerDim2 ? acc : acc * s), 1);
  const tilesOf = (t: number): number => Math.ceil((refSizes[innerDim1] ?? 1) / t) * Math.ceil((refSizes[innerDim2] ?? 1) / t) * rest;
  const stagedBytes = (t: number): number => io.filter((x) => x.role === 'input' && groups.inputs2.includes(x.position)).reduce((acc, x) => acc + t * t * dataTypeSize(x.dtype), 0);
  const wave = runtimeInfo.device.smCount * Math.max(1, Math.floor(runtimeInfo.device.maxThreadsPerSm / LARGE_TILE_THREADS));
  const large = overrides.tileSize === undefined && maxSize <= 4 && tilesOf(LARGE_TILE) >= 2 * wave && stagedBytes(LARGE_TILE) <= MAX_STAGED_BYTES;
  const tile = overrides.tileSize ?? (large ? LARGE_TILE : transposeTileSize(maxSize));
  const withMap = (t: IoTensor): { t: IoTensor; m: readonly number[] } => ({ t, m: map.mapToReference(t.tv, reference) });
  const group1 = io.filter((t) => (t.role === 'output' ? groups.outputs1 : groups.inputs1).includes(t.position)).map(withMap);
  const group2 = io.filter((t) => t.role === 'input' && groups.inputs2.includes(t.position)).map(withMap);
  const size1 = refSizes[innerDim1] ?? 1;
  const size2 = refSizes[innerDim2] ?? 1;
  const maxSize1 = Math.max(1, ...group1.map(({ t }) => dataTypeSize(t.dtype)));
  const maxSize2 = Math.max(1, ...group2.map(({ t }) => dataTypeSize(t.dtype)));
  const v1 = vectorWidth(group1, innerDim1, size1, tile, overrides.vectorizeFactor1 ?? lastPow2(Math.max(1, Math.floor(MAX_VECTOR_BYTES / maxSize1))));
  const v2start = overrides.vectorizeFactor2 ?? lastPow2(Math.max(1, Math.floor(MAX_VECTOR_BYTES / maxSize2)));
  // Every staged input must take the group-2 width (one staging loop serves them all).
  let w2 = v2start;
  let v2 = vectorWidth(group2, innerDim2, size2, tile, w2);
  while (w2 > 1 && v2.tensors.length !== group2.length) {
    w2 /= 2;
    v2 = vectorWidth(group2, innerDim2, size2, tile, w2);
  }
  const vectors = (tile * tile) / Math.max(v1.width, v2.width);
  // Large tiles keep at least two vectors a thread (a Bool tile of 64 × 64 has 256 vectors of 16):
  // the shared-tile lowering expects the tile's unrolled load nest.
  const bdimx = overrides.bdimx ?? (large ? Math.min(LARGE_TILE_THREADS, Math.max(1, vectors / 2)) : Math.min(TRANSPOSE_THREADS_PER_BLOCK, vectors));
  if (vectors % bdimx !== 0) throw new SchedulingError(`transpose heuristics: blockDim.x ${bdimx} does not divide the ${vectors} vectors of a ${tile}×${tile} tile`);
  let tiles = Math.ceil(size1 / tile) * Math.ceil(size2 / tile);
  refSizes.forEach((s, d) => {
    if (d !== innerDim1 && d !== innerDim2) tiles *= s;
  });
  if (tiles > MAX_GRID_X) throw new SchedulingError(`transpose heuristics: ${tiles} tiles need more blocks than gridDim.x allows`);
  return {
    schedulerType: 'transpose',
    tag: 'Transpose heuristics',
    innerDim1,
    innerDim2,
    tileSize1: tile,
    tileSize2: tile,
    vectorizeFactor1: v1.width,
    vectorizeFactor2: v2.width,
    indexType,
    lparams: { gdimx: tiles, gdimy: 1, gdimz: 1, bdimx, bdimy: 1, bdimz: 1 },
    divisibleSplits: [size1 % tile === 0, size2 % tile === 0],
    group2Inputs: [...groups.inputs2],
    vectorizedInputs: v1.tensors.filter((t) => t.role === 'input').map((t) => t.position),
    vectorizedOutputs: v1.tensors.filter((t) => t.role === 'output').map((t) => t.position),
  };
}
