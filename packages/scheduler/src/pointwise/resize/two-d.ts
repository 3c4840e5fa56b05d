// The 2-D schedule of the pointwise scheduler for slice / pad / cat (resize ops): the outer dims
// [0, rank − 1) of the reference go to blockIdx.y (and threadIdx.y), its innermost dim to
// blockIdx.x · blockDim.x (· vector width). A flat 1-D schedule would recover each element's
// coordinates with a division and a modulo by the (run-time) row length for every vector; in
// 2-D the inner index is the thread's own and the outer one is computed once per thread, so
// each vector's resize offsets and validity predicate are additions and comparisons only.
// nvFuser's resize scheduler flattens everything into one dim; this is tsfuser's own rule.
//
// Chosen when the broadcast rule picked no break point and the fusion has resize ops, the
// reference has an outer side (> 1 row) and its innermost dim is an iteration dim with more
// vectors than a warp (narrower rows keep the 1-D schedule: a warp would straddle rows).
// Unroll is 1 for every resize fusion but 2-D ones over rows of ≥ 256 vectors, which run 128
// threads × 2 vectors of a row (pointwise/heuristics.ts says why).

import type { TensorView } from '@tsfuser/fusion-ir';

/** The break point for a resize fusion's 2-D schedule (rank − 1), or 0 for the 1-D one. */
export function resizeBreakPoint(ref: TensorView, refSizes: readonly number[], vector: number, warp: number): number {
  const r = refSizes.length;
  if (r < 2) return 0;
  const logical = ref.domain.logicalNoReductions();
  if (logical[r - 1]?.isBroadcast() ?? true) return 0;
  const left = refSizes.slice(0, r - 1).reduce((a, b) => a * b, 1);
  const inner = refSizes[r - 1] as number;
  if (left <= 1 || Math.ceil(inner / vector) <= warp) return 0;
  return r - 1;
}
