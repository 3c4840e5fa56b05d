// TensorDomain: the domains of one TensorView.
//   root       — present only when a reshape or rFactor produced the tensor: the IDs before
//                that transformation (Split/Merge exprs lead from root to logical);
//   logical    — the tensor's dimensions as the user sees them (reduction IDs included);
//   allocation — the order of dims in memory when it differs from logical (stride order);
//   loop       — derived from logical by scheduling transforms (Split/Merge/reorder).
// Invariant: every loop ID is reachable from the logical IDs through Split/Merge exprs, and every
// logical ID is reachable from the root IDs when a root exists.

import type { IterDomain } from './iter-domain.js';

export class TensorDomain {
  root: IterDomain[] | null;
  logical: IterDomain[];
  allocation: IterDomain[] | null;
  loop: IterDomain[];
  /** One entry per logical ID: true/false for iteration dims, null for broadcast and reduction. */
  contiguity: (boolean | null)[];

  constructor(init: {
    logical: IterDomain[];
    root?: IterDomain[] | null;
    allocation?: IterDomain[] | null;
    loop?: IterDomain[];
    contiguity?: (boolean | null)[];
  }) {
    this.logical = [...init.logical];
    this.root = init.root ? [...init.root] : null;
    this.allocation = init.allocation ? [...init.allocation] : null;
    this.loop = init.loop ? [...init.loop] : [...init.logical];
    this.contiguity = init.contiguity ? [...init.contiguity] : defaultContiguity(this.logical);
    if (this.contiguity.length !== this.logical.length) {
      throw new RangeError(
        `TensorDomain: ${this.contiguity.length} contiguity flags for ${this.logical.length} logical dims`,
      );
    }
  }

  /** The domain that the tensor's producer computes: root if present, else logical. */
  maybeRoot(): IterDomain[] {
    return this.root ?? this.logical;
  }

  /** Logical IDs without reductions: the dims of the tensor a consumer reads. */
  logicalNoReductions(): IterDomain[] {
    return this.logical.filter((id) => !id.isReduction());
  }

  /** The memory order of the logical dims (allocation domain or logical). */
  maybeAllocation(): IterDomain[] {
    return this.allocation ?? this.logical;
  }

  hasReduction(): boolean {
    return this.logical.some((id) => id.isReduction());
  }

  hasBroadcast(): boolean {
    return this.logical.some((id) => id.isBroadcast());
  }
}

export function defaultContiguity(logical: readonly IterDomain[]): (boolean | null)[] {
  return logical.map((id) => (id.isBroadcast() || id.isReduction() ? null : true));
}
