// Acceptance rules of the reduction scheduler and of the three persistent (normalization)
// schedulers, after nvFuser's reduction.cpp and normalization_utils.cpp compile-time and
// run-time checks. Each returns accept or one concrete reason naming tensors:
//
//   reduction:  ≥ 1 reduction (sum/max/min/prod or Welford), all of one pattern, no persistent
//               buffer (nothing read by a reduction is needed again after it) and no broadcast
//               of a result back over the dims it reduced; outputs computed before the
//               reduction are fine (written inside its loops).
//   inner / outer / inner_outer persistent:  the reductions are all inner (innermost dim
//               reduced: softmax, layer_norm, rms_norm), all outer (batch-norm-like) or both
//               (layer-norm backward), each kind of one pattern; at least one persistent buffer
//               (otherwise it is a plain reduction); the per-row buffer bytes (projected to the
//               inputs when smaller) fit nvFuser's budget; and, for inner persistence, a large
//               row still leaves enough rows to fill the device.
//
// Common to every kernel scheduler: the tensor graph is one connected piece. Pure reads.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import { evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { describeComponents, downstreamTvs, tensorComponents, tensorOutputs, tvName } from './fusion-graph.js';
import { describeBuffers, persistentBufferBudget, persistentBuffers } from '../persistent/persistent-buffer.js';
import { describeReduction, patternMismatch, reductionInfos, reductionType, type ReductionInfo, type ReductionType } from './reduction-pattern.js';
import { firstUnsupportedOp } from './supported-ops.js';
import { persistentReshapeRefusal } from '../inner-persistent/persistent-reshapes.js';
import { persistentResizeRefusal } from '../persistent/resize-before-row.js';

export type NormalizationKind = 'inner_persistent' | 'outer_persistent' | 'inner_outer_persistent';

const refuse = (reason: string): CanScheduleResult => ({ ok: false, reason });

/** nvFuser's isConnectedFusionGraph, with the pieces named. */
export function connectedGraphRefusal(fusion: Fusion): string | null {
  const pieces = tensorComponents(fusion);
  if (pieces.length <= 1) return null;
  return `the fusion is ${pieces.length} unconnected tensor graphs (${describeComponents(fusion, pieces)}); one kernel takes one connected graph`;
}

