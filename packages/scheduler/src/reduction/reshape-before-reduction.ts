// Reshapes before the reduction in a reduction fusion: taken (the reduction input, the
// lowering's reference, is on the reshape's consumer side, so every tensor before a reshape is
// indexed backward through its split/merge — reshape-index-graph.ts), refused when the reshape
// has no split/merge to index through (a 0-size tensor; reshapes after the reduction too), when
// the reduction input keeps broadcast dims (a reshape to size-1 dims before the sum), and when an
// iota / random numbers are on the other side of a reshape from the reduction input (computed
// from the reference's indices, which do not cross the reshape; the segmenter then puts them and
// the reshape in a pointwise kernel before the reduction).
// Reshapes after the reduction are checked by reshape-after-reduction.ts.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { isFactoryAcrossReshape, viewRefusal } from '../pointwise/reshape-checks.js';

/** Why the reshapes of a reduction fusion cannot be scheduled, or null (those after it: see reshape-after-reduction.ts). */
export function reshapeBeforeReduction(fusion: Fusion, input: TensorView, after: ReadonlySet<Expr>): { reason: string } | null {
  const views = fusion.exprs().filter((e) => e.kind === 'ViewOp');
  for (const e of views) {
    // After the reduction, the rest is checked by reshape-after-reduction.ts.
    if (!after.has(e) && input.domain.logicalNoReductions().some((id) => id.isBroadcast())) {
      // Propagated through the reshape, the tensors before it get their broadcast loop IDs last,
      // out of line with the reduction input's loop positions.
      return { reason: `reduction input T${input.name} has broadcast dims and a reshape precedes it (not supported by the reduction scheduler yet)` };
    }
    const r = viewRefusal(e);
    if (r !== null) return { reason: r };
  }
  if (views.length === 0) return null;
  const map = new ExactLogicalMap(fusion);
  const factory = fusion.allTvs().find((tv) => isFactoryAcrossReshape(tv, input, map));
  if (factory !== undefined) {
    return { reason: `${factory.definition?.kind} producing T${factory.name} is on the other side of a reshape from the reduction input T${input.name} (reduction scheduler)` };
  }
  return null;
}
