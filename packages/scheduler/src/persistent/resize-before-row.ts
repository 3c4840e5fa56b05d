// Slice / pad / cat in a persistent (normalization) fusion — inner, outer or inner-outer
// (issue 20); the row is the first inner reduction's input (the first reduction's when there
// is no inner one). Taken:
//   * on the input side of the row — every resize between the fusion inputs and the first
//     reduction's input (softmax over a padded row, layer_norm over a cat). That input (the
//     lowering's reference) is on the resize's consumer side, so the row's loops run over the
//     resized domain and every tensor before a resize is computed at the consumer's point,
//     read at the shifted index (pointwise/resize/index-space.ts: slice offsets and steps,
//     predicated pad values, the cat source chosen per point) — the pointwise scheduler's
//     resize support with the row as its reference, as the reduction scheduler does
//     (reduction/resize-before-reduction.ts). A persistent buffer that is a resize output (or
//     after one) stays the computed row in registers: the projection to inputs only
//     duplicates casts of input caches, never a resize;
//   * after the row's reduction, along the reduced dims only, when the result comes back into
//     the row (RoPE's rotate-half after rms_norm): the tensors read shifted are recomputed
//     there (index-space.ts's privatize), the per-row statistics broadcast;
//   * a step-1 slice of the normalized row written as an output (pointwise/resize/
//     output-slice-space.ts: stored at the shifted index, inside the slice only; kept dims may
//     be sliced there, nothing is read shifted) — inner and outer persistent only (the
//     inner-outer schedule writes its outputs on other paths).
// Refused, each with a reason naming the op:
//   * a resize after the reduction that resizes a kept dim (the statistics would be wanted at
//     shifted rows), or whose result reaches an output outside the row's index space other
//     than through a step-1 slice (a pad's new elements are no point of the row's loops);
//   * a resize in one kernel with a reshape, and what the pointwise rules refuse
//     (pointwise/resize/can-schedule.ts: resized broadcasts, run-time pad widths, iota /
//     random numbers read shifted).
// Invariant: in accepted fusions every output is in the row's index space or a step-1 slice of
// it, and no resize after the reduction shifts a kept dim.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { resizeRefusal } from '../pointwise/resize/can-schedule.js';
import { isResizeExpr, resizeStep } from '../pointwise/resize/index-space.js';
import { outputSliceSpace } from '../pointwise/resize/output-slice-space.js';
import { evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { HeuristicDataCache } from '../heuristic-data-cache.js';

function describeOp(e: Expr): string {
  return e.kind === 'SliceOp' ? 'slice' : e.kind === 'PadOp' ? 'pad' : 'cat';
}

/** Expressions `tv` is computed from (its definition and theirs, transitively). */
function upstreamExprs(tv: TensorView): Set<Expr> {
  const out = new Set<Expr>();
  const stack: TensorView[] = [tv];
  while (stack.length > 0) {
    const def = (stack.pop() as TensorView).definition;
    if (def === null || out.has(def)) continue;
    out.add(def);
    for (const i of def.inputs) if (i.kind === 'tensorView') stack.push(i);
  }
  return out;
}

/**
 * A fusion output computed from `e`'s output whose dims do not all map to the row `ref` (with
 * `slicedOutputs`, a step-1 slice of the row is accepted: output-slice-space.ts), or null.
 */
function outputOutsideRow(fusion: Fusion, e: Expr, ref: TensorView, slicedOutputs: boolean): TensorView | null {
  const map = new ExactLogicalMap(fusion);
  const after = new Set<TensorView>();
  const stack = e.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
  while (stack.length > 0) {
    const t = stack.pop() as TensorView;
    if (after.has(t)) continue;
    after.add(t);
    for (const u of t.uses) for (const o of u.outputs) if (o.kind === 'tensorView') stack.push(o);
  }
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView' || !after.has(o) || (slicedOutputs && outputSliceSpace(o, ref, map) !== null)) continue;
    const m = map.mapToReference(o, ref);
    if (o.domain.logicalNoReductions().some((id, d) => !id.isBroadcast() && m[d] === -1)) return o;
  }
  return null;
}

/**
 * Whether every tensor computed from slice `e`'s output lies on the way to outputs in step-1
 * slice spaces of the row (output-slice-space.ts's chains: slices, unary ops, copies), so no
 * tensor is read at a shifted index because of `e`.
 */
