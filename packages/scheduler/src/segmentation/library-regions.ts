// The segmenter's starting segments for a fusion holding GEMM or attention calls: each library
// call alone, and each maximal region of generated-kernel exprs between them (a connected
// component of the producer → consumer graph of the exprs of one stage — the number of library
// calls before them) as one segment, if a scheduler accepts it whole.
// Why: pairwise merging from singletons can dead-end on a normalization — the pointwise part
// before the reduction keeps an output the part after it reads, so neither the reduction
// scheduler (a pre-reduction output) nor a persistent one (no persistent buffer inside the
// pair) accepts any pair, and an RMSNorm before a linear became three kernels. A region that a
// persistent scheduler accepts whole is the one kernel the fusion without the GEMM would have
// been. Views of a library call's result start alone (a reshape of a GEMM's [B·T, D] result
// inside a normalization region would make its scheduler refuse the region). Regions a
// scheduler refuses start as singletons, as the segmenter's plain start.
// Invariant: the returned groups partition `exprs`; every multi-expr group is accepted by
// `accepts`; the group graph is acyclic.

import type { Expr, Val } from '@tsfuser/fusion-ir';
import { isLibraryExpr } from './supported-ops.js';

/** Union-find root of `e` (path-halving). */
function root(parent: Map<Expr, Expr>, e: Expr): Expr {
  let x = e;
  for (;;) {
    const p = parent.get(x) as Expr;
    if (p === x) return x;
    const gp = parent.get(p) as Expr;
    parent.set(x, gp);
    x = gp;
  }
}

/** Groups on a cycle of the producer → consumer graph between `groups`. */
function groupsOnCycles(groups: readonly Set<Expr>[], producerOf: ReadonlyMap<Val, Expr>): Set<number> {
  const at = new Map<Expr, number>();
  groups.forEach((g, i) => g.forEach((e) => at.set(e, i)));
  const succ = groups.map(() => new Set<number>());
  groups.forEach((g, to) => {
    for (const e of g) {
      for (const v of e.inputs) {
        const p = producerOf.get(v);
        const from = p === undefined ? undefined : at.get(p);
        if (from !== undefined && from !== to) (succ[from] as Set<number>).add(to);
      }
    }
  });
  const cyclic = new Set<number>();
  groups.forEach((_, start) => {
    const stack = [...(succ[start] as Set<number>)];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const n = stack.pop() as number;
      if (n === start) {
        cyclic.add(start);
        return;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      for (const m of succ[n] as Set<number>) stack.push(m);
    }
  });
  return cyclic;
}

/**
 * Each expr's stage: how many library calls lie on the longest path to it, placed as late as
 * its consumers allow (a cast whose only reader follows the next GEMM goes with that reader,
 * not with the producer's region — else that region would write the cast's wider result).
 * A library call's stage is its inputs' (its consumers' is one more).
 */
function stages(exprs: readonly Expr[], producerOf: ReadonlyMap<Val, Expr>): Map<Expr, number> {
  const member = new Set(exprs);
  const asap = new Map<Expr, number>();
  const consumers = new Map<Expr, Expr[]>(exprs.map((e) => [e, []]));
  for (const e of exprs) {
    let level = 0;
    for (const v of e.inputs) {
      const p = producerOf.get(v);
      if (p === undefined || !member.has(p)) continue;
      level = Math.max(level, (asap.get(p) as number) + (isLibraryExpr(p) ? 1 : 0));
      (consumers.get(p) as Expr[]).push(e);
    }
    asap.set(e, level);
  }
  const stage = new Map<Expr, number>();
  for (let i = exprs.length - 1; i >= 0; i -= 1) {
    const e = exprs[i] as Expr;
    const readers = consumers.get(e) as Expr[];
    if (isLibraryExpr(e) || readers.length === 0) {
      stage.set(e, asap.get(e) as number);
      continue;
    }
    stage.set(e, Math.min(...readers.map((c) => (isLibraryExpr(c) ? (asap.get(c) as number) : (stage.get(c) as number)))));
  }
  return stage;
}

