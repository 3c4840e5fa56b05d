// Optimisation pass `row-prefetch` (inner-outer and persistent-grid inner persistent kernels with prefetchNextRow) — a 2-stage register circular
// buffer over the serial row loop. Each block walks its rows one at a time, and a row's global
// loads (grad_out, x, mean, rstd) used to be issued only after the previous row's block
// reductions finished: with a few blocks per SM, too few bytes were in flight to cover the
// memory latency. This pass rewrites the row loop
//
//   for r:  { Allocate B;  load B ← row r;  …reduce, compute, store… }
// into
//   Allocate B_next;  load B_next ← row 0
//   for r:  { Allocate B;  B ← B_next;  load B_next ← row r + 1;  …reduce, compute, store… }
//
// for every "row load": a statement at the top level of the row loop's body whose leaves are
// all global → local vector LoadStores (or, staged, those into buffers allocated inside the
// statement and local copies out of them) into buffers allocated in that body (and written
// nowhere else; the per-row scalars mean and rstd are one load each, and prefetching them
// would double their broadcast buffers: past the register budget on the H100, per ptxas),
// reading an address that depends on the row loop's index. The next row's loads keep their
// predicates with r + 1 substituted and are guarded by r + 1 < the loop's extent, so a block
// reads neither past the tensor nor the next block's rows. Loads whose address does not depend
// on the row (the weight) are left in place.
// Invariant: every value a statement of the loop body reads is the one it read before (B holds
// row r when the body's other statements run); only the time the loads are issued changes.