function onlyToSlicedOutputs(fusion: Fusion, e: Expr, ref: TensorView): boolean {
  if (e.kind !== 'SliceOp') return false;
  const map = new ExactLogicalMap(fusion);
  const live = new Set(fusion.exprs());
  const stack = e.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
  const seen = new Set<TensorView>();
  while (stack.length > 0) {
    const t = stack.pop() as TensorView;
    if (seen.has(t)) continue;
    seen.add(t);
    if (fusion.outputs.includes(t) && outputSliceSpace(t, ref, map) === null) return false;
    for (const u of t.uses) {
      if (!live.has(u)) continue;
      const chainOp = u.kind === 'SliceOp' || u.kind === 'UnaryOp' || (u.kind === 'LoadStoreOp' && u.permutation === null);
      if (!chainOp || u.inputs.filter((v) => v.kind === 'tensorView').length !== 1) return false;
      for (const o of u.outputs) if (o.kind === 'tensorView') stack.push(o);
    }
  }
  return true;
}

/**
 * Whether `e` resizes its dim `d`: some input is read there at a shifted index (an index-space
 * step: a slice start or step, a pad, the cat axis) or has another extent at these sizes.
 */
function resizesDim(e: Expr, d: number, bindings: ExtentBindings): boolean {
  const out = (e.outputs[0] as TensorView).domain.logicalNoReductions()[d];
  if (out === undefined) return true;
  const n = evaluateExtent(out.extent, bindings);
  return e.inputs.some((i) => {
    if (i.kind !== 'tensorView') return false;
    const id = i.domain.logicalNoReductions()[d];
    return id === undefined || resizeStep(e, i, d) !== null || evaluateExtent(id.extent, bindings) !== n;
  });
}

/**
 * A dim that a resize after the row's reduction resizes and that the reduction keeps (a row
 * index: the reduction's result would be wanted at shifted rows), or null. A resize of a
 * tensor of another rank than the row is refused as a whole (dim 0).
 */
function resizedKeptDim(e: Expr, ref: TensorView, bindings: ExtentBindings): number | null {
  const rank = ref.domain.logicalNoReductions().length;
  const r = ref.uses.map((u) => u.outputs[0]).find((o): o is TensorView => o !== undefined && o.kind === 'tensorView' && o.domain.logical.some((id) => id.isReduction()));
  const out = e.outputs[0] as TensorView;
  if (r === undefined || out.domain.logicalNoReductions().length !== rank) return 0;
  for (let d = 0; d < rank; d += 1) if (r.domain.logical[d]?.isReduction() !== true && resizesDim(e, d, bindings)) return d;
  return null;
}

/**
 * Why the slice / pad / cat ops of a `scheduler` fusion whose first reduction reads `ref`
 * cannot be scheduled, or null (none, or all on the input side of an inner persistent row).
 */
export function persistentResizeRefusal(fusion: Fusion, ref: TensorView, scheduler: string, ri: RuntimeInfo, cache: HeuristicDataCache = new HeuristicDataCache(fusion, ri)): string | null {
  const exprs = fusion.exprs();
  const resizes = exprs.filter(isResizeExpr);
  const first = resizes[0];
  if (first === undefined) return null;
  const before = upstreamExprs(ref);
  let bindings: ExtentBindings;
  try {
    bindings = cache.bindings();
  } catch (err) {
    return (err as Error).message;
  }
  const sliced = scheduler !== 'inner_outer_persistent';
  for (const e of resizes) {
    if (before.has(e)) continue;
    const written = outputOutsideRow(fusion, e, ref, sliced);
    if (written !== null) {
      return `${describeOp(e)} producing T${(e.outputs[0] as TensorView).name} after the row's reduction reaches output T${written.name} outside the row's index space (a resized row written as an output is not supported by the ${scheduler} scheduler yet: a segment boundary)`;
    }
    // A slice only on the way to outputs written at the shifted index reads nothing shifted:
    // kept dims may be sliced there too (rows of the normalized row as an output).
    if (sliced && onlyToSlicedOutputs(fusion, e, ref)) continue;
    const d = resizedKeptDim(e, ref, bindings);
    if (d !== null) {
      return `${describeOp(e)} producing T${(e.outputs[0] as TensorView).name} after the row's reduction resizes dim ${d}, which the reduction of T${ref.name} keeps (the ${scheduler} scheduler takes slice, pad and cat after the reduction along the reduced dims only; a segment boundary)`;
    }
  }
  const view = exprs.find((e) => e.kind === 'ViewOp');
  if (view !== undefined) {
    return `a ${describeOp(first)} (producing T${(first.outputs[0] as TensorView).name}) and a reshape (producing T${(view.outputs[0] as TensorView).name}) in one ${scheduler} kernel are not supported yet`;
  }
  return resizeRefusal(fusion, ref, { slicedOutputs: scheduler !== 'inner_outer_persistent' });
}
