// Whether the pointwise scheduler can take a fusion, and if not, why (the reason is shown to
// users in segmentation explanations). Accepted: pointwise math (unary/binary/ternary ops),
// broadcast, squeeze, expand, plain copies and permutes (a permuted tensor is indexed through
// its own strides: correct, not coalesced on both sides — there is no transpose scheduler yet),
// tensor factories (full, iota), indexed loads (select, index_select, gather, take_along_axis,
// embedding_fwd: indexed-loads.ts) and expanded outputs, where every output covers the
// reference's iteration space and every tensor's iteration dims map onto the reference's;
// slice, pad and cat (resize ops) under the rules of resize/can-schedule.ts (not yet together
// with a reshape, an indexed load or a stride-ordered output).

import type { Expr, Fusion } from '@tsfuser/fusion-ir';
import type { RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { CanScheduleResult } from '../scheduler.js';
import { ExactLogicalMap, findReferenceOutput, iterationRank } from '../analysis/domain-map.js';
import { indexedLoadRefusal, lookupOnlyTensors } from './indexed-loads.js';
import { libraryOpRefusal, scatterRefusal } from '../segmentation/supported-ops.js';
import { reshapeMappingRefusal, viewRefusal } from './reshape-checks.js';
import { resizeRefusal } from './resize/can-schedule.js';
import { hasResizeExprs } from './resize/index-space.js';

function exprRefusal(e: Expr): string | null {
  const out = e.outputs[0];
  const name = out === undefined ? '' : out.kind === 'tensorView' ? ` producing T${out.name}` : '';
  switch (e.kind) {
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
      return null;
    case 'LoadStoreOp':
      return null;
    case 'ReductionOp':
      return `reduction op (${e.op})${name} needs the reduction scheduler`;
    case 'WelfordOp':
      return `welford op${name} needs the reduction or normalization scheduler`;
    case 'ViewOp':
      return viewRefusal(e);
    case 'SliceOp':
    case 'PadOp':
    case 'CatOp':
      return null;
    case 'ScanOp':
    case 'ArgsortOp':
    case 'TopKOp':
      return `${e.kind}${name} (a scan or sort along a dim) is left to the greedy scheduler`;
    case 'FullOp':
    case 'IotaOp':
    case 'RNGOp':
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'EmbeddingFwdOp':
    case 'Split':
    case 'Merge':
      return null;
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
      return scatterRefusal(e.kind, name);
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return libraryOpRefusal(e.kind, name);
    default: {
      const unreachable: never = e;
      return `unknown expression ${String(unreachable)}`;
    }
  }
}

/** `cache`: the analyses of this fusion and info (its extent bindings are read, not made again). */
export function canSchedulePointwise(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  for (const e of fusion.exprs()) {
    const r = exprRefusal(e);
    if (r !== null) return { ok: false, reason: r };
  }
  const ref = findReferenceOutput(fusion);
  if (ref === null) return { ok: false, reason: 'the fusion has no tensor outputs' };
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') return { ok: false, reason: 'scalar outputs are not supported by the pointwise scheduler' };
    if (fusion.inputs.includes(o)) return { ok: false, reason: `output T${o.name} is also a fusion input (an alias)` };
    if (o.definition === null) return { ok: false, reason: `output T${o.name} has no definition` };
  }
  try {
    const indexed = indexedLoadRefusal(fusion, cache.bindings());
    if (indexed !== null) return { ok: false, reason: indexed };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  // Resize ops alone, or refused with the reshape / indexed load / stride order they meet.
  const resize = resizeRefusal(fusion, ref);
  if (resize !== null) return { ok: false, reason: resize };
  const lookups = lookupOnlyTensors(fusion);
  const map = new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: hasResizeExprs(fusion) });
  const refRank = iterationRank(ref);
  const reshaped = reshapeMappingRefusal(fusion, ref, map);
  // The reshape index graph does not know lookup tensors (read at computed addresses): keep the
  // two apart until a kernel with both is tested.
  if (reshaped !== undefined && lookups.size > 0) return { ok: false, reason: 'a reshape and an indexed load (index_select, gather, …) in one pointwise kernel are not supported yet' };
  if (reshaped !== undefined) return reshaped === null ? { ok: true } : { ok: false, reason: reshaped };
  const live = new Set(fusion.exprs());
  for (const tv of fusion.allTvs()) {
    // Inputs that no live expression reads are never touched by the kernel.
    if (tv.isFusionInput() && !tv.uses.some((u) => live.has(u))) continue;
    // A lookup tensor is read at computed addresses, outside the reference's domain.
    if (lookups.has(tv)) continue;
    const m = map.mapToReference(tv, ref);
    const logical = tv.domain.logicalNoReductions();
    for (let d = 0; d < logical.length; d += 1) {
      const id = logical[d];
      if (id === undefined || id.isBroadcast() || m[d] !== -1) continue;
      // A dim that only a squeeze drops must be of size 1; everything else must map.
      if (id.extent.constNumber() === 1) continue;
      const squeezed = tv.uses.some((u) => u.kind === 'SqueezeOp' && u.isSqueezeDim[d] === true);
      if (squeezed) continue;
      return { ok: false, reason: `T${tv.name} dim ${d} (extent ${id.extent.symbolicName()}) does not map to the reference T${ref.name}` };
    }
    if (tv.isFusionOutput() && iterationRank(tv) < refRank) {
      return {
        ok: false,
        reason: `output T${tv.name} has ${iterationRank(tv)} iteration dims but the reference T${ref.name} has ${refRank} (it would be written redundantly)`,
      };
    }
  }
  return { ok: true };
}
