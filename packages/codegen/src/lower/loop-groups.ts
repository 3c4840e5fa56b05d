// Core pass `loop-nest`, first half — loop map. In: compute-at positions of every tensor. Out: disjoint sets over
// (tensor, loop position) pairs — a producer inlined at position k shares its first k loops
// with each consumer — and the kind of each reference position (parallel index, trivial,
// serial loop, unrolled loop). Tensors whose loop domain is not aligned with the reference's
// (lower-rank chains before a broadcast; tensors at or after a reshape of a reduction result,
// whose loops the propagator did not replay, unless they map anyway) are treated as fully
// inlined: recomputed per point. Reduction schedules also have prefix-aligned tensors (the
// reference's first positions) and gapped ones (outer reductions with iteration vectors: a
// prefix, then the reference's last positions — the lanes — without the serial reduction
// positions between, which the rFactor partial alone iterates); `axisAt` maps a reference
// position to a tensor's loop ID for all of them. A broadcast loop ID of a tensor after a reduction (or, in
// reduction schedules, of one feeding only reductions and tensors after them) makes no loop.
// Invariant: one set = one loop instance; all members sit at the same position.

import { buildIdGraph, isParallelIndex, parallelIndexName, type Expr, type IdSets, type IterDomain, type ParallelType, type TensorView } from '@tsfuser/fusion-ir';
import type { LoweringContext } from './context.js';

export type PositionKind =
  | { kind: 'parallel'; parallelType: ParallelType; builtin: string; bound: number | null }
  | { kind: 'trivial' }
  | { kind: 'loop'; unroll: boolean };

