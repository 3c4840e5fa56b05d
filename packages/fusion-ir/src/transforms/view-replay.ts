// Replaying a producer's loop transforms forward through a reshape (ViewOp): the view output's
// logical IDs are first merged / split back into IDs standing for its root IDs (undoing the
// reshape's root → logical split/merge in reverse order: a split is undone by merging its
// outputs, a merge by an inner split by its inner extent), and the producer's loop transforms
// are then replayed on those, in the producer's loop order. This is how a tensor after a
// reshape of a scheduled tensor (the normalized row reshaped back to [B, S, H]) takes the
// reference's loops, as nvFuser replays a reshape's transforms so producer and consumer loop
// nests line up. The ID graph (id-graph.ts) joins each rebuilt ID with the root ID it undoes,
// so the view's loop IDs map to the producer's.
// A one-dim to one-dim reshape (no split/merge) takes the loops with its logical ID standing for
// its root ID.
// Invariant: on success the view's loop domain has the producer's loop structure and is reached
// from its logical domain by Split/Merge only; on failure (a TransformError) nothing was changed.

import { TransformError } from '../ir/errors.js';
import type { Merge, Split } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import { mergeIds, splitId } from './id-ops.js';
import { logicalDomainPairs } from './logical-domain-map.js';
import { idExprsFromTo, loopExprs } from './replay.js';

/**
 * A reshape of one dim to one dim (the extents equal at run time) has no split/merge: its
 * logical ID stands for its root ID directly.
 */
export function oneToOne(view: TensorView, undo: readonly (Split | Merge)[]): { root: IterDomain; logical: IterDomain } | null {
  const root = view.domain.root;
  const [r] = root ?? [];
  const [l] = view.domain.logical;
  if (undo.length > 0 || root === null || root.length !== 1 || view.domain.logical.length !== 1 || r === undefined || l === undefined || r === l) return null;
  return { root: r, logical: l };
}

/** Why `view` (a ViewOp output of `producer`) cannot take the producer's loops, or null. */
function refusal(producer: TensorView, view: TensorView, undo: readonly (Split | Merge)[], replay: readonly (Split | Merge)[]): string | null {
  const def = view.definition;
  if (def === null || def.kind !== 'ViewOp' || def.inputs[0] !== producer) return `T${view.name} is not a reshape of T${producer.name}`;
  if (view.domain.root === null) return `T${view.name} has no root domain`;
  if (loopExprs(view).length > 0) return `T${view.name} is already scheduled`;
  // Dry run: every expr undone or replayed finds its inputs, each used once.
  const live = new Set<IterDomain>(view.domain.logical);
  const take = (id: IterDomain): boolean => live.delete(id);
  for (const e of [...undo].reverse()) {
    if (e.kind === 'Split') {
      if (!take(e.outer()) || !take(e.inner())) return `T${view.name}'s reshape split ${e.in().name} cannot be undone`;
      live.add(e.in());
    } else {
      if (!take(e.out())) return `T${view.name}'s reshape merge ${e.out().name} cannot be undone`;
      live.add(e.outer());
      live.add(e.inner());
    }
  }
  const root = view.domain.root;
  const only = oneToOne(view, undo);
  if (only !== null) {
    live.delete(only.logical);
    live.add(only.root);
  }
  if (live.size !== root.length || !root.every((id) => live.has(id))) return `T${view.name}'s logical domain does not undo to its root domain`;
  const mapped = new Set<IterDomain>(logicalDomainPairs(producer, view).filter((p) => root.includes(p.consumer)).map((p) => p.producer));
  for (const e of replay) {
    const ins = e.inputs as IterDomain[];
    if (!ins.every((i) => mapped.delete(i))) return `T${producer.name}'s loop transform touches an ID without a counterpart in T${view.name}`;
    for (const o of e.outputs) mapped.add(o as IterDomain);
  }
  return null;
}

/** Gives `view`, the output of a reshape of `producer`, the producer's loop domain (see the header). */
export function replayForwardThroughView(producer: TensorView, view: TensorView): void {
  const root = view.domain.root ?? [];
  const undo = view.domain.root === null ? [] : idExprsFromTo(root, view.domain.logical);
  const replay = loopExprs(producer);
  const why = refusal(producer, view, undo, replay);
  if (why !== null) throw new TransformError(`replaying T${producer.name}'s loops through the reshape to T${view.name}: ${why}`);
  // Undo the reshape: standing-in IDs for the root.
  const cur = new Map<IterDomain, IterDomain>(view.domain.logical.map((id) => [id, id]));
  const only = oneToOne(view, undo);
  if (only !== null) cur.set(only.root, only.logical);
  for (const e of [...undo].reverse()) {
    if (e.kind === 'Split') {
      cur.set(e.in(), mergeIds(cur.get(e.outer()) as IterDomain, cur.get(e.inner()) as IterDomain));
    } else {
      const [o, i] = splitId(cur.get(e.out()) as IterDomain, e.inner().extent, true);
      cur.set(e.outer(), o);
      cur.set(e.inner(), i);
    }
  }
  // Replay the producer's loop transforms on them.
  const idMap = new Map<IterDomain, IterDomain>();
  for (const p of logicalDomainPairs(producer, view)) {
    const r = cur.get(p.consumer);
    if (r !== undefined && root.includes(p.consumer)) idMap.set(p.producer, r);
  }
  const consumed = new Set<IterDomain>();
  for (const e of replay) {
    for (const i of e.inputs) consumed.add(idMap.get(i as IterDomain) as IterDomain);
    if (e.kind === 'Split') {
      const [o, i] = splitId(idMap.get(e.in()) as IterDomain, e.factor, e.innerSplit);
      idMap.set(e.outer(), o);
      idMap.set(e.inner(), i);
    } else {
      idMap.set(e.out(), mergeIds(idMap.get(e.outer()) as IterDomain, idMap.get(e.inner()) as IterDomain));
    }
  }
  const loop = producer.domain.loop.flatMap((id) => {
    const t = idMap.get(id);
    return t === undefined ? [] : [t];
  });
  // Root stand-ins the producer's loop does not reach (none for a full-rank producer) stay last.
  for (const r of root) {
    const t = cur.get(r) as IterDomain;
    if (!consumed.has(t) && !loop.includes(t)) loop.push(t);
  }
  view.domain.loop = loop;
}
