// Optimisation pass `group-allreduce` (inner-outer persistent kernels with groupInnerReductions) — grouped block
// allreduces, nvFuser's grouped reductions. layer_norm backward reduces two statistics per row,
// sum(g) and sum(g·xhat); both partials are complete before the first block allreduce, yet
// each allreduce is its own chain of shuffles and three barriers. This pass turns a pair of
// allreduces of one statement list into one BlockReduce with `grouped` set (blockAllreduce2:
// one chain, one set of barriers) at the first one's place, when
//   * both reduce the same thread dims with the same read / write predicates and accumulation
//     type, and neither is grouped already;
//   * the second's input is not the first's output and nothing between them writes it;
//   * nothing between them reads the second's output, and the only statements between them
//     that write it are its ReductionInits, which move up before the grouped statement.
// Pairs are taken greedily in order; nested loops are grouped inside.
// Invariant: every statement reads the same values as before — the second reduction now
// happens earlier, but its input was final there and its result is read only after it.

import { accessesOf } from '../kernel-ir/effects.js';
import { printIndex } from '../kernel-ir/index-expr.js';
import type { Predicate, Stmt } from '../kernel-ir/nodes.js';
import { mapStmtLists } from '../kernel-ir/walk.js';

type BlockReduce = Extract<Stmt, { kind: 'BlockReduce' }>;

function isUngroupedAllreduce(s: Stmt): s is BlockReduce {
  return s.kind === 'BlockReduce' && s.allreduce === true && s.grouped === undefined;
}

function samePredicates(a: readonly Predicate[], b: readonly Predicate[]): boolean {
  const text = (ps: readonly Predicate[]): string => ps.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ');
  return text(a) === text(b);
}

function compatible(a: BlockReduce, b: BlockReduce): boolean {
  return (
    a.accDtype === b.accDtype &&
    a.reduceDims.join(',') === b.reduceDims.join(',') &&
    samePredicates(a.readPredicates, b.readPredicates) &&
    samePredicates(a.writePredicates, b.writePredicates)
  );
}

/** The ReductionInits of `b` to hoist, or null when `b` cannot move up past `between`. */
function hoistableInits(first: BlockReduce, between: readonly Stmt[], b: BlockReduce): Stmt[] | null {
  if (b.in.tensor === first.out.tensor) return null;
  const inits: Stmt[] = [];
  for (const s of between) {
    const { writes, reads } = accessesOf([s]);
    if (writes.some((w) => w.tensor === b.in.tensor)) return null;
    if (reads.some((r) => r.tensor === b.out.tensor)) return null;
    if (writes.some((w) => w.tensor === b.out.tensor)) {
      if (s.kind !== 'ReductionInit') return null;
      inits.push(s);
    }
  }
  return inits;
}

/** One statement list with its compatible allreduce pairs grouped (nested lists are done first). */
function groupList(stmts: readonly Stmt[]): Stmt[] {
  let out = [...stmts];
  for (let i = 0; i < out.length; i += 1) {
    const first = out[i] as Stmt;
    if (!isUngroupedAllreduce(first)) continue;
    for (let j = i + 1; j < out.length; j += 1) {
      const second = out[j] as Stmt;
      if (!isUngroupedAllreduce(second) || !compatible(first, second)) continue;
      const between = out.slice(i + 1, j);
      const inits = hoistableInits(first, between, second);
      if (inits === null) continue;
      const grouped: Stmt = { ...first, grouped: { out: second.out, in: second.in, op: second.op, init: second.init } };
      out = [...out.slice(0, i), ...inits, grouped, ...between.filter((s) => !inits.includes(s)), ...out.slice(j + 1)];
      i += inits.length;
      break;
    }
  }
  return out;
}

/** Groups pairs of compatible block allreduces throughout the kernel body. */
export function groupAllreduces(body: readonly Stmt[]): Stmt[] {
  return mapStmtLists(body, groupList);
}
