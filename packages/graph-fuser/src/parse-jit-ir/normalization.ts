// Lowerings of batch norm (native_batch_norm, batch_norm, _batch_norm_impl_index) and layer norm
// (native_layer_norm, layer_norm) through fusion-ir's composites. eps is read through float32, as
// the legacy parser's constant_as<float> did (the CUDA kernels use it in float as well). Training
// batch norm with running stats updates them in place in aten: the new stats are recorded as
// updates of the running-stat graph inputs (extra fusion outputs, see lower-graph.ts).
// Outputs aten leaves empty or implementation-defined (inference save_mean/save_invstd, the
// reserve tensor and impl index of _batch_norm_impl_index) are unavailable: using one is an error.

import { add, batchNorm, broadcast, cast, layerNorm, mul, rsqrt, sub, varMean, type TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import type { LoweringContext, OpTableSection } from './op-entry.js';
import { tensorVal, type JitVal } from './values.js';

const BATCH_NORM_ARGS =
  'Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps';

function unavailable(reason: string): JitVal {
  return { kind: 'unavailable', reason };
}

const INFERENCE_STATS = 'in inference aten returns empty save_mean/save_invstd tensors';
const IMPL_ONLY = 'the reserve tensor and implementation index of _batch_norm_impl_index are not computed by fusions';

function lowerBatchNorm(args: NodeArgs, ctx: LoweringContext, outputs: number): JitVal[] {
  const training = args.bool('training');
  const runningMean = args.optionalTensor('running_mean');
  const runningVar = args.optionalTensor('running_var');
  const r = batchNorm(
    args.tensor('input'),
    args.optionalTensor('weight'),
    args.optionalTensor('bias'),
    runningMean,
    runningVar,
    args.floatLike('momentum'),
    args.floatLike('eps', true),
    training,
  );
  if (r.newRunningMean !== null) ctx.recordInputUpdate(r.newRunningMean, args.graphValue('running_mean'), 'running_mean');
  if (r.newRunningVar !== null) ctx.recordInputUpdate(r.newRunningVar, args.graphValue('running_var'), 'running_var');
  const stats = training ? [tensorVal(r.mean), tensorVal(r.invstd)] : [unavailable(INFERENCE_STATS), unavailable(INFERENCE_STATS)];
  return [tensorVal(r.output), ...stats, unavailable(IMPL_ONLY), unavailable(IMPL_ONLY)].slice(0, outputs);
}

/** Outputs that the lowering leaves unavailable must be unused for the node to be fusible. */
function checkBatchNormOutputs(a: StaticArgs): string | null {
  const training = a.bool('training');
  if (training === null) return null;
  const used = a.node.outputs.map((o) => o.hasUses());
  if (!training && (used[1] === true || used[2] === true)) return `save_mean/save_invstd are used but ${INFERENCE_STATS}`;
  if (used[3] === true || used[4] === true) return `${IMPL_ONLY} (they are used)`;
  return null;
}

function lowerLayerNorm(args: NodeArgs, all: boolean): JitVal[] {
  const r = layerNorm(
    args.tensor('input'),
    // Only its length matters (the trailing dims normalized); aten checks the sizes match.
    args.listLength('normalized_shape'),
    args.optionalTensor('weight'),
    args.optionalTensor('bias'),
    args.floatLike('eps', true),
  );
  return all ? [tensorVal(r.output), tensorVal(r.mean), tensorVal(r.invstd)] : [tensorVal(r.output)];
}

const NORM_CONSTANTS = ['training'];

/** A per-channel [C] parameter of an (N, C, ...) input, broadcast to the input's rank, in float. */
function perChannel(p: TensorView, rank: number): TensorView {
  const f = p.dtype === 'Float' || p.dtype === 'Double' ? p : cast(p, 'Float');
  return broadcast(f, Array.from({ length: rank }, (_, d) => d !== 1));
}

/**
 * aten::instance_norm: per (sample, channel), over the spatial dims: with use_input_stats the
 * input's mean and biased variance (running stats must be None: their in-place update is not
 * fused), otherwise the running stats (inference); then the per-channel weight and bias.
 */
function lowerInstanceNorm(args: NodeArgs): JitVal[] {
  const x = args.tensor('input');
  const rank = x.rank();
  if (rank < 3) return args.fail(`instance_norm needs an (N, C, ...) input of rank >= 3, got rank ${rank}`);
  const xf = x.dtype === 'Float' || x.dtype === 'Double' ? x : cast(x, 'Float');
  const eps = args.floatLike('eps', true);
  let centered: TensorView;
  let invstd: TensorView;
  if (args.bool('use_input_stats')) {
    const axes = Array.from({ length: rank - 2 }, (_, i) => i + 2);
    const r = varMean(xf, axes, 0, true);
    centered = sub(xf, r.mean);
    invstd = rsqrt(add(r.var, eps));
  } else {
    const mean = args.optionalTensor('running_mean') ?? args.fail('use_input_stats=False needs running_mean');
    const variance = args.optionalTensor('running_var') ?? args.fail('use_input_stats=False needs running_var');
    centered = sub(xf, perChannel(mean, rank));
    invstd = rsqrt(add(perChannel(variance, rank), eps));
  }
  let y = mul(centered, invstd);
  const weight = args.optionalTensor('weight');
  const bias = args.optionalTensor('bias');
  if (weight !== null) y = mul(y, perChannel(weight, rank));
  if (bias !== null) y = add(y, perChannel(bias, rank));
  return [tensorVal(y.dtype === x.dtype ? y : cast(y, x.dtype))];
}

function checkInstanceNorm(a: StaticArgs): string | null {
  if (a.bool('use_input_stats') === true && !(a.isNone('running_mean') && a.isNone('running_var'))) {
    return 'instance_norm with use_input_stats updates running stats in place; only running stats None is fused';
  }
  return null;
}

/** layer_norm's normalized_shape may hold runtime sizes (`[x.shape[-1]]`); its length may not. */
function checkNormalizedShape(a: StaticArgs): string | null {
  return a.staticLength('normalized_shape') === null ? "argument 'normalized_shape' must have a length known before run time" : null;
}

export const NORMALIZATION_OPS: OpTableSection = {
  'aten::native_batch_norm': {
    schemas: [`aten::native_batch_norm(${BATCH_NORM_ARGS}) -> (Tensor, Tensor, Tensor)`],
    constants: NORM_CONSTANTS,
    check: checkBatchNormOutputs,
    lower: (args, ctx) => lowerBatchNorm(args, ctx, 3),
  },
  'aten::batch_norm': {
    schemas: [`aten::batch_norm(${BATCH_NORM_ARGS}, bool cudnn_enabled) -> Tensor`],
    constants: NORM_CONSTANTS,
    lower: (args, ctx) => lowerBatchNorm(args, ctx, 1),
  },
  'aten::_batch_norm_impl_index': {
    schemas: [`aten::_batch_norm_impl_index(${BATCH_NORM_ARGS}, bool cudnn_enabled) -> (Tensor, Tensor, Tensor, Tensor, int)`],
    constants: NORM_CONSTANTS,
    check: checkBatchNormOutputs,
    lower: (args, ctx) => lowerBatchNorm(args, ctx, 5),
  },
  'aten::instance_norm': {
    schemas: [
      'aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor',
    ],
    constants: ['use_input_stats'],
    check: checkInstanceNorm,
    lower: lowerInstanceNorm,
  },
  'aten::native_layer_norm': {
    schemas: ['aten::native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)'],
    check: checkNormalizedShape,
    lower: (args) => lowerLayerNorm(args, true),
  },
  'aten::layer_norm': {
    schemas: [
      'aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor',
    ],
    check: checkNormalizedShape,
    lower: (args) => lowerLayerNorm(args, false),
  },
};
