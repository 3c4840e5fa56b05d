// Slice / pad / cat in a reduction fusion (issue 20): taken on the input side of the
// reduction, fused into the reduction kernel. The reduction input (the lowering's reference) is
// on the resize's consumer side, so the reduction's loops run over the resized domain and every
// tensor before a resize is computed at the consumer's point, read at the shifted index
// (pointwise/resize/index-space.ts: slice offsets and steps, predicated pad values, the cat
// source chosen per point) — the pointwise scheduler's resize support, with the reduction input
// as its reference. Refused: a resize after the reduction (the tensors after a reduction follow
// its kept dims position by position: a segment boundary), a resize in one kernel with a
// reshape, and whatever the pointwise scheduler's rules refuse (pointwise/resize/can-schedule.ts:
// resized broadcasts, pad widths computed at run time, iota / random numbers read shifted, …).
// The schedule caches each input once per index space it is read in and inlines a resize's
// producers at the consumer's loops (pointwise/resize/prepare.ts).
// Invariant: accepted fusions have every resize expression upstream of the reduction input.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { resizeRefusal } from '../pointwise/resize/can-schedule.js';
import { isResizeExpr } from '../pointwise/resize/index-space.js';
import { cacheInputBySpace, prepareResize } from '../pointwise/resize/prepare.js';

function describeOp(e: Expr): string {
  return e.kind === 'SliceOp' ? 'slice' : e.kind === 'PadOp' ? 'pad' : 'cat';
}

/** Why the resize ops of a reduction fusion cannot be scheduled, or null (none, or all before it). */
export function resizeBeforeReduction(fusion: Fusion, input: TensorView, after: ReadonlySet<Expr>): { reason: string } | null {
  const exprs = fusion.exprs();
  const resizes = exprs.filter(isResizeExpr);
  if (resizes.length === 0) return null;
  for (const e of resizes) {
    if (after.has(e)) {
      return {
        reason: `${describeOp(e)} producing T${(e.outputs[0] as TensorView).name} after the reduction of T${input.name} is not supported by the reduction scheduler (a slice, pad or cat after a reduction is a segment boundary)`,
      };
    }
  }
  const view = exprs.find((e) => e.kind === 'ViewOp');
  if (view !== undefined) {
    const first = resizes[0] as Expr;
    return {
      reason: `a ${describeOp(first)} (producing T${(first.outputs[0] as TensorView).name}) and a reshape (producing T${(view.outputs[0] as TensorView).name}) in one reduction kernel are not supported yet`,
    };
  }
  const r = resizeRefusal(fusion, input);
  return r === null ? null : { reason: r };
}

/**
 * Caches every used tensor input (one cache per index space it is read in, when the fusion has
 * resize ops) and every tensor output, as schedule-steps.ts's cacheInputsAndOutputs does.
 * `input`: the reduction input, the resize plan's reference; inputs at positions in `skip` get no cache
 * (the persistent schedulers share this step: persistent/resize-row-schedule.ts).
 */
export function cacheReductionInputsAndOutputs(fusion: Fusion, input: TensorView, skip: ReadonlySet<number> = new Set()): Map<TensorView, number> {
  const plan = prepareResize(fusion, input);
  const inputCaches = new Map<TensorView, number>();
  fusion.inputs.forEach((v, i) => {
    if (v.kind !== 'tensorView' || v.uses.length === 0 || skip.has(i)) return;
    for (const c of cacheInputBySpace(v, plan)) inputCaches.set(c, i);
  });
  for (const o of [...fusion.outputs]) {
    if (o.kind !== 'tensorView') continue;
    if (o.uses.length > 0) o.cacheFork();
    else o.cacheBefore();
  }
  return inputCaches;
}
