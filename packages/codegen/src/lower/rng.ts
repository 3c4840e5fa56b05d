// Part of `expr-lowering` — lowering of an RNGOp (used by expression lowering). In: the RNG tensor's access at
// one point of the loop nest. Out: an `Rng` statement whose linear index is the row-major
// position of the point in the RNG tensor's logical domain — Σ index(d) · Π extent(d' > d),
// each logical dim taking the index of the reference logical dim it is exactly mapped to (a
// size-1 dim contributes nothing; runs of dims merged in the reference use the merged index) —
// as nvFuser's getLinearLogicalIndex does. The index comes
// from logical dims only, so the numbers do not depend on splits, merges, unrolling,
// vectorization or the grid: the invariant that makes the GPU match the reference evaluator.

import type { IterDomain, RNGOp, TensorView } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iadd, iconst, imul, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { scalarOperand } from './expr-lowering.js';
import type { PointIndexer } from './indexing.js';

/**
 * The row-major linear index of the current point in `tv`'s logical domain. A run of dims that
 * map in order onto reference dims the reference merged (its 1-D or 2-D schedule) takes the
 * merged ID's index at once — the same number without a div/mod pair per dim.
 */
export function linearLogicalIndex(tv: TensorView, indexer: PointIndexer): IndexExpr {
  const ctx = indexer.ctx;
  const map = ctx.exactMap.mapToReference(tv, ctx.reference);
  const logical = tv.domain.logicalNoReductions();
  const refLogical = indexer.history.logical;
  let linear: IndexExpr = iconst(0);
  for (let d = 0; d < logical.length; d += 1) {
    const id = logical[d] as IterDomain;
    const r = map[d] ?? -1;
    const refId = r >= 0 ? refLogical[r] : undefined;
    if (refId === undefined) {
      if (id.isBroadcast() || id.extent.constNumber() === 1) continue;
      throw new LoweringError(`T${tv.name}: logical dim ${d} of a random tensor maps to no dim of the reference T${ctx.reference.name}`);
    }
    let end = d;
    let run: IterDomain = refId;
    for (let j = d + 1; j < logical.length && map[j] === r + (j - d); j += 1) {
      const want = Array.from({ length: j - d + 1 }, (_, k) => r + k).join(',');
      for (const [merged, leaves] of indexer.history.leaves) {
        if (leaves.length > 1 && leaves.join(',') === want) {
          run = merged;
          end = j;
        }
      }
    }
    let extent: IndexExpr = iconst(1);
    for (let k = r; k <= r + (end - d); k += 1) extent = imul(extent, ctx.extent((refLogical[k] as IterDomain).extent));
    linear = iadd(imul(linear, extent), indexer.index(run));
    d = end;
  }
  return linear;
}

export function lowerRng(expr: RNGOp, out: TensorAccess, indexer: PointIndexer, width: number): Stmt {
  const tv = expr.outputs[0] as TensorView;
  if (width > 1) throw new LoweringError(`T${tv.name}: random numbers cannot be vectorized (only copies can)`);
  const ctx = indexer.ctx;
  return {
    kind: 'Rng',
    out,
    op: expr.rngOp,
    dtype: expr.dtype,
    linearIndex: linearLogicalIndex(tv, indexer),
    seed: scalarOperand(ctx, expr.seed),
    offset: scalarOperand(ctx, expr.offset),
    parameters: expr.parameters.map((p) => scalarOperand(ctx, p)),
  };
}
