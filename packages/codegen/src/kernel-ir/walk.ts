// The one statement walker of kernel IR: statements nest only in ForLoop bodies and IfThenElse
// branches, and every pass that looks into or rewrites a statement tree goes through these three
// functions instead of recursing itself (so a new container kind is handled in one place).
//   allStmts   every statement of a tree, depth first, containers before their contents
//   someStmt   whether any statement of a tree satisfies a predicate
//   mapLeaves  the tree with each non-container statement replaced by zero or more statements
//   mapStmts   the tree with every statement replaced bottom-up (containers after their contents)
//   mapStmtLists  the tree with every statement list (top, loop bodies, branches) rewritten, innermost first
//   forEachStmt   every statement with the ForLoops enclosing it, over snapshots of each list
// Invariant: a walk reaches every statement of the tree exactly once; mapLeaves keeps containers'
// fields and order, only leaves are replaced.

import type { Stmt } from './nodes.js';

type ForLoop = Extract<Stmt, { kind: 'ForLoop' }>;

type Leaf = Exclude<Stmt, { kind: 'ForLoop' | 'IfThenElse' }>;

/** Every statement of the tree, depth first. */
export function allStmts(stmts: readonly Stmt[], into: Stmt[] = []): Stmt[] {
  for (const s of stmts) {
    into.push(s);
    if (s.kind === 'ForLoop') allStmts(s.body, into);
    else if (s.kind === 'IfThenElse') {
      allStmts(s.then, into);
      allStmts(s.else, into);
    }
  }
  return into;
}

/** Whether `stmts` or a statement nested in them satisfies `pred`. */
export function someStmt(stmts: readonly Stmt[], pred: (s: Stmt) => boolean): boolean {
  return stmts.some((s) => pred(s) || (s.kind === 'ForLoop' ? someStmt(s.body, pred) : s.kind === 'IfThenElse' ? someStmt(s.then, pred) || someStmt(s.else, pred) : false));
}

/** The tree with every leaf replaced by `f(leaf)` (a statement or a list of them). */
export function mapLeaves(stmts: readonly Stmt[], f: (s: Leaf) => Stmt | Stmt[]): Stmt[] {
  return stmts.flatMap((s): Stmt[] => {
    if (s.kind === 'ForLoop') return [{ ...s, body: mapLeaves(s.body, f) }];
    if (s.kind === 'IfThenElse') return [{ ...s, then: mapLeaves(s.then, f), else: mapLeaves(s.else, f) }];
    const r = f(s);
    return Array.isArray(r) ? r : [r];
  });
}

/**
 * The tree with every statement replaced by `f(statement)`, bottom-up: a container is passed to
 * `f` with its contents already mapped (so `f` may rewrite a container's own fields).
 */
export function mapStmts(stmts: readonly Stmt[], f: (s: Stmt) => Stmt | Stmt[]): Stmt[] {
  return stmts.flatMap((s): Stmt[] => {
    const inner: Stmt =
      s.kind === 'ForLoop' ? { ...s, body: mapStmts(s.body, f) } : s.kind === 'IfThenElse' ? { ...s, then: mapStmts(s.then, f), else: mapStmts(s.else, f) } : s;
    const r = f(inner);
    return Array.isArray(r) ? r : [r];
  });
}

/**
 * The tree with every statement list — the top one, each ForLoop body, each IfThenElse branch —
 * replaced by `f(list)`, innermost lists first (a list is passed with its nested lists rewritten).
 */
export function mapStmtLists(stmts: readonly Stmt[], f: (list: readonly Stmt[]) => Stmt[]): Stmt[] {
  return f(
    stmts.map((s): Stmt =>
      s.kind === 'ForLoop' ? { ...s, body: mapStmtLists(s.body, f) } : s.kind === 'IfThenElse' ? { ...s, then: mapStmtLists(s.then, f), else: mapStmtLists(s.else, f) } : s,
    ),
  );
}

/**
 * Calls `visit(s, loops)` on every statement, depth first (a container before its contents), with
 * the ForLoops enclosing it, outermost first. Each list is walked as it was when the walk reached
 * it, so `visit` may insert statements into the lists of enclosing loops (they are not visited).
 */
export function forEachStmt(stmts: readonly Stmt[], visit: (s: Stmt, loops: readonly ForLoop[]) => void, loops: readonly ForLoop[] = []): void {
  for (const s of [...stmts]) {
    visit(s, loops);
    if (s.kind === 'ForLoop') forEachStmt(s.body, visit, [...loops, s]);
    else if (s.kind === 'IfThenElse') {
      forEachStmt(s.then, visit, loops);
      forEachStmt(s.else, visit, loops);
    }
  }
}
