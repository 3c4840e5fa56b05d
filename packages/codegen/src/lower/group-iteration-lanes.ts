// Optional pass `group-iteration-lanes` — the lanes of an outer reduction's iteration vector in
// one block / grid reduction (nvFuser's grouped reductions of a vectorized iteration domain).
// In: the lowered statements, where an outer reduction scheduled with `vi` adjacent columns per
// thread left its parallel reduction in a loop of its own over the lanes:
//     FOR i in 0 .. vi (unroll):  BLOCK_REDUCE / GRID_REDUCE  R_l[i] = op(R_l[i], P_l[i])
// Out: one BlockReduce / GridReduce with `lanes` vi on lane 0 (R_l[0], P_l[0]): one set of
// barriers for all lanes, and for a grid reduction one fence and semaphore round (vi
// separate grid reductions in a loop would also race on the shared semaphores, and their
// `pending` flag would be scoped to the loop body).
// The lanes' predicates are lane 0's: the scheduler vectorizes only when the iteration extent
// is a multiple of vi (outer-vectorization.ts), so a column predicate holds for a whole vector
// or for none of it; the loop variable is replaced by 0 in them.
// Invariant: only a loop whose whole body is that one reduction, reading and writing Local
// buffers indexed by exactly the loop variable, is rewritten; anything else is left as it is.

import { LoweringError } from '../errors.js';
import { iconst, sameIndex, isym, substituteSymbols, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Predicate, Stmt, TensorAccess } from '../kernel-ir/nodes.js';

type LaneReduction = Extract<Stmt, { kind: 'BlockReduce' | 'GridReduce' }>;

function laneZero(a: TensorAccess): TensorAccess {
  return { ...a, index: iconst(0) };
}

function atLaneZero(ps: readonly Predicate[], loopVar: string): Predicate[] {
  const zero = (name: string): IndexExpr | null => (name === loopVar ? iconst(0) : null);
  return ps.map((p) => ({ index: substituteSymbols(p.index, zero), extent: substituteSymbols(p.extent, zero) }));
}

function groupable(s: Stmt, loopVar: string): s is LaneReduction {
  if (s.kind !== 'BlockReduce' && s.kind !== 'GridReduce') return false;
  if (s.kind === 'BlockReduce' && (s.allreduce === true || s.grouped !== undefined || s.oneBarrierArea !== undefined)) return false;
  const lane = isym(loopVar);
  const byLane = (a: TensorAccess): boolean => a.memory === 'Local' && (sameIndex(a.index, lane) || (a.index.kind === 'sym' && a.index.name === loopVar));
  return s.lanes === undefined && byLane(s.out) && byLane(s.in);
}

function rewrite(stmts: readonly Stmt[]): Stmt[] {
  return stmts.map((s): Stmt => {
    switch (s.kind) {
      case 'ForLoop': {
        const only = s.body.length === 1 ? s.body[0] : undefined;
        const n = s.extent.kind === 'const' ? s.extent.value : null;
        if (only !== undefined && n !== null && n > 1 && groupable(only, s.index)) {
          return {
            ...only,
            out: laneZero(only.out),
            in: laneZero(only.in),
            readPredicates: atLaneZero(only.readPredicates, s.index),
            writePredicates: atLaneZero(only.writePredicates, s.index),
            lanes: n,
          };
        }
        return { ...s, body: rewrite(s.body) };
      }
      case 'IfThenElse':
        return { ...s, then: rewrite(s.then), else: rewrite(s.else) };
      default:
        return s;
    }
  });
}

/** Groups lane loops of block / grid reductions; a grid reduction left in a loop is an error. */
export function groupIterationLanes(body: readonly Stmt[]): Stmt[] {
  const out = rewrite(body);
  const check = (stmts: readonly Stmt[], inLoop: boolean): void => {
    for (const s of stmts) {
      if (s.kind === 'GridReduce' && inLoop) throw new LoweringError(`a grid reduction (${s.pending}) is inside a loop its lanes could not be grouped out of`);
      if (s.kind === 'ForLoop') check(s.body, true);
      if (s.kind === 'IfThenElse') {
        check(s.then, inLoop);
        check(s.else, inLoop);
      }
    }
  };
  check(out, false);
  return out;
}
