// Core pass `grid-outer-step` (and part of `expr-lowering`) — grid outer reductions (inner-outer persistent kernels: grad_weight / grad_bias of
// layer_norm backward). A ReductionOp whose loop domain reduces over blockIdx.x is one: the
// scheduler (inner-outer-persistent/schedule.ts) gives it [rBIDx, rS, TIDx, B, vec] — reduced
// over the persistent grid's blocks and the serial row loop, kept over the row's positions.
// It lowers to
//   * init: accumulator = identity, in fresh loops of its kept positions, at kernel start
//     (loop-nest.ts places it; the accumulator, B·vec registers, is allocated at top level);
//   * update: a serial accumulation in the row loop's shared loops, predicated by the point's
//     predicates (rows past the end and padded columns are skipped);
//   * final: GridOuterStore of each accumulator to the work buffer at
//     [blockIdx.x, column], in fresh loops after the row loop; with several rows per block
//     ([rBIDx, rS, rTIDy, TIDx, B, vec]: each threadIdx.y accumulated its own rows) the
//     accumulators are first combined across threadIdx.y by a BlockReduce into a fresh
//     register (every thread calls it: the fresh loops are uniform and no `if` encloses it),
//     and only threadIdx.y 0 stores;
//   * one GridOuterReduce at the end of the kernel: grid barrier, then every block combines a
//     slice of the columns into the output (through the casts/copies between the reduction and
//     its fusion output, which get no statements of their own).
// Invariant: every grid outer reduction feeds a contiguous fusion output only, through casts,
// copies or a keepdim broadcast;
// its work buffer holds gridDim.x × (output elements) partials in the accumulation dtype.

import type { Expr, ReductionOp, TensorView } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iconst, imul, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { accumulationDtype, blockReducedDims, initOperand, threadPredicates, type ReductionLoweringEnv } from './reductions.js';

export interface GridOuterReductionInfo {
  expr: ReductionOp;
  /** The reduction's output (a Local accumulator). */
  reduction: TensorView;
  /** Casts / copies from the reduction to its fusion output (lowered by the grid step). */
  chain: Expr[];
  output: TensorView;
}

function reducesOverBlockX(tv: TensorView): boolean {
  return tv.domain.loop.some((id) => id.isReduction() && id.parallelType === 'BIDx');
}

/** The grid outer reductions of the scheduled fusion, in topological order. */
export function gridOuterReductions(ctx: LoweringContext): GridOuterReductionInfo[] {
  const live = new Set(ctx.fusion.exprs());
  const result: GridOuterReductionInfo[] = [];
  for (const e of ctx.fusion.exprs()) {
    const out = e.outputs[0];
    if (e.kind !== 'ReductionOp' || out === undefined || out.kind !== 'tensorView' || !reducesOverBlockX(out)) continue;
    const shapeOk = out.nDims() === ctx.positions && out.axis(0).isReduction() && out.axis(0).parallelType === 'BIDx';
    if (!shapeOk) throw new LoweringError(`T${out.name}: a reduction over blockIdx.x must be a grid outer reduction [rBIDx, rS, ...kept] of an inner-outer persistent schedule`);
    const chain: Expr[] = [];
    let cur: TensorView = out;
    while (!ctx.fusion.outputs.includes(cur)) {
      const uses = cur.uses.filter((u) => live.has(u));
      const u = uses[0];
      const next = u?.outputs[0];
      // A keepdim broadcast adds size-1 dims only: the same elements in the same order.
      const copy = u !== undefined && uses.length === 1 && ((u.kind === 'UnaryOp' && u.op === 'cast') || u.kind === 'LoadStoreOp' || u.kind === 'BroadcastOp');
      if (!copy || next === undefined || next.kind !== 'tensorView') {
        throw new LoweringError(`T${out.name}: a grid outer reduction may only be cast or copied to a fusion output (used by ${uses.map((x) => x.kind).join(', ') || 'nothing'})`);
      }
      chain.push(u);
      cur = next;
    }
    result.push({ expr: e, reduction: out, chain, output: cur });
  }
  return result;
}

export function gridOuterWorkName(ctx: LoweringContext, tv: TensorView): string {
  return `${ctx.kernelName}_T${tv.name}_outer_work`;
}

