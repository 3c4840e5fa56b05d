// Optimisation pass `evict-last` (inner persistent kernels with evictLastRowParams) — L1 cache hints for row
// parameters. Every block reads one row of x and the whole weight and bias; the rows stream
// through L1 once while every block of the SM reads the same weight and bias again. A global
// vector load whose address does not depend on which row the thread works on (it mentions
// neither blockIdx.x/y nor threadIdx.y, the row positions of the inner persistent reference
// [BIDx, TIDy, TIDx, B, vec]) gets cacheHint 'evictLast' (emitted as ld.global.L1::evict_last),
// as Inductor marks its broadcast loads evict_last.
// Invariant: only hints change; every statement, index and predicate stays as it was.

import type { IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import { mapLeaves } from '../kernel-ir/walk.js';

const ROW_SYMBOLS = new Set(['blockIdx.x', 'blockIdx.y', 'threadIdx.y']);

export function mentionsRow(e: IndexExpr): boolean {
  switch (e.kind) {
    case 'const':
      return false;
    case 'sym':
      return ROW_SYMBOLS.has(e.name);
    default:
      return mentionsRow(e.a) || mentionsRow(e.b);
  }
}

function hint(s: Stmt): Stmt {
  return s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1 && !mentionsRow(s.in.index) ? { ...s, cacheHint: 'evictLast' } : s;
}

/** Marks the row-invariant global vector loads of the kernel body evict-last. */
export function evictLastRowParams(body: readonly Stmt[]): Stmt[] {
  return mapLeaves(body, hint);
}
