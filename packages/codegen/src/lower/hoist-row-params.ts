// Optimisation pass `hoist-row-params` (inner persistent kernels with hoistRowParamLoads) — the row parameters' loads first.
// An inner persistent kernel reads weight and bias only in its last loop, after the row's
// block reductions, so every block waits there for a round trip to L2. This pass issues those
// loads at the top of the kernel instead, next to the row's own loads:
//
//   for i < n:  { Allocate W;  load W ← w[i];  …use W… }
// becomes
//   Allocate W_h (n × |W|);  for i' < n: load W_h[i'·|W|] ← w[i']      (top of the kernel)
//   for i < n:  { Allocate W;  W ← W_h[i·|W|];  …use W… }
//
// for every load (with its predicates) at the top level of a top-level loop with a constant
// extent and no block reduction, whose leaves are global → local vector loads of an address
// that does not depend on the thread's row (neither blockIdx.x/y nor threadIdx.y: weight,
// bias), into one buffer of that loop body written nowhere else. The copy is register to
// register (ptxas renames it away); W_h costs n·|W| registers per thread for the whole kernel.
// Such a load at the top level of the body itself (a persistent batch of 1 makes no loop) moves
// to the top with its Allocate. In a persistent grid's kernel the same loads sit inside the
// serial row loop (the top-level loop that holds the block reductions); they move above it,
// once per block, without the predicates on the row loop's index (their addresses have none).
// This pass runs after row-prefetch, which leaves row-invariant loads in place.
// Invariant: every statement reads the values it read before; only when the loads are issued
// changes.

import { iadd, iconst, imul, isym, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import { containsReduction } from '../kernel-ir/effects.js';
import type { Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { mapLeaves, mapStmts } from '../kernel-ir/walk.js';
import { mentionsRow } from './evict-last.js';
import { retarget, rowLoadLeaves, writes } from './row-prefetch.js';

type Allocate = Extract<Stmt, { kind: 'Allocate' }>;

/** The loads of `s` (a retargeted row load) with each output index moved by `offset`. */
function shiftOutputs(s: Stmt, offset: IndexExpr): Stmt[] {
  return mapLeaves([s], (l) => (l.kind === 'LoadStore' ? { ...l, out: { ...l.out, index: iadd(offset, l.out.index) } } : l));
}

/** `buffer[k] ← source[at + k]` for k < size, unrolled. */
function copyFrom(a: Allocate, source: string, at: IndexExpr, index: string): Stmt {
  const access = (tensor: string, base: IndexExpr): TensorAccess => ({ kind: 'tensor', tensor, dtype: a.dtype, memory: 'Local', index: iadd(base, isym(index, a.size)) });
  return { kind: 'ForLoop', index, extent: iconst(a.size), unroll: true, body: [{ kind: 'LoadStore', out: access(a.buffer, iconst(0)), in: access(source, at), width: 1 }] };
}

/** Whether an index mentions the symbol `name`. */
function mentions(e: IndexExpr, name: string | null): boolean {
  return name !== null && symbolsOf(e).has(name);
}

/** The one buffer a row-invariant load statement writes, or null when `s` is not one. */
function rowParamLoadBuffer(s: Stmt, allocations: ReadonlyMap<string, Allocate>, written: ReadonlyMap<string, number>, rowLoop: string | null): string | null {
  const leaves = rowLoadLeaves(s);
  if (leaves === null || leaves.some((l) => mentionsRow(l.in.index) || mentions(l.in.index, rowLoop))) return null;
  const buffers = [...new Set(leaves.map((l) => l.out.tensor))];
  const b = buffers[0];
  return buffers.length === 1 && b !== undefined && allocations.has(b) && written.get(b) === leaves.length ? b : null;
}

/**
 * `s` without the predicates on the row loop's index: hoisted above the loop, a row parameter's
 * load keeps only the guards of its own (row-independent) address; rows past the tensor never
 * read the values (their uses keep the row predicate).
 */
function withoutRowPredicates(s: Stmt, rowLoop: string | null): Stmt[] {
  if (rowLoop === null) return [s];
  return mapStmts([s], (x): Stmt | Stmt[] => {
    if (x.kind !== 'IfThenElse') return x;
    const predicates = x.predicates.filter((p) => !mentions(p.index, rowLoop) && !mentions(p.extent, rowLoop));
    return predicates.length === 0 ? [...x.then] : { ...x, predicates };
  });
}

/** The hoisted statements and the rest of `body` (see the header); `rowLoop`: the enclosing row loop's index. */
function hoistIn(body: readonly Stmt[], rowLoop: string | null, fresh: { next: number }): { top: Stmt[]; rest: Stmt[] } {
  const top: Stmt[] = [];
  const rest: Stmt[] = [];
  const topAllocations = new Map(body.filter((s): s is Allocate => s.kind === 'Allocate').map((a) => [a.buffer, a]));
  const topWritten = writes(body);
  const movedUp = new Set<string>();
  for (const s of body) {
    const b = rowParamLoadBuffer(s, topAllocations, topWritten, rowLoop);
    if (b !== null) movedUp.add(b);
  }
  for (const loop of body) {
    if (loop.kind === 'Allocate' && movedUp.has(loop.buffer)) {
      top.push(loop);
      continue;
    }
    if (rowParamLoadBuffer(loop, topAllocations, topWritten, rowLoop) !== null) {
      top.push(...withoutRowPredicates(loop, rowLoop));
      continue;
    }
    // A persistent grid's serial row loop (it holds the block reductions): its row parameters
    // are loaded once, before it, for all the block's rows.
    if (rowLoop === null && loop.kind === 'ForLoop' && loop.extent.kind !== 'const' && containsReduction(loop.body)) {
      const inner = hoistIn(loop.body, loop.index, fresh);
      top.push(...inner.top);
      rest.push({ ...loop, body: inner.rest });
      continue;
    }
    if (loop.kind !== 'ForLoop' || loop.extent.kind !== 'const' || containsReduction(loop.body)) {
      rest.push(loop);
      continue;
    }
    const n = loop.extent.value;
    const allocations = new Map(loop.body.filter((s): s is Allocate => s.kind === 'Allocate').map((a) => [a.buffer, a]));
    const written = writes(loop.body);
    const newBody: Stmt[] = [];
    for (const s of loop.body) {
      const b = rowParamLoadBuffer(s, allocations, written, rowLoop);
      if (b === null) {
        newBody.push(s);
        continue;
      }
      const a = allocations.get(b) as Allocate;
      const hoisted = `${b}_h`;
      const index = `${loop.index}_h${fresh.next}`;
      fresh.next += 1;
      top.push({ ...a, buffer: hoisted, size: a.size * n });
      const load = withoutRowPredicates(s, rowLoop).flatMap((x) => shiftOutputs(retarget(x, loop.index, isym(index, n), new Map([[b, hoisted]])), imul(isym(index, n), iconst(a.size))));
      top.push({ kind: 'ForLoop', index, extent: iconst(n), unroll: true, body: load });
      newBody.push(copyFrom(a, hoisted, imul(isym(loop.index), iconst(a.size)), `${index}_c`));
    }
    rest.push({ ...loop, body: newBody });
  }
  return { top, rest };
}

/** Moves the row parameters' loads to the top of the kernel body (see the header). */
export function hoistRowParamLoads(body: readonly Stmt[]): Stmt[] {
  const { top, rest } = hoistIn(body, null, { next: 0 });
  return [...top, ...rest];
}
