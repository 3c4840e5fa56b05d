// Reachability over a fusion's tensor graph, shared by the acceptance predicates: which
// tensors a tensor depends on, which depend on it, and whether the tensor graph is one
// connected piece (nvFuser refuses to schedule disconnected fusions as one kernel: its
// `isConnectedFusionGraph` check). Scalars (extents, constants, scalar inputs) do not connect
// tensors: they are broadcast to every kernel for free. Pure reads of the fusion.

import type { Expr, Fusion, TensorView, Val } from '@tsfuser/fusion-ir';

export const tvName = (tv: Val): string => (tv.kind === 'tensorView' ? `T${tv.name}` : `S${tv.name}`);

/** Tensor inputs of an expression. */
export function tensorInputs(e: Expr): TensorView[] {
  return e.inputs.filter((v): v is TensorView => v.kind === 'tensorView');
}

/** Tensor outputs of an expression. */
export function tensorOutputs(e: Expr): TensorView[] {
  return e.outputs.filter((v): v is TensorView => v.kind === 'tensorView');
}

/** The live expressions computing tensors, in topological order. */
export function tensorExprs(fusion: Fusion): Expr[] {
  return fusion.exprs().filter((e) => tensorOutputs(e).length > 0);
}

/** Every tensor that `tv` depends on (itself excluded), walking definitions backwards. */
export function upstreamTvs(tv: TensorView): Set<TensorView> {
  const out = new Set<TensorView>();
  const stack: TensorView[] = [tv];
  while (stack.length > 0) {
    const t = stack.pop() as TensorView;
    const def = t.definition;
    if (def === null) continue;
    for (const p of tensorInputs(def)) {
      if (out.has(p)) continue;
      out.add(p);
      stack.push(p);
    }
  }
  return out;
}

/** Every tensor of the live fusion that depends on `tv` (itself excluded). */
export function downstreamTvs(fusion: Fusion, tv: TensorView): Set<TensorView> {
  const out = new Set<TensorView>();
  const reached = new Set<Val>([tv]);
  for (const e of tensorExprs(fusion)) {
    if (!e.inputs.some((v) => reached.has(v))) continue;
    for (const o of tensorOutputs(e)) {
      reached.add(o);
      out.add(o);
    }
  }
  return out;
}

/**
 * The connected pieces of the tensor graph (tensors joined by a live expression), each listed by
 * its tensors in name order; fusion inputs no live expression reads are left out.
 */
export function tensorComponents(fusion: Fusion): TensorView[][] {
  const parent = new Map<TensorView, TensorView>();
  const find = (t: TensorView): TensorView => {
    let r = t;
    while (parent.get(r) !== r) r = parent.get(r) as TensorView;
    parent.set(t, r);
    return r;
  };
  const add = (t: TensorView): void => {
    if (!parent.has(t)) parent.set(t, t);
  };
  for (const e of tensorExprs(fusion)) {
    const tvs = [...tensorInputs(e), ...tensorOutputs(e)];
    tvs.forEach(add);
    const first = tvs[0] as TensorView;
    for (const t of tvs) parent.set(find(t), find(first));
  }
  const groups = new Map<TensorView, TensorView[]>();
  for (const t of parent.keys()) {
    const r = find(t);
    if (!groups.has(r)) groups.set(r, []);
    (groups.get(r) as TensorView[]).push(t);
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a.name - b.name)).sort((a, b) => (a[0] as TensorView).name - (b[0] as TensorView).name);
}

/** The outputs of each connected piece, for a reason naming them ("T19 | T38"). */
export function describeComponents(fusion: Fusion, components: readonly TensorView[][]): string {
  const outputs = new Set<Val>(fusion.outputs);
  return components
    .map((c) => {
      const outs = c.filter((t) => outputs.has(t));
      return `{${(outs.length > 0 ? outs : c.slice(0, 1)).map(tvName).join(', ')}}`;
    })
    .join(' and ');
}
