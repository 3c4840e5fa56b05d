// Core pass `loop-nest`, first half — loop map. In: compute-at positions of every tensor. Out: disjoint sets over
// (tensor, loop position) pairs — a producer inlined at position k shares its first k loops
// with each consumer — and the kind of each reference position (parallel index, trivial,
// serial loop, unrolled loop). Tensors whose loop domain is not aligned with the reference's
// (lower-rank chains before a broadcast; tensors at or after a reshape of a reduction result,
// whose loops the propagator did not replay, unless they map anyway) are treated as fully
// inlined: recomputed per point. A broadcast loop ID of a tensor after a reduction (or, in
// reduction schedules, of one feeding only reductions and tensors after them) makes no loop.
// Invariant: one set = one loop instance; all members sit at the same position.

import { buildIdGraph, isParallelIndex, parallelIndexName, type Expr, type IdSets, type ParallelType, type TensorView } from '@tsfuser/fusion-ir';
import type { LoweringContext } from './context.js';

export type PositionKind =
  | { kind: 'parallel'; parallelType: ParallelType; builtin: string; bound: number | null }
  | { kind: 'trivial' }
  | { kind: 'loop'; unroll: boolean };

export class LoopGroups {
  private readonly parent = new Map<string, string>();
  private readonly prefix = new Map<TensorView, boolean>();
  /**
   * Tensors computed from a reduction's result, and (reduction schedules) the tensors feeding
   * only reductions and those: their broadcast loop IDs do not iterate.
   */
  private readonly afterReduction = new Set<TensorView>();
  /**
   * Tensors at or after a reshape of a reduction's result (persistent schedules): the
   * propagator does not replay the reference's loops forward through a view, so their loop IDs
   * are their own even when they have as many as the reference; aligned only when they map.
   */
  private readonly afterReductionView = new Set<TensorView>();
  private readonly idGraph: IdSets | null;
  readonly kinds: PositionKind[];

  constructor(readonly ctx: LoweringContext) {
    const ref = ctx.reference;
    this.kinds = ref.domain.loop.map((id): PositionKind => {
      const c = id.extent.constNumber();
      if (isParallelIndex(id.parallelType)) {
        return { kind: 'parallel', parallelType: id.parallelType, builtin: parallelIndexName(id.parallelType), bound: c };
      }
      if (c === 1) return { kind: 'trivial' };
      // Short constant loops (vector lanes, unroll) are unrolled so registers stay registers.
      return { kind: 'loop', unroll: id.parallelType === 'Unroll' || (c !== null && c <= 16) };
    });
    this.idGraph = ctx.prefixAligned ? buildIdGraph(ctx.fusion.allTvs()) : null;
    if (ctx.prefixAligned) {
      for (const e of ctx.fusion.exprs()) {
        const after = e.kind === 'ReductionOp' || e.kind === 'WelfordOp' || e.inputs.some((v) => v.kind === 'tensorView' && this.afterReduction.has(v));
        if (after) for (const o of e.outputs) if (o.kind === 'tensorView') this.afterReduction.add(o);
        const viewed = e.inputs.some((v) => v.kind === 'tensorView' && (this.afterReductionView.has(v) || (e.kind === 'ViewOp' && this.afterReduction.has(v))));
        if (viewed) for (const o of e.outputs) if (o.kind === 'tensorView') this.afterReductionView.add(o);
      }
      for (const tv of feedingOnlyReductionSide(ctx, this.afterReduction)) this.afterReduction.add(tv);
      for (const tv of constantsFeedingAfterReduction(ctx, this.afterReduction)) this.afterReduction.add(tv);
    }
    for (const tv of ctx.fusion.allTvs()) {
      if (tv.isFusionInput()) continue;
      const ca = this.computeAt(tv);
      for (const use of tv.uses) {
        for (const c of use.outputs) {
          if (c.kind !== 'tensorView') continue;
          for (let p = 0; p < ca; p += 1) this.union(key(tv, p), key(c, p));
        }
      }
    }
  }

  isAligned(tv: TensorView): boolean {
    if (tv.nDims() === this.ctx.positions && this.afterReductionView.has(tv)) return this.mapsToReference(tv);
    return tv.nDims() === this.ctx.positions || this.isPrefixAligned(tv);
  }

  /** Every loop ID of `tv` is a broadcast or maps to the reference's at its position. */
  private mapsToReference(tv: TensorView): boolean {
    const graph = this.idGraph;
    if (graph === null) return false;
    const ref = this.ctx.reference;
    return tv.domain.loop.every((id, p) => id.isBroadcast() || graph.same(id, ref.axis(p)));
  }

  /** A shorter tensor whose loop IDs are the reference's first positions (reduction schedules). */
  isPrefixAligned(tv: TensorView): boolean {
    const graph = this.idGraph;
    if (graph === null || tv.nDims() >= this.ctx.positions) return false;
    let known = this.prefix.get(tv);
    if (known === undefined) {
      known = this.mapsToReference(tv);
      this.prefix.set(tv, known);
    }
    return known;
  }