/** A metadata-only op: its result can be a view of its input (expr_eval computes it without a kernel). */
function isViewOp(e: Expr): boolean {
  return e.kind === 'ViewOp' || e.kind === 'SqueezeOp' || (e.kind === 'LoadStoreOp' && e.permutation !== null);
}

/**
 * Reshapes, squeezes and permutes of a library call's result (or of such a view), and those only
 * library calls read: they start alone, not inside the region that reads them — a view costs nothing, and inside a region it
 * can make a kernel scheduler refuse the whole region (the inner-outer persistent kernel takes
 * no reshape: a [B·T, D] GEMM result viewed as [B, T, D] before an RMSNorm backward).
 */
function viewsOfLibraryResults(exprs: readonly Expr[], producerOf: ReadonlyMap<Val, Expr>): Set<Expr> {
  const views = new Set<Expr>();
  for (const e of exprs) {
    if (!isViewOp(e)) continue;
    const p = producerOf.get(e.inputs[0] as Val);
    if (p !== undefined && (isLibraryExpr(p) || views.has(p))) views.add(e);
  }
  // …and views read only by library calls (or by such views): a GEMM or attention call reads a
  // strided operand in place, and a view inside the region before it would be written out
  const member = new Set(exprs);
  for (let i = exprs.length - 1; i >= 0; i -= 1) {
    const e = exprs[i] as Expr;
    if (!isViewOp(e) || views.has(e)) continue;
    const readers = (e.outputs[0]?.uses ?? []).filter((u) => member.has(u));
    if (readers.length > 0 && readers.every((u) => isLibraryExpr(u) || views.has(u))) views.add(e);
  }
  return views;
}

/**
 * The starting segments (see the header) of the tensor exprs `exprs` in topological order;
 * `producerOf` maps each tensor to the expr computing it; `accepts` says whether some scheduler
 * takes a set of exprs as one segment. Without a library call: every expr alone. A region is a
 * connected component of generated-kernel exprs of one stage: paths between regions through a
 * library call go to a later stage, so no region can feed itself.
 */
export function libraryCallRegions(exprs: readonly Expr[], producerOf: ReadonlyMap<Val, Expr>, accepts: (group: ReadonlySet<Expr>) => boolean): Set<Expr>[] {
  const singletons = (es: Iterable<Expr>): Set<Expr>[] => [...es].map((e) => new Set([e]));
  if (!exprs.some(isLibraryExpr)) return singletons(exprs);
  const member = new Set(exprs);
  const stage = stages(exprs, producerOf);
  const views = viewsOfLibraryResults(exprs, producerOf);
  const alone = (e: Expr): boolean => isLibraryExpr(e) || views.has(e);
  const parent = new Map<Expr, Expr>(exprs.map((e) => [e, e]));
  for (const e of exprs) {
    if (alone(e)) continue;
    for (const v of e.inputs) {
      const p = producerOf.get(v);
      if (p === undefined || !member.has(p) || alone(p) || stage.get(p) !== stage.get(e)) continue;
      parent.set(root(parent, e), root(parent, p));
    }
  }
  const byRoot = new Map<Expr, Set<Expr>>();
  for (const e of exprs) {
    const r = alone(e) ? e : root(parent, e);
    if (!byRoot.has(r)) byRoot.set(r, new Set());
    (byRoot.get(r) as Set<Expr>).add(e);
  }
  let groups = [...byRoot.values()];
  // By the stages no region is on a cycle; kept as a guard (splitting never makes one).
  for (;;) {
    const cyclic = groupsOnCycles(groups, producerOf);
    const splittable = [...cyclic].filter((i) => (groups[i] as Set<Expr>).size > 1);
    if (splittable.length === 0) break;
    groups = groups.flatMap((g, i) => (splittable.includes(i) ? singletons(g) : [g]));
  }
  return groups.flatMap((g) => (g.size > 1 && !accepts(g) ? singletons(g) : [g]));
}
