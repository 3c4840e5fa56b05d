// Core pass `loop-nest` — loop nest. In: the fusion's tensor expressions in topological order and the loop
// map. Out: a statement tree of ForLoops (one per loop set at a serial/unrolled position;
// parallel and trivial positions make no loop, a vectorized position is one wide access)
// whose leaves are PendingExprs carrying the index of every reference position.
// Each expression sits inside the loops of its output's positions; siblings are ordered so
// that producers come before consumers (Kahn's algorithm, ties by first appearance).
// A ReductionOp (or WelfordOp) also gets an 'init' leaf (its accumulator set to the identity) placed in the
// loops of the positions before its first reduction position, ordered before its update;
// prefix-aligned tensors (reduction schedules) sit only in the loops of their own positions.
// A grid outer reduction (grid-outer-reduction.ts: reduced over blockIdx.x and the serial row
// loop, kept over the inner positions) gets its init in fresh loops of its kept positions
// ahead of everything, its update in the shared loops, and a 'final' leaf (store of its
// per-block partials) in fresh loops after everything; the copies/casts to its output are
// left to the grid step (no leaf). An rFactor partial with kept positions after its reduced
// ones (the lanes of an outer reduction's iteration vector) gets its init in the loops before
// its first reduced position and fresh loops of those kept positions.
// Invariant: a loop set appears exactly once in the tree; a producer inlined at k and its
// consumers share the same ForLoop objects for their first k positions.

import type { Expr, TensorView } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iconst, isym, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { gridOuterReductions } from './grid-outer-reduction.js';
import type { LoopGroups } from './loop-groups.js';

interface Node {
  group: string | null;
  position: number;
  order: number;
  children: (Node | Leaf)[];
}

interface Leaf {
  expr: Expr;
  out: TensorView;
  order: number;
  /** The accumulator initialisation of a ReductionOp or WelfordOp (not its update). */
  init: boolean;
  /** A grid outer reduction's partial store, after every other statement. */
  final?: boolean;
  /** Fresh loops (init / final of a grid outer reduction): loop variables of their own. */
  tag?: string;
  /** With a tag: positions before this one share the ordinary loops (default 0: none). */
  freshFrom?: number;
}

function isLeaf(x: Node | Leaf): x is Leaf {
  return 'expr' in x;
}

function subtreeExprs(x: Node | Leaf, into: Set<Expr>): Set<Expr> {
  // An init leaf is ordered by its own rule (before its update), not as the expr's owner.
  if (isLeaf(x)) {
    if (!x.init && x.final !== true) into.add(x.expr);
  } else {
    for (const c of x.children) subtreeExprs(c, into);
  }
  return into;
}

/** Init leaves of a subtree (their update must follow). */
function subtreeInits(x: Node | Leaf, into: Set<Expr>): Set<Expr> {
  if (isLeaf(x)) {
    if (x.init) into.add(x.expr);
  } else {
    for (const c of x.children) subtreeInits(c, into);
  }
  return into;
}

function hasFinal(x: Node | Leaf): boolean {
  return isLeaf(x) ? x.final === true : x.children.some(hasFinal);
}

/** Orders the children of every node so producers precede consumers. */
function orderChildren(node: Node): void {
  const kids = node.children;
  const owner = new Map<Expr, number>();
  kids.forEach((k, i) => {
    for (const e of subtreeExprs(k, new Set())) owner.set(e, i);
  });
  const succ = kids.map(() => new Set<number>());
  const indeg = kids.map(() => 0);
  const edge = (j: number, i: number): void => {
    if (j !== i && !(succ[j] as Set<number>).has(i)) {
      (succ[j] as Set<number>).add(i);
      indeg[i] = (indeg[i] as number) + 1;
    }
  };
  kids.forEach((k, i) => {
    // An init precedes the sibling holding its reduction's update.
    for (const e of subtreeInits(k, new Set())) {
      const j = owner.get(e);
      if (j !== undefined) edge(i, j);
    }
    // A final (grid outer reduction) subtree follows every other sibling.
    if (hasFinal(k)) kids.forEach((o, j) => {
      if (!hasFinal(o)) edge(j, i);
    });
    for (const e of subtreeExprs(k, new Set())) {
      for (const input of e.inputs) {
        const def = input.definition;
        if (def === null) continue;
        const j = owner.get(def);
        if (j !== undefined) edge(j, i);
      }
    }
  });
  const done: (Node | Leaf)[] = [];
  const ready = kids.map((_, i) => i).filter((i) => indeg[i] === 0);
  while (ready.length > 0) {
    ready.sort((a, b) => (kids[a] as Node | Leaf).order - (kids[b] as Node | Leaf).order);
    const i = ready.shift() as number;
    done.push(kids[i] as Node | Leaf);
    for (const j of succ[i] as Set<number>) {
      indeg[j] = (indeg[j] as number) - 1;
      if (indeg[j] === 0) ready.push(j);
    }
  }
  if (done.length !== kids.length) {
    throw new LoweringError('loop nest: expressions sharing loops depend on each other in a cycle (inconsistent compute-at positions)');
  }
  node.children = done;
  for (const k of done) if (!isLeaf(k)) orderChildren(k);
}

