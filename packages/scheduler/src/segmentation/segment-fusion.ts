// Segmentation (after nvFuser's SegmentCandidateFinder): when no single scheduler accepts a
// fusion, split it into segments that some scheduler accepts, executed in order with the
// tensors between them in global memory.
//
//   1. the whole fusion, if a scheduler accepts it, is one segment;
//   2. otherwise every tensor expression starts as its own segment; around GEMM and attention
//      calls, steps 3–4 also run from the regions between them that a scheduler accepts whole
//      (library-regions.ts), and the result with fewer segments (then fewer bytes between
//      them) is kept;
//   3. neighbouring segments (a producer and a consumer) merge while some scheduler accepts the
//      union and the merge keeps the segment graph acyclic, largest intermediate first — each
//      merge removes a global-memory round trip;
//   4. independent segments merge when a scheduler accepts the union (fewer launches);
//   4'. steps 2–4 run again with the pointwise tensors computed from fusion inputs alone
//      recomputed by each segment that reads them (recompute-inputs.ts: every other expression
//      starts as a segment holding its private copies), and that result is kept when it has
//      fewer segments and moves no more bytes (segment inputs + outputs);
//   5. a segment no scheduler accepts after merging is an error naming its expressions;
//      segments are ordered topologically; every remaining edge records why its two sides could
//      not be one kernel (the schedulers' refusals of the union, or the cycle it would make).
// Invariant: segments partition the fusion's tensor expressions — except recomputed ones, of
// which each segment reading them holds a copy —, each is accepted by the scheduler recorded
// for it, and each reads only fusion inputs and earlier segments' outputs.

