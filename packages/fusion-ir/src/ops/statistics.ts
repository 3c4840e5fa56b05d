// Statistics over axes: welford (one pass mean / M2 / count, WelfordOp), mean, var, varMean, std.
// Reduced-precision inputs (Half, BFloat16) are computed in Float and cast back at the end, as
// PyTorch accumulates them; integral inputs are rejected by mean/var (torch: "could not infer
// output dtype"), welford computes them in Float.

import { checkNoComplex } from './complex-support.js';
import { isReducedFloat, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { WelfordOp } from '../ir/expr.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { sub, truediv } from './binary.js';
import { broadcast } from './broadcast.js';
import { describe } from './operand.js';
import { normalizeAxes, reductionOutput, sum } from './reduction.js';
import { productOfExtents } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { cast, sqrt } from './unary.js';

export interface WelfordResult {
  avg: TensorView;
  varSum: TensorView;
  /** Element count per output position, Index dtype. */
  n: TensorView;
}

/**
 * welford(tv, axes): mean (avg), sum of squared deviations (varSum = M2) and count (n) over
 * `axes` in one WelfordOp. Outputs keep the reduced dims as Reduction IDs (no keepdim). Float and
 * Double inputs keep their dtype; others are cast to Float first.
 */
export function welford(tv: TensorView, axes: readonly number[]): WelfordResult {
  checkNoComplex('welford', [tv]);
  const fusion = tv.fusion;
  const dims = reduceDims('welford', tv, axes);
  const dtype: DataType = tv.dtype === 'Double' ? 'Double' : 'Float';
  const input = tv.dtype === dtype ? tv : cast(tv, dtype);
  const avg = reductionOutput(input, dims, dtype);
  const varSum = reductionOutput(input, dims, dtype);
  const n = reductionOutput(input, dims, 'Index');
  new WelfordOp(fusion, { avg, varSum, n }, { avg: input, varSum: null, n: fusion.index(1) });
  return { avg, varSum, n };
}

/** mean(tv, axes, keepdim): sum(tv, axes) / N with N the product of the reduced extents (a scalar). */
export function mean(tv: TensorView, axes: readonly number[], keepdim = false): TensorView {
  requireFloating('mean', tv);
  const dims = reduceDims('mean', tv, axes);
  const x = computeType(tv);
  const m = truediv(sum(x, dims, keepdim), reducedCount(tv, dims));
  return m.dtype === tv.dtype ? m : cast(m, tv.dtype);
}

export interface VarMeanResult {
  var: TensorView;
  mean: TensorView;
}

/**
 * varMean(tv, axes, correction = 1, keepdim = false): var = M2 / (N - correction) (torch.var_mean;
 * correction 0 is the population variance, 1 Bessel's correction; N - correction <= 0 gives
 * inf/nan as in torch), mean = avg, both from one welford.
 */
export function varMean(tv: TensorView, axes: readonly number[], correction = 1, keepdim = false): VarMeanResult {
  requireFloating('varMean', tv);
  const dims = reduceDims('varMean', tv, axes);
  const w = welford(tv, dims);
  const denominator = sub(reducedCount(tv, dims), tv.fusion.index(correction));
  let v = truediv(w.varSum, denominator);
  let m = w.avg;
  if (keepdim) {
    const flags = Array.from({ length: tv.rank() }, (_, d) => dims.includes(d));
    v = broadcast(v, flags);
    m = broadcast(m, flags);
  }
  if (v.dtype !== tv.dtype) {
    v = cast(v, tv.dtype);
    m = cast(m, tv.dtype);
  }
  return { var: v, mean: m };
}

/** var(tv, axes, correction = 1, keepdim = false): the variance part of varMean. */
export function variance(tv: TensorView, axes: readonly number[], correction = 1, keepdim = false): TensorView {
  return varMean(tv, axes, correction, keepdim).var;
}

/** std(tv, axes, correction = 1, keepdim = false) = sqrt(var). */
export function std(tv: TensorView, axes: readonly number[], correction = 1, keepdim = false): TensorView {
  requireFloating('std', tv);
  const v = variance(computeType(tv), axes, correction, keepdim);
  const s = sqrt(v);
  return s.dtype === tv.dtype ? s : cast(s, tv.dtype);
}

/** Axes as reductions take them: [] means every dim. */
function reduceDims(op: string, tv: TensorView, axes: readonly number[]): number[] {
  const all = Array.from({ length: tv.rank() }, (_, d) => d);
  return normalizeAxes(op, tv, axes.length === 0 ? all : axes);
}

/** N: the number of elements each output reduces — the product of the reduced extents. */
export function reducedCount(tv: TensorView, dims: readonly number[]): Scalar {
  const ids = tv.domain.logicalNoReductions();
  return productOfExtents(tv.fusion, dims.map((d) => (ids[d] as IterDomain).logicalExtent()));
}

function requireFloating(op: string, tv: TensorView): void {
  if (categoryOf(tv.dtype) !== 2) {
    throw new FusionIrError(`${op}: ${describe(tv)} is not floating point; cast it first (torch cannot infer the output dtype)`);
  }
}

function computeType(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}
