// TransformPropagator: makes every tensor of a fusion follow the loop structure of a reference
// tensor (nvFuser's TransformPropagator driven by a MaxLogicalDomainInfoSpanningTree).
//
// The walk is a maximum spanning tree over producer/consumer edges: starting at the reference,
// it repeatedly takes the unvisited tensor that keeps the most logical IDs traceable to the
// reference's logical IDs, and replays its neighbour's (already propagated) loop transforms
// onto it through their logical-domain map (replay.ts); sibling outputs of one expression
// (Welford) are taken first and replayed positionally, so they keep identical loops. Each tensor is replayed exactly once,
// from one neighbour; so after propagation, mapped loop IDs of neighbours have the same
// structure and extents, and a path with more information always wins (e.g. a reshape that
// loses the mapping is crossed last). The reference itself is never changed.

import { TransformError } from '../ir/errors.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { TensorView } from '../ir/tensor-view.js';
import type { ParallelType } from '../ir/types.js';
import { buildIdGraph } from './id-graph.js';
import { consumersOf, logicalDomainPairs, producersOf, siblingsOf } from './logical-domain-map.js';
import { idExprsFromTo, replayLoopDomain } from './replay.js';
import { oneToOne } from './view-replay.js';

export interface PropagateOptions {
  /** Only these tensors are changed and walked through (the reference is always included). */
  tvs?: readonly TensorView[];
}

/**
 * A one-dim to one-dim reshape (the extents equal at run time, e.g. [i0] → [12]) has no
 * split/merge between its root and logical ID: over its edge the logical ID stands for the root
 * ID (as in the ID graph and view-replay.ts), so loops propagate through it like a copy.
 */
function oneToOneView(consumer: TensorView): { root: IterDomain; logical: IterDomain } | null {
  if (consumer.definition?.kind !== 'ViewOp') return null;
  const only = oneToOne(consumer, []);
  return only !== null && idExprsFromTo([only.root], [only.logical]).length === 0 ? only : null;
}

/** The IDs the source's replayed exprs start from over an edge: its root when it is the consumer. */
export function replayStart(source: TensorView, target: TensorView): IterDomain[] {
  const sourceIsProducer = target.definition !== null && target.definition.inputs.includes(source);
  if (!sourceIsProducer && oneToOneView(source) !== null) return source.domain.logical;
  return sourceIsProducer ? source.domain.logical : source.domain.maybeRoot();
}

/**
 * Source ID → target logical ID over one edge: producer logical ↔ consumer root. A consumer
 * source replays from its root (root → logical exprs included); a consumer target's root IDs
 * that a reshape or rFactor transformed are not logical IDs, and its loop starts at logical IDs,
 * so such pairs carry no loop structure.
 */
export function logicalMapBetween(source: TensorView, target: TensorView): Map<IterDomain, IterDomain> {
  const m = new Map<IterDomain, IterDomain>();
  const sourceIsProducer = target.definition !== null && target.definition.inputs.includes(source);
  const pairs = sourceIsProducer ? logicalDomainPairs(source, target) : logicalDomainPairs(target, source);
  const srcStart = new Set(replayStart(source, target));
  const tgtLogical = new Set(target.domain.logical);
  const only = oneToOneView(sourceIsProducer ? target : source);
  for (const pr of pairs) {
    const consumerId = only !== null && pr.consumer === only.root ? only.logical : pr.consumer;
    const s = sourceIsProducer ? pr.producer : consumerId;
    const t = sourceIsProducer ? consumerId : pr.producer;
    if (srcStart.has(s) && tgtLogical.has(t)) m.set(s, t);
  }
  return m;
}

export class TransformPropagator {
  constructor(
    readonly reference: TensorView,
    private readonly options: PropagateOptions = {},
  ) {}

