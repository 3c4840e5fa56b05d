// A permissive IterDomain graph over a set of tensors (nvFuser's permissive IdModel map, in
// small): IDs paired by producer/consumer logical maps are joined, and Split/Merge exprs whose
// inputs are joined (same factor and direction for splits) join their outputs, to a fixpoint.
// A merge of a broadcast with a non-broadcast ID is forwarded (its output joins the
// non-broadcast input, extents being equal), so a tensor lacking a broadcast dim still maps to
// the merged loop of a tensor that has it.
//
// A reshape's split/merge (root → logical) can be undone by a loop transform (view-replay.ts
// rebuilds a view output's root IDs from its logical ones): a merge of the outer and inner
// outputs of a reshape's split joins the split's input, and an inner split of a reshape merge's
// output by the merge's inner extent joins its outputs to the merge's inputs. A one-dim to
// one-dim reshape (no split/merge) joins its root and logical IDs.
//
// Used to decide which loop IDs of different tensors iterate together: inlining validation
// and parallelizeAllLike. Resized pairs (Slice/Pad/Cat with changed extents) are never joined.

import type { Merge, Split } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { consumersOf, logicalDomainPairs } from './logical-domain-map.js';
import { idExprsFromTo } from './replay.js';
import { oneToOne } from './view-replay.js';

/** Union-find over IterDomains. */
export class IdSets {
  private readonly parent = new Map<IterDomain, IterDomain>();

  find(id: IterDomain): IterDomain {
    let root = id;
    for (let p = this.parent.get(root); p !== undefined && p !== root; p = this.parent.get(root)) root = p;
    // Path compression keeps repeated queries cheap.
    let cur = id;
    while (cur !== root) {
      const next = this.parent.get(cur) ?? root;
      this.parent.set(cur, root);
      cur = next;
    }
    return root;
  }

  /** Joins two sets; returns true when they were distinct. */
  union(a: IterDomain, b: IterDomain): boolean {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return false;
    // Keep the lower-named ID as representative so results are deterministic.
    if (ra.name <= rb.name) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
    return true;
  }

  same(a: IterDomain, b: IterDomain): boolean {
    return this.find(a) === this.find(b);
  }
}

/** All Split/Merge exprs of a tensor: root → logical, then logical → loop. */
export function tensorIdExprs(tv: TensorView): (Split | Merge)[] {
  const d = tv.domain;
  const rootToLogical = d.root === null ? [] : idExprsFromTo(d.root, d.logical);
  return [...rootToLogical, ...idExprsFromTo(d.logical, d.loop)];
}

/** Builds the permissive map over `tvs`, using every producer→consumer edge between them. */
export function buildIdGraph(tvs: readonly TensorView[]): IdSets {
  const sets = new IdSets();
  const inSet = new Set(tvs);
  for (const p of tvs) {
    for (const c of consumersOf(p)) {
      if (!inSet.has(c)) continue;
      for (const pr of logicalDomainPairs(p, c)) if (!pr.resized) sets.union(pr.producer, pr.consumer);
    }
  }
  // A one-dim to one-dim reshape has no split/merge: its root and logical IDs are one loop.
  for (const tv of tvs) {
    const only = tv.definition?.kind === 'ViewOp' ? oneToOne(tv, []) : null;
    if (only !== null && idExprsFromTo([only.root], [only.logical]).length === 0) sets.union(only.root, only.logical);
  }
  const exprs: (Split | Merge)[] = tvs.flatMap(tensorIdExprs);
  const reshapeExprs = tvs.flatMap((tv) => (tv.domain.root === null ? [] : idExprsFromTo(tv.domain.root, tv.domain.logical)));
  let changed = true;
  while (changed) {
    changed = false;
    const buckets = new Map<string, (Split | Merge)[]>();
    for (const e of exprs) {
      const key = exprKey(sets, e);
      const list = buckets.get(key);
      if (list === undefined) buckets.set(key, [e]);
      else list.push(e);
    }
    for (const list of buckets.values()) {
      const first = list[0] as Split | Merge;
      for (const e of list.slice(1)) {
        first.outputs.forEach((o, k) => {
          if (sets.union(o as IterDomain, e.outputs[k] as IterDomain)) changed = true;
        });
      }
    }
    for (const e of exprs) {
      if (e.kind !== 'Merge') continue;
      const [a, b] = [e.outer(), e.inner()];
      const forward = (bcast: IterDomain, other: IterDomain): void => {
        if (!bcast.isBroadcast() || other.isBroadcast()) return;
        if (sets.union(e.out(), other)) changed = true;
      };
      forward(a, b);
      forward(b, a);
    }
    if (joinReshapeInverses(sets, exprs, reshapeExprs)) changed = true;
  }
  return sets;
}

/** Whether two extents are the same value (one Val, or equal constants). */
function sameExtent(a: IterDomain, b: Scalar): boolean {
  const x = a.extent.constNumber();
  return a.extent === b || (x !== null && x === b.constNumber());
}

/** Joins loop transforms that undo a reshape's split or merge (see the header); true when something joined. */
function joinReshapeInverses(sets: IdSets, exprs: readonly (Split | Merge)[], reshapeExprs: readonly (Split | Merge)[]): boolean {
  let changed = false;
  for (const e of exprs) {
    for (const r of reshapeExprs) {
      if (e.kind === 'Merge' && r.kind === 'Split' && sets.same(e.outer(), r.outer()) && sets.same(e.inner(), r.inner())) {
        if (sets.union(e.out(), r.in())) changed = true;
      } else if (e.kind === 'Split' && r.kind === 'Merge' && e.innerSplit && sets.same(e.in(), r.out()) && sameExtent(r.inner(), e.factor)) {
        if (sets.union(e.outer(), r.outer())) changed = true;
        if (sets.union(e.inner(), r.inner())) changed = true;
      }
    }
  }
  return changed;
}

function exprKey(sets: IdSets, e: Split | Merge): string {
  const ins = e.inputs.map((i) => sets.find(i as IterDomain).name).join(',');
  if (e.kind === 'Merge') return `M:${ins}`;
  const c = e.factor.constNumber();
  const factorKey = c !== null ? `c${c}` : `s${e.factor.name}`;
  return `S:${ins}:${factorKey}:${e.innerSplit ? 'i' : 'o'}`;
}
