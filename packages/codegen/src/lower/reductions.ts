// Part of `expr-lowering` — reductions (used by expression lowering). A ReductionOp placed in the loop nest
// becomes, for its output R:
//   * init (the 'init' leaf, outside R's reduction loops): R = identity of the op;
//   * update, when R's reduction positions are serial loops or trivial: R = R ⊕ in, guarded by
//     the predicates of the point (an out-of-range element is skipped, i.e. combined as the
//     identity);
//   * update, when a reduction position of R is bound to threadIdx.x/y (the block-reduced
//     tensor after rFactor): one BlockReduce that every thread executes — its point predicates
//     become the read predicate (out-of-range threads contribute the identity) and the write
//     predicate (minus any predicate on the reduced thread dims), never an `if` around it;
//   * with a reduction position on blockIdx.y too: one GridReduce (block reduction, partials
//     through a global work buffer, the last block of the row combines them).
// (WelfordOp lowers alike through welford.ts.)
// Tensors computed from a block-reduced value are valid in the thread whose reduced indices
// are 0 only: their statements are guarded by `threadIdx.x < 1` (thread predicates), and after
// a grid reduction also by `T<n>_grid_pending < 1` (only the last block has the result).
// A block reduction whose result every thread needs (allreduce.ts: persistent normalization)
// is marked `allreduce`: all threads receive the result, so its consumers take no thread
// predicate.
// Invariant: no `if` encloses a BlockReduce or GridReduce (they synchronize the block).

import { isFloat8Type, type DataType, type ReductionOp, type TensorView } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iconst, isym } from '../kernel-ir/index-expr.js';
import type { Predicate, ScalarOperand, Stmt, TensorAccess } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';
import { allreduceTensors } from './allreduce.js';
import type { LoopGroups } from './loop-groups.js';
import { scalarLiteral } from './scalar-literal.js';

type ThreadDim = 'TIDx' | 'TIDy';
const BUILTIN: Record<ThreadDim, string> = { TIDx: 'threadIdx.x', TIDy: 'threadIdx.y' };

/** The thread dims a reduction output's loop reduces over (empty: serial / trivial only). */
export function blockReducedDims(groups: LoopGroups, tv: TensorView): ThreadDim[] {
  return parallelReduction(groups, tv).threads;
}

/** The parallel dims a reduction output's loop reduces over: threads, and blockIdx.y. */
export function parallelReduction(groups: LoopGroups, tv: TensorView): { threads: ThreadDim[]; grid: boolean } {
  const threads: ThreadDim[] = [];
  let grid = false;
  const count = groups.loopCount(tv);
  for (let p = 0; p < count; p += 1) {
    if (!(groups.axisAt(tv, p)?.isReduction() ?? false)) continue;
    const k = groups.kinds[p];
    if (k === undefined || k.kind !== 'parallel') continue;
    if (k.parallelType === 'TIDx' || k.parallelType === 'TIDy') threads.push(k.parallelType);
    else if (k.parallelType === 'BIDy') grid = true;
    // Over blockIdx.x: a grid outer reduction, lowered by grid-outer-reduction.ts on its own.
    else if (k.parallelType === 'BIDx') continue;
    else throw new LoweringError(`T${tv.name}: reduction over ${k.parallelType} is not supported (grid reductions use blockIdx.y)`);
  }
  return { threads, grid };
}

/** Name of the flag that is 0 only in the block that finished a grid reduction of `tv`. */
export function gridPendingName(ctx: LoweringContext, tv: TensorView): string {
  return `${ctx.tensorName(tv)}_grid_pending`;
}

/** Reference positions of R's serial reduction loops. */
export function serialReductionPositions(groups: LoopGroups, tv: TensorView): number[] {
  const out: number[] = [];
  const count = groups.loopCount(tv);
  for (let p = 0; p < count; p += 1) if ((groups.axisAt(tv, p)?.isReduction() ?? false) && groups.kinds[p]?.kind === 'loop') out.push(p);
  return out;
}

/** The type partial values of a reduction to `d` are combined in. */
export function accumulationDtype(d: DataType): DataType {
  return d === 'Half' || d === 'BFloat16' || isFloat8Type(d) ? 'Float' : d;
}

/** The identity of the op as C text (the most negative int64 has no literal of its own). */
export function initOperand(expr: ReductionOp): ScalarOperand {
  const init = expr.init;
  if (init.value === null) throw new LoweringError(`reduction init ${init.symbolicName()} is not a constant`);
  let text = scalarLiteral(init.value, init.dtype);
  if (text === '-9223372036854775808LL') text = '(-9223372036854775807LL - 1LL)';
  if (text === '-2147483648') text = '(-2147483647 - 1)';
  return { kind: 'scalar', text, dtype: init.dtype };
}

