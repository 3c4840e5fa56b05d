// Part of `expr-lowering` — indexing (used by expression lowering). In: the index of every reference loop
// position at one point of the loop nest. Out: the index of any reference ID by walking the
// reference's Split/Merge exprs backwards (split input = outer·factor + inner; merge
// outer = out / inner-extent, inner = out % inner-extent), and for any global tensor the
// element offset Σ index[d]·stride[d] over its logical dims, each dim taking the index of the
// reference logical dim it is exactly mapped to (broadcast and unmapped size-1 dims: 0).
// Runs of dims that are contiguous in the tensor and merged in the reference use the merged
// index and one stride (no div/mod). Indices are memoized per point. A tensor read at a
// shifted index (slice / pad / cat, lower/resize.ts) takes its dims' shifted indices; only
// runs of unshifted dims merge.

import { loopExprs, type IterDomain, type Merge, type Split, type TensorView } from '@tsfuser/fusion-ir';
import type { IndexDerivation } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import { iadd, iconst, idiv, imod, imul, isym, sameIndex, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { LoweringContext } from './context.js';

/** Facts about the reference's schedule shared by every point. */
export class ReferenceHistory {
  readonly useOf = new Map<IterDomain, Split | Merge>();
  readonly loopPosition = new Map<IterDomain, number>();
  /** For ref IDs made only of merges of logical IDs: the logical positions, outer to inner. */
  readonly leaves = new Map<IterDomain, number[]>();
  readonly exprs: (Split | Merge)[];
  readonly logical: IterDomain[];

  constructor(readonly ctx: LoweringContext) {
    const ref = ctx.reference;
    this.logical = ref.domain.logicalNoReductions();
    this.exprs = loopExprs(ref);
    for (const e of this.exprs) for (const i of e.inputs) this.useOf.set(i as IterDomain, e);
    ref.domain.loop.forEach((id, p) => this.loopPosition.set(id, p));
    this.logical.forEach((id, d) => this.leaves.set(id, [d]));
    for (const e of this.exprs) {
      if (e.kind !== 'Merge') continue;
      const a = this.leaves.get(e.outer());
      const b = this.leaves.get(e.inner());
      if (a !== undefined && b !== undefined) this.leaves.set(e.out(), [...a, ...b]);
    }
  }
}

/**
 * outer · extent + inner, where `(p + x / e) · e + x % e` folds to p · e + x: a reshape that splits what
 * the reference merged (or merges what it split) indexes with the reference's own index.
 */
function linearize(outer: IndexExpr, inner: IndexExpr, extent: IndexExpr): IndexExpr {
  const divides = (q: IndexExpr): boolean => q.kind === 'div' && inner.kind === 'mod' && sameIndex(q.a, inner.a) && sameIndex(q.b, extent) && sameIndex(inner.b, extent);
  if (divides(outer) && outer.kind === 'div') return outer.a;
  // (p + x / e) · e + x % e = p · e + x
  if (outer.kind === 'add' && divides(outer.b) && outer.b.kind === 'div') return iadd(imul(outer.a, extent), outer.b.a);
  return iadd(imul(outer, extent), inner);
}

export class PointIndexer {
  private readonly memo = new Map<IterDomain, IndexExpr>();

  constructor(
    readonly history: ReferenceHistory,
    readonly positionIndices: readonly IndexExpr[],
  ) {}

  get ctx(): LoweringContext {
    return this.history.ctx;
  }

  /** Index of a reference ID (logical, intermediate or loop). */
  index(id: IterDomain): IndexExpr {
    const known = this.memo.get(id);
    if (known !== undefined) return known;
    const result = this.compute(id);
    this.memo.set(id, result);
    return result;
  }

  private compute(id: IterDomain): IndexExpr {
    const p = this.history.loopPosition.get(id);
    if (p !== undefined) return this.positionIndices[p] ?? iconst(0);
    const use = this.history.useOf.get(id);
    if (use === undefined) throw new LoweringError(`indexing: IterDomain ${id.name} is not on the reference T${this.ctx.reference.name}'s path to its loop domain`);
    if (use.kind === 'Split') {
      return iadd(imul(this.index(use.outer()), this.ctx.extent(use.inner().extent)), this.index(use.inner()));
    }
    const out = this.index(use.out());
    const innerExtent = this.ctx.extent(use.inner().extent);
    return use.outer() === id ? idiv(out, innerExtent) : imod(out, innerExtent);
  }

  /** Index of a logical ID reached only through a reshape's split/merge (null: broadcast or unreachable). */
  derivedIndex(id: IterDomain | undefined): IndexExpr | null {
    if (id === undefined || id.isBroadcast() || !this.ctx.reshapeIndex.hasReshape) return null;
    const d = this.ctx.reshapeIndex.derive(id);
    return d === null ? null : this.fromDerivation(d);
  }

  private fromDerivation(d: IndexDerivation): IndexExpr {
    switch (d.kind) {
      case 'zero':
        return iconst(0);
      case 'reference':
        return this.index(this.history.logical[d.position] as IterDomain);
      case 'linearize':
        return linearize(this.fromDerivation(d.outer), this.fromDerivation(d.inner), this.ctx.extent(d.innerExtent));
      case 'divide':
        return idiv(this.fromDerivation(d.of), this.ctx.extent(d.extent));
      case 'modulo':
        return imod(this.fromDerivation(d.of), this.ctx.extent(d.extent));
      default: {
        const unreachable: never = d;
        throw new LoweringError(`unknown index derivation ${String(unreachable)}`);
      }
    }
  }

  /** Element offset of a global tensor at this point. */
  globalOffset(tv: TensorView, shifted: readonly (IndexExpr | null)[] | null = null): IndexExpr {
    const name = this.ctx.tensorName(tv);
    const map = this.ctx.exactMap.mapToReference(tv, this.ctx.reference);
    const logical = tv.domain.logicalNoReductions();
    const contiguity = tv.domain.contiguity.filter((_, d) => !(tv.domain.logical[d]?.isReduction() ?? false));
    const canMerge = tv.domain.allocation === null;
    const lastIter = logical.reduce((last, id, d) => (id.isBroadcast() ? last : d), -1);
    const stride = (d: number): IndexExpr => (canMerge && d === lastIter && contiguity[d] === true ? iconst(1) : isym(`${name}.alloc_stride[${d}]`));
    let offset: IndexExpr = iconst(0);
    for (let d = 0; d < logical.length; d += 1) {
      const r = map[d] as number;
      if (r < 0) {
        // Broadcast, a squeezed size-1 dim, or a dim on the other side of a reshape.
        // Contiguous runs of such dims are linearized first (their div/mod fold back).
        let derived = this.derivedIndex(logical[d]);
        if (derived === null) continue;
        while (canMerge && d + 1 < logical.length && map[d + 1] === -1 && contiguity[d] === true) {
          const next = this.derivedIndex(logical[d + 1]);
          if (next === null) break;
          derived = linearize(derived, next, this.ctx.extent((logical[d + 1] as IterDomain).extent));
          d += 1;
        }
        offset = iadd(offset, imul(derived, stride(d)));
        continue;
      }
      let end = d;
      let merged: IterDomain | null = null;
      if (canMerge && (shifted?.[d] ?? null) === null) {
        for (let j = d + 1; j < logical.length; j += 1) {
          if (map[j] !== r + (j - d) || contiguity[j - 1] !== true || (shifted?.[j] ?? null) !== null) break;
          // An inner dim of the run must have the reference's extent (not so across a resize).
          if (!this.ctx.exactMapNoResize.same(logical[j] as IterDomain, this.history.logical[r + (j - d)] as IterDomain)) break;
          const want = Array.from({ length: j - d + 1 }, (_, k) => r + k).join(',');
          for (const [id, lv] of this.history.leaves) {
            if (lv.length > 1 && lv.join(',') === want) {
              merged = id;
              end = j;
            }
          }
        }
      }
      const idx = shifted?.[d] ?? (merged !== null ? this.index(merged) : this.index(this.history.logical[r] as IterDomain));
      offset = iadd(offset, imul(idx, stride(end)));
      d = end;
    }
    return offset;
  }
}