function bindOrReason(cache: HeuristicDataCache): ExtentBindings | string {
  try {
    return cache.bindings();
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * A broadcast of a reduction result that re-expands the dims it reduced (`x - bcast(sum(x))`):
 * the result must then reach every element of its row — a persistent schedule.
 */
function postReductionBroadcast(fusion: Fusion, reductions: readonly ReductionInfo[]): { reduction: ReductionInfo; broadcast: TensorView } | null {
  const map = new ExactLogicalMap(fusion);
  for (const r of reductions) {
    const reduced = r.tv.domain.logical.filter((id) => id.isReduction());
    const after = new Set<TensorView>(tensorOutputs(r.expr));
    for (const o of tensorOutputs(r.expr)) for (const d of downstreamTvs(fusion, o)) after.add(d);
    for (const t of after) {
      const def = t.definition;
      if (def === null || def.kind === 'ReductionOp' || def.kind === 'WelfordOp') continue;
      const logical = t.domain.logicalNoReductions();
      // Mapped to a reduced dim, or (when the graph gives no mapping) at a reduced position.
      const positional = logical.length === r.tv.domain.logical.length && r.reducedDims.some((d) => logical[d]?.isBroadcast() === false);
      const spans = positional || logical.some((id) => !id.isBroadcast() && reduced.some((x) => map.same(x, id)));
      if (spans) return { reduction: r, broadcast: t };
    }
  }
  return null;
}

/** The reduction scheduler's rules (nvFuser's), see the header. */
export function canScheduleReductionPattern(fusion: Fusion, ri: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, ri)): CanScheduleResult {
  const op = firstUnsupportedOp(fusion, 'reduction');
  if (op !== null) return refuse(op);
  const reductions = reductionInfos(fusion);
  if (reductions.length === 0) return refuse('the fusion has no reduction');
  const disconnected = connectedGraphRefusal(fusion);
  if (disconnected !== null) return refuse(disconnected);
  const mismatch = patternMismatch(fusion, reductions);
  if (mismatch !== null) return refuse(mismatch);
  const buffers = persistentBuffers(fusion);
  if (buffers.length > 0) {
    return refuse(`persistent buffer ${describeBuffers(buffers.slice(0, 2))}: keeping it across the reduction needs a normalization scheduler`);
  }
  const post = postReductionBroadcast(fusion, reductions);
  if (post !== null) {
    return refuse(`${tvName(post.broadcast)} broadcasts the result of ${describeReduction(post.reduction)} back over the reduced dims: needs a normalization scheduler`);
  }
  const bound = bindOrReason(cache);
  if (typeof bound === 'string') return refuse(bound);
  return { ok: true };
}

const KIND_OF: Record<ReductionType, NormalizationKind> = {
  inner: 'inner_persistent',
  outer: 'outer_persistent',
  inner_outer: 'inner_outer_persistent',
};

function describeType(reductions: readonly ReductionInfo[]): string {
  return reductions.map((r) => `${describeReduction(r)} (${r.inner ? 'inner' : 'outer'})`).join(', ');
}

/** Merged extents of the first reduction: elements per row and number of rows. */
function rowShape(r: ReductionInfo, bindings: ExtentBindings): { reductionNumel: number; iterationNumel: number } {
  let reductionNumel = 1;
  let iterationNumel = 1;
  for (const id of r.tv.domain.logical) {
    if (id.isBroadcast()) continue;
    const n = evaluateExtent(id.extent, bindings);
    if (id.isReduction()) reductionNumel *= n;
    else iterationNumel *= n;
  }
  return { reductionNumel, iterationNumel };
}

/** Whether the `kind` persistent scheduler accepts the fusion (nvFuser's rules, see the header). */
export function canScheduleNormalization(kind: NormalizationKind, fusion: Fusion, ri: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, ri)): CanScheduleResult {
  const op = firstUnsupportedOp(fusion, kind, { reshapes: true, resizes: true });
  if (op !== null) return refuse(op);
  const reductions = reductionInfos(fusion);
  if (reductions.length === 0) return refuse('the fusion has no reduction to normalize over');
  const firstInput = reductions[0]?.expr.inputs[0];
  // The row of slice / pad / cat: the first inner reduction's input (the kernel's reference).
  const rowInput = (reductions.find((r) => r.inner) ?? reductions[0])?.expr.inputs[0];
  if (rowInput?.kind === 'tensorView') {
    const resizes = persistentResizeRefusal(fusion, rowInput, kind, ri, cache);
    if (resizes !== null) return refuse(resizes);
  }
  if (firstInput?.kind === 'tensorView') {
    const reshapes = persistentReshapeRefusal(fusion, firstInput, kind);
    if (reshapes !== null) return refuse(reshapes);
  }
  const disconnected = connectedGraphRefusal(fusion);
  if (disconnected !== null) return refuse(disconnected);
  const type = reductionType(reductions);
  if (KIND_OF[type] !== kind) return refuse(`the reductions are ${type.replace('_', '+')} (${describeType(reductions)}): that is ${KIND_OF[type]}`);
  const inner = reductions.filter((r) => r.inner);
  const outer = reductions.filter((r) => !r.inner);
  for (const group of [inner, outer]) {
    const mismatch = patternMismatch(fusion, group);
    if (mismatch !== null) return refuse(mismatch);
  }
  const buffers = persistentBuffers(fusion);
  if (buffers.length === 0) {
    return refuse(`no persistent buffer (nothing read by ${reductions.map((r) => tvName(r.tv)).join(', ')} is needed after it): a plain reduction`);
  }
  const bound = bindOrReason(cache);
  if (typeof bound === 'string') return refuse(bound);
  const size = cache.persistentBufferSize();
  const budget = persistentBufferBudget(ri.device, size.maxDtypeBytes);
  if (size.bytes > budget) {
    return refuse(
      `persistent buffers ${size.buffers.map((b) => tvName(b.tv)).join(', ')} need ${size.bytes} bytes per row` +
        `${size.projectedBytes > 0 && size.projectedBytes !== size.bufferBytes ? ` (${size.bufferBytes} as computed, ${size.projectedBytes} projected to the inputs)` : ''}` +
        `, more than the ${budget} bytes of registers or shared memory a block can keep`,
    );
  }
  const first = reductions[0] as ReductionInfo;
  const { reductionNumel, iterationNumel } = rowShape(first, bound);
  const minRows = first.inner ? Math.floor(ri.device.smCount / 8) : (ri.device.warpSize / 8) * ri.device.smCount;
  if (kind !== 'inner_outer_persistent' && reductionNumel >= ri.device.maxThreadsPerSm * 4 && iterationNumel < minRows) {
    return refuse(`rows of ${reductionNumel} elements but only ${iterationNumel} rows (fewer than ${minRows}): too few blocks for a persistent kernel`);
  }
  return { ok: true };
}
