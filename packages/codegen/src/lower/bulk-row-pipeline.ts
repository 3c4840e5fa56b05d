// Optimisation pass `bulk-row-pipeline` (inner-outer persistent kernels with bulkLoadRows) — each block's rows through shared
// memory by bulk copy, the next row's copy in flight while the block works on this one. A block
// of an inner-outer kernel walks its rows in a serial loop, and each row's vector loads of the
// full-row inputs (grad_out, x) used to start only after the previous row's reductions and
// stores: with two blocks per SM too few bytes were in flight to cover the memory latency.
// Registers cannot hold a second row (prefetchNextRow costs blocks per SM); shared memory can.
// The pass rewrites
//
//   for r:  { …; load L ← T[rowStart(r) + col]; …reduce, compute, store… }
// into
//   BulkLoadIssue(T_row ← T[rowStart(0)] × rowElements, if row 0 is valid)
//   for r:  { …; BulkLoadWait(T_row, phase parity r, if row r is valid);
//             load L ← T_row[col];
//             BulkLoadReissue(T_row ← T[rowStart(r + 1)], if r + 1 < rows per block and row r + 1 is valid);
//             …reduce, compute, store… }
//
// where the reissue follows the last statement that reads a buffer (it starts with a
// __syncthreads, so no thread still reads the buffer the copy overwrites).
// With S > 1 stages (a circular buffer of S row slots, each with its own mbarrier) the copies of
// rows 0 .. S−1 are issued before the loop, row r is read from slot r mod S (waiting on that
// slot's phase of parity ⌊r / S⌋), and the reissue copies row r + S into the slot row r just
// left: S rows of every block are in flight instead of one, where one row's latency is longer
// than a row's reductions and stores (16-bit rows at two blocks per SM). A row's validity is
// the load predicates that depend on the row alone (row < rows, where the rows do not divide
// among the blocks); every copy and wait is guarded by it, so each barrier completes exactly
// one phase per valid row, in order, and row r waits on phase r (slot r mod S: phase ⌊r / S⌋). The loads qualify as in bulk-row-loads
// (bulk-row-loads.ts): global → local 16-byte vector loads whose address splits into a part of
// blockIdx.x and the row loop's index and a part of threadIdx.x and the other loop indices with
// no stride in it, the same row start for every load of the tensor. The weight (no row in its
// address) keeps its global loads.
// Invariant: every load reads the value it read before: the buffer holds exactly row r's
// elements when row r's loads read it (waited for, not yet overwritten), the loads keep their
// predicates, and the copies read only valid rows of the block's own chunk.

