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
// to the top with its Allocate.
// Invariant: every statement reads the values it read before; only when the loads are issued
// changes.

import { iadd, iconst, imul, isym, type IndexExpr } from '../kernel-ir/index-expr.js';
import { containsReduction } from '../kernel-ir/effects.js';
import type { Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { mapLeaves } from '../kernel-ir/walk.js';
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

/** The one buffer a row-invariant load statement writes, or null when `s` is not one. */
function rowParamLoadBuffer(s: Stmt, allocations: ReadonlyMap<string, Allocate>, written: ReadonlyMap<string, number>): string | null {
  const leaves = rowLoadLeaves(s);
  if (leaves === null || leaves.some((l) => mentionsRow(l.in.index))) return null;
  const buffers = [...new Set(leaves.map((l) => l.out.tensor))];
  const b = buffers[0];
  return buffers.length === 1 && b !== undefined && allocations.has(b) && written.get(b) === leaves.length ? b : null;
}

/** Moves the row parameters' loads to the top of the kernel body (see the header). */
export function hoistRowParamLoads(body: readonly Stmt[]): Stmt[] {
  const top: Stmt[] = [];
  const rest: Stmt[] = [];
  let fresh = 0;
  const topAllocations = new Map(body.filter((s): s is Allocate => s.kind === 'Allocate').map((a) => [a.buffer, a]));
  const topWritten = writes(body);
  const movedUp = new Set<string>();
  for (const s of body) {
    const b = rowParamLoadBuffer(s, topAllocations, topWritten);
    if (b !== null) movedUp.add(b);
  }
  for (const loop of body) {
    if (loop.kind === 'Allocate' && movedUp.has(loop.buffer)) {
      top.push(loop);
      continue;
    }
    if (rowParamLoadBuffer(loop, topAllocations, topWritten) !== null) {
      top.push(loop);
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
      const b = rowParamLoadBuffer(s, allocations, written);
      if (b === null) {
        newBody.push(s);
        continue;
      }
      const a = allocations.get(b) as Allocate;
      const hoisted = `${b}_h`;
      const index = `${loop.index}_h${fresh}`;
      fresh += 1;
      top.push({ ...a, buffer: hoisted, size: a.size * n });
      const load = shiftOutputs(retarget(s, loop.index, isym(index, n), new Map([[b, hoisted]])), imul(isym(index, n), iconst(a.size)));
      top.push({ kind: 'ForLoop', index, extent: iconst(n), unroll: true, body: load });
      newBody.push(copyFrom(a, hoisted, imul(isym(loop.index), iconst(a.size)), `${index}_c`));
    }
    rest.push({ ...loop, body: newBody });
  }
  return [...top, ...rest];
}
