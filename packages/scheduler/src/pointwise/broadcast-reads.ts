// The broadcasts that read a lower-rank fusion input straight from global memory in a pointwise
// kernel (a bias [H] under broadcast_in_dim to [N, H], RoPE's cos / sin [T, E] to [B, n, T, E]):
// the pointwise schedule treats them as that input's cache (vectorized by the heuristics'
// choice, inlined at the first per-thread position so each thread issues its vector loads
// first), since lowering emits a broadcast of a global input as the load itself. Before this,
// only inputs of the reference's rank were cached and such an input was read one element at a
// time inside the vector loop (8 two-byte loads per 16-byte vector in bf16).
// Invariant: a broadcast is returned only when every use of the input is a BroadcastOp to the
// reference's rank and no resize op (slice / pad / cat) lies downstream of it, so it is read in
// the reference's own index space, the one its vector loads assume.

import type { TensorView } from '@tsfuser/fusion-ir';
import { isResizeExpr } from './resize/index-space.js';

function rankOf(tv: TensorView): number {
  return tv.domain.logicalNoReductions().length;
}

/** Whether some resize op consumes `tv` or a tensor computed from it. */
function resizeDownstream(tv: TensorView): boolean {
  const seen = new Set<TensorView>();
  const stack = [tv];
  for (let t = stack.pop(); t !== undefined; t = stack.pop()) {
    if (seen.has(t)) continue;
    seen.add(t);
    for (const use of t.uses) {
      if (isResizeExpr(use)) return true;
      for (const o of use.outputs) if (o.kind === 'tensorView') stack.push(o);
    }
  }
  return false;
}

/**
 * The broadcast outputs that load lower-rank input `tv` in a kernel whose reference has rank
 * `rank` (see the header), or none when `tv` is not one the heuristics vectorized.
 */
export function broadcastReadsOf(tv: TensorView, rank: number, vectorized: boolean): TensorView[] {
  if (!vectorized || rankOf(tv) === 0 || rankOf(tv) >= rank) return [];
  const outs: TensorView[] = [];
  for (const use of tv.uses) {
    const o = use.outputs[0];
    if (use.kind !== 'BroadcastOp' || use.outputs.length !== 1 || o === undefined || o.kind !== 'tensorView' || rankOf(o) !== rank) return [];
    if (o.isFusionOutput() || resizeDownstream(o)) return [];
    outs.push(o);
  }
  return outs;
}
