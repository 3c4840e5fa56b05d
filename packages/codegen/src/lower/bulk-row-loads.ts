// Optimisation pass `bulk-row-loads` (inner persistent kernels with bulkLoadRows) — rows through shared memory by bulk
// copy. A full-row input T is read by vector loads `load L ← T[rowStart + col]` spread over
// the block's threads. This pass has one thread copy the whole row with a single
// cp.async.bulk into a shared-memory buffer at the top of the kernel, and rewrites those loads
// to read the buffer at `col`:
//
//   BulkLoadIssue(T_row ← T[rowStart] × rowElements);  …row-invariant loads…;
//   BulkLoadWait(T_row);  … load L ← T_row[col] …
//
// The wait goes right before the first top-level statement that reads a buffer, so the hoisted
// row parameters' loads (issued before it) overlap the copy. A tensor qualifies when each of
// its row loads is a global → local vector load whose address splits into a part that depends
// only on the row (blockIdx.x) and a part that depends only on the thread and loop indices,
// with no stride symbol in the latter (the row is contiguous), the same row start for every
// load, 16-byte vectors, and no threadIdx.y / blockIdx.y (one row per block); the caller
// applies the pass only when the row divides into vectors. The split is checked by
// evaluating both sides at random points, not assumed. A tensor that does not qualify keeps
// its global loads.
// Invariant: every load reads the value it read before: the buffer holds exactly the row's
// elements [0, rowElements), the loads keep their predicates (so they read inside the row),
// and no thread reads a buffer before its BulkLoadWait.

