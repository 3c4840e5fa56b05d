// Re-reading instead of persisting (issue 38: softmax over the outer dim of [8192–16384, 4096]):
// before the outer persistent schedule, every tensor that would be a persistent buffer (read in
// the loops of two phases, one waiting for a block reduction the other feeds) gets one copy of
// its computation per later phase, recomputed from the fusion inputs — which that phase reads
// from global memory again — and from the reduction results (the block allreduce leaves them in
// every thread). Then no tensor is whole in registers: each phase is a loop over the column
// that loads, computes and reduces (or writes) one element at a time, like torch.compile's
// looped reductions, and the block shape is no longer bounded by the register file. Used where
// the persistent form cannot fit a coalesced block (nvFuser refuses those columns: its cross-grid
// persistence needs more than half the GPU, or is not enabled for non-Welford reductions) —
// see heuristics.ts, rereadWanted.
// Invariant: values are unchanged (only deterministic expressions are recomputed: a fusion with
// RNG ops is refused by rereadRefusal); afterwards loopPhases finds no persistent buffer
// other than tensors without a reduced extent (reduction results and their broadcasts).

import { rebuildExpr, TensorDomain, type Expr, type Fusion, type IterDomain, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { loopPhases, reductionPhases } from '../persistent/persistence.js';

/** Why the re-read form cannot be used for `fusion`, or null. */
export function rereadRefusal(fusion: Fusion): string | null {
  const rng = fusion.exprs().find((e) => e.kind === 'RNGOp');
  if (rng !== undefined) return 'outer persistent re-read: random numbers would be drawn again in every phase';
  return null;
}

/** Whether `tv` spans the reduced extent (false: a reduction result or its broadcast, computed once per column). */
function spansColumn(tv: TensorView, phase: ReadonlyMap<TensorView, number>): boolean {
  const def = tv.definition;
  if (def !== null && (def.kind === 'ReductionOp' || def.kind === 'WelfordOp')) return false;
  // Downstream of a reduction, a tensor with a broadcast dim is column-shaped (the reduced dims
  // are broadcast back); upstream (phase 0) every computed tensor is recomputed.
  return (phase.get(tv) ?? 0) === 0 || !tv.domain.logicalNoReductions().some((id) => id.isBroadcast());
}

/** A new tensor like `tv`, computed by a copy of its definition reading `inputs` instead. */
function recomputeWith(tv: TensorView, def: Expr, inputs: ReadonlyMap<Val, Val>): TensorView {
  const fusion = tv.fusion;
  const copyId = (id: IterDomain): IterDomain => fusion.newIterDomain(id.extent, id.iterType, { expandedExtent: id.expandedExtent });
  const d = tv.domain;
  const root = d.root === null ? null : d.root.map(copyId);
  const ids = new Map<IterDomain, IterDomain>((d.root ?? []).map((id, i) => [id, (root as IterDomain[])[i] as IterDomain]));
  const logical = d.logical.map((id) => ids.get(id) ?? copyId(id));
  const copy = fusion.newTensorView(new TensorDomain({ logical, root, contiguity: d.contiguity }), tv.dtype);
  copy.memoryType = 'Local';
  const val = (v: Val): Val => (v === tv ? copy : (inputs.get(v) ?? v));
  rebuildExpr(def, fusion, { val, tv: (v) => val(v) as TensorView, scalar: (v) => v, id: (v) => v });
  return copy;
}

/**
 * Gives every later-phase use of a persistent buffer its own recomputed copy (see the header).
 * Call after caching inputs and outputs, before the reduction transforms. Returns the number of
 * tensors recomputed.
 */
export function rereadPersistentBuffers(fusion: Fusion): number {
  const phase = reductionPhases(fusion, () => true);
  const { loop, persistent } = loopPhases(fusion, phase);
  const copies = new Map<string, TensorView>();
  let added = 0;
  const copyFor = (tv: TensorView, p: number): TensorView => {
    const def = tv.definition;
    if (tv.isFusionInput() || def === null || !spansColumn(tv, phase)) return tv;
    const key = `${tv.name}@${p}`;
    const known = copies.get(key);
    if (known !== undefined) return known;
    const inputs = new Map<Val, Val>();
    for (const v of def.inputs) if (v.kind === 'tensorView') inputs.set(v, copyFor(v, p));
    const copy = recomputeWith(tv, def, inputs);
    copies.set(key, copy);
    added += 1;
    return copy;
  };
  for (const t of fusion.allTvs()) {
    if (!persistent.has(t) || t.isFusionInput() || !spansColumn(t, phase)) continue;
    const own = loop.get(t) ?? phase.get(t) ?? 0;
    // Uses as they are now: an earlier replacement rebuilt some expressions.
    const live = new Set(fusion.exprs());
    for (const u of t.uses.filter((x) => live.has(x))) {
      const out = u.outputs.find((o): o is TensorView => o.kind === 'tensorView');
      const p = out === undefined ? own : (loop.get(out) ?? own);
      if (p === own) continue;
      const copy = copyFor(t, p);
      fusion.removeExpr(u);
      rebuildExpr(u, fusion, { val: (v) => (v === t ? copy : v), tv: (v) => (v === t ? copy : v), scalar: (v) => v, id: (v) => v });
    }
  }
  return added;
}
