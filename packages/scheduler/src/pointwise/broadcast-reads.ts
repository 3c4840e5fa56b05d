// The broadcasts that read a lower-rank fusion input straight from global memory in a pointwise
// kernel (a bias [H] under broadcast_in_dim to [N, H], RoPE's cos / sin [T, E] to [B, n, T, E]):
// the pointwise schedule treats them as that input's cache (vectorized by the heuristics'
// choice, inlined at the first per-thread position so each thread issues its vector loads
// first), since lowering emits a broadcast of a global input as the load itself. Before this,
// only inputs of the reference's rank were cached and such an input was read one element at a
// time inside the vector loop (8 two-byte loads per 16-byte vector in bf16).
// With a slice / pad / cat downstream (RoPE's backward: dy · sin sliced by rotate-half), the
// resize preparation (resize/prepare.ts, privatize) has already given each index space its own
// copy of the broadcast, so each copy is a cache read in one (shifted) space, as an input of
// the reference's rank gets one cache per space; resizeVectorLimit makes every shift and
// boundary a multiple of the vector width, so the shifted vector load is predicated once.
// Before that, such inputs were read one element at a time (issue 38: rope_bwd bf16 at 39% of
// the copy floor).
// Invariant: a broadcast is returned only when every use of the input is a BroadcastOp to the
// reference's rank that is not a fusion output, so each is read in the one index space the
// resize preparation gave it.

import type { TensorView } from '@tsfuser/fusion-ir';

function rankOf(tv: TensorView): number {
  return tv.domain.logicalNoReductions().length;
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
    if (o.isFusionOutput()) return [];
    outs.push(o);
  }
  return outs;
}
