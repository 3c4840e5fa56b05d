// Reshapes (ViewOps) in the persistent (normalization) schedulers' fusions: inner persistent,
// outer persistent and inner-outer persistent take them anywhere — before the row reductions
// (the attention prologue's [B, S, H·D] → [B·S, H·D]), between ops of the row, and after them
// (the normalized row or its statistics reshaped back). As nvFuser does by replaying the view's
// split/merge so producer and consumer domains line up, the schedule's TransformPropagator
// replays the reference's loop domain through each view, and lowering indexes every global
// tensor whose logical dims the exact map does not tie to the reference through the view's
// split/merge (pointwise/reshape-index-graph.ts, backward or forward).
// Refused, with the reason: a reshape with no split/merge to index through (an empty tensor,
// a 0-dim input: left to expr_eval), a tensor dim that reaches the reference (the first
// reduction's input) neither directly nor through a reshape, and iota / random numbers on the
// other side of a reshape from the reference (they are indexed by the reference's dims).
// Invariant: accepted fusions have every iteration dim of every tensor derivable from the
// reference's logical indices.

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { isFactoryAcrossReshape, viewRefusal } from '../pointwise/reshape-checks.js';
import { ReshapeIndexGraph } from '../pointwise/reshape-index-graph.js';

/** Why the reshapes of a persistent fusion whose first reduction reads `ref` cannot be scheduled, or null. */
export function persistentReshapeRefusal(fusion: Fusion, ref: TensorView, scheduler: string): string | null {
  const views = fusion.exprs().filter((e) => e.kind === 'ViewOp');
  if (views.length === 0) return null;
  for (const e of views) {
    const r = viewRefusal(e);
    if (r !== null) return r;
  }
  const graph = new ReshapeIndexGraph(fusion, ref);
  const map = new ExactLogicalMap(fusion);
  const live = new Set(fusion.exprs());
  for (const tv of fusion.allTvs()) {
    if (tv.isFusionInput() && !tv.uses.some((u) => live.has(u))) continue;
    const derived = graph.deriveLogical(tv);
    const logical = tv.domain.logicalNoReductions();
    const bad = logical.findIndex((id, d) => !id.isBroadcast() && id.extent.constNumber() !== 1 && derived[d] === null);
    if (bad >= 0) {
      return `T${tv.name} dim ${bad} (extent ${(logical[bad] as (typeof logical)[number]).extent.symbolicName()}) maps neither to the reduction input T${ref.name} nor through a reshape to it (${scheduler} scheduler)`;
    }
    if (isFactoryAcrossReshape(tv, ref, map)) {
      return `${tv.definition?.kind} producing T${tv.name} is on the other side of a reshape from the reduction input T${ref.name} (${scheduler} scheduler)`;
    }
  }
  return null;
}
