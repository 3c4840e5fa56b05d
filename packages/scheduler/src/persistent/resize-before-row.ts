// Slice / pad / cat in an inner persistent (normalization) fusion (issue 20): taken on the
// input side of the row — every resize between the fusion inputs and the first reduction's
// input (softmax over a padded row, layer_norm over a cat). That input (the lowering's
// reference) is on the resize's consumer side, so the row's loops run over the resized domain
// and every tensor before a resize is computed at the consumer's point, read at the shifted
// index (pointwise/resize/index-space.ts: slice offsets and steps, predicated pad values, the
// cat source chosen per point) — the pointwise scheduler's resize support with the row as its
// reference, as the reduction scheduler does (reduction/resize-before-reduction.ts). A
// persistent buffer that is a resize output (or after one) stays the computed row in
// registers: the projection to inputs only duplicates casts of input caches, never a resize.
// Refused, each with a reason naming the op:
//   * the outer and inner-outer persistent schedulers take no resize (the reason unchanged:
//     slice, pad and cat run in pointwise segments);
//   * a resize not upstream of the first reduction's input — of the normalized row or on a
//     branch past a reduction (its output would be written in another index space than the
//     row's loops: a segment boundary);
//   * a resize in one kernel with a reshape, and what the pointwise rules refuse
//     (pointwise/resize/can-schedule.ts: resized broadcasts, run-time pad widths, iota /
//     random numbers read shifted, outputs outside the row's index space).
// Invariant: accepted fusions have every resize expression upstream of the reference.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { resizeRefusal } from '../pointwise/resize/can-schedule.js';
import { isResizeExpr } from '../pointwise/resize/index-space.js';
import { unsupportedOp } from '../segmentation/supported-ops.js';

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
 * Why the slice / pad / cat ops of a `scheduler` fusion whose first reduction reads `ref`
 * cannot be scheduled, or null (none, or all on the input side of an inner persistent row).
 */
export function persistentResizeRefusal(fusion: Fusion, ref: TensorView, scheduler: string): string | null {
  const exprs = fusion.exprs();
  const resizes = exprs.filter(isResizeExpr);
  const first = resizes[0];
  if (first === undefined) return null;
  if (scheduler !== 'inner_persistent') return unsupportedOp(first, scheduler);
  const before = upstreamExprs(ref);
  for (const e of resizes) {
    if (!before.has(e)) {
      return `${describeOp(e)} producing T${(e.outputs[0] as TensorView).name} is not on the input side of the row T${ref.name} (the inner_persistent scheduler takes slice, pad and cat before the row's reduction only; one after it is a segment boundary)`;
    }
  }
  const view = exprs.find((e) => e.kind === 'ViewOp');
  if (view !== undefined) {
    return `a ${describeOp(first)} (producing T${(first.outputs[0] as TensorView).name}) and a reshape (producing T${(view.outputs[0] as TensorView).name}) in one inner_persistent kernel are not supported yet`;
  }
  return resizeRefusal(fusion, ref);
}
