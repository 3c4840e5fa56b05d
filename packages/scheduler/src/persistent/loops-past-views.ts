// Reshapes after the row (the normalized row reshaped back to [B, S, H], a row split by a
// reshape after the normalization) in a row schedule: the TransformPropagator replays the
// reference's loops backward through a view but not forward (the view output's logical IDs are
// all new), so tensors past such a view kept their logical loops and lowering recomputed them
// per element in loops of their own — scalar stores, no vectorization. As nvFuser replays a
// reshape's transforms so the reshaped tensors share the reference's loop nest, each view of
// a tensor with the reference's loop structure takes its producer's loops through the view
// (fusion-ir view-replay.ts), and the tensors after it that kept their logical loops take them
// from the view by propagation, with the reference's parallel types. Their output stores can
// then be vectorized like an un-reshaped output.
// Invariant: only tensors with no loop transforms are changed; a view whose reshape cannot be
// undone is left as it was (lowering indexes it through the reshape, unaligned).

import {
  loopExprs,
  parallelizeAllLike,
  propagateTransforms,
  replayForwardThroughView,
  TransformError,
  type Fusion,
  type TensorView,
} from '@tsfuser/fusion-ir';

/** Tensors reached from `tv` through uses, that have no loop transforms yet (not fusion inputs). */
function unscheduledAfter(tv: TensorView): TensorView[] {
  const out: TensorView[] = [];
  const seen = new Set<TensorView>([tv]);
  const stack = [tv];
  while (stack.length > 0) {
    const t = stack.pop() as TensorView;
    for (const use of t.uses) {
      for (const o of use.outputs) {
        if (o.kind !== 'tensorView' || seen.has(o) || o.isFusionInput() || loopExprs(o).length > 0) continue;
        seen.add(o);
        out.push(o);
        stack.push(o);
      }
    }
  }
  return out;
}

/**
 * Merges the size-1 broadcast loops the propagation appended after the reference's `dims`
 * positions into the last one (the row's vec loop): a reshape back to [1, H, S_q, S_k]
 * (HuggingFace attention's backward) makes the leading 1 a broadcast dim the reference lacks,
 * and a tensor with more loops than the reference is not aligned with it, so lowering
 * recomputed it per element and stored the output scalar (8 two-byte stores per thread in
 * bf16). A merge with a size-1 broadcast keeps the extent and maps to the other input (as
 * nvFuser's loop map does), so the tensor shares the reference's loops and its store takes the
 * row's vector. Expanded broadcasts and iteration loops past `dims` are left alone.
 */
function foldTrailingBroadcastLoops(tv: TensorView, dims: number): void {
  if (tv.nDims() <= dims || tv.axis(dims - 1).isBroadcast()) return;
  for (let p = dims; p < tv.nDims(); p++) {
    const id = tv.axis(p);
    if (!id.isBroadcast() || id.expandedExtent !== null || id.extent.constNumber() !== 1) return;
  }
  while (tv.nDims() > dims) tv.merge(dims - 1);
}

/**
 * Gives every view output of a tensor with `ref`'s loop structure, and the unscheduled tensors
 * after it, the reference's loops (see the header). Returns the view outputs that took them.
 */
export function replayLoopsPastViews(fusion: Fusion, ref: TensorView): TensorView[] {
  const replayed: TensorView[] = [];
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ViewOp') continue;
    const p = e.inputs[0];
    const c = e.outputs[0];
    if (p === undefined || c === undefined || p.kind !== 'tensorView' || c.kind !== 'tensorView') continue;
    if (p.nDims() !== ref.nDims() || loopExprs(p).length === 0 || loopExprs(c).length > 0) continue;
    try {
      replayForwardThroughView(p, c);
    } catch (err) {
      if (err instanceof TransformError) continue;
      throw err;
    }
    const after = unscheduledAfter(c);
    if (after.length > 0) propagateTransforms(c, { tvs: [c, ...after] });
    for (const tv of after) foldTrailingBroadcastLoops(tv, ref.nDims());
    parallelizeAllLike(ref, [c, ...after]);
    replayed.push(c);
  }
  return replayed;
}
