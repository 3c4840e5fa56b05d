// Which buffers a kernel IR statement writes and reads (tensor names: Local buffers, Global
// arguments, work buffers by their tensor accesses), for passes that move or rewrite
// statements after lowering (row-prefetch.ts, group-allreduce.ts, hoist-row-params.ts,
// bulk-row-loads.ts), whether statements hold a block or grid reduction, and every statement
// of a tree (allStmts). Nested statements count.
// GridOuterReduce names its work buffers and outputs, not accesses: it is the kernel's last
// statement, and no pass moves anything across it.

import type { Operand, Stmt, TensorAccess, WelfordAccesses, WelfordOperands } from './nodes.js';

function stateAccesses(s: WelfordAccesses): TensorAccess[] {
  return [s.avg, s.varSum, s.n];
}

function operandAccesses(o: Operand | WelfordOperands): TensorAccess[] {
  if ('kind' in o) return o.kind === 'tensor' ? [o] : [];
  return [o.avg, o.varSum, o.n].filter((x): x is TensorAccess => x.kind === 'tensor');
}

/** Every (write, read) tensor access of `stmts` and what they contain, in order. */
export function accessesOf(stmts: readonly Stmt[]): { writes: TensorAccess[]; reads: TensorAccess[] } {
  const writes: TensorAccess[] = [];
  const reads: TensorAccess[] = [];
  const visit = (s: Stmt): void => {
    switch (s.kind) {
      case 'ForLoop':
        s.body.forEach(visit);
        return;
      case 'IfThenElse':
        s.then.forEach(visit);
        s.else.forEach(visit);
        return;
      case 'LoadStore':
        writes.push(s.out);
        reads.push(s.in);
        return;
      case 'Compute':
        writes.push(s.out);
        for (const o of s.operands) reads.push(...operandAccesses(o));
        return;
      case 'ReductionInit':
      case 'Rng':
      case 'Iota':
        writes.push(s.out);
        return;
      case 'IndexedLoad':
        writes.push(s.out);
        reads.push(...operandAccesses(s.index), s.lookup);
        return;
      case 'BlockReduce':
        // The accumulator is read too (the result is folded into it).
        writes.push(s.out);
        reads.push(s.in, s.out);
        if (s.grouped !== undefined) {
          writes.push(s.grouped.out);
          reads.push(s.grouped.in, s.grouped.out);
        }
        return;
      case 'GridReduce':
        writes.push(s.out);
        reads.push(s.in, s.out);
        return;
      case 'WelfordUpdate':
        writes.push(...stateAccesses(s.out));
        reads.push(...stateAccesses(s.out), ...operandAccesses(s.in));
        return;
      case 'BlockWelford':
      case 'GridWelford':
        writes.push(...stateAccesses(s.out));
        reads.push(...stateAccesses(s.out), ...stateAccesses(s.in));
        return;
      case 'GridOuterStore':
        reads.push(s.in);
        return;
      case 'BulkLoadIssue':
      case 'BulkLoadReissue':
        for (const c of [...s.copies, ...(s.kind === 'BulkLoadIssue' ? (s.ahead ?? []).flatMap((g) => g.copies) : [])]) {
          reads.push(c.source);
          writes.push({ kind: 'tensor', tensor: c.buffer, dtype: c.dtype, memory: 'Shared', index: c.source.index });
        }
        return;
      case 'BulkLoadWait':
      case 'BlockSync':
      case 'Allocate':
      case 'ScalarCompute':
      case 'GridOuterReduce':
      case 'PendingExpr':
        return;
      default: {
        const unreachable: never = s;
        throw new Error(`unknown statement ${String(unreachable)}`);
      }
    }
  };
  stmts.forEach(visit);
  return { writes, reads };
}

/** Whether `stmts` (or a statement nested in them) is a block or grid reduction. */
export function containsReduction(stmts: readonly Stmt[]): boolean {
  return stmts.some((s) => {
    switch (s.kind) {
      case 'BlockReduce':
      case 'BlockWelford':
      case 'GridReduce':
      case 'GridWelford':
      case 'GridOuterReduce':
        return true;
      case 'ForLoop':
        return containsReduction(s.body);
      case 'IfThenElse':
        return containsReduction(s.then) || containsReduction(s.else);
      case 'Allocate':
      case 'LoadStore':
      case 'Compute':
      case 'Rng':
      case 'Iota':
      case 'IndexedLoad':
      case 'ScalarCompute':
      case 'ReductionInit':
      case 'WelfordUpdate':
      case 'GridOuterStore':
      case 'BulkLoadIssue':
      case 'BulkLoadReissue':
      case 'BulkLoadWait':
      case 'BlockSync':
      case 'PendingExpr':
        return false;
      default: {
        const unreachable: never = s;
        throw new Error(`unknown statement ${String(unreachable)}`);
      }
    }
  });
}

export { allStmts } from './walk.js';