/**
 * Thread predicates: for each tensor computed from a block-reduced value, the thread builtins
 * that must be 0 for the value to be valid.
 */
export function threadPredicateMap(ctx: LoweringContext, groups: LoopGroups): Map<TensorView, string[]> {
  const map = new Map<TensorView, string[]>();
  const everywhere = allreduceTensors(ctx, groups);
  for (const e of ctx.fusion.exprs()) {
    const out = e.outputs[0];
    if (out === undefined || out.kind !== 'tensorView') continue;
    const inherited = new Set<string>();
    if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') {
      for (const v of e.inputs) if (v.kind === 'tensorView') for (const b of map.get(v) ?? []) inherited.add(b);
    } else {
      const red = parallelReduction(groups, out);
      if (!everywhere.has(out)) for (const d of red.threads) inherited.add(BUILTIN[d]);
      if (red.grid) inherited.add(gridPendingName(ctx, out));
    }
    if (inherited.size > 0) for (const o of e.outputs) if (o.kind === 'tensorView') map.set(o, [...inherited].sort());
  }
  return map;
}

export function threadPredicates(builtins: readonly string[]): Predicate[] {
  return builtins.map((b) => ({ index: isym(b), extent: iconst(1) }));
}

export interface ReductionLoweringEnv {
  ctx: LoweringContext;
  groups: LoopGroups;
  access(tv: TensorView): TensorAccess;
  /** Point predicates whose index depends only on positions accepted by `usable`. */
  predicates(usable: (positions: readonly number[]) => boolean): Predicate[];
}

export function lowerReductionInit(expr: ReductionOp, env: ReductionLoweringEnv): Stmt {
  const out = expr.out() as TensorView;
  return { kind: 'ReductionInit', out: env.access(out), value: initOperand(expr) };
}

export function lowerReductionUpdate(expr: ReductionOp, env: ReductionLoweringEnv): Stmt {
  const out = expr.out() as TensorView;
  const input = expr.in();
  if (input.kind !== 'tensorView') throw new LoweringError(`reduction producing T${out.name} has no tensor input`);
  const count = env.groups.loopCount(out);
  const { threads: threadDims, grid } = parallelReduction(env.groups, out);
  if (threadDims.length === 0 && !grid) {
    const op = expr.op === 'add' ? 'add' : expr.op === 'mul' ? 'mul' : expr.op === 'max' ? 'maximum' : 'minimum';
    const outAccess = env.access(out);
    const update: Stmt = { kind: 'Compute', out: outAccess, op: { family: 'binary', op }, operands: [outAccess, env.access(input)], computeDtype: outAccess.dtype };
    const preds = env.predicates((ps) => ps.every((p) => p < count));
    return preds.length === 0 ? update : { kind: 'IfThenElse', predicates: preds, then: [update], else: [] };
  }
  const serial = serialReductionPositions(env.groups, out);
  if (serial.length > 0) {
    throw new LoweringError(`T${out.name} reduces over threads and serial loops at once; rFactor the serial part first`);
  }
  const reducedPositions = new Set<number>();
  for (let p = 0; p < count; p += 1) if (env.groups.axisAt(out, p)?.isReduction() ?? false) reducedPositions.add(p);
  const inScope = (ps: readonly number[]): boolean => ps.every((p) => p < count);
  if (grid) {
    const name = env.ctx.kernelName;
    return {
      kind: 'GridReduce',
      out: env.access(out),
      in: env.access(input),
      op: expr.op,
      init: initOperand(expr),
      accDtype: accumulationDtype(out.dtype),
      reduceDims: threadDims,
      readPredicates: env.predicates(inScope),
      writePredicates: env.predicates((ps) => inScope(ps) && ps.every((p) => !reducedPositions.has(p))),
      work: `${name}_grid_work`,
      semaphores: `${name}_grid_sem`,
      pending: gridPendingName(env.ctx, out),
    };
  }
  return {
    kind: 'BlockReduce',
    out: env.access(out),
    in: env.access(input),
    op: expr.op,
    init: initOperand(expr),
    accDtype: accumulationDtype(out.dtype),
    reduceDims: threadDims,
    readPredicates: env.predicates(inScope),
    writePredicates: env.predicates((ps) => inScope(ps) && ps.every((p) => !reducedPositions.has(p))),
    ...(allreduceTensors(env.ctx, env.groups).has(out) ? { allreduce: true } : {}),
  };
}
