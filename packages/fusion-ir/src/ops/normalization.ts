// Normalization composites built from pointwise ops, reductions and welford (no new Expr kinds):
// softmax, logSoftmax, layerNorm, rmsNorm, batchNorm. Reduced-precision inputs compute in Float;
// outputs are cast back to the input dtype, saved statistics (mean, invstd) stay Float as
// aten::native_layer_norm / native_batch_norm return them on CUDA.

import { isReducedFloat } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { checkShape } from './alias.js';
import { add, mul, sub, truediv } from './binary.js';
import { broadcast } from './broadcast.js';
import { describe } from './operand.js';
import { max, sum } from './reduction.js';
import { normalizeDim, productOfExtents, shape } from './shape.js';
import { mean as meanOf, varMean } from './statistics.js';
import { categoryOf } from './type-promotion.js';
import { cast, exp, log, rsqrt } from './unary.js';

export type ScalarLike = Scalar | number;

function toFloat(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}

function castBack(tv: TensorView, like: TensorView): TensorView {
  return tv.dtype === like.dtype ? tv : cast(tv, like.dtype);
}

function requireFloating(op: string, tv: TensorView): void {
  if (categoryOf(tv.dtype) !== 2) throw new FusionIrError(`${op}: ${describe(tv)} must be floating point`);
}

/** softmax(x, dim) = exp(x - max) / sum(exp(x - max)) along dim (max-subtracted for stability). */
export function softmax(x: TensorView, dim: number): TensorView {
  requireFloating('softmax', x);
  const d = normalizeDim('softmax', x, dim);
  const xf = toFloat(x);
  const e = exp(sub(xf, max(xf, [d], true)));
  return castBack(truediv(e, sum(e, [d], true)), x);
}

/** logSoftmax(x, dim) = (x - max) - log(sum(exp(x - max))) along dim. */
export function logSoftmax(x: TensorView, dim: number): TensorView {
  requireFloating('logSoftmax', x);
  const d = normalizeDim('logSoftmax', x, dim);
  const xf = toFloat(x);
  const shifted = sub(xf, max(xf, [d], true));
  return castBack(sub(shifted, log(sum(exp(shifted), [d], true))), x);
}

export interface NormResult {
  output: TensorView;
  mean: TensorView;
  invstd: TensorView;
}

/** Broadcasts a tensor covering the last `k` dims of a rank-`rank` tensor to that rank. */
function broadcastTrailing(tv: TensorView, rank: number): TensorView {
  const k = tv.rank();
  if (k === rank) return tv;
  return broadcast(tv, Array.from({ length: rank }, (_, d) => d < rank - k));
}

/** The inner-dim count and checks of layerNorm/rmsNorm's normalized shape. */
function normalizedDims(op: string, x: TensorView, normalizedShape: readonly number[] | number): number {
  const rank = x.rank();
  const k = typeof normalizedShape === 'number' ? normalizedShape : normalizedShape.length;
  if (!Number.isInteger(k) || k < 1 || k > rank) {
    throw new FusionIrError(`${op}: cannot normalize over ${k} inner dims of ${describe(x)} (rank ${rank})`);
  }
  if (typeof normalizedShape !== 'number') {
    const inner = shape(x).slice(rank - k);
    normalizedShape.forEach((s, i) => {
      const c = (inner[i] as Scalar).constNumber();
      if (c !== null && c !== s) {
        throw new FusionIrError(`${op}: normalized shape [${normalizedShape.join(', ')}] does not match the inner dims of ${describe(x)}`);
      }
    });
  }
  return k;
}

function checkParam(op: string, name: string, p: TensorView, expected: readonly Scalar[]): void {
  try {
    checkShape(op, p, expected);
  } catch (e) {
    throw new FusionIrError(`${op}: ${name} ${(e as Error).message.replace(`${op}: `, '')}`);
  }
}

/**
 * layerNorm(x, normalizedShape | numDims, weight?, bias?, eps = 1e-5) — aten::native_layer_norm:
 * over the last k dims, mean and biased variance; invstd = rsqrt(var + eps);
 * output = (x - mean) * invstd * weight + bias. mean and invstd keep the reduced dims (size 1).
 */
export function layerNorm(
  x: TensorView,
  normalizedShape: readonly number[] | number,
  weight: TensorView | null = null,
  bias: TensorView | null = null,
  eps: ScalarLike = 1e-5,
): NormResult {
  requireFloating('layerNorm', x);
  const k = normalizedDims('layerNorm', x, normalizedShape);
  const rank = x.rank();
  const inner = shape(x).slice(rank - k);
  if (weight !== null) checkParam('layerNorm', 'weight', weight, inner);
  if (bias !== null) checkParam('layerNorm', 'bias', bias, inner);
  const axes = Array.from({ length: k }, (_, i) => rank - k + i);
  const xf = toFloat(x);
  const { var: v, mean } = varMean(xf, axes, 0, true);
  const invstd = rsqrt(add(v, eps));
  let y = mul(sub(xf, mean), invstd);
  if (weight !== null) y = mul(y, broadcastTrailing(toFloat(weight), rank));
  if (bias !== null) y = add(y, broadcastTrailing(toFloat(bias), rank));
  return { output: castBack(y, x), mean, invstd };
}

