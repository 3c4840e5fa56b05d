// Lowerings of the normalization backward ops the legacy fuser fused: native_layer_norm_backward
// and native_batch_norm_backward (training: from the saved batch statistics; inference: from the
// running statistics). With x̂ = (x − mean)·invstd and g = grad_out·weight:
//   layer norm  grad_input = invstd·(g − mean(g) − x̂·mean(g·x̂)) over the normalized dims;
//   batch norm  grad_input = invstd·weight·(dy − Σdy/N − x̂·Σ(dy·x̂)/N) per channel (training),
//               invstd·weight·dy (inference);
//   grad_weight = Σ grad_out·x̂ and grad_bias = Σ grad_out over the other dims.
// Half/BFloat16 compute in Float and are cast back. Outputs that output_mask leaves out (or whose
// weight/bias is None) are unavailable, as aten returns undefined tensors for them.

import {
  add, broadcast, cast, mean, mul, reducedCount, rsqrt, sub, sum, truediv, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import type { OpTableSection } from './op-entry.js';
import { broadcastOperands, isTensor } from './operands.js';
import { tensorVal, type JitVal } from './values.js';

function upcast(t: TensorView): TensorView {
  return t.dtype === 'Half' || t.dtype === 'BFloat16' ? cast(t, 'Float') : t;
}

function castTo(t: TensorView, dtype: DataType): TensorView {
  return t.dtype === dtype ? t : cast(t, dtype);
}

/** Sum over `axes`; no reduction at all when `axes` is empty (sum's [] would mean every dim). */
function sumOver(t: TensorView, axes: readonly number[]): TensorView {
  return axes.length === 0 ? t : sum(t, axes);
}

function outputMask(args: NodeArgs): boolean[] {
  const v = args.value('output_mask');
  if (v.kind !== 'list' || v.items.length !== 3) return args.fail('output_mask must be a constant list of 3 bools');
  return v.items.map((item) => (item.kind === 'bool' ? item.value : item.kind === 'int' ? Number(item.value) !== 0 : args.fail('output_mask must hold bools')));
}

function masked(mask: readonly boolean[], i: number, t: TensorView | null, why: string): JitVal {
  if (mask[i] !== true) return { kind: 'unavailable', reason: `output ${i} is not requested by output_mask` };
  return t === null ? { kind: 'unavailable', reason: why } : tensorVal(t);
}

/** Brings `t` to `rank` by leading broadcast dims (mean/rstd may come without the outer dims). */
function toRank(args: NodeArgs, t: TensorView, like: TensorView): TensorView {
  const [a] = broadcastOperands([t, like]);
  return a !== undefined && isTensor(a) ? a : args.fail('expected a tensor');
}

function lowerLayerNormBackward(args: NodeArgs): JitVal[] {
  const mask = outputMask(args);
  const x = args.tensor('input');
  // _batch_norm_impl_index_backward names them grad_output and save_var_transform (the invstd).
  const dy = upcast(args.tensor(args.has('grad_out') ? 'grad_out' : 'grad_output'));
  const xf = upcast(x);
  const rank = x.rank();
  const k = args.intList('normalized_shape').length;
  if (k < 1 || k > rank) return args.fail(`normalized_shape of ${k} dims does not fit an input of rank ${rank}`);
  const inner = Array.from({ length: k }, (_, i) => rank - k + i);
  const outer = Array.from({ length: rank - k }, (_, i) => i);
  const m = toRank(args, upcast(args.tensor('mean')), x);
  const rstd = toRank(args, upcast(args.tensor('rstd')), x);
  const weight = args.optionalTensor('weight');
  const bias = args.optionalTensor('bias');
  const trailing = (t: TensorView): TensorView => broadcast(upcast(t), Array.from({ length: rank }, (_, d) => d < rank - t.rank()));
  const xhat = mul(sub(xf, m), rstd);
  const g = weight === null ? dy : mul(dy, trailing(weight));
  const gradInput = mul(rstd, sub(sub(g, mean(g, inner, true)), mul(xhat, mean(mul(g, xhat), inner, true))));
  const gradWeight = weight === null ? null : castTo(sumOver(mul(dy, xhat), outer), weight.dtype);
  const gradBias = bias === null ? null : castTo(sumOver(dy, outer), bias.dtype);
  return [
    masked(mask, 0, castTo(gradInput, x.dtype), ''),
    masked(mask, 1, gradWeight, 'weight is None, so aten returns no grad_weight'),
    masked(mask, 2, gradBias, 'bias is None, so aten returns no grad_bias'),
  ];
}

function lowerBatchNormBackward(args: NodeArgs): JitVal[] {
  const mask = outputMask(args);
  const x = args.tensor('input');
  const rank = x.rank();
  if (rank < 2) return args.fail(`batch norm needs an input of at least 2 dims, got rank ${rank}`);
  const flags = Array.from({ length: rank }, (_, d) => d !== 1);
  const axes = Array.from({ length: rank }, (_, d) => d).filter((d) => d !== 1);
  const perChannel = (t: TensorView): TensorView => broadcast(upcast(t), flags);
  const train = args.bool('train');
  // _batch_norm_impl_index_backward names them grad_output and save_var_transform (the invstd).
  const dy = upcast(args.tensor(args.has('grad_out') ? 'grad_out' : 'grad_output'));
  const xf = upcast(x);
  let meanC: TensorView;
  let invstdC: TensorView;
  if (train) {
    const sm = args.optionalTensor('save_mean');
    const si = args.optionalTensor(args.has('save_invstd') ? 'save_invstd' : 'save_var_transform');
    if (sm === null || si === null) return args.fail('training backward needs save_mean and save_invstd');
    [meanC, invstdC] = [upcast(sm), upcast(si)];
  } else {
    const rm = args.optionalTensor('running_mean');
    const rv = args.optionalTensor('running_var');
    if (rm === null || rv === null) return args.fail('inference backward needs running_mean and running_var');
    [meanC, invstdC] = [upcast(rm), rsqrt(add(upcast(rv), args.floatLike('eps', true)))];
  }
  const weight = args.optionalTensor('weight');
  const invstd = perChannel(invstdC);
  const xhat = mul(sub(xf, perChannel(meanC)), invstd);
  const sumDy = sum(dy, axes);
  const sumDyXhat = sum(mul(dy, xhat), axes);
  const scale = weight === null ? invstd : mul(invstd, perChannel(weight));
  let gradInput: TensorView;
  if (train) {
    const n = reducedCount(x, axes);
    const centered = sub(sub(dy, truediv(broadcast(sumDy, flags), n)), mul(xhat, truediv(broadcast(sumDyXhat, flags), n)));
    gradInput = mul(centered, scale);
  } else {
    gradInput = mul(dy, scale);
  }
  const paramDtype = weight?.dtype ?? x.dtype;
  return [
    masked(mask, 0, castTo(gradInput, x.dtype), ''),
    masked(mask, 1, weight === null ? null : castTo(sumDyXhat, paramDtype), 'weight is None, so aten returns no grad_weight'),
    masked(mask, 2, castTo(sumDy, paramDtype), ''),
  ];
}

/** Outputs left out by output_mask must be unused for the node to be fusible. */
function checkMaskedOutputs(a: StaticArgs): string | null {
  const v = a.get('output_mask');
  if (v === null || v.kind !== 'list') return null;
  const unused = a.node.outputs.findIndex((o, i) => o.hasUses() && v.items[i]?.kind === 'bool' && !(v.items[i] as { value: boolean }).value);
  return unused < 0 ? null : `output ${unused} is used but output_mask does not request it`;
}

export const NORMALIZATION_BACKWARD_OPS: OpTableSection = {
  'aten::native_layer_norm_backward': {
    schemas: [
      'aten::native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)',
    ],
    constants: ['normalized_shape', 'output_mask'],
    check: checkMaskedOutputs,
    lower: lowerLayerNormBackward,
  },
  'aten::native_batch_norm_backward': {
    schemas: [
      'aten::native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)',
    ],
    constants: ['train', 'output_mask'],
    check: checkMaskedOutputs,
    lower: lowerBatchNormBackward,
  },
  // The autodiff form of the same backward: impl_index and reservedSpace (cuDNN's) are ignored;
  // save_var_transform is the saved invstd for both the native and the cuDNN implementation.
  'aten::_batch_norm_impl_index_backward': {
    schemas: [
      'aten::_batch_norm_impl_index_backward(int impl_index, Tensor input, Tensor grad_output, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_var_transform, bool train, float eps, bool[3] output_mask, Tensor reservedSpace) -> (Tensor, Tensor, Tensor)',
    ],
    constants: ['train', 'output_mask'],
    check: checkMaskedOutputs,
    lower: lowerBatchNormBackward,
  },
};
