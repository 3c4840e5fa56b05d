// The state lowering passes share: the scheduled fusion, its reference tensor (whose loop
// domain every aligned tensor follows position by position), the exact logical map, and how
// scalars (extents, scalar inputs, constants) are named in the kernel. Built once by
// lower/index.ts; passes read it and never mutate the fusion.

import type { Fusion, Scalar, Split, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap, type IndexType } from '@tsfuser/scheduler';
import type { IndexExpr } from '../kernel-ir/index-expr.js';

export interface LoweringContext {
  fusion: Fusion;
  reference: TensorView;
  /** Number of loop positions (the reference's loop domain length). */
  positions: number;
  exactMap: ExactLogicalMap;
  divisibleSplits: ReadonlySet<Split>;
  indexType: IndexType;
  /** Symbolic extents and scalar inputs → kernel-side names (filled by the signature pass). */
  scalarNames: Map<Scalar, string>;
  /** Kernel names of tensors: `T<n>`. */
  tensorName(tv: TensorView): string;
  /** Index expression of an integer extent scalar. */
  extent(s: Scalar): IndexExpr;
}

export function makeContext(
  fusion: Fusion,
  reference: TensorView,
  divisibleSplits: ReadonlySet<Split>,
  indexType: IndexType,
  extent: (ctx: LoweringContext, s: Scalar) => IndexExpr,
): LoweringContext {
  const ctx: LoweringContext = {
    fusion,
    reference,
    positions: reference.nDims(),
    exactMap: new ExactLogicalMap(fusion),
    divisibleSplits,
    indexType,
    scalarNames: new Map(),
    tensorName: (tv) => `T${tv.name}`,
    extent: (s) => extent(ctx, s),
  };
  return ctx;
}
