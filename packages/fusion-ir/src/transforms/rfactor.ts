// rFactor (nvFuser's TensorView::rFactor): splits one reduction into two. Given a reduction
// output tv whose loop domain has been split, and loop positions `axes` of reduction IDs, it
// creates the partial tensor P that reduces only `axes` and lets tv reduce the rest:
//
//   before:  tv[ iS0, rS3{ceilDiv(i1, 4)}, rS4{4} ]      = sum(in)
//   rFactor(tv, [2]):
//            P [ iS5, iS7{ceilDiv(i1, 4)}rf, rS8{4}rf ]  = sum(in)   root [ iS5, rS6{i1} ]
//            tv[ iS9, rS10{ceilDiv(i1, 4)} ]             = sum(P)
//
// P's root domain is a copy of tv's logical domain (one ID per input dim, so `in → P` is a
// plain reduction over P's root reduction IDs); P's logical domain is derived from its root by
// replaying tv's splits/merges of the reduction IDs involved ("rf" components), marked
// isRFactorProduct: the `axes` become Reduction IDs, the other outputs Iteration IDs. Reduction
// IDs whose transforms contain no rFactored axis stay whole: Iteration in P, Reduction in tv.
// tv gets a new logical domain with one ID per non-reduction logical ID of P (so `P → tv` is a
// plain positional reduction) and the same loop order as before, minus `axes`.
// Evaluation is unchanged: an element of `in` at root index r lands in P at the logical index
// obtained by walking P's root→logical exprs forward (split: outer = r / inner.extent, inner =
// r % inner.extent; merge: out = outer * inner.extent + inner); P's elements no input reaches
// (ceilDiv padding) keep the reduction's init value, the identity of the second reduction.

import { TransformError } from '../ir/errors.js';
import { ReductionOp, WelfordOp, type Merge, type Split } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import { TensorDomain } from '../ir/tensor-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { IterType } from '../ir/types.js';
import { IdSets } from './id-graph.js';
import { mergeIds, splitId } from './id-ops.js';
import { normalizeAxis } from './loop-transforms.js';
import { loopExprs, replayLoopDomain } from './replay.js';

type Component = 'rf' | 'red' | 'iter';

/** Replays `exprs` through `map` (old ID → new ID), creating outputs with `typeOf`. */
function replay(
  exprs: readonly (Split | Merge)[],
  map: Map<IterDomain, IterDomain>,
  typeOf: (old: IterDomain) => IterType | undefined,
  isRFactorProduct: boolean,
): void {
  for (const e of exprs) {
    if (e.kind === 'Split') {
      const input = map.get(e.in());
      if (input === undefined) throw new Error(`rFactor: split input ${e.in().name} was not replayed`);
      const to = typeOf(e.outer());
      const ti = typeOf(e.inner());
      const [o, i] = splitId(input, e.factor, e.innerSplit, {
        isRFactorProduct,
        ...(to !== undefined && ti !== undefined ? { splitIterTypes: [to, ti] as const } : {}),
      });
      map.set(e.outer(), o);
      map.set(e.inner(), i);
    } else {
      const a = map.get(e.outer());
      const b = map.get(e.inner());
      if (a === undefined || b === undefined) throw new Error(`rFactor: merge inputs of ${e.out().name} were not replayed`);
      const t = typeOf(e.out());
      map.set(e.out(), mergeIds(a, b, { isRFactorProduct, ...(t !== undefined ? { iterType: t } : {}) }));
    }
  }
}

