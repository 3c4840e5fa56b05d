// Which logical dims of which tensors are "the same dim": exact disjoint sets over logical IDs,
// joined along every producer→consumer logical-domain pair that keeps extent and index
// (broadcast→iteration pairs are not joined: a broadcast dim reads index 0). The pointwise
// scheduler picks a reference tensor and requires every iteration dim of every tensor to map
// onto one of the reference's logical dims; lowering indexes through the same map.
// With `throughResize` (pointwise fusions with slice/pad/cat), resized pairs are joined too: a
// resize's producer dim iterates with its consumer dim, read at a shifted index
// (pointwise/resize/index-space.ts says which).

import { consumersOf, IdSets, logicalDomainPairs, type Fusion, type IterDomain, type TensorView } from '@tsfuser/fusion-ir';

export class ExactLogicalMap {
  private readonly sets = new IdSets();

  constructor(readonly fusion: Fusion, tvs: readonly TensorView[] = fusion.allTvs(), opts: { throughResize?: boolean } = {}) {
    const inSet = new Set(tvs);
    const joins = (pr: { exact: boolean; resized: boolean; producer: IterDomain; consumer: IterDomain }): boolean =>
      pr.exact || (opts.throughResize === true && pr.resized && !pr.producer.isBroadcast() && !pr.consumer.isBroadcast());
    for (const p of tvs) {
      for (const c of consumersOf(p)) {
        if (!inSet.has(c)) continue;
        for (const pr of logicalDomainPairs(p, c)) if (joins(pr)) this.sets.union(pr.producer, pr.consumer);
      }
    }
  }

  same(a: IterDomain, b: IterDomain): boolean {
    return this.sets.same(a, b);
  }

  /**
   * For each non-reduction logical dim of `tv`: the position of the reference logical dim it is
   * exactly mapped to, or -1 (broadcast dims and dims the reference lacks).
   */
  mapToReference(tv: TensorView, reference: TensorView): number[] {
    const refLogical = reference.domain.logicalNoReductions();
    return tv.domain.logicalNoReductions().map((id) => {
      if (id.isBroadcast()) return -1;
      return refLogical.findIndex((r) => !r.isBroadcast() && this.sets.same(r, id));
    });
  }
}

/** Number of non-broadcast, non-reduction logical dims. */
export function iterationRank(tv: TensorView): number {
  return tv.domain.logicalNoReductions().filter((id) => !id.isBroadcast()).length;
}

/** nvFuser's reference choice: the output with the most non-broadcast dims (first on ties). */
export function findReferenceOutput(fusion: Fusion): TensorView | null {
  let best: TensorView | null = null;
  for (const o of fusion.outputs) {
    if (o.kind !== 'tensorView') continue;
    if (best === null || iterationRank(o) > iterationRank(best)) best = o;
  }
  return best;
}
