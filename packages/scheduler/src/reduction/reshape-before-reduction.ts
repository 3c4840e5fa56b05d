// Reshapes before the reduction in a reduction fusion: taken (the reduction input, the
// lowering's reference, is on the reshape's consumer side, so every tensor before a reshape is
// indexed backward through its split/merge — reshape-index-graph.ts), refused when the reshape
// has no split/merge to index through (a 0-size tensor; reshapes after the reduction too), and
// when the reduction input keeps broadcast dims (a reshape to size-1 dims before the sum).
// Reshapes after the reduction are checked by reshape-after-reduction.ts.

import type { Expr, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { viewRefusal } from '../pointwise/reshape-checks.js';

/** Why the reshapes of a reduction fusion cannot be scheduled, or null (those after it: see reshape-after-reduction.ts). */
export function reshapeBeforeReduction(fusion: Fusion, input: TensorView, after: ReadonlySet<Expr>): { reason: string } | null {
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ViewOp') continue;
    // After the reduction, the rest is checked by reshape-after-reduction.ts.
    if (!after.has(e) && input.domain.logicalNoReductions().some((id) => id.isBroadcast())) {
      // Propagated through the reshape, the tensors before it get their broadcast loop IDs last,
      // out of line with the reduction input's loop positions.
      return { reason: `reduction input T${input.name} has broadcast dims and a reshape precedes it (not supported by the reduction scheduler yet)` };
    }
    const r = viewRefusal(e);
    if (r !== null) return { reason: r };
  }
  return null;
}
