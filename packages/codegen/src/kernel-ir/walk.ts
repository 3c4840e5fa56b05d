// The one statement walker of kernel IR: statements nest only in ForLoop bodies and IfThenElse
// branches, and every pass that looks into or rewrites a statement tree goes through these three
// functions instead of recursing itself (so a new container kind is handled in one place).
//   allStmts   every statement of a tree, depth first, containers before their contents
//   someStmt   whether any statement of a tree satisfies a predicate
//   mapLeaves  the tree with each non-container statement replaced by zero or more statements
// Invariant: containers keep their fields and order; only leaves are replaced.

import type { Stmt } from './nodes.js';

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
