// Lowerings of batch norm (native_batch_norm, batch_norm, _batch_norm_impl_index) and layer norm
// (native_layer_norm, layer_norm) through fusion-ir's composites. eps is read through float32, as
// the legacy parser's constant_as<float> did (the CUDA kernels use it in float as well). Training
// batch norm with running stats updates them in place in aten: the new stats are recorded as
// updates of the running-stat graph inputs (extra fusion outputs, see lower-graph.ts).
// Outputs aten leaves empty or implementation-defined (inference save_mean/save_invstd, the
// reserve tensor and impl index of _batch_norm_impl_index) are unavailable: using one is an error.

import { batchNorm, layerNorm } from '@tsfuser/fusion-ir';
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
