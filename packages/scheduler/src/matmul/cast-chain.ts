// The chain of casts below a tensor inside a segment, shared by the backward GEMM patterns
// (dgelu-pattern.ts, bgrad-pattern.ts): Thunder and autograd write `x → Float → op → dtype`, so
// a pattern looks through the casts around the op it matches.
// Invariant: every expression returned is a cast accepted by `accept`, read by exactly one live
// expression's input in the chain; `end` is the last tensor of the chain (`tv` when none).

import type { Expr, TensorView } from '@tsfuser/fusion-ir';

/** A cast whose output is a tensor (any dtype). */
export function isTensorCast(e: Expr): boolean {
  return e.kind === 'UnaryOp' && e.op === 'cast' && e.outputs[0]?.kind === 'tensorView';
}

/** Walks the casts `accept` takes down from `tv`, each the single reader (inside `live`) of the one before. */
export function castChainFrom(tv: TensorView, live: ReadonlySet<Expr>, accept: (e: Expr) => boolean = isTensorCast): { end: TensorView; casts: Expr[] } {
  let cur = tv;
  const casts: Expr[] = [];
  for (;;) {
    const uses = cur.uses.filter((u) => live.has(u));
    const u = uses[0];
    if (uses.length !== 1 || u === undefined || !accept(u)) return { end: cur, casts };
    casts.push(u);
    cur = u.outputs[0] as TensorView;
  }
}
