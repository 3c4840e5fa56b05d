// Pass 9 (inner persistent kernels with evictLastRowParams / streamRowLoads) — cache hints
// for the row parameters and the rows. Every block reads one row of x and the whole weight
// and bias; the rows stream through the caches once while every block of the SM reads the
// same weight and bias again. A global vector load whose address does not depend on which row
// the thread works on (it mentions neither blockIdx.x/y nor threadIdx.y, the row positions of
// the inner persistent reference [BIDx, TIDy, TIDx, B, vec]) may get cacheHint 'evictLast'
// (emitted as ld.global.L1::evict_last), as Inductor marks its broadcast loads evict_last; one
// whose address does depend on the row may get 'streaming' (ld.global.cs: evict-first in L1
// and L2), so the rows do not push the parameters out.
// Invariant: only hints change; every statement, index and predicate stays as it was.

import type { IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';

const ROW_SYMBOLS = new Set(['blockIdx.x', 'blockIdx.y', 'threadIdx.y']);

function mentionsRow(e: IndexExpr): boolean {
  switch (e.kind) {
    case 'const':
      return false;
    case 'sym':
      return ROW_SYMBOLS.has(e.name);
    default:
      return mentionsRow(e.a) || mentionsRow(e.b);
  }
}

/** Which loads get which hint. */
export interface RowCacheHints {
  /** Row-invariant loads (weight, bias): L1::evict_last. */
  rowParams: boolean;
  /** Row loads (x): streaming. */
  rows: boolean;
}

function hint(s: Stmt, which: RowCacheHints): Stmt {
  switch (s.kind) {
    case 'LoadStore': {
      if (s.in.memory !== 'Global' || s.out.memory !== 'Local' || s.width <= 1) return s;
      const row = mentionsRow(s.in.index);
      if (!row && which.rowParams) return { ...s, cacheHint: 'evictLast' };
      if (row && which.rows) return { ...s, cacheHint: 'streaming' };
      return s;
    }
    case 'ForLoop':
      return { ...s, body: s.body.map((b) => hint(b, which)) };
    case 'IfThenElse':
      return { ...s, then: s.then.map((b) => hint(b, which)), else: s.else.map((b) => hint(b, which)) };
    default:
      return s;
  }
}

/** Marks the global vector loads of the kernel body: row-invariant ones evict-last, row ones streaming (as chosen). */
export function rowCacheHints(body: readonly Stmt[], which: RowCacheHints): Stmt[] {
  return body.map((s) => hint(s, which));
}