  /** Positions `tv` occupies: its own loop length when aligned, else all (fully inlined). */
  loopCount(tv: TensorView): number {
    return this.isAligned(tv) ? tv.nDims() : this.ctx.positions;
  }

  /**
   * Whether `tv` iterates at reference position `p`. After a reduction, a broadcast loop ID
   * does not (its index is 0): a keepdim result is written once, not once per reduced element.
   * (Before the reduction a broadcast ID may be expanded and is iterated like the reference —
   * except, in reduction schedules, in tensors that feed only reductions and tensors after
   * them: feedingOnlyReductionSide.)
   */
  owns(tv: TensorView, p: number): boolean {
    if (p >= this.loopCount(tv)) return false;
    return !(this.afterReduction.has(tv) && this.isAligned(tv) && tv.axis(p).isBroadcast());
  }

  /** The effective compute-at position (unaligned tensors are fully inlined). */
  computeAt(tv: TensorView): number {
    if (tv.isFusionInput()) return 0;
    return this.isAligned(tv) ? tv.computeAtPosition : this.ctx.positions;
  }

  /** Whether `tv`'s innermost position is a vectorized access. */
  isVectorized(tv: TensorView): boolean {
    const n = this.ctx.positions;
    return n > 0 && tv.nDims() === n && tv.axis(n - 1).parallelType === 'Vectorize';
  }

  group(tv: TensorView, p: number): string {
    return this.find(key(tv, p));
  }

  private find(k: string): string {
    let r = k;
    for (let p = this.parent.get(r); p !== undefined && p !== r; p = this.parent.get(r)) r = p;
    return r;
  }

  private union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }
}

/**
 * Reduction schedules only (no tensor computed from a reduction's result, other than
 * reductions, iterates a position a reduction reduces over): the tensors that feed only reductions and
 * tensors after them — an input's cache joined with the result (`sum(x, [2])` broadcast to
 * [1, B, S, 1] plus a [1, B, S, 1] input), a broadcast input read both before and after the
 * reduction. Their broadcast loop IDs need no loop of their own: the value is the same at every
 * index, so it is computed once in the loops its other positions share (nvFuser generates no
 * loop for a broadcast ID whose loop group has no concrete ID). Iterated, the load sat in a
 * loop the consumers after the reduction are outside of.
 */
function feedingOnlyReductionSide(ctx: LoweringContext, after: ReadonlySet<TensorView>): TensorView[] {
  const exprs = ctx.fusion.exprs();
  const isReduction = (e: Expr): boolean => e.kind === 'ReductionOp' || e.kind === 'WelfordOp';
  const reduced = new Set<number>();
  for (const e of exprs) {
    if (!isReduction(e)) continue;
    for (const o of e.outputs) if (o.kind === 'tensorView') o.domain.loop.forEach((id, p) => (id.isReduction() ? reduced.add(p) : undefined));
  }
  // Persistent schedules iterate the reduced positions after the reduction too: not theirs.
  for (const e of exprs) {
    if (isReduction(e)) continue;
    for (const o of e.outputs) {
      if (o.kind === 'tensorView' && after.has(o) && [...reduced].some((p) => p < o.nDims() && !o.axis(p).isBroadcast())) return [];
    }
  }
  const side = new Set<TensorView>(after);
  const found: TensorView[] = [];
  for (let i = exprs.length - 1; i >= 0; i -= 1) {
    for (const o of (exprs[i] as Expr).outputs) {
      if (o.kind !== 'tensorView' || side.has(o) || o.uses.length === 0) continue;
      if (o.uses.every((u) => u.outputs.every((c) => c.kind !== 'tensorView' || side.has(c)))) {
        side.add(o);
        found.push(o);
      }
    }
  }
  return found;
}

/**
 * Tensors whose every loop ID is a broadcast (a 0-dim full broadcast to the reference's rank)
 * and which feed only tensors after a reduction: like their consumers, they make no loop at
 * their broadcast IDs (their value is one number). Iterated, such a constant sat inside the
 * loops of the tensors after the reduction while its consumer, which iterates none of its
 * broadcast IDs, sat outside them: a cycle in the loop nest (random shape-op seed 5868:
 * `rowsum(x) · full([], c) − x` in one inner persistent kernel).
 */
function constantsFeedingAfterReduction(ctx: LoweringContext, after: ReadonlySet<TensorView>): TensorView[] {
  const found: TensorView[] = [];
  const exprs = ctx.fusion.exprs();
  for (let i = exprs.length - 1; i >= 0; i -= 1) {
    for (const o of (exprs[i] as Expr).outputs) {
      if (o.kind !== 'tensorView' || after.has(o) || o.uses.length === 0 || o.nDims() === 0) continue;
      if (!o.domain.loop.every((id) => id.isBroadcast())) continue;
      if (o.uses.every((u) => u.outputs.every((c) => c.kind !== 'tensorView' || after.has(c) || found.includes(c)))) found.push(o);
    }
  }
  return found;
}

function key(tv: TensorView, p: number): string {
  return `T${tv.name}@${p}`;
}
