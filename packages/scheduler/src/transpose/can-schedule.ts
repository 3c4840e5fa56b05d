// Whether the transpose scheduler takes a fusion (nvFuser's TransposeScheduler::canScheduleCompileTime
// and canScheduleRunTime, for the kernels tsfuser's transpose schedule builds):
//   * the pointwise scheduler must accept it (pointwise math, broadcasts, permutes, copies);
//     no reshape, slice / pad / cat, indexed load, RNG or expanded output (not tiled yet);
//   * its inputs and outputs form two groups with different innermost dims (groups.ts), every
//     output in the reference's group, every second-group input holding every reference dim;
//   * runtime rules as nvFuser's: at least one full wave of 32×32 tiles, transposed inner dims
//     not so small that the pointwise scheduler's coalescing wins, no dim left with fewer than
//     32 elements around each inner dim (nvFuser's virtual inner dims are not built here);
//   * the shared-memory tiles fit in 48 KB.
// Refusals name the rule so `--explain` says why a permute stays with the pointwise scheduler.

import { dataTypeSize, type Fusion } from '@tsfuser/fusion-ir';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { canSchedulePointwise } from '../pointwise/can-schedule.js';
import { analyzeTransposeGroups } from './groups.js';
import { transposeTileSize } from './tile-size.js';

/** nvFuser's TransposeParams::getDefaultTileSize(). */
export const DEFAULT_TILE_SIZE = 32;
/** Static shared memory a block may use without opting in. */
export const MAX_TILE_SHARED_MEMORY = 48 * 1024;

function exprRefusal(fusion: Fusion): string | null {
  for (const e of fusion.exprs()) {
    switch (e.kind) {
      case 'ViewOp':
        return 'reshape is not supported by the transpose scheduler yet';
      case 'SliceOp':
      case 'PadOp':
      case 'CatOp':
        return `${e.kind} is not supported by the transpose scheduler yet`;
      case 'SelectOp':
      case 'IndexSelectOp':
      case 'GatherOp':
      case 'EmbeddingFwdOp':
        return `${e.kind} (an indexed load) is not supported by the transpose scheduler yet`;
      case 'RNGOp':
        return 'random ops are not supported by the transpose scheduler yet';
      default:
        break;
    }
  }
  for (const o of fusion.outputs) {
    if (o.kind === 'tensorView' && o.domain.logicalNoReductions().some((id) => id.isBroadcast() && id.expandedExtent !== null)) {
      return `output T${o.name} has an expanded broadcast dim (not supported by the transpose scheduler yet)`;
    }
  }
  return null;
}

/** `cache`: the analyses of this fusion and info (its extent bindings are read, not made again). */
export function canScheduleTranspose(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  const pw = canSchedulePointwise(fusion, runtimeInfo, cache);
  if (!pw.ok) return pw;
  const refusal = exprRefusal(fusion);
  if (refusal !== null) return { ok: false, reason: refusal };
  let groups: ReturnType<typeof analyzeTransposeGroups>;
  try {
    groups = analyzeTransposeGroups(fusion, runtimeInfo, cache);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (typeof groups === 'string') return { ok: false, reason: groups };
  const { refSizes, innerDim1, innerDim2, reference } = groups;
  const refLogical = reference.domain.logicalNoReductions();
  for (const i of groups.inputs2) {
    const tv = fusion.inputs[i];
    if (tv === undefined || tv.kind !== 'tensorView') continue;
    // schedule.ts caches (and transpose-smem-tile stages) only inputs of the reference's rank: a
    // second-group input broadcast on its way to the reference has no cache load nest of its own
    // to stage through shared memory (seed 26105 case 19: T0 [i0, i1, i2] → broadcast → [i0, 1, i1, i2]).
    const rank = tv.domain.logicalNoReductions().length;
    if (rank !== refLogical.length) return { ok: false, reason: `input T${tv.name} of the second group has rank ${rank}, the reference T${reference.name} rank ${refLogical.length} (a broadcast between them): its reads cannot be staged through a shared-memory tile` };
    const m = groups.map.mapToReference(tv, reference);
    const missing = refLogical.findIndex((id, d) => !id.isBroadcast() && (refSizes[d] ?? 1) > 1 && !m.includes(d));
    if (missing >= 0) return { ok: false, reason: `input T${tv.name} of the second group lacks reference dim ${missing} (broadcast second-group inputs are not supported yet)` };
  }
  const nElems = refSizes.reduce((a, b) => a * b, 1);
  const tileElements = DEFAULT_TILE_SIZE * DEFAULT_TILE_SIZE;
  if (runtimeInfo.device.smCount * tileElements > nElems) return { ok: false, reason: 'Transpose scheduler does not perform well on small problem sizes.' };
  const inner1 = refSizes[innerDim1] ?? 1;
  const inner2 = refSizes[innerDim2] ?? 1;
  if (inner1 * inner2 < tileElements) {
    let between = inner1 * inner2;
    for (let d = Math.min(innerDim1, innerDim2) + 1; d < Math.max(innerDim1, innerDim2); d += 1) between *= refSizes[d] ?? 1;
    if (between < tileElements) return { ok: false, reason: 'Inner transpose of small dimensions should be scheduled by the pointwise scheduler because it provides better memory coalescing' };
  }
  if (nElems / inner1 < DEFAULT_TILE_SIZE || nElems / inner2 < DEFAULT_TILE_SIZE) {
    return { ok: false, reason: `an inner dim holds nearly all elements (sizes [${refSizes.join(', ')}]); splitting it into a virtual inner dim is not supported, the pointwise scheduler takes it` };
  }
  const staged = groups.inputs2.map((i) => fusion.inputs[i]).filter((v) => v !== undefined && v.kind === 'tensorView');
  const maxSize = Math.max(...[...fusion.inputs, ...fusion.outputs].filter((v) => v.kind === 'tensorView').map((v) => dataTypeSize(v.dtype)));
  const tile = transposeTileSize(maxSize);
  const bytes = staged.reduce((acc, v) => acc + tile * tile * dataTypeSize(v.dtype), 0);
  if (bytes > MAX_TILE_SHARED_MEMORY) return { ok: false, reason: `the ${staged.length} shared-memory tiles need ${bytes} bytes, more than ${MAX_TILE_SHARED_MEMORY}` };
  return { ok: true };
}