export function gridOuterSemaphoreName(ctx: LoweringContext): string {
  return `${ctx.kernelName}_outer_sem`;
}

/** Elements of the output (the columns of the work buffer). */
function outputElements(ctx: LoweringContext, output: TensorView): IndexExpr {
  let n: IndexExpr = iconst(1);
  for (const id of output.domain.logicalNoReductions()) if (!id.isBroadcast()) n = imul(n, ctx.extent(id.extent));
  return n;
}

/** The serial accumulation inside the row loop (skipping out-of-range points). */
export function lowerGridOuterUpdate(expr: ReductionOp, env: ReductionLoweringEnv): Stmt {
  const out = expr.out() as TensorView;
  const input = expr.in();
  if (input.kind !== 'tensorView') throw new LoweringError(`reduction producing T${out.name} has no tensor input`);
  const op = expr.op === 'add' ? 'add' : expr.op === 'mul' ? 'mul' : expr.op === 'max' ? 'maximum' : 'minimum';
  const acc = env.access(out);
  const update: Stmt = { kind: 'Compute', out: acc, op: { family: 'binary', op }, operands: [acc, env.access(input)], computeDtype: acc.dtype };
  const count = env.groups.loopCount(out);
  const preds = env.predicates((ps) => ps.every((p) => p < count));
  return preds.length === 0 ? update : { kind: 'IfThenElse', predicates: preds, then: [update], else: [] };
}

/** The per-block partial of one column, stored to the work buffer (in the fresh final loops). */
export function lowerGridOuterStore(info: GridOuterReductionInfo, env: ReductionLoweringEnv): Stmt | Stmt[] {
  const out = info.reduction;
  const column = env.access(info.output).index;
  const acc = env.access(out);
  // Only the kept positions index this point: guard padded columns and threads.
  const preds = env.predicates((ps) => ps.every((p) => !out.axis(p).isReduction()));
  const acrossY = blockReducedDims(env.groups, out).includes('TIDy');
  const partial: TensorAccess = acrossY ? { kind: 'tensor', tensor: `${env.ctx.tensorName(out)}_block`, dtype: acc.dtype, memory: 'Local', index: iconst(0) } : acc;
  const store: Stmt = {
    kind: 'GridOuterStore',
    work: gridOuterWorkName(env.ctx, out),
    column,
    columns: outputElements(env.ctx, info.output),
    in: partial,
    accDtype: accumulationDtype(out.dtype),
  };
  if (!acrossY) return preds.length === 0 ? store : { kind: 'IfThenElse', predicates: preds, then: [store], else: [] };
  const init = initOperand(info.expr);
  return [
    { kind: 'Allocate', buffer: partial.tensor, dtype: acc.dtype, size: 1, align: 1 },
    { kind: 'ReductionInit', out: partial, value: init },
    {
      kind: 'BlockReduce',
      out: partial,
      in: acc,
      op: info.expr.op,
      init,
      accDtype: accumulationDtype(out.dtype),
      reduceDims: ['TIDy'],
      readPredicates: preds,
      writePredicates: preds,
    },
    { kind: 'IfThenElse', predicates: [...preds, ...threadPredicates(['threadIdx.y'])], then: [store], else: [] },
  ];
}

/** The grid step at the end of the kernel (barrier + column reduction of every work buffer). */
export function gridOuterReduceStmt(ctx: LoweringContext, infos: readonly GridOuterReductionInfo[]): Stmt {
  const accs = new Set(infos.map((i) => accumulationDtype(i.reduction.dtype)));
  const accDtype = accs.size === 1 ? (accs.values().next().value as ReturnType<typeof accumulationDtype>) : null;
  if (accDtype === null) throw new LoweringError(`grid outer reductions of one kernel accumulate in different dtypes (${[...accs].join(', ')})`);
  return {
    kind: 'GridOuterReduce',
    semaphore: gridOuterSemaphoreName(ctx),
    accDtype,
    reductions: infos.map((i) => ({
      work: gridOuterWorkName(ctx, i.reduction),
      out: ctx.tensorName(i.output),
      outDtype: i.output.dtype,
      op: i.expr.op,
      init: initOperand(i.expr),
      columns: outputElements(ctx, i.output),
    })),
  };
}
