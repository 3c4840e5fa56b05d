// Part of `expr-lowering` — predicates (used by expression lowering). A split whose factor does not divide
// its input's extent creates out-of-range iterations. For every such split that does not
// descend from another one, the access is guarded by `index(split input) < extent(split
// input)`: an in-range ID has in-range descendants, so the root-most checks imply all others
// and, through the merges above, every logical index — except below a split's inner output:
// an out-of-range index there does not leave the parent's range, it aliases the next outer
// iteration (the inner-outer persistent grid's chunk of rows ⌈I/gdimx⌉ split by bdimy: row
// g·chunk + 4s + y with 4s + y ≥ chunk is the next block's), so a non-divisible split of an
// inner output is always predicated itself. Divisibility is proven from constant
// extents or given by the scheduler (facts it derived from the runtime sizes).
// A statement of a prefix-aligned tensor (reduction schedules) only takes the predicates whose
// index depends on its own positions: the reduction's serial positions are out of its scope.

import type { IterDomain, Split } from '@tsfuser/fusion-ir';
import type { Predicate } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import type { PointIndexer, ReferenceHistory } from './indexing.js';

export function isDivisible(ctx: LoweringContext, split: Split): boolean {
  const e = split.in().extent.constNumber();
  const f = split.factor.constNumber();
  if (e !== null && f !== null) return e % f === 0;
  return ctx.divisibleSplits.has(split);
}

/** The splits that need a predicate (root-most non-divisible ones), in schedule order. */
export function predicatedSplits(history: ReferenceHistory): Split[] {
  const tainted = new Set<IterDomain>();
  const result: Split[] = [];
  for (const e of history.exprs) {
    const inputs = e.inputs as IterDomain[];
    const fromTainted = inputs.some((i) => tainted.has(i));
    if (fromTainted) for (const o of e.outputs) tainted.add(o as IterDomain);
    if (e.kind !== 'Split' || isDivisible(history.ctx, e)) continue;
    const ofInnerOutput = history.exprs.some((p) => p.kind === 'Split' && p.inner() === e.in());
    if (!fromTainted || ofInnerOutput) result.push(e);
    for (const o of e.outputs) tainted.add(o as IterDomain);
  }
  return result;
}

/** The reference loop positions whose indices the index of `id` is computed from. */
export function dependentPositions(history: ReferenceHistory, id: IterDomain): number[] {
  const p = history.loopPosition.get(id);
  if (p !== undefined) return [p];
  const use = history.useOf.get(id);
  if (use === undefined) return [];
  return [...new Set(use.outputs.flatMap((o) => dependentPositions(history, o as IterDomain)))].sort((a, b) => a - b);
}

export function pointPredicates(splits: readonly Split[], indexer: PointIndexer, usable: (s: Split) => boolean = () => true): Predicate[] {
  return splits.filter(usable).map((s) => ({ index: indexer.index(s.in()), extent: indexer.ctx.extent(s.in().extent) }));
}