import { dataTypeSize, type Expr, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import type { SchedulerType } from '../heuristic-params.js';
import { bindExtents, evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { nvFuserAcceptors, summarizeRejections, type SchedulerPicker } from './acceptors.js';
import type { SegmentPlanGroup } from './segment-plan.js';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import { buildGroupFusion, groupBoundary, groupRuntimeInfo, isTensorExpr, type GroupFusion } from './group-fusion.js';
import { libraryCallRegions } from './library-regions.js';
import { isLibraryExpr } from './supported-ops.js';
import { gemmOperandPermuteRefusal, gemmOperandPermutes } from './gemm-operand-views.js';
import { recomputableExprs, recomputedClosure } from './recompute-inputs.js';

/** A segment as the segmenter builds it: a plan group (its fusion's inputs/outputs correspond to `inputs`/`outputs`) with its id and expressions. */
export interface SegmentGroup extends SegmentPlanGroup {
  id: number;
  schedulerType: SchedulerType;
  /** The original fusion's tensor expressions in this segment, in topological order. */
  exprs: readonly Expr[];
}

export interface SegmentEdge {
  from: number;
  to: number;
  val: Val;
  /** Why `from` and `to` are not one kernel. */
  reason: string;
}

export interface SegmentedFusion {
  original: Fusion;
  groups: readonly SegmentGroup[];
  edges: readonly SegmentEdge[];
  /** Independent segments that could not share a kernel, with the reason (for the dumps). */
  independent: readonly { a: number; b: number; reason: string }[];
}

interface Candidate {
  exprs: Set<Expr>;
}

type Verdict = { ok: true; type: SchedulerType; group: GroupFusion; analysis: HeuristicDataCache } | { ok: false; reason: string };

class Segmenter {
  private readonly bindings: ExtentBindings;
  private readonly producerOf = new Map<Val, Expr>();
  private readonly memo = new Map<string, Verdict>();
  private readonly order: Map<Expr, number>;
  /** Permutes only GEMMs read: never inside a kernel segment (gemm-operand-views.ts). */
  private readonly gemmViews: Set<Expr>;

  constructor(
    private readonly fusion: Fusion,
    private readonly info: RuntimeInfo,
    private readonly registry: SchedulerPicker,
    bindings?: ExtentBindings,
    /** Expressions each reading segment recomputes (recompute-inputs.ts); none by default. */
    private readonly recomputed: ReadonlySet<Expr> = new Set(),
  ) {
    this.bindings = bindings ?? bindExtents(fusion, info);
    const exprs = fusion.exprs().filter(isTensorExpr);
    this.order = new Map(exprs.map((e, i) => [e, i]));
    for (const e of exprs) for (const o of e.outputs) this.producerOf.set(o, e);
    this.gemmViews = gemmOperandPermutes(fusion, exprs);
  }

  verdict(exprs: ReadonlySet<Expr>): Verdict {
    const key = [...exprs].map((e) => this.order.get(e)).sort((a, b) => (a as number) - (b as number)).join(',');
    const cached = this.memo.get(key);
    if (cached !== undefined) return cached;
    const group = buildGroupFusion(this.fusion, exprs, new Set(), this.recomputed);
    const ri = groupRuntimeInfo(this.fusion, this.info, this.bindings, group);
    const r = this.registry.tryPick(group.fusion, ri);
    let v: Verdict =
      r.scheduler !== null ? { ok: true, type: r.scheduler.type, group, analysis: r.analysis } : { ok: false, reason: summarizeRejections(r.rejected) };
    // A GEMM segment may hold such a permute: the matmul scheduler accepts it only when cuBLASLt
    // reads it in place as a transposed operand (matmul/operand-source.ts).
    if (v.ok && v.type !== 'expr_eval' && v.type !== 'matmul' && exprs.size > 1) {
      const view = [...exprs].find((e) => this.gemmViews.has(e));
      const out = view?.outputs[0];
      if (out !== undefined) v = { ok: false, reason: gemmOperandPermuteRefusal(`T${out.name}`) };
    }
    this.memo.set(key, v);
    return v;
  }

  /** Segment index of each tensor expression. */
  private static indexOf(groups: readonly Candidate[]): Map<Expr, number> {
    const m = new Map<Expr, number>();
    groups.forEach((g, i) => g.exprs.forEach((e) => m.set(e, i)));
    return m;
  }

  /** Producer → consumer segment edges, with the tensor and its bytes. */
  edges(groups: readonly Candidate[]): { from: number; to: number; val: TensorView; bytes: number }[] {
    const at = Segmenter.indexOf(groups);
    const out: { from: number; to: number; val: TensorView; bytes: number }[] = [];
    const seen = new Set<string>();
    groups.forEach((g, to) => {
      for (const e of g.exprs) {
        for (const v of e.inputs) {
          if (v.kind !== 'tensorView') continue;
          const p = this.producerOf.get(v);
          // A recomputed producer is in every segment reading it (its private copy).
          if (p !== undefined && g.exprs.has(p)) continue;
          const from = p === undefined ? undefined : at.get(p);
          if (from === undefined || from === to) continue;
          const key = `${from}>${to}>${v.name}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ from, to, val: v, bytes: this.bytesOf(v) });
        }
      }
    });
    return out;
  }

  private bytesOf(tv: TensorView): number {
    try {
      return tv.domain.logicalNoReductions().reduce((acc, id) => acc * evaluateExtent(id.logicalExtent(), this.bindings), dataTypeSize(tv.dtype));
    } catch {
      return 0;
    }
  }

  /** Whether some path from → x → to exists through a third segment (merging would be a cycle). */
  cycleThrough(groups: readonly Candidate[], from: number, to: number): number | null {
    const succ = new Map<number, Set<number>>();
    for (const e of this.edges(groups)) {
      if (!succ.has(e.from)) succ.set(e.from, new Set());
      (succ.get(e.from) as Set<number>).add(e.to);
    }
    const stack = [...(succ.get(from) ?? [])].filter((x) => x !== to).map((x) => ({ node: x, via: x }));
    const seen = new Set<number>();
    while (stack.length > 0) {
      const { node, via } = stack.pop() as { node: number; via: number };
      if (node === to) return via;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const n of succ.get(node) ?? []) stack.push({ node: n, via });
    }
    return null;
  }

  run(): SegmentedFusion {
    const all = this.fusion.exprs().filter(isTensorExpr);
    const whole = new Set(all);
    const wholeVerdict = all.length === 0 ? null : this.verdict(whole);
    let groups: Candidate[];
    if (wholeVerdict === null || wholeVerdict.ok) {
      groups = all.length === 0 ? [] : [{ exprs: whole }];
    } else {
      // Singletons no scheduler takes alone (an expand whose output only a consumer can place)
      // are fine as long as merging finds them a home; finish() rejects any that remain.
      const merged = (start: Set<Expr>[]): Candidate[] => this.mergeIndependent(this.mergeNeighbours(start.map((exprs) => ({ exprs }))));
      groups = merged(all.map((e) => new Set([e])));
      if (all.some(isLibraryExpr)) {
        // Around GEMM / attention calls, also start from the regions between them and keep the
        // better result: fewer segments, then fewer bytes between them (ties: the plain start).
        const regional = merged(libraryCallRegions(all, this.producerOf, (g) => this.verdict(g).ok));
        if (this.cost(regional) < this.cost(groups)) groups = regional;
      } else {
        const alt = this.withRecomputedInputs(all);
        if (alt !== null) {
          const altGroups = alt.segmenter.mergeIndependent(alt.segmenter.mergeNeighbours(alt.start));
          const [n, bytes] = [groups.length, this.traffic(groups)];
          const [m, altBytes] = [altGroups.length, alt.segmenter.traffic(altGroups)];
          // (A segment no scheduler takes with its copies — a cumsum the greedy scheduler takes
          // alone — leaves the plain segmentation in place.)
          const accepted = altGroups.every((g) => alt.segmenter.verdict(g.exprs).ok);
          if (accepted && m < n && altBytes <= bytes) return alt.segmenter.finish(altGroups);
        }
      }
    }
    return this.finish(groups);
  }

  /**
   * Step 4' (see the header): a segmenter that recomputes the input-only pointwise tensors, and
   * its starting segments (each other expression with its private copies); null when there is
   * nothing to recompute or nothing else.
   */
  private withRecomputedInputs(all: readonly Expr[]): { segmenter: Segmenter; start: Candidate[] } | null {
    const recomputable = recomputableExprs(this.fusion, all);
    const cores = all.filter((e) => !recomputable.has(e));
    if (recomputable.size === 0 || cores.length === 0) return null;
    const segmenter = new Segmenter(this.fusion, this.info, this.registry, this.bindings, recomputable);
    return { segmenter, start: cores.map((e) => ({ exprs: new Set([e, ...recomputedClosure(e, recomputable)]) })) };
  }

  /** Bytes the segments read and write in global memory (their inputs and outputs). */
  private traffic(groups: readonly Candidate[]): number {
    let bytes = 0;
    for (const g of groups) {
      const { inputs, outputs } = groupBoundary(this.fusion, g.exprs, this.recomputed);
      for (const v of [...inputs, ...outputs]) if (v.kind === 'tensorView') bytes += this.bytesOf(v);
    }
    return bytes;
  }

  /** Segments, then the bytes crossing between them, as one comparable number. */
  private cost(groups: readonly Candidate[]): number {
    const bytes = this.edges(groups).reduce((acc, e) => acc + e.bytes, 0);
    return groups.length * 2 ** 52 + Math.min(bytes, 2 ** 52 - 1);
  }

  private union(a: Candidate, b: Candidate): Set<Expr> {
    return new Set([...a.exprs, ...b.exprs]);
  }

  private mergeNeighbours(start: Candidate[]): Candidate[] {
    let groups = start;
    const failed = new Set<string>();
    const keyOf = (g: Candidate): string => [...g.exprs].map((e) => this.order.get(e)).sort((a, b) => (a as number) - (b as number)).join(',');
    for (;;) {
      const candidates = this.edges(groups).sort((x, y) => y.bytes - x.bytes || x.from - y.from);
      let merged = false;
      for (const e of candidates) {
        const a = groups[e.from] as Candidate;
        const b = groups[e.to] as Candidate;
        const pair = `${keyOf(a)}|${keyOf(b)}`;
        if (failed.has(pair)) continue;
        if (this.cycleThrough(groups, e.from, e.to) !== null || !this.verdict(this.union(a, b)).ok) {
          failed.add(pair);
          continue;
        }
        groups = groups.filter((_, i) => i !== e.from && i !== e.to).concat([{ exprs: this.union(a, b) }]);
        merged = true;
        break;
      }
      if (!merged) return groups;
    }
  }

  private mergeIndependent(start: Candidate[]): Candidate[] {
    let groups = start;
    for (let changed = true; changed; ) {
      changed = false;
      const edges = this.edges(groups);
      outer: for (let i = 0; i < groups.length; i += 1) {
        for (let j = i + 1; j < groups.length; j += 1) {
          const connected = edges.some((e) => (e.from === i && e.to === j) || (e.from === j && e.to === i));
          if (connected || this.cycleThrough(groups, i, j) !== null || this.cycleThrough(groups, j, i) !== null) continue;
          if (!this.verdict(this.union(groups[i] as Candidate, groups[j] as Candidate)).ok) continue;
          const u = this.union(groups[i] as Candidate, groups[j] as Candidate);
          groups = groups.filter((_, k) => k !== i && k !== j).concat([{ exprs: u }]);
          changed = true;
          break outer;
        }
      }
    }
    return groups;
  }

  /** Topological order, standalone fusions, edges with reasons. */
  private finish(unordered: Candidate[]): SegmentedFusion {
    const edges0 = this.edges(unordered);
    const indeg = unordered.map((_, i) => edges0.filter((e) => e.to === i).length);
    const orderIdx: number[] = [];
    const ready = unordered.map((_, i) => i).filter((i) => indeg[i] === 0);
    // Among ready segments, the one holding the earliest expression goes first (stable dumps).
    const first = (i: number): number => Math.min(...[...(unordered[i] as Candidate).exprs].map((e) => this.order.get(e) as number));
    while (ready.length > 0) {
      ready.sort((a, b) => first(a) - first(b));
      const n = ready.shift() as number;
      orderIdx.push(n);
      for (const e of edges0) {
        if (e.from !== n) continue;
        indeg[e.to] = (indeg[e.to] as number) - 1;
        if (indeg[e.to] === 0) ready.push(e.to);
      }
    }
    if (orderIdx.length !== unordered.length) throw new SchedulingError('segmentation produced a cyclic segment graph (a bug): please report the fusion');
    const groups: SegmentGroup[] = orderIdx.map((old, id) => {
      const c = unordered[old] as Candidate;
      const v = this.verdict(c.exprs);
      if (!v.ok) {
        const what = [...c.exprs].map((e) => `${e.kind} producing ${e.outputs.map((o) => `T${o.name}`).join(', ')}`).join('; ');
        throw new SchedulingError(`no scheduler accepts ${what}, alone or merged with a neighbour: ${v.reason}`);
      }
      const exprs = [...c.exprs].sort((a, b) => (this.order.get(a) as number) - (this.order.get(b) as number));
      return { id, schedulerType: v.type, fusion: v.group.fusion, inputs: v.group.inputs, outputs: v.group.outputs, exprs, analysis: v.analysis };
    });
    // A segment reading an expr_eval segment's output reads a view, which need not be dense. An
    // expr_eval segment too: where the real layout cannot be viewed (a reshape of a slice), the
    // launch plan computes it in a kernel, which reads its inputs through their strides.
    const views = new Set(groups.filter((g) => g.schedulerType === 'expr_eval').flatMap((g) => g.outputs));
    groups.forEach((g, i) => {
      const strided = new Set(g.inputs.filter((v) => views.has(v)));
      if (strided.size === 0) return;
      const rebuilt = buildGroupFusion(this.fusion, new Set(g.exprs), strided, this.recomputed);
      // Another fusion: the analyses of the accepted one do not hold for it.
      const { analysis: _accepted, ...rest } = g;
      groups[i] = { ...rest, fusion: rebuilt.fusion, inputs: rebuilt.inputs, outputs: rebuilt.outputs };
    });
    const ordered = orderIdx.map((old) => unordered[old] as Candidate);
    const edges: SegmentEdge[] = this.edges(ordered).map((e) => {
      const via = this.cycleThrough(ordered, e.from, e.to);
      const reason =
        via !== null
          ? `one kernel for both would form a cycle through segment ${via} (it reads segment ${e.from} and feeds segment ${e.to})`
          : this.explain(this.union(ordered[e.from] as Candidate, ordered[e.to] as Candidate));
      return { from: e.from, to: e.to, val: e.val, reason };
    });
    const independent: { a: number; b: number; reason: string }[] = [];
    for (let a = 0; a < ordered.length && independent.length < 12; a += 1) {
      for (let b = a + 1; b < ordered.length && independent.length < 12; b += 1) {
        if (edges.some((e) => (e.from === a && e.to === b) || (e.from === b && e.to === a))) continue;
        if (this.cycleThrough(ordered, a, b) !== null || this.cycleThrough(ordered, b, a) !== null) continue;
        independent.push({ a, b, reason: this.explain(this.union(ordered[a] as Candidate, ordered[b] as Candidate)) });
      }
    }
    return { original: this.fusion, groups, edges, independent };
  }

  private explain(exprs: ReadonlySet<Expr>): string {
    const v = this.verdict(exprs);
    return v.ok ? `the ${v.type} scheduler accepts both (not merged)` : `no scheduler accepts them together — ${v.reason}`;
  }
}

/**
 * Splits `fusion` into segments for the input signature in `info` (see the header). `registry`
 * decides what a segment may be: a SchedulerRegistry (what tsfuser compiles), or an AcceptorSet
 * (default: nvFuser's schedulers and rules, normalization included). `bindings`: the inputs'
 * extents as the caller bound and checked them for `info` (else they are bound here).
 */
export function segmentFusion(fusion: Fusion, info: RuntimeInfo, registry: SchedulerPicker = nvFuserAcceptors(), bindings?: ExtentBindings): SegmentedFusion {
  return new Segmenter(fusion, info, registry, bindings).run();
}
