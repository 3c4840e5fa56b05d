// Core pass `allocation` — allocation. In: the loop nest with PendingExprs. Out: the same tree with an
// Allocate for every Local tensor (each output of a multi-output expression: Welford's avg,
// varSum and n), placed at the start of the innermost loop it shares with
// its consumers (its compute-at position), sized by the product of its remaining
// non-parallel positions (constants: vector width, unroll factor). Also the local index
// of a tensor: row-major over those positions. A reduction's own reduction positions are not
// allocated (one accumulator per iteration point), nor positions a prefix-aligned tensor
// lacks; rFactor partials of Half/BFloat16 are allocated in their Float storage dtype.
// Invariant: every Local tensor is allocated exactly once, above all its readers and writer.

import type { TensorView } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iadd, iconst, imul, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import { forEachStmt } from '../kernel-ir/walk.js';
import type { LoweringContext } from './context.js';
import type { LoopGroups } from './loop-groups.js';

/** Positions of `tv`'s local buffer (≥ compute-at, not bound to a thread/block index). */
export function allocatedPositions(groups: LoopGroups, tv: TensorView): number[] {
  const ca = groups.computeAt(tv);
  const own = groups.isAligned(tv);
  return groups.kinds
    .map((k, p) => (p >= ca && groups.owns(tv, p) && k.kind === 'loop' && !(own && (groups.axisAt(tv, p)?.isReduction() ?? false)) ? p : -1))
    .filter((p) => p >= 0);
}

function positionExtent(ctx: LoweringContext, p: number, tv: TensorView): number {
  const c = ctx.reference.axis(p).extent.constNumber();
  if (c === null) {
    throw new LoweringError(
      `T${tv.name} is not inlined past loop position ${p}, whose extent ${ctx.reference.axis(p).extent.symbolicName()} is not constant: its local buffer has no static size`,
    );
  }
  return c;
}

export function localIndex(ctx: LoweringContext, groups: LoopGroups, tv: TensorView, indices: readonly IndexExpr[]): IndexExpr {
  let index: IndexExpr = iconst(0);
  for (const p of allocatedPositions(groups, tv)) {
    index = iadd(imul(index, iconst(positionExtent(ctx, p, tv))), indices[p] ?? iconst(0));
  }
  return index;
}

export function insertAllocations(ctx: LoweringContext, groups: LoopGroups, body: Stmt[]): Stmt[] {
  const vector = ctx.positions > 0 ? ctx.reference.axis(-1).extent.constNumber() ?? 1 : 1;
  const allocate = (out: TensorView, loops: readonly Stmt[][]): void => {
    const ca = groups.computeAt(out);
    const depth = groups.kinds.filter((k, p) => p < ca && k.kind === 'loop' && groups.owns(out, p) && !(p === ctx.positions - 1 && groups.isVectorized(out))).length;
    const target = depth === 0 ? body : loops[depth - 1];
    if (target === undefined) throw new LoweringError(`T${out.name}: no loop at allocation depth ${depth}`);
    const size = allocatedPositions(groups, out).reduce((acc, p) => acc * positionExtent(ctx, p, out), 1);
    const align = groups.isVectorized(out) ? vector : 1;
    const allocs = target.filter((x) => x.kind === 'Allocate').length;
    target.splice(allocs, 0, { kind: 'Allocate', buffer: ctx.tensorName(out), dtype: ctx.storageDtype(out), size, align });
  };
  forEachStmt(body, (s, loops) => {
    if (s.kind !== 'PendingExpr' || s.phase !== undefined) return;
    // Every output: Welford's avg, varSum and n each get a buffer.
    for (const out of s.expr.outputs) {
      if (out.kind === 'tensorView' && out.memoryType === 'Local') allocate(out, loops.map((l) => l.body));
    }
  });
  return body;
}
