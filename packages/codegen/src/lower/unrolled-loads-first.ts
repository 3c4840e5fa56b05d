// Optimisation pass `unrolled-loads-first` (pointwise kernels with indexed loads) — in an unrolled
// loop, every load of every unrolled element is issued before the first store, as nvFuser's
// unrolled pointwise kernels are laid out (loads into registers, then compute and store). Expression
// lowering places an indexed load (embedding, index_select, gather, take_along_axis, select) inside
// the unrolled compute loop, next to the store of the same element; the stores may alias the lookup
// as far as nvcc knows, so it cannot move the next element's load above them, and one load is in
// flight per thread. This pass splits such a loop in two:
//
//   for i < n (unroll):  { Allocate X;  X ← load(...i...);  …compute…;  out[..i..] ← … }
// becomes
//   Allocate X' (n × |X|);  [hoisted index loads]
//   for i < n (unroll):  X'[i·|X|] ← load(...i...)                 (every global → local load)
//   for i < n (unroll):  { …compute reading X'[i·|X|]…;  out[..i..] ← … }
//
// A load statement (a global → local copy or an indexed load, with its predicates) moves to the
// first loop when the buffer it writes is allocated in the loop body and written by moved loads
// only, every local it reads is written by an earlier moved load, and no statement of the loop
// writes a global tensor it reads. An unpredicated indexed load whose index is a global element
// that does not depend on the loop index (embedding: one id per row) reads that id once, before
// both loops, into a one-element local (the bounds check stays with each lookup, on the register);
// a predicated one too, under the first element's predicates, when they are non-decreasing in the
// loop index (then any element's predicates holding implies the first element's).
// Only loops with a constant extent whose body holds loads, computations, RNG/iota values and
// stores (possibly under predicates, no nested loops) and at least one movable indexed load are
// rewritten.
// Invariant: every statement reads the values it read before (each unrolled element keeps its own
// registers); only when the loads are issued changes.

