// Row parameters (a layer_norm / rms_norm weight or bias over the normalized dims) read as
// vectors. Such an input w is used as `broadcast(cast(w))` against the full rows; its own 1-D
// cache would not share the rows' loop structure, so lowering would read it one element at a
// time. Since a cast is elementwise, broadcast and cast commute: the chain is rebuilt as
// `cast(broadcast(w))`, and the broadcast — reading w from global memory, with the rows' full
// loop structure after propagation — serves as w's cache and can be vectorized like the row
// inputs. In place, on the scheduler's clone.
// Invariant: values are unchanged (only the order of a broadcast and elementwise casts); each
// rewritten input's only use is the returned broadcast.

import { broadcast, cast, replaceExprVals, type Expr, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';

/** The live single use of `tv`, or null. */
function onlyUse(tv: TensorView, live: ReadonlySet<Expr>): Expr | null {
  const uses = tv.uses.filter((u) => live.has(u));
  return uses.length === 1 ? (uses[0] as Expr) : null;
}

/**
 * Rewrites every `w → cast* → broadcast` chain of a fusion input to `broadcast(w) → cast*`;
 * returns the broadcast that now reads each such input, by input position (also for inputs
 * whose single use already is a broadcast).
 */
export function broadcastRowParamsFirst(fusion: Fusion): Map<TensorView, number> {
  const result = new Map<TensorView, number>();
  fusion.inputs.forEach((w, position) => {
    if (w.kind !== 'tensorView' || fusion.outputs.includes(w)) return;
    const live = new Set(fusion.exprs());
    const chain: Expr[] = [];
    let cur: TensorView = w;
    let use = onlyUse(cur, live);
    while (use !== null && use.kind === 'UnaryOp' && use.op === 'cast') {
      const out = use.outputs[0];
      if (out === undefined || out.kind !== 'tensorView' || fusion.outputs.includes(out)) return;
      chain.push(use);
      cur = out;
      use = onlyUse(cur, live);
    }
    if (use === null || use.kind !== 'BroadcastOp') return;
    const old = use.outputs[0];
    if (old === undefined || old.kind !== 'tensorView') return;
    if (chain.length === 0) {
      result.set(old, position);
      return;
    }
    const flags = use.isBroadcastDim;
    const first = broadcast(w, flags);
    let value: TensorView = first;
    for (const c of chain) value = cast(value, (c.outputs[0] as TensorView).dtype);
    for (const u of [...old.uses]) if (live.has(u)) replaceExprVals(u, new Map<Val, Val>([[old, value]]));
    if (fusion.outputs.includes(old)) fusion.replaceOutput(old, value);
    for (const e of [use, ...chain].reverse()) fusion.removeExpr(e);
    result.set(first, position);
  });
  return result;
}
