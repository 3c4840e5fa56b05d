// How a tensor on the other side of a reshape is indexed from the reference's logical dims.
//
// A ViewOp output has a root domain (one ID per producer dim) and a logical domain derived from
// it by Merge/Split exprs (reshape.ts). Exact sets join producer logical IDs with consumer root
// IDs along every edge (as ExactLogicalMap does); the view's own Merge/Split exprs then relate
// the sets on both sides of the reshape. An ID's index is derived from the reference's logical
// indices by walking those exprs in whichever direction reaches the reference:
//   backward (the reference is after the reshape): split input = outer·inner-extent + inner,
//     merge outer = out / inner-extent, merge inner = out % inner-extent;
//   forward (the reference is before it): merge out = outer·inner-extent + inner,
//     split outer = in / factor, split inner = in % factor.
// A reshape of one dim to one dim has no exprs: its root and logical IDs share the index; one
// to or from 0-dim moves a single element: its IDs have index 0.
// This is nvFuser's indexing through reshape transforms (the exact IdModel graph traversed from
// the consumer's loop to the producer's logical domain) in the reference-centric form the
// pointwise lowering uses. Invariant: a derivation only reads reference logical dims that are
// not broadcasts, and every extent it divides by is an inner extent of a view expr.

import { consumersOf, IdSets, idExprsFromTo, logicalDomainPairs, type Fusion, type IterDomain, type Merge, type Scalar, type Split, type TensorView } from '@tsfuser/fusion-ir';

/** The index of an ID as an expression over the reference's logical indices. */
export type IndexDerivation =
  | { kind: 'reference'; position: number }
  /** A dim of a one-element reshape (to or from 0-dim): always 0. */
  | { kind: 'zero' }
  /** outer · innerExtent + inner */
  | { kind: 'linearize'; outer: IndexDerivation; inner: IndexDerivation; innerExtent: Scalar }
  /** of / extent */
  | { kind: 'divide'; of: IndexDerivation; extent: Scalar }
  /** of % extent */
  | { kind: 'modulo'; of: IndexDerivation; extent: Scalar };

export class ReshapeIndexGraph {
  private readonly sets = new IdSets();
  private readonly referencePosition = new Map<IterDomain, number>();
  /** View exprs by the exact-set representative of each input / output. */
  private readonly usesOf = new Map<IterDomain, (Split | Merge)[]>();
  private readonly definitionsOf = new Map<IterDomain, (Split | Merge)[]>();
  private readonly memo = new Map<IterDomain, IndexDerivation | null>();
  /** Whether the fusion has a reshape at all (otherwise derivations are plain reference dims). */
  readonly hasReshape: boolean;

  constructor(
    readonly fusion: Fusion,
    readonly reference: TensorView,
  ) {
    const tvs = fusion.allTvs();
    const inSet = new Set(tvs);
    for (const p of tvs) {
      for (const c of consumersOf(p)) {
        if (!inSet.has(c)) continue;
        for (const pr of logicalDomainPairs(p, c)) if (pr.exact) this.sets.union(pr.producer, pr.consumer);
      }
    }
    const viewExprs: (Split | Merge)[] = [];
    const zeros: IterDomain[] = [];
    for (const e of fusion.exprs()) {
      if (e.kind !== 'ViewOp') continue;
      const out = e.outputs[0] as TensorView;
      const root = out.domain.root;
      if (root === null) continue;
      const exprs = idExprsFromTo(root, out.domain.logical);
      viewExprs.push(...exprs);
      // A one-dim to one-dim reshape (extents equal at run time) has no expr: same index.
      const [r0] = root;
      const [l0] = out.domain.logical;
      if (exprs.length === 0 && root.length === 1 && out.domain.logical.length === 1 && r0 !== undefined && l0 !== undefined) this.sets.union(r0, l0);
      // A reshape to or from 0-dim moves one element: every dim on either side has index 0.
      if (exprs.length === 0 && (root.length === 0 || out.domain.logical.length === 0)) for (const id of [...root, ...out.domain.logical]) zeros.push(id);
    }
    this.hasReshape = fusion.exprs().some((e) => e.kind === 'ViewOp');
    const add = (m: Map<IterDomain, (Split | Merge)[]>, id: IterDomain, e: Split | Merge): void => {
      const r = this.sets.find(id);
      const list = m.get(r);
      if (list === undefined) m.set(r, [e]);
      else list.push(e);
    };
    for (const e of viewExprs) {
      for (const i of e.inputs) add(this.usesOf, i as IterDomain, e);
      for (const o of e.outputs) add(this.definitionsOf, o as IterDomain, e);
    }
    for (const id of zeros) this.memo.set(this.sets.find(id), { kind: 'zero' });
    reference.domain.logicalNoReductions().forEach((id, d) => {
      if (!id.isBroadcast()) this.referencePosition.set(this.sets.find(id), d);
    });
  }