/**
 * rmsNorm(x, numDims, weight?, eps = 1e-5): invstd = rsqrt(mean(x², last numDims dims) + eps);
 * output = x * invstd * weight. invstd keeps the reduced dims.
 */
export function rmsNorm(
  x: TensorView,
  normalizedShape: readonly number[] | number,
  weight: TensorView | null = null,
  eps: ScalarLike = 1e-5,
): { output: TensorView; invstd: TensorView } {
  requireFloating('rmsNorm', x);
  const k = normalizedDims('rmsNorm', x, normalizedShape);
  const rank = x.rank();
  if (weight !== null) checkParam('rmsNorm', 'weight', weight, shape(x).slice(rank - k));
  const axes = Array.from({ length: k }, (_, i) => rank - k + i);
  const xf = toFloat(x);
  const invstd = rsqrt(add(meanOf(mul(xf, xf), axes, true), eps));
  let y = mul(xf, invstd);
  if (weight !== null) y = mul(y, broadcastTrailing(toFloat(weight), rank));
  return { output: castBack(y, x), invstd };
}

export interface BatchNormResult extends NormResult {
  /** Training with running stats: (1 - momentum) * runningMean + momentum * mean. */
  newRunningMean: TensorView | null;
  /** Training with running stats: (1 - momentum) * runningVar + momentum * unbiased var. */
  newRunningVar: TensorView | null;
}

/**
 * batchNorm(x, weight, bias, runningMean, runningVar, momentum, eps, training, channelsLast) —
 * aten::native_batch_norm over every dim but the channel dim (1, or the last when channelsLast).
 * Training: batch mean and biased variance; invstd = rsqrt(var + eps); with running stats the
 * updated stats are returned as new tensors newRunningMean/newRunningVar (nvFuser writes them into
 * the running-stat inputs through aliasing; here the caller decides what to do with them).
 * Inference: mean = runningMean, invstd = rsqrt(runningVar + eps).
 * output = (x - mean) * invstd * weight + bias, per-channel tensors broadcast along the other dims.
 */
export function batchNorm(
  x: TensorView,
  weight: TensorView | null,
  bias: TensorView | null,
  runningMean: TensorView | null,
  runningVar: TensorView | null,
  momentum: ScalarLike,
  eps: ScalarLike,
  training: boolean,
  channelsLast = false,
): BatchNormResult {
  requireFloating('batchNorm', x);
  const rank = x.rank();
  if (rank < 2) throw new FusionIrError(`batchNorm: ${describe(x)} needs at least 2 dims (N, C, …)`);
  const c = channelsLast ? rank - 1 : 1;
  const channels = [shape(x)[c] as Scalar];
  for (const [name, p] of [['weight', weight], ['bias', bias], ['runningMean', runningMean], ['runningVar', runningVar]] as const) {
    if (p !== null) checkParam('batchNorm', name, p, channels);
  }
  if ((runningMean === null) !== (runningVar === null)) {
    throw new FusionIrError('batchNorm: give both runningMean and runningVar or neither');
  }
  const flags = Array.from({ length: rank }, (_, d) => d !== c);
  const perChannel = (t: TensorView): TensorView => broadcast(toFloat(t), flags);
  const axes = Array.from({ length: rank }, (_, d) => d).filter((d) => d !== c);
  const xf = toFloat(x);
  let mean: TensorView;
  let invstd: TensorView;
  let newRunningMean: TensorView | null = null;
  let newRunningVar: TensorView | null = null;
  if (training) {
    const vm = varMean(xf, axes, 0, false);
    mean = vm.mean;
    invstd = rsqrt(add(vm.var, eps));
    if (runningMean !== null && runningVar !== null) {
      const n = productOfExtents(x.fusion, axes.map((d) => shape(x)[d] as Scalar));
      const unbiased = mul(vm.var, truediv(n, sub(n, 1)));
      const keep = typeof momentum === 'number' ? 1 - momentum : sub(1, momentum);
      newRunningMean = castBack(add(mul(toFloat(runningMean), keep), mul(mean, momentum)), runningMean);
      newRunningVar = castBack(add(mul(toFloat(runningVar), keep), mul(unbiased, momentum)), runningVar);
    }
  } else {
    if (runningMean === null || runningVar === null) {
      throw new FusionIrError('batchNorm: inference (training = false) needs runningMean and runningVar');
    }
    mean = toFloat(runningMean);
    invstd = rsqrt(add(toFloat(runningVar), eps));
  }
  let y = mul(sub(xf, broadcast(mean, flags)), broadcast(invstd, flags));
  if (weight !== null) y = mul(y, perChannel(weight));
  if (bias !== null) y = add(y, perChannel(bias));
  return { output: castBack(y, x), mean, invstd, newRunningMean, newRunningVar };
}