export class LoopGroups {
  private readonly parent = new Map<string, string>();
  private readonly prefix = new Map<TensorView, boolean>();
  /** Gapped tensors: the reference position of each loop axis (null: not gapped). */
  private readonly gapped = new Map<TensorView, number[] | null>();
  /** Reduction schedules: the tensors a reduction reads (transitively). */
  private readonly feedsReduction = new Set<TensorView>();
  /** Reduction schedules: serial loop positions a full-rank reduction output reduces over. */
  private readonly serialReduced = new Set<number>();
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
      const exprs = ctx.fusion.exprs();
      for (let i = exprs.length - 1; i >= 0; i -= 1) {
        const e = exprs[i] as Expr;
        const feeds = e.kind === 'ReductionOp' || e.kind === 'WelfordOp' || e.outputs.some((o) => o.kind === 'tensorView' && this.feedsReduction.has(o));
        if (feeds) for (const v of e.inputs) if (v.kind === 'tensorView') this.feedsReduction.add(v);
      }
      for (const e of exprs) {
        if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') continue;
        for (const o of e.outputs) {
          if (o.kind !== 'tensorView' || o.nDims() !== ctx.positions) continue;
          o.domain.loop.forEach((id, p) => (id.isReduction() && this.kinds[p]?.kind === 'loop' ? this.serialReduced.add(p) : undefined));
        }
      }
      for (const tv of feedingOnlyReductionSide(ctx, this.afterReduction, (t, p) => this.axisAt(t, p))) this.afterReduction.add(tv);
      for (const tv of constantsFeedingAfterReduction(ctx, this.afterReduction)) this.afterReduction.add(tv);
    }
    for (const tv of ctx.fusion.allTvs()) {
      if (tv.isFusionInput()) continue;
      // Shared loops by reference position (a loop axis' position: the identity but for
      // gapped tensors).
      const ca = this.isAligned(tv) ? tv.computeAtPosition : ctx.positions;
      for (const use of tv.uses) {
        for (const c of use.outputs) {
          if (c.kind !== 'tensorView') continue;
          for (let a = 0; a < ca; a += 1) {
            const p = this.positionOfAxis(tv, a);
            if (p >= this.gappedCut(tv)) break;
            // A gapped consumer has no loop at the producer's reduced positions.
            if (!this.isAligned(c) || this.axisAt(c, p) !== undefined) this.union(key(tv, p), key(c, p));
          }
        }
      }
    }
  }

  /**
   * A gapped tensor read by a full-rank one (a 1-D operand broadcast before the reduction) is
   * computed before the gap: its lanes get a loop and a buffer of their own, read inside the
   * consumer's reduction loops. The first position it does not share (positions: none).
   */
  gappedCut(tv: TensorView): number {
    const positions = this.gappedPositions(tv);
    if (positions === null) return this.ctx.positions;
    const full = tv.uses.some((u) => u.outputs.some((c) => c.kind === 'tensorView' && c.nDims() === this.ctx.positions));
    if (!full) return this.ctx.positions;
    const k = positions.findIndex((p, a) => p !== a);
    return k < 0 ? this.ctx.positions : k;
  }

  /** The reference position of loop axis `a` of `tv` (gapped tensors skip the gap). */
  positionOfAxis(tv: TensorView, a: number): number {
    return this.gappedPositions(tv)?.[a] ?? a;
  }

  /** `tv`'s loop ID at reference position `p` (undefined: it has none there). */
  axisAt(tv: TensorView, p: number): IterDomain | undefined {
    const positions = this.gappedPositions(tv);
    if (positions === null) return p < tv.nDims() ? tv.axis(p) : undefined;
    const a = positions.indexOf(p);
    return a < 0 ? undefined : tv.axis(a);
  }

  /**
   * A shorter tensor (reduction schedules) whose first k loop IDs are the reference's first k
   * and whose others are the reference's last ones (not a prefix): the positions of its axes.
   */
  private gappedPositions(tv: TensorView): number[] | null {
    const known = this.gapped.get(tv);
    if (known !== undefined) return known;
    let found: number[] | null = null;
    const graph = this.idGraph;
    const n = this.ctx.positions;
    const m = tv.nDims();
    // Only where the reference's last position is kept (the lanes): the gap must be serial
    // reduced positions of the rFactor partial, parallel or trivial ones.
    if (graph !== null && m > 1 && m < n && !this.serialReduced.has(n - 1) && !this.isPrefixAligned(tv)) {
      const ref = this.ctx.reference;
      const maps = (a: number, p: number): boolean => tv.axis(a).isBroadcast() || graph.same(tv.axis(a), ref.axis(p));
      const gapOk = (p: number): boolean => this.serialReduced.has(p) || this.kinds[p]?.kind === 'parallel' || this.kinds[p]?.kind === 'trivial';
      // Trailing broadcast axes (a keepdim result) take the first gap positions; they
      // iterate nothing after the reduction.
      let c = m;
      while (c > 0 && tv.axis(c - 1).isBroadcast()) c -= 1;
      for (let k = c - 1; k >= 1 && found === null; k -= 1) {
        const positions = Array.from({ length: c }, (_, a) => (a < k ? a : n - c + a));
        const gap = Array.from({ length: n - c }, (_, i) => k + i);
        if (gap.length >= m - c && gap.every(gapOk) && positions.every((p, a) => maps(a, p))) found = [...positions, ...gap.slice(0, m - c)];
      }
    }
    this.gapped.set(tv, found);
    return found;
  }

  isAligned(tv: TensorView): boolean {
    if (tv.nDims() === this.ctx.positions && this.afterReductionView.has(tv)) return this.mapsToReference(tv);
    return tv.nDims() === this.ctx.positions || this.isPrefixAligned(tv) || this.gappedPositions(tv) !== null;
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

  /**
   * Positions `tv` spans: its own loop length when aligned (a gapped tensor: up to its last
   * position; `owns` says which it has), else all (fully inlined).
   */
  loopCount(tv: TensorView): number {
    if (this.gappedPositions(tv) !== null) return this.ctx.positions;
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
    if (!this.isAligned(tv)) return true;
    const id = this.axisAt(tv, p);
    if (id === undefined) return false;
    if (!(this.afterReduction.has(tv) && id.isBroadcast())) return true;
    // Before the reduction, a broadcast loop with an iterated loop inside it (the lanes of an
    // iteration vector, inside the reduction loops) stays: that loop is its consumers' too.
    return this.feedsReduction.has(tv) && this.kinds[p]?.kind === 'loop' && this.kinds.some((k, q) => q > p && k.kind === 'loop' && !(this.axisAt(tv, q)?.isBroadcast() ?? true));
  }

  /**
   * The effective compute-at position, in reference positions (unaligned tensors are fully
   * inlined; a gapped tensor's shared axes end at its last shared axis' position).
   */
  computeAt(tv: TensorView): number {
    if (tv.isFusionInput()) return 0;
    if (!this.isAligned(tv)) return this.ctx.positions;
    const ca = tv.computeAtPosition;
    let end = 0;
    for (let a = 0; a < ca; a += 1) end = Math.max(end, this.positionOfAxis(tv, a) + 1);
    return Math.min(end, this.gappedCut(tv));
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
function feedingOnlyReductionSide(ctx: LoweringContext, after: ReadonlySet<TensorView>, axisAt: (tv: TensorView, p: number) => IterDomain | undefined): TensorView[] {
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
      if (o.kind === 'tensorView' && after.has(o) && [...reduced].some((p) => !(axisAt(o, p)?.isBroadcast() ?? true))) return [];
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