import { LoweringError } from '../errors.js';
import { iadd, iconst, isym, substituteSymbols, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import { accessesOf, containsReduction } from '../kernel-ir/effects.js';
import { allStmts, mapStmts, someStmt } from '../kernel-ir/walk.js';
import type { Predicate, Stmt, TensorAccess } from '../kernel-ir/nodes.js';

type LoadStore = Extract<Stmt, { kind: 'LoadStore' }>;
type Allocate = Extract<Stmt, { kind: 'Allocate' }>;
type ForLoop = Extract<Stmt, { kind: 'ForLoop' }>;
type Compute = Extract<Stmt, { kind: 'Compute' }>;

function substitute(e: IndexExpr, name: string, by: IndexExpr): IndexExpr {
  return substituteSymbols(e, (n) => (n === name ? by : null));
}

function mentions(e: IndexExpr, name: string): boolean {
  return symbolsOf(e).has(name);
}

function isRowLoad(s: Stmt): s is LoadStore {
  return s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1;
}

/**
 * The LoadStores of a row load, or null when `s` is anything else: a tree of non-empty loops and
 * else-less non-empty ifs whose every leaf is a vectorized global → local load.
 */
export function rowLoadLeaves(s: Stmt): LoadStore[] | null {
  const all = allStmts([s]);
  const shaped = all.every((x) => (x.kind === 'ForLoop' ? x.body.length > 0 : x.kind === 'IfThenElse' ? x.else.length === 0 && x.then.length > 0 : isRowLoad(x)));
  return shaped ? all.filter(isRowLoad) : null;
}

/**
 * The statements of a row load that write buffers outside it, or null when `s` is no row load:
 * either a tree of plain row loads (rowLoadLeaves), or one that stages the loads (a tree of
 * loops, ifs and Allocates whose leaves are vectorized global → local loads and local → local
 * copies out of buffers allocated inside the tree: an input cache copied into the persistent
 * buffer it feeds, the form of an inner persistent kernel's Float row).
 */
function rowLoadWrites(s: Stmt): (LoadStore | Compute)[] | null {
  const plain = rowLoadLeaves(s);
  if (plain !== null) return plain;
  const all = allStmts([s]);
  const inside = new Set(all.filter((x): x is Allocate => x.kind === 'Allocate' && x.memory === undefined).map((a) => a.buffer));
  if (inside.size === 0) return null;
  const local = (a: TensorAccess): boolean => a.memory === 'Local';
  const copy = (x: Stmt): boolean =>
    x.kind === 'LoadStore'
      ? local(x.in) && local(x.out) && inside.has(x.in.tensor)
      : x.kind === 'Compute' && x.op.family === 'unary' && x.op.op === 'cast' && local(x.out) && x.operands.every((o) => o.kind === 'tensor' && local(o) && inside.has(o.tensor));
  const shaped = all.every((x) =>
    x.kind === 'ForLoop' ? x.body.length > 0 : x.kind === 'IfThenElse' ? x.else.length === 0 && x.then.length > 0 : x.kind === 'Allocate' ? inside.has(x.buffer) : (x.kind === 'LoadStore' && isRowLoad(x)) || copy(x),
  );
  if (!shaped || !all.some((x) => x.kind === 'LoadStore' && isRowLoad(x))) return null;
  return all.filter((x): x is LoadStore | Compute => (x.kind === 'LoadStore' || x.kind === 'Compute') && !inside.has(x.out.tensor));
}

/** Whether a load of `s` reads a row-dependent address (the weight's loads do not). */
function readsRow(s: Stmt, row: string): boolean {
  return someStmt([s], (x) => x.kind === 'LoadStore' && mentions(x.in.index, row));
}

/** How many accesses of `stmts` write each buffer. */
export function writes(stmts: readonly Stmt[]): Map<string, number> {
  const count = new Map<string, number>();
  for (const a of accessesOf(stmts).writes) count.set(a.tensor, (count.get(a.tensor) ?? 0) + 1);
  return count;
}

/** `s` (a row load) with the row index replaced by `by` and each load's output buffer renamed. */
export function retarget(s: Stmt, row: string, by: IndexExpr, rename: ReadonlyMap<string, string>): Stmt {
  const pred = (p: Predicate): Predicate => ({ index: substitute(p.index, row, by), extent: substitute(p.extent, row, by) });
  const access = (a: TensorAccess, out: boolean): TensorAccess => ({ ...a, tensor: out ? (rename.get(a.tensor) ?? a.tensor) : a.tensor, index: substitute(a.index, row, by) });
  const [out] = mapStmts([s], (x): Stmt => {
    switch (x.kind) {
      case 'LoadStore':
        return { ...x, in: access(x.in, false), out: access(x.out, true) };
      case 'ForLoop':
        return { ...x, extent: substitute(x.extent, row, by) };
      case 'IfThenElse':
        return { ...x, predicates: x.predicates.map(pred) };
      case 'Compute': // a staged load's cast out of its staging buffer
        return { ...x, out: access(x.out, true), operands: x.operands.map((o) => (o.kind === 'tensor' ? access(o, false) : o)) };
      case 'Allocate':
        return x; // a staging buffer of the load, scoped inside it
      default:
        throw new LoweringError(`row prefetch: unexpected ${x.kind} in a row load`);
    }
  });
  return out as Stmt; // one statement in, one out
}

/** `buffer[k] ← source[k]` for k < size, unrolled. */
function copyLoop(a: Allocate, source: string, index: string): Stmt {
  const at = (tensor: string): TensorAccess => ({ kind: 'tensor', tensor, dtype: a.dtype, memory: 'Local', index: isym(index, a.size) });
  return { kind: 'ForLoop', index, extent: iconst(a.size), unroll: true, body: [{ kind: 'LoadStore', out: at(a.buffer), in: at(source), width: 1 }] };
}

/**
 * Applies the 2-stage row prefetch to the kernel body's row loop (the top-level serial loop that
 * holds the block reductions). Returns the body unchanged when it has no such loop or no row load.
 */
export function prefetchNextRow(body: readonly Stmt[]): Stmt[] {
  const at = body.findIndex((s) => s.kind === 'ForLoop' && containsReduction(s.body));
  const loop = body[at];
  if (loop === undefined || loop.kind !== 'ForLoop') return [...body];
  const row = loop.index;
  const allocations = new Map(loop.body.filter((s): s is Allocate => s.kind === 'Allocate').map((a) => [a.buffer, a]));
  const written = writes(loop.body);
  const loads = new Set<Stmt>();
  const prefetched = new Map<string, Allocate>();
  for (const s of loop.body) {
    const leaves = rowLoadWrites(s);
    if (leaves === null || !readsRow(s, row)) continue;
    const buffers = [...new Set(leaves.map((l) => l.out.tensor))];
    // Only whole buffers of this loop body that nothing else writes.
    const leavesPer = (b: string): number => leaves.filter((l) => l.out.tensor === b).length;
    if (!buffers.every((b) => allocations.has(b) && written.get(b) === leavesPer(b))) continue;
    loads.add(s);
    for (const b of buffers) prefetched.set(b, allocations.get(b) as Allocate);
  }
  if (loads.size === 0) return [...body];
  const rename = new Map([...prefetched.keys()].map((b) => [b, `${b}_next`]));
  const preheader: Stmt[] = [];
  for (const a of prefetched.values()) preheader.push({ ...a, buffer: rename.get(a.buffer) as string });
  const newBody: Stmt[] = [];
  let copies = 0;
  for (const s of loop.body) {
    if (!loads.has(s)) {
      newBody.push(s);
      continue;
    }
    preheader.push(retarget(s, row, iconst(0), rename));
    const buffers = new Set((rowLoadWrites(s) ?? []).map((l) => l.out.tensor));
    for (const b of buffers) {
      const a = prefetched.get(b) as Allocate;
      newBody.push(copyLoop(a, rename.get(b) as string, `${row}_pf${copies}`));
      copies += 1;
    }
    // Not past the block's own rows: the next block reads its first row itself.
    const next = iadd(isym(row), iconst(1));
    newBody.push({ kind: 'IfThenElse', predicates: [{ index: next, extent: loop.extent }], then: [retarget(s, row, next, rename)], else: [] });
  }
  const rewritten: ForLoop = { ...loop, body: newBody };
  return [...body.slice(0, at), ...preheader, rewritten, ...body.slice(at + 1)];
}
