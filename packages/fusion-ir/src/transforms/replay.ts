// Replaying loop transforms from one tensor onto another (nvFuser's TransformReplay, simplified).
// Given a map from the source's logical IDs to the target's logical IDs, the source's Split/Merge
// exprs (logical → loop) are re-applied to the mapped target IDs, and the target's loop domain
// becomes the replayed IDs in the source's loop order followed by the target's untouched IDs.
//
// Well-defined handling of IDs one side lacks: a split of an unmapped ID is skipped; a merge
// with one unmapped input forwards the mapped input (the target simply has no such dim); the
// target's unmapped logical IDs (a producer's reduction dims, dims the source lacks) keep their
// logical order after the replayed ones. Splitting a target broadcast ID is allowed here (it
// mirrors an iteration ID of the source) and yields broadcast IDs.

import { TransformError } from '../ir/errors.js';
import type { Merge, Split } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { IterType } from '../ir/types.js';
import type { Val } from '../ir/val.js';
import { mergedIterType, mergeIds, splitId } from './id-ops.js';

/** Split/Merge exprs leading from `from` to `to`, each after the exprs producing its inputs. */
export function idExprsFromTo(from: readonly IterDomain[], to: readonly IterDomain[]): (Split | Merge)[] {
  const start = new Set<Val>(from);
  const seen = new Set<Split | Merge>();
  const order: (Split | Merge)[] = [];
  // Iterative post-order: loop domains can be deep after many splits.
  const stack: { id: Val; expanded: boolean }[] = [...to].reverse().map((id) => ({ id, expanded: false }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { id: Val; expanded: boolean };
    const def = top.id.definition;
    if (start.has(top.id) || def === null || (def.kind !== 'Split' && def.kind !== 'Merge') || (seen.has(def) && !top.expanded)) {
      stack.pop();
      continue;
    }
    if (!top.expanded) {
      top.expanded = true;
      for (let i = def.inputs.length - 1; i >= 0; i -= 1) stack.push({ id: def.inputs[i] as Val, expanded: false });
      continue;
    }
    stack.pop();
    if (!seen.has(def)) {
      seen.add(def);
      order.push(def);
    }
  }
  return order;
}

/** The Split/Merge exprs between a tensor's logical and loop domains (its schedule). */
export function loopExprs(tv: TensorView): (Split | Merge)[] {
  return idExprsFromTo(tv.domain.logical, tv.domain.loop);
}

/** Drops a tensor's loop transforms: loop = logical; the old Split/Merge exprs are unregistered. */
export function resetLoopDomain(tv: TensorView): void {
  for (const e of loopExprs(tv).reverse()) tv.fusion.removeExpr(e);
  tv.domain.loop = [...tv.domain.logical];
}

/**
 * Replays `source`'s loop transforms onto `target` (whose loop domain is rebuilt from its logical
 * domain). `logicalMap` maps source IDs of `sourceStart` (default: its logical domain) to target
 * logical IDs. When the source is the consumer and has a root domain (an rFactor partial, a
 * reshape), the caller starts at the root, so the root → logical exprs are replayed as well —
 * this is how an rFactor tensor used as reference passes its reduction splits to its producers.
 * Returns the map from source IDs to the target IDs replayed for them.
 */
export function replayLoopDomain(
  source: TensorView,
  target: TensorView,
  logicalMap: ReadonlyMap<IterDomain, IterDomain>,
  sourceStart: readonly IterDomain[] = source.domain.logical,
): Map<IterDomain, IterDomain> {
  const exprs = idExprsFromTo(sourceStart, source.domain.loop);
  checkReplayable(source, target, exprs, logicalMap);
  resetLoopDomain(target);
  const idMap = new Map<IterDomain, IterDomain>(logicalMap);
  const consumed = new Set<IterDomain>();
  for (const e of exprs) {
    if (e.kind === 'Split') {
      const tin = idMap.get(e.in());
      if (tin === undefined || consumed.has(tin)) continue;
      const [o, i] = splitId(tin, e.factor, e.innerSplit);
      consumed.add(tin);
      idMap.set(e.outer(), o);
      idMap.set(e.inner(), i);
      continue;
    }
    const to = idMap.get(e.outer());
    const ti = idMap.get(e.inner());
    const live = (x: IterDomain | undefined): x is IterDomain => x !== undefined && !consumed.has(x);
    if (live(to) && live(ti)) {
      if (mergedIterType(to.iterType, ti.iterType) === null) {
        throw new TransformError(
          `propagating T${source.name}'s merge into T${target.name}: T${target.name} would merge ${to.iterType} ID ${to.name} with ${ti.iterType} ID ${ti.name}`,
        );
      }
      idMap.set(e.out(), mergeIds(to, ti));
      consumed.add(to);
      consumed.add(ti);
    } else if (live(to)) {
      idMap.set(e.out(), to);
    } else if (live(ti)) {
      idMap.set(e.out(), ti);
    }
  }
  const loop: IterDomain[] = [];
  const placed = new Set<IterDomain>();
  for (const s of source.domain.loop) {
    const t = idMap.get(s);
    if (t === undefined || consumed.has(t) || placed.has(t)) continue;
    loop.push(t);
    placed.add(t);
  }
  for (const t of target.domain.logical) {
    if (!consumed.has(t) && !placed.has(t)) {
      loop.push(t);
      placed.add(t);
    }
  }
  target.domain.loop = loop;
  return idMap;
}

/**
 * Dry run of the replay on IterTypes only: throws the TransformError the replay would throw
 * before anything is changed, so a failed replay leaves the target as it was.
 */
function checkReplayable(
  source: TensorView,
  target: TensorView,
  exprs: readonly (Split | Merge)[],
  logicalMap: ReadonlyMap<IterDomain, IterDomain>,
): void {
  // Source ID → [a token standing for the target ID, its IterType].
  const typeOf = new Map<IterDomain, { token: object; iterType: IterType; name: number }>();
  for (const [s, t] of logicalMap) typeOf.set(s, { token: t, iterType: t.iterType, name: t.name });
  const consumed = new Set<object>();
  for (const e of exprs) {
    if (e.kind === 'Split') {
      const t = typeOf.get(e.in());
      if (t === undefined || consumed.has(t.token)) continue;
      consumed.add(t.token);
      typeOf.set(e.outer(), { token: {}, iterType: t.iterType, name: t.name });
      typeOf.set(e.inner(), { token: {}, iterType: t.iterType, name: t.name });
      continue;
    }
    const a = typeOf.get(e.outer());
    const b = typeOf.get(e.inner());
    const liveA = a !== undefined && !consumed.has(a.token) ? a : undefined;
    const liveB = b !== undefined && !consumed.has(b.token) ? b : undefined;
    if (liveA !== undefined && liveB !== undefined) {
      const merged = mergedIterType(liveA.iterType, liveB.iterType);
      if (merged === null) {
        throw new TransformError(
          `propagating T${source.name}'s merge into T${target.name}: T${target.name} would merge ${liveA.iterType} ID ${liveA.name} with ${liveB.iterType} ID ${liveB.name}`,
        );
      }
      consumed.add(liveA.token);
      consumed.add(liveB.token);
      typeOf.set(e.out(), { token: {}, iterType: merged, name: liveA.name });
    } else if (liveA !== undefined) {
      typeOf.set(e.out(), liveA);
    } else if (liveB !== undefined) {
      typeOf.set(e.out(), liveB);
    }
  }
}