  /** The derivation of `id`'s index, or null when no path reaches the reference. */
  derive(id: IterDomain): IndexDerivation | null {
    return this.resolve(this.sets.find(id), new Set());
  }

  /** For each non-reduction logical dim of `tv`: its derivation (null for broadcasts and unreachable dims). */
  deriveLogical(tv: TensorView): (IndexDerivation | null)[] {
    return tv.domain.logicalNoReductions().map((id) => (id.isBroadcast() ? null : this.derive(id)));
  }

  private resolve(rep: IterDomain, visiting: Set<IterDomain>): IndexDerivation | null {
    const position = this.referencePosition.get(rep);
    if (position !== undefined) return { kind: 'reference', position };
    if (this.memo.has(rep)) return this.memo.get(rep) ?? null;
    if (visiting.has(rep)) return null;
    visiting.add(rep);
    const of = (id: IterDomain): IndexDerivation | null => this.resolve(this.sets.find(id), visiting);
    let found: IndexDerivation | null = null;
    for (const e of this.usesOf.get(rep) ?? []) {
      found = e.kind === 'Merge' ? this.backwardMerge(e, rep, of) : this.backwardSplit(e, of);
      if (found !== null) break;
    }
    if (found === null) {
      for (const e of this.definitionsOf.get(rep) ?? []) {
        found = e.kind === 'Merge' ? this.forwardMerge(e, of) : this.forwardSplit(e, rep, of);
        if (found !== null) break;
      }
    }
    visiting.delete(rep);
    // Only successes are final: a failure inside a cycle may succeed from another start.
    if (found !== null) this.memo.set(rep, found);
    return found;
  }

  private backwardMerge(e: Merge, rep: IterDomain, of: (id: IterDomain) => IndexDerivation | null): IndexDerivation | null {
    const out = of(e.out());
    if (out === null) return null;
    const extent = e.inner().extent;
    return this.sets.find(e.outer()) === rep ? { kind: 'divide', of: out, extent } : { kind: 'modulo', of: out, extent };
  }

  private backwardSplit(e: Split, of: (id: IterDomain) => IndexDerivation | null): IndexDerivation | null {
    const outer = of(e.outer());
    const inner = outer === null ? null : of(e.inner());
    if (outer === null || inner === null) return null;
    return { kind: 'linearize', outer, inner, innerExtent: e.inner().extent };
  }

  private forwardMerge(e: Merge, of: (id: IterDomain) => IndexDerivation | null): IndexDerivation | null {
    const outer = of(e.outer());
    const inner = outer === null ? null : of(e.inner());
    if (outer === null || inner === null) return null;
    return { kind: 'linearize', outer, inner, innerExtent: e.inner().extent };
  }

  private forwardSplit(e: Split, rep: IterDomain, of: (id: IterDomain) => IndexDerivation | null): IndexDerivation | null {
    const input = of(e.in());
    if (input === null) return null;
    const extent = e.inner().extent;
    return this.sets.find(e.outer()) === rep ? { kind: 'divide', of: input, extent } : { kind: 'modulo', of: input, extent };
  }
}

/** The reference logical positions a derivation reads. */
export function referencePositionsOf(d: IndexDerivation): Set<number> {
  const out = new Set<number>();
  const walk = (x: IndexDerivation): void => {
    switch (x.kind) {
      case 'zero':
        return;
      case 'reference':
        out.add(x.position);
        return;
      case 'linearize':
        walk(x.outer);
        walk(x.inner);
        return;
      case 'divide':
      case 'modulo':
        walk(x.of);
        return;
      default: {
        const unreachable: never = x;
        throw new Error(`unknown derivation ${String(unreachable)}`);
      }
    }
  };
  walk(d);
  return out;
}
