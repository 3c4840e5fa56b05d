// Pointwise tensors computed from fusion inputs alone, recomputed in every segment that reads
// them instead of crossing a segment boundary (tsfuser's widening of nvFuser's forwarding of
// unary ops of inputs, SegmentCandidateFinder::forwardInputs): a cast, broadcast, expand or
// pointwise op whose tensor operands are fusion inputs or such tensors themselves, and that is
// not a fusion output. group_norm backward is the case: x̂ = (x − mean)·invstd and dy·w feed
// both the per-group reductions of dx (over [C/G, S]) and the weight / bias grads (over
// [N, S]), two reduction patterns no one kernel takes; partitioned, one of its kernels wrote
// x̂ and the other intermediates in f32 for the others (4 kernels, 12–21% of the copy floor on
// the H200), recomputed, each kernel reads x and dy again (2 kernels).
// Invariant: a recomputable expression depends only on fusion inputs (and scalars), so any
// segment can hold a copy of it without creating an edge; its outputs are never segment
// outputs (the segmenter gives every reader its own copy: `closure`).

import type { Expr, Fusion, Val } from '@tsfuser/fusion-ir';
import { isTensorExpr } from './group-fusion.js';

/** Expression kinds whose copies are safe to make per segment: deterministic pointwise / data-movement-free ops. */
function recomputableKind(e: Expr): boolean {
  switch (e.kind) {
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'BroadcastOp':
    case 'ExpandOp':
      return true;
    default:
      return false;
  }
}

/** The recomputable tensor expressions of `fusion` (see the header), in topological order. */
export function recomputableExprs(fusion: Fusion, exprs: readonly Expr[]): Set<Expr> {
  const inputs = new Set<Val>(fusion.inputs);
  const outputs = new Set<Val>(fusion.outputs);
  const fromInputs = new Set<Val>();
  const out = new Set<Expr>();
  for (const e of exprs) {
    if (!isTensorExpr(e) || !recomputableKind(e) || e.outputs.some((o) => outputs.has(o))) continue;
    if (!e.inputs.every((v) => v.kind !== 'tensorView' || inputs.has(v) || fromInputs.has(v))) continue;
    out.add(e);
    for (const o of e.outputs) fromInputs.add(o);
  }
  return out;
}

/**
 * The recomputable expressions `e` reads through, transitively (its private copy of each): what
 * a segment holding `e` must also hold so that none of them crosses its boundary.
 */
export function recomputedClosure(e: Expr, recomputable: ReadonlySet<Expr>): Set<Expr> {
  const out = new Set<Expr>();
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop() as Expr;
    for (const v of x.inputs) {
      const p = v.definition;
      if (p === null || !recomputable.has(p) || out.has(p)) continue;
      out.add(p);
      stack.push(p);
    }
  }
  return out;
}