import { dataTypeSize, type TensorView } from '@tsfuser/fusion-ir';
import { accessesOf, allStmts } from '../kernel-ir/effects.js';
import { mapLeaves } from '../kernel-ir/walk.js';
import { iconst, imul, sameIndex, substituteSymbols, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { BulkRowCopy, IndexLocal, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { mentionsRow } from './evict-last.js';

type LoadStore = Extract<Stmt, { kind: 'LoadStore' }>;

/** What the pass needs to know of a kernel tensor argument. */
export interface BulkRowTensor {
  /** Elements of one row (the product of the tensor's reduced extents), or null: not a row input. */
  rowElements: IndexExpr | null;
}

/**
 * The fusion inputs' kernel names with their row length: the product of the extents of the
 * logical dims in the positions a reduction reduces, for inputs of that reduction's rank whose
 * reduced positions are the innermost ones (an inner persistent fusion's full rows; positions
 * correspond because its tensors are aligned dim for dim). Other inputs: null.
 */
export function rowInputTensors(ctx: LoweringContext): Map<string, BulkRowTensor> {
  // rFactor partials have split logical domains: only reductions with their original rank count.
  const patterns = ctx.fusion
    .exprs()
    .flatMap((e) => e.outputs)
    .filter((v): v is TensorView => v.kind === 'tensorView')
    .map((tv) => tv.getLogicalDomain().map((id) => id.isReduction()))
    .filter((r) => r.includes(true));
  const out = new Map<string, BulkRowTensor>();
  for (const v of ctx.fusion.inputs) {
    if (v.kind !== 'tensorView') continue;
    const dims = v.getLogicalDomain();
    // An inner-outer fusion also reduces the rows (an outer pattern): the inner one counts.
    const isInner = (r: readonly boolean[]): boolean => r.indexOf(true) >= 0 && r.slice(r.indexOf(true)).every((x) => x);
    const reduced = patterns.find((r) => r.length === dims.length && isInner(r));
    const first = reduced?.indexOf(true) ?? -1;
    const rowElements = reduced !== undefined ? dims.slice(first).map((id) => ctx.extent(id.extent)).reduce((a, b) => imul(a, b)) : null;
    out.set(ctx.tensorName(v), { rowElements });
  }
  return out;
}

/** `e` with the named symbols set to 0 (so a zeroed term folds away). */
function zeroing(e: IndexExpr, zero: (name: string) => boolean): IndexExpr {
  return substituteSymbols(e, (n) => (zero(n) ? iconst(0) : null));
}

function evaluate(e: IndexExpr, env: ReadonlyMap<string, number>): number {
  switch (e.kind) {
    case 'const':
      return e.value;
    case 'sym':
      return env.get(e.name) ?? 0;
    case 'add':
      return evaluate(e.a, env) + evaluate(e.b, env);
    case 'mul':
      return evaluate(e.a, env) * evaluate(e.b, env);
    case 'div': {
      const d = evaluate(e.b, env);
      return d === 0 ? 0 : Math.trunc(evaluate(e.a, env) / d);
    }
    case 'mod': {
      const d = evaluate(e.b, env);
      return d === 0 ? 0 : evaluate(e.a, env) % d;
    }
    default: {
      const unreachable: never = e;
      throw new Error(`unknown index expression ${String(unreachable)}`);
    }
  }
}

export interface Split {
  rowStart: IndexExpr;
  col: IndexExpr;
}

/**
 * Splits a row load's address (see the header) into a part of the row symbols alone
 * (blockIdx.x, and a serial row loop's index) and a part of threadIdx.x and the other loop
 * indices; null when it does not split.
 */
export function splitAddress(index: IndexExpr, rowSymbols: ReadonlySet<string>, loops: ReadonlySet<string>, isStride: (name: string) => boolean): Split | null {
  const syms = symbolsOf(index);
  if (syms.has('threadIdx.y') || syms.has('blockIdx.y') || syms.has('threadIdx.z') || syms.has('blockIdx.z')) return null;
  const perThread = (n: string): boolean => n === 'threadIdx.x' || (loops.has(n) && !rowSymbols.has(n));
  const rowStart = zeroing(index, perThread);
  const col = zeroing(index, (n) => rowSymbols.has(n));
  if ([...symbolsOf(col)].some(isStride)) return null;
  // rowStart(blockIdx.x) + col(threads, loops) must equal the address everywhere: sampled.
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let k = 0; k < 8; k += 1) {
    const env = new Map<string, number>();
    for (const n of syms) env.set(n, rowSymbols.has(n) ? rand(5000) : perThread(n) ? rand(64) : 1 + rand(5000));
    if (evaluate(index, env) !== evaluate(rowStart, env) + evaluate(col, env)) return null;
  }
  return { rowStart, col };
}

/** Whether a symbol is a stride (read from a tensor's alloc_stride, directly or through an index local). */
export function strideSymbols(indexLocals: readonly IndexLocal[]): (name: string) => boolean {
  const strideLocals = new Set(indexLocals.filter((l) => l.value.includes('alloc_stride')).map((l) => l.name));
  return (n) => n.includes('alloc_stride') || strideLocals.has(n);
}

/** One row per block: blockIdx.x selects it. */
const BLOCK_ROW: ReadonlySet<string> = new Set(['blockIdx.x']);

/** `stmts` with each load of `redirect` reading its new (shared-memory) access instead. */
export function rewrite(stmts: readonly Stmt[], redirect: ReadonlyMap<LoadStore, TensorAccess>): Stmt[] {
  return mapLeaves(stmts, (s) => {
    if (s.kind !== 'LoadStore') return s;
    const to = redirect.get(s);
    return to === undefined ? s : { ...s, in: to };
  });
}

/** Whether `s` (or a statement nested in it) reads one of the shared-memory `buffers`. */
export function readsAny(s: Stmt, buffers: ReadonlySet<string>): boolean {
  return accessesOf([s]).reads.some((a) => a.memory === 'Shared' && buffers.has(a.tensor));
}

/**
 * Routes the qualifying row inputs of `body` through shared memory (see the header). Offsets
 * are left 0: layoutBulkRowCopies places the buffers once the rest of the kernel's shared
 * memory is known.
 */
export function bulkLoadRows(body: readonly Stmt[], tensors: ReadonlyMap<string, BulkRowTensor>, capacity: number, indexLocals: readonly IndexLocal[]): Stmt[] {
  const stmts = allStmts(body);
  const loops = new Set(stmts.flatMap((s) => (s.kind === 'ForLoop' ? [s.index] : [])));
  const isStride = strideSymbols(indexLocals);
  const byTensor = new Map<string, LoadStore[]>();
  const rowLoads = stmts.filter((s): s is LoadStore => s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1 && mentionsRow(s.in.index));
  for (const l of rowLoads) byTensor.set(l.in.tensor, [...(byTensor.get(l.in.tensor) ?? []), l]);
  const redirect = new Map<LoadStore, TensorAccess>();
  const copies: BulkRowCopy[] = [];
  for (const [tensor, loads] of byTensor) {
    const elements = tensors.get(tensor)?.rowElements ?? null;
    // 16-byte vectors keep every row start 16-byte aligned and every row a multiple of 16 bytes (with the divisible vector split), as cp.async.bulk requires.
    if (elements === null || loads.some((l) => l.width * dataTypeSize(l.in.dtype) !== 16)) continue;
    const splits = loads.map((l) => splitAddress(l.in.index, BLOCK_ROW, loops, isStride));
    const first = splits[0];
    if (first === undefined || first === null || splits.some((s) => s === null || !sameIndex(s.rowStart, first.rowStart))) continue;
    const buffer = `${tensor}_row`;
    const dtype = (loads[0] as LoadStore).in.dtype;
    loads.forEach((l, i) => redirect.set(l, { kind: 'tensor', tensor: buffer, dtype, memory: 'Shared', index: (splits[i] as Split).col }));
    copies.push({ buffer, dtype, source: { kind: 'tensor', tensor, dtype, memory: 'Global', index: first.rowStart }, elements, capacity, sharedOffset: 0, barrierOffset: 0 });
  }
  if (copies.length === 0) return [...body];
  const rewritten = rewrite(body, redirect);
  const buffers = new Set(copies.map((c) => c.buffer));
  const at = rewritten.findIndex((s) => readsAny(s, buffers));
  if (at < 0) return [...body];
  return [
    { kind: 'BulkLoadIssue', copies },
    ...rewritten.slice(0, at),
    { kind: 'BulkLoadWait', buffers: [...buffers] },
    ...rewritten.slice(at),
  ];
}

/**
 * Places the row buffers after the first `usedBytes` of dynamic shared memory (128-byte
 * aligned; a multi-stage buffer's slots one after another, each `bytesOf` bytes; then one 8-byte
 * mbarrier per slot) and returns the body with the offsets filled in and the kernel's total
 * dynamic shared memory.
 */
export function layoutBulkRowCopies(body: readonly Stmt[], usedBytes: number, bytesOf: (c: BulkRowCopy) => number): { body: Stmt[]; bytes: number } {
  let offset = Math.ceil(usedBytes / 128) * 128;
  const out = body.map((s) => {
    if (s.kind !== 'BulkLoadIssue') return s;
    const placed = s.copies.map((c) => {
      const sharedOffset = offset;
      // Slots stay 16-byte aligned: the row bytes are a multiple of 16 (cp.async.bulk requires it).
      offset = Math.ceil((offset + bytesOf(c) * (c.stages ?? 1)) / 128) * 128;
      return { ...c, sharedOffset };
    });
    return {
      ...s,
      copies: placed.map((c) => {
        const barrierOffset = offset;
        offset += 8 * (c.stages ?? 1);
        return { ...c, barrierOffset };
      }),
    };
  });
  return { body: out, bytes: offset };
}
