// What the reduction scheduler's three steps share about a fusion: its one ReductionOp, the
// reduction tensor's logical dims split into iteration and reduction dims, whether the
// reduction is on the fastest (innermost) dim, and the tensors before and after it.

import type { Expr, Fusion, ReductionOp, TensorView } from '@tsfuser/fusion-ir';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';

export interface ReductionPattern {
  expr: ReductionOp;
  /** The ReductionOp's output (logical domain: one ID per input dim, reduced ones Reduction). */
  reduction: TensorView;
  /** Its tensor input. */
  input: TensorView;
  /** Logical positions of the reduced dims, ascending. */
  reducedDims: number[];
  /** Logical positions of the kept dims, ascending. */
  iterationDims: number[];
  /** The innermost non-broadcast logical dim is reduced (or there is no kept dim). */
  fastestDim: boolean;
}

export function reductionExprs(fusion: Fusion): ReductionOp[] {
  return fusion.exprs().filter((e): e is ReductionOp => e.kind === 'ReductionOp');
}

export function reductionPattern(expr: ReductionOp): ReductionPattern | null {
  const reduction = expr.out();
  const input = expr.in();
  if (reduction.kind !== 'tensorView' || input.kind !== 'tensorView') return null;
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
  return { expr, reduction, input, reducedDims, iterationDims, fastestDim };
}

/** Concrete merged iteration and reduction extents of the pattern. */
export function patternSizes(p: ReductionPattern, bindings: ExtentBindings): { iterationSize: number; reductionSize: number } {
  const logical = p.reduction.domain.logical;
  const size = (dims: readonly number[]): number =>
    dims.reduce((acc, d) => {
      const id = logical[d];
      return id === undefined ? acc : acc * evaluateExtent(id.isBroadcast() ? id.logicalExtent() : id.extent, bindings);
    }, 1);
  return { iterationSize: size(p.iterationDims), reductionSize: size(p.reducedDims) };
}

/** Every expression whose value depends on `from` (transitively), in topological order. */
export function downstreamExprs(fusion: Fusion, from: TensorView): Expr[] {
  const reached = new Set<unknown>([from]);
  const out: Expr[] = [];
  for (const e of fusion.exprs()) {
    if (e.inputs.some((v) => reached.has(v))) {
      out.push(e);
      for (const o of e.outputs) reached.add(o);
    }
  }
  return out;
}
