// Whether the inner-outer persistent scheduler takes a fusion, and if not, why. First nvFuser's
// rules (segmentation's canScheduleNormalization('inner_outer_persistent', …): inner and outer
// reductions, each of one pattern, at least one persistent buffer that fits the budget); then
// what tsfuser's schedule and codegen do, each refused with its reason:
//   * only sum/max/min/prod ReductionOps (Welford is translated to sums when it can be);
//   * the outer reductions reduce exactly the rows the inner reductions keep, and keep the row
//     (grad_weight/grad_bias over the rows of layer_norm backward);
//   * an outer reduction's result is only written out (directly or through casts, copies or a
//     keepdim broadcast):
//     it is complete only after the grid step at the end of the kernel;
//   * no expanded broadcasts in inputs or outputs, no scalar outputs or aliases, rows not
//     empty;
//   * the row fits the register budget (persistent buffers + outer accumulators; heuristics.ts)
//     — otherwise the fusion is left to segmentation.
// These are checks only: no heuristics, no schedule. The launch the heuristics choose with the
// scheduler's overrides (a block wider than 1024 threads is refused) and the schedule's
// resize-buffer refusal are checked after these by persistent/persistent-acceptance.ts —
// still without scheduling.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { HeuristicDataCache } from '../heuristic-data-cache.js';
import type { RuntimeInfo } from '../runtime-info.js';
import type { CanScheduleResult } from '../scheduler.js';
import { canScheduleNormalization } from '../segmentation/normalization.js';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { rowShape } from '../inner-persistent/row-analysis.js';
import { persistentIoRefusal, persistentWelfordRefusal, refuse, tvName } from '../persistent/persistent-refusals.js';
import { innerOuterReductions } from './launch-bounds.js';

/** Why an outer reduction's result is used for more than being written out, or null. */
export function outerResultUseRefusal(fusion: Fusion, r: TensorView): string | null {
  const live = new Set(fusion.exprs());
  let cur = r;
  for (;;) {
    const uses = cur.uses.filter((u) => live.has(u));
    if (uses.length === 0) return fusion.outputs.includes(cur) ? null : `outer reduction ${tvName(r)} is not written out`;
    const u = uses[0];
    // A keepdim sum is a sum then a broadcast of size-1 dims: the same elements, in order.
    const copy = u !== undefined && uses.length === 1 && ((u.kind === 'UnaryOp' && u.op === 'cast') || u.kind === 'LoadStoreOp' || u.kind === 'BroadcastOp');
    if (!copy || fusion.outputs.includes(cur)) {
      return `the result of outer reduction ${tvName(r)} is used by ${uses.map((x) => x.kind).join(', ')} (only casts / copies / a keepdim broadcast to an output are supported: it is complete only after the grid step)`;
    }
    const next = (u as { outputs: readonly unknown[] }).outputs[0];
    if (next === undefined || (next as TensorView).kind !== 'tensorView') return `outer reduction ${tvName(r)} feeds a scalar`;
    cur = next as TensorView;
  }
}

/** Why the outer reductions do not reduce the inner reductions' rows and keep their row, or null. */
function outerShapeRefusal(fusion: Fusion, inner: TensorView, outer: TensorView): string | null {
  const map = new ExactLogicalMap(fusion);
  const a = inner.domain.logical.filter((id) => !id.isBroadcast());
  const b = outer.domain.logical.filter((id) => !id.isBroadcast());
  const ok = a.length === b.length && a.every((id, d) => map.same(id, b[d] as typeof id) && id.isReduction() !== (b[d] as typeof id).isReduction());
  return ok ? null : `outer reduction ${tvName(outer)} does not reduce exactly the rows that inner reduction ${tvName(inner)} keeps`;
}

/**
 * Every dim of every output must be one of the inner reduction's rows or row (exactly mapped):
 * the schedule transforms only what maps onto that reference, so an output over an unrelated
 * [N, H] input (the same sizes, other extents) would be indexed by one block's row alone.
 */
function disjointOutputRefusal(fusion: Fusion, r: TensorView): string | null {
  const ref = r.definition?.inputs[0];
  if (ref === undefined || ref.kind !== 'tensorView') return null;
  const map = new ExactLogicalMap(fusion);
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') continue;
    const ids = o.domain.logicalNoReductions();
    const at = map.mapToReference(o, ref);
    const lost = ids.findIndex((id, i) => !id.isBroadcast() && at[i] === -1);
    if (lost >= 0) return `output ${tvName(o)}'s dim ${lost} is neither the rows nor the row of reduction ${tvName(r)} (a disjoint iteration domain)`;
  }
  return null;
}

export function canScheduleInnerOuterPersistent(fusion: Fusion, runtimeInfo: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, runtimeInfo)): CanScheduleResult {
  const nv = canScheduleNormalization('inner_outer_persistent', fusion, runtimeInfo, cache);
  if (!nv.ok) return nv;
  const welford = persistentWelfordRefusal(fusion);
  if (welford !== null) return refuse(welford);
  if (fusion.exprs().some((e) => e.kind === 'WelfordOp')) return refuse('Welford in an inner-outer persistent fusion is not supported yet');
  const io = persistentIoRefusal(fusion, 'inner-outer persistent');
  if (io !== null) return refuse(io);
  const { inner, outer } = innerOuterReductions(fusion);
  const r = inner[0];
  if (r === undefined || outer.length === 0) return refuse('needs both inner and outer reductions');
  for (const o of outer) {
    const shape = outerShapeRefusal(fusion, r, o);
    if (shape !== null) return refuse(shape);
    const use = outerResultUseRefusal(fusion, o);
    if (use !== null) return refuse(use);
  }
  const disjoint = disjointOutputRefusal(fusion, r);
  if (disjoint !== null) return refuse(disjoint);
  const { rowLength, rows } = rowShape(r, cache.bindings());
  if (rowLength === 0) return refuse(`rows of reduction ${tvName(r)} are empty (size-0 reduced dim)`);
  if (rows === 0) return refuse(`reduction ${tvName(r)} has no rows (size-0 kept dim)`);
  return { ok: true };
}
