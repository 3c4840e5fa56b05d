// Part of `expr-lowering` — Welford (used by expression lowering). A WelfordOp placed in the loop nest (its
// three outputs avg / varSum / n share one loop structure: rFactor and the transform
// propagation keep siblings identical) becomes, for its outputs (A, M, N):
//   * init (the 'init' leaf, outside the reduction loops): A = NaN, M = NaN, N = 0 — the empty
//     state; the Welford merge treats a state with N = 0 as the identity and copies the other
//     side into an empty one, so an empty reduction ends as NaN / NaN / 0, like the reference
//     evaluator (and torch.var_mean);
//   * update over serial loops (or trivial positions): WelfordUpdate — (A, M, N) merges the
//     input state, a raw value x being the state (x, 0, 1); guarded by the point predicates
//     (an out-of-range element is skipped);
//   * update with a reduction position bound to threadIdx.x/y: BlockWelford (every thread
//     calls it; read predicates make out-of-range threads contribute N = 0), and with a
//     position on blockIdx.y too: GridWelford (partial states through static work buffers,
//     the last block of a row merges them).
// Tensors computed from the outputs take the thread predicates of reductions.ts. Counts are
// nvfuser_index_t (the kernel's index type: a count never exceeds the numel it indexes); they
// are converted to the accumulation type only inside the merge (δ·N_b/N).
// Invariant: no `if` encloses a BlockWelford or GridWelford.

import type { Val, WelfordOp } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import type { Operand, ScalarOperand, Stmt, WelfordAccesses, WelfordOperands } from '../kernel-ir/nodes.js';
import { allreduceTensors } from './allreduce.js';
import { gridPendingName, parallelReduction, serialReductionPositions, type ReductionLoweringEnv } from './reductions.js';

export interface WelfordLoweringEnv extends ReductionLoweringEnv {
  /** A tensor access or a scalar operand (the count input of a raw-value Welford is a scalar). */
  operand(v: Val): Operand;
}

function outputAccesses(expr: WelfordOp, env: ReductionLoweringEnv): WelfordAccesses {
  return { avg: env.access(expr.outAvg()), varSum: env.access(expr.outVarSum()), n: env.access(expr.outN()) };
}

function literal(text: string, dtype: ScalarOperand['dtype']): ScalarOperand {
  return { kind: 'scalar', text, dtype };
}

export function lowerWelfordInit(expr: WelfordOp, env: ReductionLoweringEnv): Stmt[] {
  const out = outputAccesses(expr, env);
  const dtype = expr.outAvg().dtype;
  return [
    { kind: 'ReductionInit', out: out.avg, value: literal('NVF_NAN', dtype) },
    { kind: 'ReductionInit', out: out.varSum, value: literal('NVF_NAN', dtype) },
    { kind: 'ReductionInit', out: out.n, value: literal('0', 'Index') },
  ];
}

/** The input state: (x, 0, N-input) for raw values, else the three partial tensors. */
function inputOperands(expr: WelfordOp, env: WelfordLoweringEnv): WelfordOperands {
  const varSum = expr.inVarSum();
  return {
    avg: env.operand(expr.inAvg()),
    varSum: varSum === null ? literal('0', expr.outVarSum().dtype) : env.operand(varSum),
    n: env.operand(expr.inN()),
  };
}

/** The partial state tensors a parallel Welford combines (rFactor partials, never raw values). */
function inputAccesses(expr: WelfordOp, env: ReductionLoweringEnv): WelfordAccesses {
  const varSum = expr.inVarSum();
  const n = expr.inN();
  if (varSum === null || n.kind !== 'tensorView') {
    throw new LoweringError(`welford producing T${expr.outAvg().name} reduces raw values over threads; rFactor the serial part first`);
  }
  return { avg: env.access(expr.inAvg()), varSum: env.access(varSum), n: env.access(n) };
}

export function lowerWelfordUpdate(expr: WelfordOp, env: WelfordLoweringEnv): Stmt {
  const out = expr.outAvg();
  const count = env.groups.loopCount(out);
  const accDtype = out.dtype;
  const { threads, grid } = parallelReduction(env.groups, out);
  if (threads.length === 0 && !grid) {
    const update: Stmt = { kind: 'WelfordUpdate', out: outputAccesses(expr, env), in: inputOperands(expr, env), accDtype };
    const preds = env.predicates((ps) => ps.every((p) => p < count));
    return preds.length === 0 ? update : { kind: 'IfThenElse', predicates: preds, then: [update], else: [] };
  }
  if (serialReductionPositions(env.groups, out).length > 0) {
    throw new LoweringError(`T${out.name} reduces over threads and serial loops at once; rFactor the serial part first`);
  }
  if (allreduceTensors(env.ctx, env.groups).has(out)) {
    throw new LoweringError(`welford producing T${out.name}: a Welford allreduce (result needed in every thread) is not supported; the persistent schedulers translate Welford to sums`);
  }
  const reduced = new Set<number>();
  for (let p = 0; p < count; p += 1) if (env.groups.axisAt(out, p)?.isReduction() ?? false) reduced.add(p);
  const inScope = (ps: readonly number[]): boolean => ps.every((p) => p < count);
  const common = {
    out: outputAccesses(expr, env),
    in: inputAccesses(expr, env),
    accDtype,
    reduceDims: threads,
    readPredicates: env.predicates(inScope),
    writePredicates: env.predicates((ps) => inScope(ps) && ps.every((p) => !reduced.has(p))),
  };
  if (!grid) return { kind: 'BlockWelford', ...common };
  const name = env.ctx.kernelName;
  return {
    kind: 'GridWelford',
    ...common,
    work: { avg: `${name}_grid_avg`, varSum: `${name}_grid_m2`, n: `${name}_grid_n` },
    semaphores: `${name}_grid_sem`,
    pending: gridPendingName(env.ctx, out),
  };
}