  /** Runs the propagation; returns the tensors changed, in the order they were replayed. */
  propagate(): TensorView[] {
    const ref = this.reference;
    const allowed = new Set<TensorView>(this.options.tvs ?? ref.fusion.allTvs());
    allowed.add(ref);
    // origin: target logical ID → the reference logical ID it descends from.
    const origin = new Map<TensorView, Map<IterDomain, IterDomain>>();
    origin.set(ref, new Map([...(ref.domain.root ?? []), ...ref.domain.logical].map((id) => [id, id])));
    const changed: TensorView[] = [];
    // Candidate edges from visited tensors; an edge's information is fixed once its source is
    // visited, so each is computed once. The first edge with the most information wins.
    interface Candidate {
      from: TensorView;
      to: TensorView;
      info: Map<IterDomain, IterDomain>;
      map: Map<IterDomain, IterDomain>;
      /** Siblings (outputs of one multi-output expr) must match exactly: they win ties. */
      sibling: boolean;
    }
    let candidates: Candidate[] = [];
    const addEdges = (from: TensorView): void => {
      const fromInfo = origin.get(from) as Map<IterDomain, IterDomain>; // set before addEdges
      for (const to of siblingsOf(from)) {
        if (origin.has(to) || !allowed.has(to)) continue;
        const map = new Map(from.domain.logical.map((id, d) => [id, to.domain.logical[d] as IterDomain]));
        const info = new Map<IterDomain, IterDomain>();
        for (const [s, t] of map) {
          const o = fromInfo.get(s);
          if (o !== undefined) info.set(t, o);
        }
        candidates.push({ from, to, info, map, sibling: true });
      }
      for (const to of [...producersOf(from), ...consumersOf(from)]) {
        if (origin.has(to) || !allowed.has(to)) continue;
        const map = logicalMapBetween(from, to);
        const info = new Map<IterDomain, IterDomain>();
        for (const [s, t] of map) {
          const o = fromInfo.get(s);
          if (o !== undefined) info.set(t, o);
        }
        candidates.push({ from, to, info, map, sibling: false });
      }
    };
    addEdges(ref);
    for (;;) {
      candidates = candidates.filter((c) => !origin.has(c.to));
      let best: Candidate | null = null;
      const score = (c: Candidate): number => c.info.size + (c.sibling ? 0.5 : 0);
      for (const c of candidates) if (best === null || score(c) > score(best)) best = c;
      if (best === null) break;
      const { from, to, info, map, sibling } = best;
      if (to.computeAtPosition > 0 || to.maxProducerPosition > 0) {
        throw new TransformError(
          `propagating T${ref.name}'s transforms: T${to.name} is already inlined (ca_pos ${to.computeAtPosition}, produce_pos ${to.maxProducerPosition}); propagate before inlining`,
        );
      }
      replayLoopDomain(from, to, map, sibling ? from.domain.logical : replayStart(from, to));
      origin.set(to, info);
      changed.push(to);
      addEdges(to);
    }
    return changed;
  }
}

/** propagateTransforms(reference): TransformPropagator(reference).propagate(). */
export function propagateTransforms(reference: TensorView, opts: PropagateOptions = {}): TensorView[] {
  return new TransformPropagator(reference, opts).propagate();
}

/**
 * Copies the parallel types of the reference's loop IDs to the mapped loop IDs of `tvs` (default:
 * every tensor of the fusion except its inputs), as nvFuser's scheduler_utils::parallelizeAllLike. `types` limits
 * which parallel types are copied. Mapping is the permissive ID graph (id-graph.ts).
 */
export function parallelizeAllLike(
  reference: TensorView,
  tvs?: readonly TensorView[],
  types?: readonly ParallelType[],
): void {
  const all = reference.fusion.allTvs();
  const graph = buildIdGraph(all.includes(reference) ? all : [...all, reference]);
  // nvFuser leaves fusion inputs serial (their loops are never generated; caches read them).
  const targets = tvs ?? all.filter((tv) => !tv.isFusionInput());
  for (const refId of reference.domain.loop) {
    if (types !== undefined && !types.includes(refId.parallelType)) continue;
    for (const tv of targets) {
      if (tv === reference) continue;
      for (const id of tv.domain.loop) {
        if (graph.same(id, refId)) id.parallelType = refId.parallelType;
      }
    }
  }
}
