// The value side of the Fusion IR graph: every Val is owned by one Fusion, has a name that is
// unique among Vals of its category in that fusion (T<n> tensors, <n> IterDomains, i<n>/d<n>/b<n>
// scalars), at most one defining Expr and a list of using Exprs (kept by the Fusion).

import type { Expr } from './expr.js';
import type { Fusion } from './fusion.js';
import type { IterDomain } from './iter-domain.js';
import type { Scalar } from './scalar.js';
import type { TensorView } from './tensor-view.js';

export type Val = Scalar | IterDomain | TensorView;

export abstract class ValBase {
  /** The expression that produces this value, or null for fusion inputs and constants. */
  definition: Expr | null = null;
  /** Expressions that read this value, in registration order. */
  readonly uses: Expr[] = [];

  constructor(
    readonly fusion: Fusion,
    readonly name: number,
  ) {}
}

export function isTensorView(v: Val): v is TensorView {
  return v.kind === 'tensorView';
}

export function isScalar(v: Val): v is Scalar {
  return v.kind === 'scalar';
}

export function isIterDomain(v: Val): v is IterDomain {
  return v.kind === 'iterDomain';
}