/** The positions of `axes` in tv's loop domain, validated. */
function chosenAxes(tv: TensorView, axes: readonly number[]): number[] {
  const positions: number[] = [];
  for (const a of axes) {
    const ax = normalizeAxis(tv, a, 'rFactor');
    const id = tv.axis(ax);
    if (!id.isReduction()) throw new TransformError(`rFactor of T${tv.name}: axis ${a} (${id.name}) is not a reduction ID`);
    if (positions.includes(ax)) throw new TransformError(`rFactor of T${tv.name}: axis ${a} given twice`);
    positions.push(ax);
  }
  if (positions.length === 0) throw new TransformError(`rFactor of T${tv.name}: no axes given`);
  if (tv.domain.loop.every((id, k) => !id.isReduction() || positions.includes(k))) {
    throw new TransformError(`rFactor of T${tv.name}: every reduction axis is rFactored; leave at least one for T${tv.name}`);
  }
  return positions;
}

interface RFactorDomains {
  partial: TensorDomain;
  final: TensorDomain;
}

/**
 * Builds P's domain and tv's new domain from tv's current one (see the header), and unregisters
 * tv's old loop exprs. `positions` are loop positions of reduction IDs.
 */
function rFactorDomains(tv: TensorView, positions: readonly number[]): RFactorDomains {
  const fusion = tv.fusion;
  const logical = tv.domain.logical;
  const oldLoop = [...tv.domain.loop];
  const chosen = new Set(positions.map((k) => oldLoop[k] as IterDomain));
  const exprs = loopExprs(tv);
  // Components: IDs connected by tv's loop exprs, each owned by one or more logical IDs.
  const sets = new IdSets();
  for (const e of exprs) for (const v of [...e.inputs, ...e.outputs]) sets.union(e.inputs[0] as IterDomain, v as IterDomain);
  const kindOf = new Map<IterDomain, Component>();
  for (const id of logical) {
    const r = sets.find(id);
    if (id.isReduction() && kindOf.get(r) !== 'rf') kindOf.set(r, 'red');
    else if (!kindOf.has(r)) kindOf.set(r, 'iter');
  }
  for (const id of chosen) kindOf.set(sets.find(id), 'rf');
  const comp = (id: IterDomain): Component => kindOf.get(sets.find(id)) ?? 'iter';
  const rfExprs = exprs.filter((e) => comp(e.inputs[0] as IterDomain) === 'rf');
  const otherExprs = exprs.filter((e) => comp(e.inputs[0] as IterDomain) !== 'rf');

  // P: root = copy of tv's logical, logical = replay of the rf components.
  const pMap = new Map<IterDomain, IterDomain>();
  const pRoot = logical.map((id) => {
    const t: IterType = id.isBroadcast() ? 'Broadcast' : comp(id) === 'rf' ? 'Reduction' : 'Iteration';
    const copy = fusion.newIterDomain(id.extent, t, { expandedExtent: id.expandedExtent });
    pMap.set(id, copy);
    return copy;
  });
  const loopSet = new Set(oldLoop);
  replay(rfExprs, pMap, (old) => (loopSet.has(old) ? (chosen.has(old) ? 'Reduction' : 'Iteration') : 'Reduction'), true);
  const pLogical: IterDomain[] = [];
  const emitted = new Set<IterDomain>();
  for (const id of logical) {
    if (comp(id) !== 'rf') {
      pLogical.push(pMap.get(id) as IterDomain); // set for every logical ID above
      continue;
    }
    const r = sets.find(id);
    if (emitted.has(r)) continue;
    emitted.add(r);
    for (const l of oldLoop) if (sets.find(l) === r) pLogical.push(pMap.get(l) as IterDomain); // replayed above
  }
  // P's loop: the non-rf transforms replayed on P's logical IDs, in tv's old loop order.
  replay(otherExprs, pMap, () => undefined, false);
  const pLoop = oldLoop.map((l) => pMap.get(l) as IterDomain);
  const partial = new TensorDomain({ root: pRoot, logical: pLogical, loop: pLoop });

  // tv: one logical ID per non-reduction logical ID of P.
  const pToOld = new Map<IterDomain, IterDomain>();
  for (const [old, n] of pMap) pToOld.set(n, old);
  const tMap = new Map<IterDomain, IterDomain>();
  const tLogical = partial.logicalNoReductions().map((pid) => {
    const old = pToOld.get(pid) as IterDomain; // every P logical ID was created from an old ID
    const t: IterType = pid.isBroadcast() ? 'Broadcast' : comp(old) === 'iter' ? 'Iteration' : 'Reduction';
    const id = fusion.newIterDomain(pid.extent, t, { expandedExtent: pid.expandedExtent });
    tMap.set(old, id);
    return id;
  });
  replay(otherExprs, tMap, () => undefined, false);
  const tLoop = oldLoop.filter((l) => !chosen.has(l)).map((l) => tMap.get(l) as IterDomain);
  for (const l of oldLoop) {
    const pid = pMap.get(l);
    if (pid !== undefined) pid.parallelType = l.parallelType;
    const tid = tMap.get(l);
    if (tid !== undefined) tid.parallelType = l.parallelType;
  }

  for (const e of [...exprs].reverse()) fusion.removeExpr(e);
  return { partial, final: new TensorDomain({ logical: tLogical, loop: tLoop }) };
}

