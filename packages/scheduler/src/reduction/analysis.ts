// What the reduction scheduler's three steps share about a fusion: its one reduction expression
// (a ReductionOp, or a WelfordOp whose three outputs avg / varSum / n share one pattern), the
// reduction tensor's logical dims split into iteration and reduction dims, whether the
// reduction is on the fastest (innermost) dim, and the tensors before and after it.

import type { Expr, Fusion, ReductionOp, TensorView, WelfordOp } from '@tsfuser/fusion-ir';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';

/** The expressions the reduction scheduler reduces with: plain reductions and Welford. */
export type ReductionExpr = ReductionOp | WelfordOp;

export interface ReductionPattern {
  expr: ReductionExpr;
  /**
   * The ReductionOp's output, or the WelfordOp's avg output (logical domain: one ID per input
   * dim, reduced ones Reduction). The schedule transforms it; rFactor replays it on siblings.
   */
  reduction: TensorView;
  /** Every output of the expression: [reduction], or Welford's [avg, varSum, n]. */
  outputs: TensorView[];
  /** Its tensor input (Welford: the values averaged). */
  input: TensorView;
  /** Logical positions of the reduced dims, ascending. */
  reducedDims: number[];
  /** Logical positions of the kept dims, ascending. */
  iterationDims: number[];
  /** The innermost non-broadcast logical dim is reduced (or there is no kept dim). */
  fastestDim: boolean;
}

export function reductionExprs(fusion: Fusion): ReductionExpr[] {
  return fusion.exprs().filter((e): e is ReductionExpr => e.kind === 'ReductionOp' || e.kind === 'WelfordOp');
}

export function reductionPattern(expr: ReductionExpr): ReductionPattern | null {
  const reduction = expr.out();
  const input = expr.in();
  if (reduction.kind !== 'tensorView' || input.kind !== 'tensorView') return null;
  const outputs = expr.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
  const logical = reduction.domain.logical;
  const reducedDims: number[] = [];
  const iterationDims: number[] = [];
  logical.forEach((id, d) => (id.isReduction() ? reducedDims : iterationDims).push(d));
  let innermost = -1;
  for (let d = logical.length - 1; d >= 0; d -= 1) {
    const id = logical[d];
    if (id !== undefined && !id.isBroadcast()) {
      innermost = d;
      break;
    }
  }
  const fastestDim = iterationDims.length === 0 || innermost < 0 || reducedDims.includes(innermost);
  return { expr, reduction, outputs, input, reducedDims, iterationDims, fastestDim };
}

/**
 * Concrete merged iteration and reduction extents of the pattern: the extents of the loops the
 * schedule merges, so a kept expanded broadcast (bS{1 ex n}) counts 1, not n — the kernel
 * computes its value once and the output is stride 0 over it (the split divisibility the
 * heuristics prove from these sizes lets the lowering drop predicates: they must be the loops').
 */
export function patternSizes(p: ReductionPattern, bindings: ExtentBindings): { iterationSize: number; reductionSize: number } {
  const logical = p.reduction.domain.logical;
  const size = (dims: readonly number[]): number =>
    dims.reduce((acc, d) => {
      const id = logical[d];
      return id === undefined ? acc : acc * evaluateExtent(id.extent, bindings);
    }, 1);
  return { iterationSize: size(p.iterationDims), reductionSize: size(p.reducedDims) };
}

/** Every expression whose value depends on a tensor of `from` (transitively), in topological order. */
export function downstreamExprs(fusion: Fusion, from: readonly TensorView[]): Expr[] {
  const reached = new Set<unknown>(from);
  const out: Expr[] = [];
  for (const e of fusion.exprs()) {
    if (e.inputs.some((v) => reached.has(v))) {
      out.push(e);
      for (const o of e.outputs) reached.add(o);
    }
  }
  return out;
}
