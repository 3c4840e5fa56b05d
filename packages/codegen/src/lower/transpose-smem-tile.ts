// Optimisation pass `transpose-smem-tile` (transpose scheduler): the second-group inputs go
// through a shared-memory tile. In: the statements core lowering produced for a transpose
// schedule (scheduler/src/transpose/schedule.ts), where each block computes one tile of the
// reference output, element q of the tile (in the output's order: row r = q / tileSize1 along
// innerDim2, column c = q % tileSize1 along innerDim1) handled by thread (q / vector1) % blockDim.x
// in unroll step q / (vector1 · blockDim.x), and each second-group input is read by its cache's
// own loop nest at the top level: [unroll i] [lane k] [if predicates] cache[…] = X[index(i, tid, k)].
// Out: before that nest, the block stages the input's tile in a `__shared__` array:
//   for j (unroll): e = (j · blockDim.x + tid) · vector2; column c = e / tileSize2, row r = e % tileSize2
//     if predicates(r, c): stage[0..vector2) = vector<vector2> X[index(r, c)]   (coalesced along
//                           the input's stride-1 dim, innerDim2)
//                          tile[swizzle(r + k, c)] = stage[k] for each lane k
// then one BlockSync; the cache's loads become one vector<vector1> read of tile[swizzle(r, c)]
// per unroll step (coalesced stores of the output follow, as core lowering emitted them).
// index(r, c) and predicates(r, c) are core lowering's own expressions with the loop indices
// substituted for the element (r, c): unroll i → Q / blockDim.x, threadIdx.x → Q % blockDim.x,
// lane k → c % vector1, Q = r · (tileSize1 / vector1) + c / vector1 — so the tile is indexed
// exactly as core lowering indexes the element, divisible or not.
// Swizzle: rows of tileSize1 elements, in chunks of vector1 elements; chunk (c / vector1) of row r
// is stored at chunk (c / vector1 + r / vector2) mod (tileSize1 / vector1). The staging stores of
// a warp (vector2 rows per thread, tileSize2 / vector2 threads per column) then fall in distinct
// banks, and each quarter-warp's vector reads cover one row's chunks once (bank-conflict free).
// Invariant: every element of the tile a thread reads was written before the BlockSync that
// precedes the read, by the staging of the same block, at the position the reader computes.

