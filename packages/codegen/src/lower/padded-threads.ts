// Part of `expr-lowering` — padded thread dims (used by expression lowering). A reference position bound to
// threadIdx.x/y whose extent is not a constant (the inner persistent schedule's
// ⌈row / vec / batches⌉) may be launched with more threads than that extent (rounded up to a
// warp multiple, so block reductions take the warp-shuffle path). The extra threads would alias
// real elements of another persistent batch, so every statement of a tensor that iterates such
// a position is guarded by `threadIdx.x < extent`, and a block reduction reads `init` from those
// threads (the guard joins its read predicates; a reduced position never guards the write).
// A constant-extent thread position gets the guard only when the launch has more threads along
// it (a persistent row whose extent folded to a constant, e.g. through a reshape to constant
// sizes, still launches the warp-rounded count); every other schedule launches exactly it.
// Invariant: a thread beyond a padded extent reads nothing, writes nothing and contributes the
// reduction's identity.

import { isym } from '../kernel-ir/index-expr.js';
import type { Predicate } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import type { LoopGroups } from './loop-groups.js';

export interface PaddedThreadPredicate {
  /** The reference loop position the guard belongs to. */
  position: number;
  predicate: Predicate;
}

export function paddedThreadPredicates(ctx: LoweringContext, groups: LoopGroups): PaddedThreadPredicate[] {
  const out: PaddedThreadPredicate[] = [];
  groups.kinds.forEach((k, p) => {
    if (k.kind !== 'parallel') return;
    if (k.parallelType !== 'TIDx' && k.parallelType !== 'TIDy') return;
    const launched = ctx.blockDims?.[k.parallelType];
    if (k.bound !== null && (launched === undefined || launched <= k.bound)) return;
    out.push({ position: p, predicate: { index: isym(k.builtin), extent: ctx.extent(ctx.reference.axis(p).extent) } });
  });
  return out;
}