/**
 * rFactor(tv, axes): returns the partial-reduction tensor P (Local); tv now reduces P. For a
 * WelfordOp output, tv's loop transforms are first replayed onto its sibling outputs, every
 * output gets its partial (avg, varSum, N), and the second WelfordOp merges the partial states;
 * the partial of tv is returned.
 */
export function rFactor(tv: TensorView, axes: readonly number[]): TensorView {
  const def = tv.definition;
  if (def === null || (def.kind !== 'ReductionOp' && def.kind !== 'WelfordOp')) {
    throw new TransformError(`rFactor of T${tv.name}: the tensor is not the output of a reduction (${def === null ? 'no definition' : def.kind})`);
  }
  const outs = def.outputs as TensorView[];
  for (const o of outs) {
    if (o.computeAtPosition > 0 || o.maxProducerPosition > 0) {
      throw new TransformError(`rFactor of T${tv.name}: T${o.name} is already inlined; rFactor before inlining`);
    }
    if (o.domain.root !== null) throw new TransformError(`rFactor of T${o.name}: tensors with a root domain are not supported`);
  }
  const positions = chosenAxes(tv, axes);
  const fusion = tv.fusion;
  if (def.kind === 'ReductionOp') {
    const { partial, final } = rFactorDomains(tv, positions);
    const input = def.in() as TensorView;
    fusion.removeExpr(def);
    const p = fusion.newTensorView(partial, tv.dtype);
    p.memoryType = 'Local';
    tv.domain = final;
    new ReductionOp(fusion, def.op, def.init, p, input, false);
    new ReductionOp(fusion, def.op, def.init, tv, p, def.allreduce);
    return p;
  }
  // Welford: siblings must share tv's loop structure before their domains are split in two.
  for (const o of outs) {
    if (o === tv) continue;
    replayLoopDomain(tv, o, new Map(tv.domain.logical.map((id, d) => [id, o.domain.logical[d] as IterDomain])));
    o.domain.loop.forEach((id, k) => {
      id.parallelType = (tv.domain.loop[k] as IterDomain).parallelType;
    });
  }
  const partials = outs.map((o) => {
    const { partial, final } = rFactorDomains(o, positions);
    const p = fusion.newTensorView(partial, o.dtype);
    p.memoryType = 'Local';
    o.domain = final;
    return p;
  });
  const [pa, pv, pn] = partials as [TensorView, TensorView, TensorView];
  const inVarSum = def.inVarSum();
  const inAvg = def.inAvg();
  const inN = def.inN();
  fusion.removeExpr(def);
  new WelfordOp(fusion, { avg: pa, varSum: pv, n: pn }, { avg: inAvg, varSum: inVarSum, n: inN });
  new WelfordOp(fusion, { avg: def.outAvg(), varSum: def.outVarSum(), n: def.outN() }, { avg: pa, varSum: pv, n: pn });
  return partials[outs.indexOf(tv)] as TensorView;
}