import { iadd, iconst, imul, isym, printIndex, substituteSymbols, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import { accessesOf } from '../kernel-ir/effects.js';
import type { Predicate, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { mapLeaves, mapStmts } from '../kernel-ir/walk.js';

type ForLoop = Extract<Stmt, { kind: 'ForLoop' }>;
type Allocate = Extract<Stmt, { kind: 'Allocate' }>;
type IndexedLoad = Extract<Stmt, { kind: 'IndexedLoad' }>;

/**
 * Whether `e` never decreases as `name` grows (index expressions are non-negative: sums and
 * products of non-decreasing terms do not decrease; a quotient by a term free of `name` neither;
 * a remainder only when it does not mention `name`). Then `e(name) < extent` for some value
 * implies it for 0: the first element's predicates hold wherever any element's do.
 */
function monotoneIn(e: IndexExpr, name: string): boolean {
  switch (e.kind) {
    case 'const':
    case 'sym':
      return true;
    case 'add':
    case 'mul':
      return monotoneIn(e.a, name) && monotoneIn(e.b, name);
    case 'div':
      return monotoneIn(e.a, name) && !symbolsOf(e.b).has(name);
    case 'mod':
      return !symbolsOf(e).has(name);
    default: {
      const unreachable: never = e;
      throw new Error(`unknown index expression ${String(unreachable)}`);
    }
  }
}

/** The leaves of a loop-body statement: itself, or an IfThenElse's `then` leaves (no else, no nesting); null otherwise. */
function unitLeaves(s: Stmt): Stmt[] | null {
  if (s.kind === 'IfThenElse') return s.else.length === 0 && s.then.every((t) => t.kind !== 'ForLoop' && t.kind !== 'IfThenElse') ? s.then : null;
  return s.kind === 'ForLoop' ? null : [s];
}

/** Leaf kinds a rewritable loop body may hold. */
function allowedLeaf(s: Stmt): boolean {
  switch (s.kind) {
    case 'LoadStore':
    case 'Compute':
    case 'IndexedLoad':
    case 'Rng':
    case 'Iota':
      return true;
    default:
      return false;
  }
}

/** A global → local load (plain or indexed). */
function isLoadLeaf(s: Stmt): boolean {
  if (s.kind === 'LoadStore') return s.in.memory === 'Global' && s.out.memory === 'Local';
  return s.kind === 'IndexedLoad' && s.out.memory === 'Local' && s.lookup.memory === 'Global';
}

const tensorsOf = (as: readonly TensorAccess[], memory: TensorAccess['memory']): Set<string> => new Set(as.filter((a) => a.memory === memory).map((a) => a.tensor));

/** Rewrites the accesses of the buffers in `expanded` to their slice for element `index`. */
function expandAccesses(stmts: readonly Stmt[], expanded: ReadonlyMap<string, number>, index: IndexExpr): Stmt[] {
  const at = (a: TensorAccess): TensorAccess => {
    const size = a.memory === 'Local' ? expanded.get(a.tensor) : undefined;
    return size === undefined ? a : { ...a, index: iadd(imul(index, iconst(size)), a.index) };
  };
  return mapLeaves(stmts, (l): Stmt => {
    switch (l.kind) {
      case 'LoadStore':
        return { ...l, out: at(l.out), in: at(l.in) };
      case 'Compute':
        return { ...l, out: at(l.out), operands: l.operands.map((o) => (o.kind === 'tensor' ? at(o) : o)) };
      case 'IndexedLoad':
        return { ...l, out: at(l.out), index: l.index.kind === 'tensor' ? at(l.index) : l.index, lookup: at(l.lookup) };
      case 'Rng':
      case 'Iota':
        return { ...l, out: at(l.out) };
      default:
        return l;
    }
  });
}

interface Fresh {
  next: () => string;
}

/** The loop split into its loads and the rest (see the header), or null when it is left as it is. */
function splitLoop(loop: ForLoop, fresh: Fresh): Stmt[] | null {
  if (!loop.unroll || loop.extent.kind !== 'const' || loop.extent.value < 2) return null;
  const allocations = new Map<string, Allocate>();
  for (const s of loop.body) {
    if (s.kind === 'Allocate') {
      if (s.memory === 'Shared') return null;
      allocations.set(s.buffer, s);
      continue;
    }
    const leaves = unitLeaves(s);
    if (leaves === null || !leaves.every(allowedLeaf)) return null;
  }
  const all = accessesOf(loop.body);
  const globalWrites = tensorsOf(all.writes, 'Global');
  const moved = new Set<number>();
  const movedWrites = new Set<string>();
  loop.body.forEach((s, k) => {
    if (s.kind === 'Allocate') return;
    const leaves = unitLeaves(s) ?? [];
    if (leaves.length === 0 || !leaves.every(isLoadLeaf)) return;
    const { writes, reads } = accessesOf([s]);
    if ([...tensorsOf(reads, 'Global')].some((t) => globalWrites.has(t))) return;
    if ([...tensorsOf(reads, 'Local')].some((t) => !movedWrites.has(t))) return;
    if (writes.some((w) => !allocations.has(w.tensor))) return;
    moved.add(k);
    for (const w of writes) movedWrites.add(w.tensor);
  });
  // Each element's slot must keep the buffer's alignment (vector accesses into it).
  const misaligned = (b: string): boolean => {
    const a = allocations.get(b) as Allocate;
    return a.size % a.align !== 0;
  };
  if ([...movedWrites].some(misaligned)) return null;
  const stays = loop.body.filter((s, k) => s.kind !== 'Allocate' && !moved.has(k));
  // A buffer a moved load writes must be written by moved loads only.
  const stayWrites = tensorsOf(accessesOf(stays).writes, 'Local');
  if ([...movedWrites].some((b) => stayWrites.has(b))) return null;
  const loads = loop.body.filter((_, k) => moved.has(k));
  if (!loads.some((s) => (unitLeaves(s) ?? []).some((l) => l.kind === 'IndexedLoad'))) return null;

  // Loop-invariant ids: read once, before the loops (under the first element's predicates).
  const hoisted = new Map<string, TensorAccess>();
  const before: Stmt[] = [];
  const hoist = (l: IndexedLoad, predicates: readonly Predicate[]): IndexedLoad => {
    const id = l.index;
    if (id.kind !== 'tensor' || id.memory !== 'Global' || symbolsOf(id.index).has(loop.index)) return l;
    if (!predicates.every((p) => monotoneIn(p.index, loop.index) && !symbolsOf(p.extent).has(loop.index))) return l;
    const first = predicates.map((p) => ({ index: substituteSymbols(p.index, (n) => (n === loop.index ? iconst(0) : null)), extent: p.extent }));
    const key = `${id.tensor}[${printIndex(id.index)}] if ${first.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ')}`;
    let local = hoisted.get(key);
    if (local === undefined) {
      const buffer = fresh.next();
      local = { kind: 'tensor', tensor: buffer, dtype: id.dtype, memory: 'Local', index: iconst(0) };
      hoisted.set(key, local);
      const load: Stmt = { kind: 'LoadStore', out: local, in: id, width: 1 };
      before.push({ kind: 'Allocate', buffer, dtype: id.dtype, size: 1, align: 1 }, first.length === 0 ? load : { kind: 'IfThenElse', predicates: first, then: [load], else: [] });
    }
    return { ...l, index: local };
  };
  const loadStmts = loads.map((s): Stmt => {
    if (s.kind === 'IndexedLoad') return hoist(s, []);
    if (s.kind === 'IfThenElse') return { ...s, then: s.then.map((l) => (l.kind === 'IndexedLoad' ? hoist(l, s.predicates) : l)) };
    return s;
  });

  const expanded = new Map<string, number>();
  for (const b of movedWrites) {
    const a = allocations.get(b) as Allocate;
    expanded.set(b, a.size);
    before.push({ ...a, size: a.size * loop.extent.value });
  }
  const index = isym(loop.index, loop.extent.value);
  const rest = loop.body.filter((s, k) => !moved.has(k) && !(s.kind === 'Allocate' && expanded.has(s.buffer)));
  return [
    ...before,
    { ...loop, body: expandAccesses(loadStmts, expanded, index) },
    { ...loop, body: expandAccesses(rest, expanded, index) },
  ];
}

/** Every unrolled loop of `body` with movable indexed loads split into its loads and the rest. */
export function unrolledLoadsFirst(body: readonly Stmt[]): Stmt[] {
  const taken = new Set(accessesOf(body).writes.map((w) => w.tensor));
  let n = 0;
  const fresh: Fresh = {
    next: () => {
      while (taken.has(`nvf_id${n}`)) n += 1;
      taken.add(`nvf_id${n}`);
      return `nvf_id${n}`;
    },
  };
  return mapStmts(body, (s) => (s.kind === 'ForLoop' ? (splitLoop(s, fresh) ?? s) : s));
}