import type { TransposeTileOptions } from '@tsfuser/scheduler';
import { LoweringError } from '../errors.js';
import { iadd, iconst, idiv, imod, imul, isym, sameIndex, substituteSymbols, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Predicate, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';

type LoadStore = Extract<Stmt, { kind: 'LoadStore' }>;
type ForLoop = Extract<Stmt, { kind: 'ForLoop' }>;

/** The tile shape of a transpose kernel. */
export interface TileGeometry {
  tile1: number;
  tile2: number;
  vector1: number;
  vector2: number;
  threads: number;
}

export function tileGeometry(t: TransposeTileOptions): TileGeometry {
  return { tile1: t.tile1, tile2: t.tile2, vector1: t.vector1, vector2: t.vector2, threads: t.threads };
}

/** Shared-memory position of tile element (row, column) (the swizzle of the file header). */
export function swizzledTileIndex(g: TileGeometry, row: IndexExpr, column: IndexExpr): IndexExpr {
  const chunks = g.tile1 / g.vector1;
  const chunk = imod(iadd(idiv(column, iconst(g.vector1)), idiv(row, iconst(g.vector2))), iconst(chunks));
  return iadd(iadd(imul(row, iconst(g.tile1)), imul(chunk, iconst(g.vector1))), imod(column, iconst(g.vector1)));
}

interface StagedLoad {
  /** The loops around the load, outermost first (unroll step, then lane, each only when > 1). */
  loops: ForLoop[];
  predicates: Predicate[];
  load: LoadStore;
}

/** The cache load of global `name` inside top-level statement `s`, or null. */
function matchLoad(s: Stmt, name: string): StagedLoad | null {
  const loops: ForLoop[] = [];
  const predicates: Predicate[] = [];
  let cur: Stmt = s;
  for (;;) {
    if (cur.kind === 'ForLoop' && cur.body.length === 1 && cur.body[0] !== undefined) {
      loops.push(cur);
      cur = cur.body[0];
    } else if (cur.kind === 'IfThenElse' && cur.else.length === 0 && cur.then.length === 1 && cur.then[0] !== undefined) {
      predicates.push(...cur.predicates);
      cur = cur.then[0];
    } else {
      break;
    }
  }
  if (cur.kind !== 'LoadStore' || cur.in.memory !== 'Global' || cur.in.tensor !== name || cur.out.memory !== 'Local') return null;
  return { loops, predicates, load: cur };
}

function mentions(s: Stmt, name: string): boolean {
  switch (s.kind) {
    case 'ForLoop':
      return s.body.some((x) => mentions(x, name));
    case 'IfThenElse':
      return [...s.then, ...s.else].some((x) => mentions(x, name));
    case 'LoadStore':
      return s.in.tensor === name || s.out.tensor === name;
    default:
      return false;
  }
}

/** Symbol substitution mapping the compute-phase loop indices to tile element (row, column). */
function elementSubstitution(g: TileGeometry, staged: StagedLoad, row: IndexExpr, column: IndexExpr): (name: string) => IndexExpr | null {
  const q = iadd(imul(row, iconst(g.tile1 / g.vector1)), idiv(column, iconst(g.vector1)));
  const unroll = (g.tile1 * g.tile2) / (g.vector1 * g.threads);
  const [first, second] = staged.loops;
  const unrollLoop = unroll > 1 ? first : undefined;
  const laneLoop = g.vector1 > 1 ? (unroll > 1 ? second : first) : undefined;
  const map = new Map<string, IndexExpr>([['threadIdx.x', imod(q, iconst(g.threads))]]);
  if (unrollLoop !== undefined) map.set(unrollLoop.index, idiv(q, iconst(g.threads)));
  if (laneLoop !== undefined) map.set(laneLoop.index, imod(column, iconst(g.vector1)));
  return (name) => map.get(name) ?? null;
}

/** `e` with every `(x / n) · n + x % n` folded back to x (what substituting Q / n and Q % n leaves). */
export function foldDivMod(e: IndexExpr): IndexExpr {
  if (e.kind === 'const' || e.kind === 'sym') return e;
  const a = foldDivMod(e.a);
  const b = foldDivMod(e.b);
  if (e.kind === 'add' && a.kind === 'mul' && a.a.kind === 'div' && b.kind === 'mod' && sameIndex(a.a.a, b.a) && sameIndex(a.a.b, b.b) && sameIndex(a.b, b.b)) return a.a.a;
  switch (e.kind) {
    case 'add':
      return iadd(a, b);
    case 'mul':
      return imul(a, b);
    case 'div':
      return idiv(a, b);
    case 'mod':
      return imod(a, b);
    default: {
      const unreachable: never = e;
      throw new Error(`unknown index expression ${String(unreachable)}`);
    }
  }
}

function substitute(e: IndexExpr, by: (name: string) => IndexExpr | null): IndexExpr {
  return foldDivMod(substituteSymbols(e, by));
}

function substitutePredicates(ps: readonly Predicate[], by: (name: string) => IndexExpr | null): Predicate[] {
  return ps.map((p) => ({ index: substitute(p.index, by), extent: substitute(p.extent, by) }));
}

function guarded(predicates: Predicate[], body: Stmt[]): Stmt[] {
  return predicates.length === 0 ? body : [{ kind: 'IfThenElse', predicates, then: body, else: [] }];
}

/** The staging statements of one input: global tile → shared tile (file header). */
function stagingStmts(g: TileGeometry, staged: StagedLoad, tile: string, stage: string, n: number): Stmt[] {
  const dtype = staged.load.in.dtype;
  const steps = (g.tile1 * g.tile2) / (g.vector2 * g.threads);
  const j = steps > 1 ? isym(`tj${n}`, steps) : iconst(0);
  const tid = isym('threadIdx.x', g.threads);
  const e = imul(iadd(imul(j, iconst(g.threads)), tid), iconst(g.vector2));
  const column = idiv(e, iconst(g.tile2));
  const row = imod(e, iconst(g.tile2));
  const by = elementSubstitution(g, staged, row, column);
  const source: TensorAccess = { ...staged.load.in, index: substitute(staged.load.in.index, by) };
  const stageAt = (k: IndexExpr): TensorAccess => ({ kind: 'tensor', tensor: stage, dtype, memory: 'Local', index: k });
  const tileAt = (k: IndexExpr): TensorAccess => ({ kind: 'tensor', tensor: tile, dtype, memory: 'Shared', index: swizzledTileIndex(g, iadd(row, k), column) });
  const k = g.vector2 > 1 ? isym(`tk${n}`, g.vector2) : iconst(0);
  const store: Stmt = { kind: 'LoadStore', out: tileAt(k), in: stageAt(k), width: 1 };
  const body: Stmt[] = guarded(substitutePredicates(staged.predicates, by), [
    { kind: 'LoadStore', out: stageAt(iconst(0)), in: source, width: g.vector2 },
    g.vector2 > 1 ? { kind: 'ForLoop', index: `tk${n}`, extent: iconst(g.vector2), unroll: true, body: [store] } : store,
  ]);
  const loop: Stmt[] = steps > 1 ? [{ kind: 'ForLoop', index: `tj${n}`, extent: iconst(steps), unroll: true, body }] : body;
  return [{ kind: 'Allocate', buffer: stage, dtype, size: g.vector2, align: g.vector2 }, ...loop];
}

/** The compute-phase read of the tile replacing the cache's global loads (one vector per unroll step). */
function tileRead(g: TileGeometry, staged: StagedLoad, tile: string): Stmt {
  const unroll = (g.tile1 * g.tile2) / (g.vector1 * g.threads);
  const unrollLoop = unroll > 1 ? staged.loops[0] : undefined;
  const q = iadd(imul(unrollLoop === undefined ? iconst(0) : isym(unrollLoop.index, unroll), iconst(g.threads)), isym('threadIdx.x', g.threads));
  const chunks = g.tile1 / g.vector1;
  const row = idiv(q, iconst(chunks));
  const column = imul(imod(q, iconst(chunks)), iconst(g.vector1));
  const laneLoop = g.vector1 > 1 ? staged.loops[unrollLoop === undefined ? 0 : 1] : undefined;
  const lane0 = (name: string): IndexExpr | null => (laneLoop !== undefined && name === laneLoop.index ? iconst(0) : null);
  const read: Stmt = {
    kind: 'LoadStore',
    out: { ...staged.load.out, index: substituteSymbols(staged.load.out.index, lane0) },
    in: { kind: 'tensor', tensor: tile, dtype: staged.load.in.dtype, memory: 'Shared', index: swizzledTileIndex(g, row, column) },
    width: g.vector1,
  };
  const body = guarded(substitutePredicates(staged.predicates, lane0), [read]);
  return unrollLoop === undefined ? (body[0] as Stmt) : { ...unrollLoop, body };
}

/** Sets the alignment of local buffer `name` to at least `align` elements (vector reads into it). */
function alignBuffer(stmts: readonly Stmt[], name: string, align: number): Stmt[] {
  return stmts.map((s) => {
    if (s.kind === 'Allocate' && s.buffer === name && s.memory === undefined) return { ...s, align: Math.max(s.align, align) };
    if (s.kind === 'ForLoop') return { ...s, body: alignBuffer(s.body, name, align) };
    if (s.kind === 'IfThenElse') return { ...s, then: alignBuffer(s.then, name, align), else: alignBuffer(s.else, name, align) };
    return s;
  });
}

export function stageTransposeTiles(body: readonly Stmt[], ctx: LoweringContext, p: TransposeTileOptions): Stmt[] {
  const g = tileGeometry(p);
  if (g.tile1 % g.vector1 !== 0 || g.tile2 % g.vector2 !== 0 || ((g.tile1 * g.tile2) / g.vector1) % g.threads !== 0 || ((g.tile1 * g.tile2) / g.vector2) % g.threads !== 0) {
    throw new LoweringError(`transpose-smem-tile: tile ${g.tile2}×${g.tile1} does not split into vectors of ${g.vector1} / ${g.vector2} over ${g.threads} threads`);
  }
  let out: Stmt[] = [...body];
  const staging: Stmt[] = [];
  let first = -1;
  p.stagedInputs.forEach((position, n) => {
    const tv = ctx.fusion.inputs[position];
    if (tv === undefined || tv.kind !== 'tensorView') throw new LoweringError(`transpose-smem-tile: input ${position} is not a tensor`);
    const name = ctx.tensorName(tv);
    const at = out.findIndex((s) => mentions(s, name));
    const s = out[at];
    const staged = s === undefined ? null : matchLoad(s, name);
    const expectedLoops = ((g.tile1 * g.tile2) / (g.vector1 * g.threads) > 1 ? 1 : 0) + (g.vector1 > 1 ? 1 : 0);
    if (staged === null || staged.loops.length !== expectedLoops || out.slice(at + 1).some((x) => mentions(x, name))) {
      throw new LoweringError(`transpose-smem-tile: ${name} is not read by one cache load nest at the top level of the kernel`);
    }
    const tile = `${name}_tile`;
    staging.push({ kind: 'Allocate', buffer: tile, dtype: staged.load.in.dtype, size: g.tile1 * g.tile2, align: 16, memory: 'Shared' }, ...stagingStmts(g, staged, tile, `${name}_stage`, n));
    out[at] = tileRead(g, staged, tile);
    out = alignBuffer(out, staged.load.out.tensor, g.vector1);
    first = first < 0 ? at : Math.min(first, at);
  });
  if (first < 0) return out;
  return [...out.slice(0, first), ...staging, { kind: 'BlockSync' }, ...out.slice(first)];
}