export function buildLoopNest(ctx: LoweringContext, groups: LoopGroups): Stmt[] {
  const root: Node = { group: null, position: -1, order: 0, children: [] };
  let order = 0;
  const n = ctx.positions;
  const loopPositions = groups.kinds.map((k, p) => (k.kind === 'loop' ? p : -1)).filter((p) => p >= 0);
  const isFresh = (tag: string | undefined, freshFrom: number | undefined, p: number): boolean => tag !== undefined && p >= (freshFrom ?? 0);
  const place = (expr: Expr, out: TensorView, count: number, init: boolean, extra: { final?: boolean; tag?: string; freshFrom?: number } = {}): void => {
    let node = root;
    for (const p of loopPositions) {
      if (p >= count) break;
      if (!groups.owns(out, p)) continue;
      if (p === n - 1 && groups.isVectorized(out)) continue;
      // Fresh loops (tagged) iterate only the kept positions of a grid outer reduction.
      const fresh = isFresh(extra.tag, extra.freshFrom, p);
      if (fresh && (groups.axisAt(out, p)?.isReduction() ?? false)) continue;
      const g = fresh ? `${groups.group(out, p)}#${extra.tag ?? ''}` : groups.group(out, p);
      let child = node.children.find((c): c is Node => !isLeaf(c) && c.group === g);
      if (child === undefined) {
        child = { group: g, position: p, order: order++, children: [] };
        node.children.push(child);
      }
      node = child;
    }
    node.children.push({ expr, out, order: order++, init, ...extra });
  };
  const gridOuter = gridOuterReductions(ctx);
  const gridOuterExprs = new Set<Expr>(gridOuter.map((g) => g.expr));
  const gridStepExprs = new Set(gridOuter.flatMap((g) => g.chain));
  for (const expr of ctx.fusion.exprs()) {
    const out = expr.outputs[0];
    if (out === undefined || out.kind !== 'tensorView' || gridStepExprs.has(expr)) continue;
    const count = groups.loopCount(out);
    if (gridOuterExprs.has(expr)) {
      place(expr, out, count, true, { tag: 'init' });
      place(expr, out, count, false);
      continue;
    }
    if (expr.kind === 'ReductionOp' || expr.kind === 'WelfordOp') {
      const axis = out.domain.loop.findIndex((id) => id.isReduction());
      const firstReduction = axis < 0 ? -1 : groups.positionOfAxis(out, axis);
      // Kept loop positions after the reduced ones (iteration-vector lanes of an rFactor
      // partial): the init gets fresh loops of those, as a grid outer reduction's does.
      const keptAfter = firstReduction >= 0 && loopPositions.some((p) => p > firstReduction && p < count && groups.owns(out, p) && !(groups.axisAt(out, p)?.isReduction() ?? true) && !(p === n - 1 && groups.isVectorized(out)));
      if (keptAfter) place(expr, out, count, true, { tag: 'init', freshFrom: firstReduction });
      else place(expr, out, firstReduction < 0 ? count : Math.min(count, firstReduction), true);
    }
    place(expr, out, count, false);
  }
  for (const g of gridOuter) place(g.expr, g.reduction, groups.loopCount(g.reduction), false, { final: true, tag: 'final' });
  orderChildren(root);

  const loopVar = new Map<string, string>();
  const base = ctx.fusion.vals().length;
  const varOf = (g: string): string => {
    let v = loopVar.get(g);
    if (v === undefined) {
      v = `i${base + loopVar.size}`;
      loopVar.set(g, v);
    }
    return v;
  };
  const refLoop = ctx.reference.domain.loop;
  const toStmts = (node: Node): Stmt[] =>
    node.children.map((c): Stmt => {
      if (isLeaf(c)) {
        const indices = positionIndices(c.out, c.tag, c.freshFrom);
        if (c.final === true) return { kind: 'PendingExpr', expr: c.expr, positionIndices: indices, phase: 'final' };
        return c.init ? { kind: 'PendingExpr', expr: c.expr, positionIndices: indices, phase: 'init' } : { kind: 'PendingExpr', expr: c.expr, positionIndices: indices };
      }
      const id = refLoop[c.position];
      if (id === undefined) throw new LoweringError(`loop nest: no reference loop ID at position ${c.position}`);
      const kind = groups.kinds[c.position];
      return {
        kind: 'ForLoop',
        index: varOf(c.group as string),
        extent: ctx.extent(id.extent),
        unroll: kind !== undefined && kind.kind === 'loop' && kind.unroll,
        body: toStmts(c),
      };
    });
  const positionIndices = (out: TensorView, tag?: string, freshFrom?: number): IndexExpr[] =>
    groups.kinds.map((k, p): IndexExpr => {
      // Positions a prefix-aligned (or gapped) tensor does not have never index it.
      if (!groups.owns(out, p)) return iconst(0);
      const fresh = isFresh(tag, freshFrom, p);
      // Fresh loops of a grid outer reduction skip its serial reduced positions.
      if (fresh && k.kind === 'loop' && (groups.axisAt(out, p)?.isReduction() ?? false)) return iconst(0);
      switch (k.kind) {
        case 'parallel':
          return isym(k.builtin, k.bound);
        case 'trivial':
          return iconst(0);
        case 'loop': {
          if (p === n - 1 && groups.isVectorized(out)) return iconst(0);
          const id = refLoop[p];
          const g = groups.group(out, p);
          return isym(varOf(fresh ? `${g}#${tag ?? ''}` : g), id?.extent.constNumber() ?? null);
        }
        default: {
          const unreachable: never = k;
          throw new LoweringError(`unknown position kind ${String(unreachable)}`);
        }
      }
    });
  return toStmts(root);
}
