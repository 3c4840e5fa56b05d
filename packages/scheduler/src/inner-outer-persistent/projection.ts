// Projection of persistent buffers to the inputs (nvFuser's projectPersistentBuffers, beyond the
// widening casts persistent/persistence.ts projects). In layer_norm backward the tensors
// read both before and after the inner block reductions are xhat = (x − mean)·rstd,
// g = grad_out·weight and broadcast(rstd), all Float and all computed from fusion inputs by
// pointwise ops alone. Kept as computed they cost 12 register bytes per row element; recomputed
// in the later phase from the inputs (grad_out and x in bf16, mean/rstd per row, the weight)
// they cost nothing beyond the inputs, which stay in registers anyway (read once).
//
// Before scheduling (every ReductionOp counts as a block reduction for the phases): for each
// persistent buffer t that is not an input cache and whose definition chain reaches only input
// caches / fusion inputs / scalars through UnaryOp, BinaryOp, BroadcastOp, ExpandOp or Set, every consumer
// of t in a later loop phase is rewired to a copy of the chain made for that phase (one copy per
// phase, shared by its consumers). Returns how many tensors were copied.
// Invariant: values are unchanged (the copies compute the same ops on the same inputs); only
// consumers in a phase other than t's own are rewired.

import { binaryOp, broadcast, expand, permute, replaceExprVals, set, unaryOp, type Expr, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { loopPhases, reductionPhases } from '../persistent/persistence.js';

/** Longest chain (expressions) worth recomputing per phase. */
const MAX_CHAIN = 24;

function isSource(tv: TensorView, inputCaches: ReadonlySet<TensorView>): boolean {
  return tv.isFusionInput() || inputCaches.has(tv);
}

/** The expressions from the sources to `t` (topological), or null when t is not pointwise from them. */
export function recomputeChain(t: TensorView, inputCaches: ReadonlySet<TensorView>): Expr[] | null {
  const order: Expr[] = [];
  const seen = new Set<TensorView>();
  const visit = (tv: TensorView): boolean => {
    if (isSource(tv, inputCaches) || seen.has(tv)) return true;
    seen.add(tv);
    const def = tv.definition;
    if (def === null) return false;
    // ExpandOp: broadcast_in_dim with an explicit shape (as the Python frontend writes it) adds one.
    const ok = def.kind === 'UnaryOp' || def.kind === 'BinaryOp' || def.kind === 'BroadcastOp' || def.kind === 'ExpandOp' || (def.kind === 'LoadStoreOp' && def.opType === 'Set');
    if (!ok || def.outputs.length !== 1) return false;
    for (const v of def.inputs) if (v.kind === 'tensorView' && !visit(v)) return false;
    order.push(def);
    return order.length <= MAX_CHAIN;
  };
  return visit(t) ? order : null;
}

/** A copy of `e` reading `map`'s replacements of its inputs; returns the copy's output. */
function copyExpr(e: Expr, map: ReadonlyMap<Val, Val>): TensorView | null {
  const inp = (i: number): Val => {
    const v = e.inputs[i] as Val;
    return map.get(v) ?? v;
  };
  const out = e.outputs[0] as TensorView;
  switch (e.kind) {
    case 'UnaryOp':
      return unaryOp(e.op, inp(0) as TensorView, out.dtype);
    case 'BinaryOp': {
      const a = inp(0);
      const b = inp(1);
      if (a.kind !== 'tensorView' && b.kind !== 'tensorView') return null;
      if (a.kind === 'iterDomain' || b.kind === 'iterDomain') return null;
      return binaryOp(e.op, a, b, out.dtype) as TensorView;
    }
    case 'BroadcastOp':
      return broadcast(inp(0) as TensorView, e.isBroadcastDim);
    case 'ExpandOp':
      return expand(inp(0) as TensorView, e.expandedExtents());
    case 'LoadStoreOp':
      // A permute is a LoadStoreOp too: its copy must permute the same way.
      return e.permutation === null ? set(inp(0) as TensorView) : permute(inp(0) as TensorView, e.permutation);
    default:
      return null;
  }
}

export function projectToInputs(fusion: Fusion, inputCaches: ReadonlySet<TensorView>): number {
  const phase = reductionPhases(fusion, () => true);
  const { loop, persistent } = loopPhases(fusion, phase);
  let copied = 0;
  for (const t of [...fusion.allTvs()]) {
    // Rewiring rebuilds consumer expressions: look at the live ones each time.
    const live = new Set(fusion.exprs());
    if (!persistent.has(t) || isSource(t, inputCaches) || fusion.outputs.includes(t)) continue;
    const chain = recomputeChain(t, inputCaches);
    if (chain === null) continue;
    const own = loop.get(t) ?? phase.get(t) ?? 0;
    const copies = new Map<number, TensorView>();
    for (const u of t.uses.filter((x) => live.has(x))) {
      const out = u.outputs.find((o): o is TensorView => o.kind === 'tensorView');
      const p = out === undefined ? own : (loop.get(out) ?? phase.get(out) ?? own);
      if (p === own) continue;
      let copy = copies.get(p);
      if (copy === undefined) {
        const map = new Map<Val, Val>();
        for (const e of chain) {
          const c = copyExpr(e, map);
          if (c === null) break;
          map.set(e.outputs[0] as Val, c);
          copied += 1;
        }
        const c = map.get(t);
        if (c === undefined || c.kind !== 'tensorView') continue;
        copy = c;
        copies.set(p, copy);
      }
      replaceExprVals(u, new Map<Val, Val>([[t, copy]]));
    }
  }
  return copied;
}