import { dataTypeSize } from '@tsfuser/fusion-ir';
import { allStmts, containsReduction } from '../kernel-ir/effects.js';
import { iadd, iconst, idiv, imod, imul, isym, printIndex, sameIndex, substituteSymbols, symbolsOf, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { BulkRowCopy, IndexLocal, Predicate, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import { readsAny, rewrite, splitAddress, strideSymbols, type BulkRowTensor, type Split } from './bulk-row-loads.js';

type LoadStore = Extract<Stmt, { kind: 'LoadStore' }>;
type ForLoop = Extract<Stmt, { kind: 'ForLoop' }>;

/** A row load of the loop body with the predicates of the branches around it. */
interface GuardedLoad {
  load: LoadStore;
  guards: Predicate[];
}

/** The global → local vector loads of `stmts` (at any depth), each with its enclosing predicates. */
function vectorLoads(stmts: readonly Stmt[], guards: Predicate[], out: GuardedLoad[]): GuardedLoad[] {
  for (const s of stmts) {
    if (s.kind === 'LoadStore' && s.in.memory === 'Global' && s.out.memory === 'Local' && s.width > 1) out.push({ load: s, guards });
    else if (s.kind === 'ForLoop') vectorLoads(s.body, guards, out);
    else if (s.kind === 'IfThenElse') {
      vectorLoads(s.then, [...guards, ...s.predicates], out);
      vectorLoads(s.else, guards, out);
    }
  }
  return out;
}

const predicateKey = (p: Predicate): string => `${printIndex(p.index)} < ${printIndex(p.extent)}`;

/** The predicates of `guards` that depend on the row alone: no thread index, no loop index but the row loop's. */
function rowPredicates(guards: readonly Predicate[], row: string, loops: ReadonlySet<string>): Predicate[] {
  const perThread = (n: string): boolean => n.startsWith('threadIdx.') || (loops.has(n) && n !== row);
  return guards.filter((p) => ![...symbolsOf(p.index), ...symbolsOf(p.extent)].some(perThread));
}

function atRow(e: IndexExpr, row: string, by: IndexExpr): IndexExpr {
  return substituteSymbols(e, (n) => (n === row ? by : null));
}

function predicatesAtRow(ps: readonly Predicate[], row: string, by: IndexExpr): Predicate[] {
  return ps.map((p) => ({ index: atRow(p.index, row, by), extent: atRow(p.extent, row, by) }));
}

/** The copies of row `by` (into slot `stage` of multi-stage buffers). */
function copiesAtRow(copies: readonly BulkRowCopy[], row: string, by: IndexExpr, stage: IndexExpr | null): BulkRowCopy[] {
  return copies.map((c) => ({ ...c, source: { ...c.source, index: atRow(c.source.index, row, by) }, ...(stage === null ? {} : { stage }) }));
}

/**
 * Pipelines the qualifying row inputs of the kernel body's row loop (the top-level serial loop
 * that holds the block reductions) through shared memory (see the header). `capacity`: the
 * elements of a row the block's threads hold. Returns the body unchanged when there is no such
 * loop, no qualifying load, or the loads disagree on which rows are valid. `stages`: the row
 * slots of each buffer (1: the next row only).
 */
export function pipelineBulkRowLoads(body: readonly Stmt[], tensors: ReadonlyMap<string, BulkRowTensor>, capacity: number, indexLocals: readonly IndexLocal[], stages = 1): Stmt[] {
  if (!Number.isInteger(stages) || stages < 1) throw new Error(`bulk-row-pipeline: ${stages} stages (a positive integer)`);
  const at = body.findIndex((s) => s.kind === 'ForLoop' && containsReduction(s.body));
  const loop = body[at];
  if (loop === undefined || loop.kind !== 'ForLoop') return [...body];
  const row = loop.index;
  const loops = new Set([row, ...allStmts(loop.body).flatMap((s) => (s.kind === 'ForLoop' ? [s.index] : []))]);
  const isStride = strideSymbols(indexLocals);
  const rowSymbols = new Set(['blockIdx.x', row]);
  const byTensor = new Map<string, GuardedLoad[]>();
  for (const g of vectorLoads(loop.body, [], [])) {
    if (!symbolsOf(g.load.in.index).has(row)) continue;
    byTensor.set(g.load.in.tensor, [...(byTensor.get(g.load.in.tensor) ?? []), g]);
  }
  const redirect = new Map<LoadStore, TensorAccess>();
  const copies: BulkRowCopy[] = [];
  let valid: Predicate[] | null = null;
  for (const [tensor, loads] of byTensor) {
    const elements = tensors.get(tensor)?.rowElements ?? null;
    if (elements === null || loads.some((g) => g.load.width * dataTypeSize(g.load.in.dtype) !== 16)) continue;
    const splits = loads.map((g) => splitAddress(g.load.in.index, rowSymbols, loops, isStride));
    const first = splits[0];
    if (first === undefined || first === null || splits.some((s) => s === null || !sameIndex(s.rowStart, first.rowStart))) continue;
    // Every load of every copied tensor must agree on which rows are valid: one guard for all copies.
    for (const g of loads) {
      const mine = rowPredicates(g.guards, row, loops);
      if (valid === null) valid = mine;
      else if (mine.map(predicateKey).sort().join(' && ') !== valid.map(predicateKey).sort().join(' && ')) return [...body];
    }
    const buffer = `${tensor}_row`;
    const dtype = loads[0]?.load.in.dtype ?? 'Float';
    // Row r lives in slot r mod S of a multi-stage buffer.
    const slotStart = stages === 1 ? null : imul(imod(isym(row), iconst(stages)), iconst(capacity));
    loads.forEach((g, i) => {
      const col = (splits[i] as Split).col;
      redirect.set(g.load, { kind: 'tensor', tensor: buffer, dtype, memory: 'Shared', index: slotStart === null ? col : iadd(slotStart, col) });
    });
    copies.push({
      buffer, dtype, source: { kind: 'tensor', tensor, dtype, memory: 'Global', index: first.rowStart }, elements, capacity, sharedOffset: 0, barrierOffset: 0,
      ...(stages === 1 ? {} : { stages }),
    });
  }
  if (copies.length === 0 || valid === null) return [...body];
  const rowValid = valid;
  const rewritten = rewrite(loop.body, redirect);
  const buffers = new Set(copies.map((c) => c.buffer));
  const firstRead = rewritten.findIndex((s) => readsAny(s, buffers));
  const lastRead = rewritten.length - 1 - [...rewritten].reverse().findIndex((s) => readsAny(s, buffers));
  if (firstRead < 0) return [...body];
  const next = iadd(isym(row), iconst(stages));
  const slot = stages === 1 ? null : imod(isym(row), iconst(stages));
  // Not past the block's own rows (the next block copies its first rows itself), nor past the tensor.
  const rowCopied = (r: IndexExpr): Predicate[] => [{ index: r, extent: loop.extent }, ...predicatesAtRow(rowValid, row, r)];
  const loopBody: Stmt[] = [
    ...rewritten.slice(0, firstRead),
    {
      kind: 'BulkLoadWait', buffers: [...buffers], parity: stages === 1 ? isym(row) : idiv(isym(row), iconst(stages)), predicates: rowValid,
      ...(slot === null ? {} : { stage: slot }),
    },
    ...rewritten.slice(firstRead, lastRead + 1),
    { kind: 'BulkLoadReissue', copies: copiesAtRow(copies, row, next, slot), predicates: rowCopied(next) },
    ...rewritten.slice(lastRead + 1),
  ];
  const pipelined: ForLoop = { ...loop, body: loopBody };
  const zero = iconst(0);
  // The prologue: row 0 into slot 0, rows 1 .. S−1 into their slots (each where the block has it).
  const ahead = Array.from({ length: stages - 1 }, (_, k) => ({ copies: copiesAtRow(copies, row, iconst(k + 1), iconst(k + 1)), predicates: rowCopied(iconst(k + 1)) }));
  return [
    ...body.slice(0, at),
    {
      kind: 'BulkLoadIssue', copies: copiesAtRow(copies, row, zero, stages === 1 ? null : zero), predicates: predicatesAtRow(rowValid, row, zero),
      ...(ahead.length === 0 ? {} : { ahead }),
    },
    pipelined,
    ...body.slice(at + 1),
  ];
}
