// Every index expression of a kernel IR statement tree, read or rewritten: tensor accesses,
// predicates, loop extents, bulk-copy sizes and slots, indexed-load strides and extents, grid
// outer reduction columns — one exhaustive switch over the statement kinds, so a pass that must
// see every index (lower/fast-division.ts) cannot miss one when a kind is added.
// Invariant: mapStmtIndices changes nothing but IndexExpr fields (each replaced by `f` of it,
// called on the whole expression, not on its subterms); the tree's shape and every other field
// are kept. forEachIndex visits exactly the expressions mapStmtIndices would pass to `f`.

import type { IndexExpr } from './index-expr.js';
import type { BulkRowCopy, Operand, Predicate, Stmt, TensorAccess, WelfordAccesses, WelfordOperands } from './nodes.js';

type IndexMap = (e: IndexExpr) => IndexExpr;

function access(a: TensorAccess, f: IndexMap): TensorAccess {
  return { ...a, index: f(a.index) };
}

function operand(o: Operand, f: IndexMap): Operand {
  return o.kind === 'tensor' ? access(o, f) : o;
}

function predicates(ps: readonly Predicate[], f: IndexMap): Predicate[] {
  return ps.map((p) => ({ index: f(p.index), extent: f(p.extent) }));
}

function welfordAccesses(w: WelfordAccesses, f: IndexMap): WelfordAccesses {
  return { avg: access(w.avg, f), varSum: access(w.varSum, f), n: access(w.n, f) };
}

function welfordOperands(w: WelfordOperands, f: IndexMap): WelfordOperands {
  return { avg: operand(w.avg, f), varSum: operand(w.varSum, f), n: operand(w.n, f) };
}

function bulkCopy(c: BulkRowCopy, f: IndexMap): BulkRowCopy {
  return { ...c, source: access(c.source, f), elements: f(c.elements), ...(c.stage === undefined ? {} : { stage: f(c.stage) }) };
}

/** One statement with every index expression replaced by `f` of it (containers recurse). */
export function mapStmtIndex(s: Stmt, f: IndexMap): Stmt {
  switch (s.kind) {
    case 'ForLoop':
      return { ...s, extent: f(s.extent), body: mapStmtIndices(s.body, f) };
    case 'IfThenElse':
      return { ...s, predicates: predicates(s.predicates, f), then: mapStmtIndices(s.then, f), else: mapStmtIndices(s.else, f) };
    case 'Allocate':
    case 'BlockSync':
    case 'ScalarCompute':
      return s;
    case 'LoadStore':
      return { ...s, out: access(s.out, f), in: access(s.in, f) };
    case 'Compute':
      return { ...s, out: access(s.out, f), operands: s.operands.map((o) => operand(o, f)) };
    case 'Rng':
      return { ...s, out: access(s.out, f), linearIndex: f(s.linearIndex) };
    case 'Iota':
      return { ...s, out: access(s.out, f), index: f(s.index) };
    case 'IndexedLoad':
      return { ...s, out: access(s.out, f), index: operand(s.index, f), lookup: access(s.lookup, f), stride: f(s.stride), extent: f(s.extent) };
    case 'ReductionInit':
      return { ...s, out: access(s.out, f) };
    case 'BlockReduce':
      return {
        ...s,
        out: access(s.out, f),
        in: access(s.in, f),
        readPredicates: predicates(s.readPredicates, f),
        writePredicates: predicates(s.writePredicates, f),
        ...(s.grouped === undefined ? {} : { grouped: { ...s.grouped, out: access(s.grouped.out, f), in: access(s.grouped.in, f) } }),
      };
    case 'GridReduce':
      return { ...s, out: access(s.out, f), in: access(s.in, f), readPredicates: predicates(s.readPredicates, f), writePredicates: predicates(s.writePredicates, f) };
    case 'GridOuterStore':
      return { ...s, column: f(s.column), columns: f(s.columns), in: access(s.in, f) };
    case 'GridOuterReduce':
      return { ...s, reductions: s.reductions.map((r) => ({ ...r, columns: f(r.columns) })) };
    case 'WelfordUpdate':
      return { ...s, out: welfordAccesses(s.out, f), in: welfordOperands(s.in, f) };
    case 'BlockWelford':
    case 'GridWelford':
      return { ...s, out: welfordAccesses(s.out, f), in: welfordAccesses(s.in, f), readPredicates: predicates(s.readPredicates, f), writePredicates: predicates(s.writePredicates, f) };
    case 'BulkLoadIssue':
      return {
        ...s,
        copies: s.copies.map((c) => bulkCopy(c, f)),
        ...(s.predicates === undefined ? {} : { predicates: predicates(s.predicates, f) }),
        ...(s.ahead === undefined ? {} : { ahead: s.ahead.map((g) => ({ copies: g.copies.map((c) => bulkCopy(c, f)), predicates: predicates(g.predicates, f) })) }),
      };
    case 'BulkLoadWait':
      return {
        ...s,
        ...(s.parity === undefined ? {} : { parity: f(s.parity) }),
        ...(s.stage === undefined ? {} : { stage: f(s.stage) }),
        ...(s.predicates === undefined ? {} : { predicates: predicates(s.predicates, f) }),
      };
    case 'BulkLoadReissue':
      return { ...s, copies: s.copies.map((c) => bulkCopy(c, f)), predicates: predicates(s.predicates, f) };
    case 'PendingExpr':
      return { ...s, positionIndices: s.positionIndices.map(f) };
    default: {
      const unreachable: never = s;
      throw new Error(`unknown statement ${String(unreachable)}`);
    }
  }
}

/** The tree with every index expression of every statement replaced by `f` of it. */
export function mapStmtIndices(stmts: readonly Stmt[], f: IndexMap): Stmt[] {
  return stmts.map((s) => mapStmtIndex(s, f));
}

/** Calls `visit` on every index expression of the tree (the ones mapStmtIndices maps). */
export function forEachIndex(stmts: readonly Stmt[], visit: (e: IndexExpr) => void): void {
  mapStmtIndices(stmts, (e) => {
    visit(e);
    return e;
  });
}
