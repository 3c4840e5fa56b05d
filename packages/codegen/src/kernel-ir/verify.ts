// The kernel IR verifier: invariants every lowering pass must keep, checked after each named pass
// in tests (lower/index.ts `LowerOptions.observe`) so that a pass that breaks the IR fails where it
// breaks it, not as a wrong number on the GPU.
//   - scopes: a Local buffer is read or written only after its Allocate, inside the block that
//     allocates it (or a nested one); no buffer is allocated twice; allocations hold ≥ 1 element;
//   - loop indices: a loop's index is used only inside that loop, and no loop re-binds the index
//     of a loop around it;
//   - Global accesses name a tensor parameter of the kernel; Shared accesses name a row buffer of
//     a bulk copy (BulkLoadIssue / BulkLoadReissue) or a shared Allocate (a transpose tile);
//   - after expression lowering, no PendingExpr is left.
// It reads the IR only; the result is the list of violations (empty: the IR is well formed).

import { accessesOf } from './effects.js';
import { allStmts } from './walk.js';
import { symbolsOf, type IndexExpr } from './index-expr.js';
import type { BulkRowCopy, KernelParam, Predicate, Stmt, TensorAccess } from './nodes.js';

export interface VerifyOptions {
  /** Whether PendingExpr statements may remain (before and during expression lowering). */
  pendingAllowed: boolean;
}

/** Index expressions of a bulk copy besides its source access: its length and its slot. */
function copyIndices(c: BulkRowCopy): IndexExpr[] {
  return c.stage === undefined ? [c.elements] : [c.elements, c.stage];
}

/** Index expressions a leaf statement evaluates besides its tensor accesses. */
function leafIndices(s: Stmt): IndexExpr[] {
  const preds = (ps: readonly Predicate[] | undefined): IndexExpr[] => (ps ?? []).flatMap((p) => [p.index, p.extent]);
  switch (s.kind) {
    case 'Rng':
      return [s.linearIndex];
    case 'Iota':
      return [s.index];
    case 'BlockReduce':
    case 'GridReduce':
    case 'BlockWelford':
    case 'GridWelford':
      return [...preds(s.readPredicates), ...preds(s.writePredicates)];
    case 'GridOuterStore':
      return [s.column, s.columns];
    case 'IndexedLoad':
      return [s.stride, s.extent];
    case 'BulkLoadIssue':
      return [
        ...preds(s.predicates),
        ...s.copies.flatMap(copyIndices),
        ...(s.ahead ?? []).flatMap((g) => [...preds(g.predicates), ...g.copies.flatMap(copyIndices)]),
      ];
    case 'BulkLoadReissue':
      return [...preds(s.predicates), ...s.copies.flatMap(copyIndices)];
    case 'BulkLoadWait':
      return [...preds(s.predicates), ...(s.parity === undefined ? [] : [s.parity]), ...(s.stage === undefined ? [] : [s.stage])];
    case 'BlockSync':
      return [];
    case 'PendingExpr': // position indices are placeholders until expression lowering places it
    case 'ForLoop':
    case 'IfThenElse':
    case 'Allocate':
    case 'LoadStore':
    case 'Compute':
    case 'ScalarCompute':
    case 'ReductionInit':
    case 'WelfordUpdate':
    case 'GridOuterReduce':
      return [];
    default: {
      const unreachable: never = s;
      throw new Error(`unknown statement ${String(unreachable)}`);
    }
  }
}

function allLoopIndices(stmts: readonly Stmt[]): Set<string> {
  return new Set(allStmts(stmts).flatMap((s) => (s.kind === 'ForLoop' ? [s.index] : [])));
}

function bulkBuffers(stmts: readonly Stmt[]): Set<string> {
  return new Set(
    allStmts(stmts).flatMap((s) =>
      s.kind === 'BulkLoadIssue' || s.kind === 'BulkLoadReissue' ? s.copies.map((c) => c.buffer) : s.kind === 'Allocate' && s.memory === 'Shared' ? [s.buffer] : [],
    ),
  );
}

/** The violations of the kernel IR invariants in `body` (empty when there are none). */
export function verifyKernelIr(body: readonly Stmt[], params: readonly KernelParam[], options: VerifyOptions): string[] {
  const problems: string[] = [];
  const globals = new Set(params.filter((p) => p.kind === 'tensor').map((p) => p.name));
  const loopIndices = allLoopIndices(body);
  const shared = bulkBuffers(body);
  const allocatedEver = new Set<string>();

  const checkIndex = (e: IndexExpr, open: ReadonlySet<string>, where: string): void => {
    for (const name of symbolsOf(e)) {
      if (loopIndices.has(name) && !open.has(name)) problems.push(`${where}: uses loop index ${name} outside its loop`);
    }
  };
  const checkAccess = (a: TensorAccess, visible: ReadonlySet<string>, open: ReadonlySet<string>, where: string): void => {
    if (a.memory === 'Local' && !visible.has(a.tensor)) problems.push(`${where}: local buffer ${a.tensor} is not allocated in an enclosing scope before this use`);
    if (a.memory === 'Global' && !globals.has(a.tensor)) problems.push(`${where}: global tensor ${a.tensor} is not a kernel parameter`);
    if (a.memory === 'Shared' && !shared.has(a.tensor)) problems.push(`${where}: shared buffer ${a.tensor} is not filled by a bulk copy`);
    checkIndex(a.index, open, where);
  };

  const visit = (stmts: readonly Stmt[], inherited: ReadonlySet<string>, open: ReadonlySet<string>, path: string): void => {
    const visible = new Set(inherited);
    stmts.forEach((s, i) => {
      const where = `${path}${i} ${s.kind}`;
      switch (s.kind) {
        case 'ForLoop':
          if (open.has(s.index)) problems.push(`${where}: loop index ${s.index} re-bound inside a loop over it`);
          checkIndex(s.extent, open, where);
          visit(s.body, visible, new Set([...open, s.index]), `${where} > `);
          return;
        case 'IfThenElse':
          for (const p of s.predicates) {
            checkIndex(p.index, open, where);
            checkIndex(p.extent, open, where);
          }
          visit(s.then, visible, open, `${where} then > `);
          visit(s.else, visible, open, `${where} else > `);
          return;
        case 'Allocate':
          if (allocatedEver.has(s.buffer)) problems.push(`${where}: buffer ${s.buffer} allocated twice`);
          if (!Number.isInteger(s.size) || s.size < 1) problems.push(`${where}: buffer ${s.buffer} of ${s.size} elements`);
          allocatedEver.add(s.buffer);
          visible.add(s.buffer);
          return;
        case 'PendingExpr':
          if (!options.pendingAllowed) problems.push(`${where}: an expression left unlowered`);
          break;
        default:
          break;
      }
      const { writes, reads } = accessesOf([s]);
      for (const a of [...writes, ...reads]) checkAccess(a, visible, open, where);
      for (const e of leafIndices(s)) checkIndex(e, open, where);
    });
  };
  visit(body, new Set(), new Set(), '');
  return problems;
}
