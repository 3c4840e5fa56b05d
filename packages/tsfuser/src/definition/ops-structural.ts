// `fd.ops` entries that are not elementwise: reductions, statistics, shape and data-movement
// ops, factories, and normalization composites. Argument order and python keywords are
// nvFuser's (`sum(arg, dims, keepdim, dtype)`, `broadcast_in_dim(arg, shape, broadcast_dims)`,
// `var_mean(arg, dims, correction, keepdim)` …); older keyword spellings are accepted as aliases.

import * as ir from '@tsfuser/fusion-ir';
import type { DataType, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';
import type { ScalarHandle, TensorHandle, VectorHandle } from './handles.js';
import { op, type OpArgs, type ParamSpec, type StateValue } from './op-spec.js';
import type { Operand } from './ops-pointwise.js';
import { checkSliceArguments } from './slice-checks.js';

/** Sizes: a vector state, or a list of integers and scalar states. */
export type Sizes = VectorHandle | readonly (number | ScalarHandle)[];
type Dims = number | readonly number[];

const arg: ParamSpec = { name: 'arg', python: 'arg', kind: 'tensor' };
const dims = (withDefault = false): ParamSpec => ({
  name: 'dims',
  python: 'dims',
  aliases: ['axes', 'axis', 'dim'],
  kind: 'ints',
  ...(withDefault ? { default: [] } : {}),
});
const keepdim: ParamSpec = { name: 'keepdim', python: 'keepdim', kind: 'bool', default: false };
const dtypeNull: ParamSpec = { name: 'dtype', python: 'dtype', kind: 'dtype', default: null };
const correction: ParamSpec = { name: 'correction', python: 'correction', kind: 'int', default: 1 };
const eps: ParamSpec = { name: 'eps', python: 'eps', kind: 'scalar', default: 1e-5 };
const optTensor = (name: string, python: string): ParamSpec => ({ name, python, kind: 'optTensor', default: null });

type ReduceFn = (arg: TensorHandle, dims?: Dims, keepdim?: boolean, dtype?: DataType | null) => TensorHandle;

function reduction(name: 'sum' | 'prod' | 'max' | 'min') {
  const fn = ir[name];
  return op<ReduceFn>({
    name,
    python: name,
    params: [arg, dims(true), keepdim, dtypeNull],
    output: 'tensor',
    apply: (_f, a) => [fn(a.tensor(0), a.ints(1), a.bool(2), a.dtype(3))],
  });
}

type StatFn = (arg: TensorHandle, dims: Dims, correction?: number, keepdim?: boolean) => TensorHandle;

function statistic(name: 'var' | 'std', fn: (tv: TensorView, axes: readonly number[], c: number, k: boolean) => TensorView) {
  return op<StatFn>({
    name,
    python: name,
    params: [arg, dims(), correction, keepdim],
    output: 'tensor',
    apply: (_f, a) => [fn(a.tensor(0), a.ints(1), a.int(2), a.bool(3))],
  });
}

function unaryTensor(name: string, python: string, fn: (tv: TensorView) => TensorView) {
  return op<(arg: TensorHandle) => TensorHandle>({ name, python, params: [arg], output: 'tensor', apply: (_f, a) => [fn(a.tensor(0))] });
}

function backward(name: string, python: string, second: string, fn: (g: TensorView, x: TensorView) => TensorView) {
  return op<(grad: TensorHandle, arg: TensorHandle) => TensorHandle>({
    name,
    python,
    params: [{ name: 'grad', python: 'grad', kind: 'tensor' }, { name: second, python: second, kind: 'tensor' }],
    output: 'tensor',
    apply: (_f, a) => [fn(a.tensor(0), a.tensor(1))],
  });
}

function withFusion(fn: (fusion: Fusion, a: OpArgs) => StateValue) {
  return (fusion: Fusion, a: OpArgs): StateValue[] => [fn(fusion, a)];
}

export const structuralOps = {
  sum: reduction('sum'),
  prod: reduction('prod'),
  max: reduction('max'),
  min: reduction('min'),
  mean: op<(arg: TensorHandle, dims: Dims, keepdim?: boolean) => TensorHandle>({
    name: 'mean',
    python: 'mean',
    params: [arg, dims(), keepdim],
    output: 'tensor',
    apply: (_f, a) => [ir.mean(a.tensor(0), a.ints(1), a.bool(2))],
  }),
  var: statistic('var', ir.variance),
  std: statistic('std', ir.std),
  varMean: op<(arg: TensorHandle, dims: Dims, correction?: number, keepdim?: boolean) => [TensorHandle, TensorHandle]>({
    name: 'varMean',
    python: 'var_mean',
    params: [arg, dims(), correction, keepdim],
    output: 2,
    outputNames: ['var', 'mean'],
    apply: (_f, a) => {
      const r = ir.varMean(a.tensor(0), a.ints(1), a.int(2), a.bool(3));
      return [r.var, r.mean];
    },
  }),
  welford: op<(arg: TensorHandle, dims: Dims) => [TensorHandle, TensorHandle, TensorHandle]>({
    name: 'welford',
    python: 'welford',
    params: [arg, dims()],
    output: 3,
    outputNames: ['avg', 'varSum', 'n'],
    apply: (_f, a) => {
      const r = ir.welford(a.tensor(0), a.ints(1));
      return [r.avg, r.varSum, r.n];
    },
  }),

  broadcast: op<(arg: TensorHandle, isBroadcastDim: readonly boolean[]) => TensorHandle>({
    name: 'broadcast',
    python: 'broadcast',
    params: [arg, { name: 'isBroadcastDim', python: 'is_broadcast_dim', kind: 'bools' }],
    output: 'tensor',
    apply: (_f, a) => [ir.broadcast(a.tensor(0), a.bools(1))],
  }),
  broadcastInDim: op<(arg: TensorHandle, shape: Sizes, broadcastDims: readonly number[]) => TensorHandle>({
    name: 'broadcastInDim',
    python: 'broadcast_in_dim',
    params: [
      arg,
      { name: 'shape', python: 'shape', aliases: ['output_shape'], kind: 'sizes' },
      { name: 'broadcastDims', python: 'broadcast_dims', kind: 'ints' },
    ],
    output: 'tensor',
    apply: (_f, a) => [ir.broadcastInDim(a.tensor(0), a.sizes(1), a.ints(2))],
  }),
  expand: op<(arg: TensorHandle, shape: Sizes) => TensorHandle>({
    name: 'expand',
    python: 'expand',
    params: [arg, { name: 'shape', python: 'shape', aliases: ['sizes'], kind: 'sizes' }],
    output: 'tensor',
    apply: (_f, a) => [ir.expand(a.tensor(0), a.sizes(1))],
  }),
  squeeze: op<(arg: TensorHandle, dims: readonly number[], squeezeExpanded?: boolean) => TensorHandle>({
    name: 'squeeze',
    python: 'squeeze',
    params: [
      arg,
      { name: 'dims', python: 'dims', aliases: ['dim'], kind: 'ints' },
      { name: 'squeezeExpanded', python: 'squeeze_expanded', kind: 'bool', default: false },
    ],
    output: 'tensor',
    apply: (_f, a) => [ir.squeeze(a.tensor(0), a.ints(1), { squeezeExpanded: a.bool(2) })],
  }),
  reshape: op<(arg: TensorHandle, newShape: Sizes) => TensorHandle>({
    name: 'reshape',
    python: 'reshape',
    params: [arg, { name: 'newShape', python: 'new_shape', aliases: ['shape'], kind: 'sizes' }],
    output: 'tensor',
    apply: (_f, a) => [ir.reshape(a.tensor(0), a.sizes(1))],
  }),
  permute: op<(arg: TensorHandle, dims: readonly number[]) => TensorHandle>({
    name: 'permute',
    python: 'permute',
    params: [arg, { name: 'dims', python: 'dims', kind: 'ints' }],
    output: 'tensor',
    apply: (_f, a) => [ir.permute(a.tensor(0), a.ints(1))],
  }),
  transpose: op<(arg: TensorHandle, dim0?: number, dim1?: number) => TensorHandle>({
    name: 'transpose',
    python: 'transpose',
    params: [arg, { name: 'dim0', python: 'dim0', kind: 'int', default: 0 }, { name: 'dim1', python: 'dim1', kind: 'int', default: 1 }],
    output: 'tensor',
    apply: (_f, a) => [ir.transpose(a.tensor(0), a.int(1), a.int(2))],
  }),
  set: unaryTensor('set', 'set', ir.set),
  segmentSet: unaryTensor('segmentSet', 'segment_set', ir.segmentSet),
  slice: op<(arg: TensorHandle, startIndices: Sizes, endIndices: Sizes, strides?: Sizes | null, manualNormalization?: boolean) => TensorHandle>({
    name: 'slice',
    python: 'slice',
    params: [
      arg,
      { name: 'startIndices', python: 'start_indices', kind: 'sizes' },
      { name: 'endIndices', python: 'end_indices', kind: 'sizes' },
      { name: 'strides', python: 'strides', kind: 'optSizes', default: null },
      { name: 'manualNormalization', python: 'manual_normalization', kind: 'bool', default: false },
    ],
    output: 'tensor',
    apply: (_f, a) => {
      const [tv, starts, ends, strides] = [a.tensor(0), a.sizes(1), a.sizes(2), a.optSizes(3)];
      checkSliceArguments(tv.domain.logicalNoReductions().length, starts, ends, strides);
      return [ir.slice(tv, starts, ends, strides, { manualNormalization: a.bool(4) })];
    },
  }),
  pad: op<(arg: TensorHandle, padWidths: Sizes, value?: ScalarHandle | number | null) => TensorHandle>({
    name: 'pad',
    python: 'pad',
    params: [arg, { name: 'padWidths', python: 'pad_widths', kind: 'sizes' }, { name: 'value', python: 'value', kind: 'optScalar', default: null }],
    output: 'tensor',
    apply: (_f, a) => [ir.pad(a.tensor(0), a.sizes(1), a.optScalar(2) ?? 0)],
  }),
  cat: op<(tensors: readonly TensorHandle[], dim?: number, manualPadding?: boolean) => TensorHandle>({
    name: 'cat',
    python: 'cat',
    params: [
      { name: 'tensors', python: 'tensors', kind: 'tensors' },
      { name: 'dim', python: 'dim', kind: 'int', default: 0 },
      { name: 'manualPadding', python: 'manual_padding', kind: 'bool', default: false },
    ],
    output: 'tensor',
    apply: (_f, a) => {
      // nvFuser's manual_padding=True takes inputs already padded to the output's extent; the
      // reference semantics of that form are not modelled, so it is refused rather than guessed.
      if (a.bool(2)) throw new DefinitionError('cat: manual_padding=True (inputs padded by the caller) is not supported; use manual_padding=False');
      return [ir.cat(a.tensors(0), a.int(1))];
    },
  }),
  strideOrder: op<(arg: TensorHandle, strideOrder: readonly number[]) => TensorHandle>({
    name: 'strideOrder',
    python: 'stride_order',
    params: [arg, { name: 'strideOrder', python: 'stride_order', kind: 'ints' }],
    output: 'tensor',
    apply: (_f, a) => [ir.strideOrder(a.tensor(0), a.ints(1))],
  }),
  size: op<(arg: TensorHandle, dim: number) => ScalarHandle>({
    name: 'size',
    python: 'size',
    params: [arg, { name: 'dim', python: 'dim', kind: 'int' }],
    output: 'scalar',
    apply: (_f, a) => [ir.size(a.tensor(0), a.int(1))],
  }),
  shape: op<(arg: TensorHandle) => VectorHandle>({
    name: 'shape',
    python: 'shape',
    params: [arg],
    output: 'vector',
    apply: (_f, a) => [ir.shape(a.tensor(0))],
  }),

  full: op<(shape: Sizes, fillValue: ScalarHandle | number | boolean, dtype: DataType) => TensorHandle>({
    name: 'full',
    python: 'full',
    params: [
      { name: 'shape', python: 'shape', kind: 'sizes' },
      { name: 'fillValue', python: 'fill_value', kind: 'scalar' },
      { name: 'dtype', python: 'dtype', kind: 'dtype' },
    ],
    output: 'tensor',
    apply: withFusion((fusion, a) => ir.full(fusion, a.sizes(0), a.scalar(1), a.dtype(2) ?? 'Float')),
  }),
  iota: op<(length: ScalarHandle | number, start?: ScalarHandle | number, step?: ScalarHandle | number, dtype?: DataType) => TensorHandle>({
    name: 'iota',
    python: 'iota',
    params: [
      { name: 'length', python: 'length', kind: 'scalar' },
      { name: 'start', python: 'start', kind: 'scalar', default: 0 },
      { name: 'step', python: 'step', kind: 'scalar', default: 1 },
      { name: 'dtype', python: 'dtype', kind: 'dtype', default: 'Int' },
    ],
    output: 'tensor',
    apply: withFusion((fusion, a) => ir.iota(fusion, a.scalar(0), a.scalar(1), a.scalar(2), a.dtype(3) ?? 'Int')),
  }),

  softmax: op<(arg: TensorHandle, dim: number) => TensorHandle>({
    name: 'softmax',
    python: 'softmax',
    params: [arg, { name: 'dim', python: 'dim', kind: 'int' }],
    output: 'tensor',
    apply: (_f, a) => [ir.softmax(a.tensor(0), a.int(1))],
  }),
  logSoftmax: op<(arg: TensorHandle, dim: number) => TensorHandle>({
    name: 'logSoftmax',
    python: 'log_softmax',
    params: [arg, { name: 'dim', python: 'dim', kind: 'int' }],
    output: 'tensor',
    apply: (_f, a) => [ir.logSoftmax(a.tensor(0), a.int(1))],
  }),
  layerNorm: op<
    (arg: TensorHandle, normalizedShape: Dims, weight?: TensorHandle | null, bias?: TensorHandle | null, eps?: ScalarHandle | number) => [TensorHandle, TensorHandle, TensorHandle]
  >({
    name: 'layerNorm',
    python: 'layer_norm',
    params: [arg, { name: 'normalizedShape', python: 'normalized_shape', kind: 'intOrInts' }, optTensor('weight', 'weight'), optTensor('bias', 'bias'), eps],
    output: 3,
    outputNames: ['output', 'mean', 'invstd'],
    apply: (_f, a) => {
      const r = ir.layerNorm(a.tensor(0), a.intOrInts(1), a.optTensor(2), a.optTensor(3), a.scalar(4));
      return [r.output, r.mean, r.invstd];
    },
  }),
  rmsNorm: op<(arg: TensorHandle, normalizedShape: Dims, weight?: TensorHandle | null, eps?: ScalarHandle | number) => [TensorHandle, TensorHandle]>({
    name: 'rmsNorm',
    python: 'rms_norm',
    params: [arg, { name: 'normalizedShape', python: 'normalized_shape', kind: 'intOrInts' }, optTensor('weight', 'weight'), eps],
    output: 2,
    outputNames: ['output', 'invstd'],
    apply: (_f, a) => {
      const r = ir.rmsNorm(a.tensor(0), a.intOrInts(1), a.optTensor(2), a.scalar(3));
      return [r.output, r.invstd];
    },
  }),
  batchNorm: op<
    (
      arg: TensorHandle,
      weight: TensorHandle | null,
      bias: TensorHandle | null,
      runningMean: TensorHandle | null,
      runningVar: TensorHandle | null,
      momentum: ScalarHandle | number,
      eps: ScalarHandle | number,
      training: boolean,
      channelsLast?: boolean,
    ) => [TensorHandle, TensorHandle, TensorHandle]
  >({
    name: 'batchNorm',
    python: 'batch_norm',
    params: [
      arg,
      { name: 'weight', python: 'weight', kind: 'optTensor' },
      { name: 'bias', python: 'bias', kind: 'optTensor' },
      { name: 'runningMean', python: 'running_mean', kind: 'optTensor' },
      { name: 'runningVar', python: 'running_var', kind: 'optTensor' },
      { name: 'momentum', python: 'momentum', kind: 'scalar' },
      { name: 'eps', python: 'eps', kind: 'scalar' },
      { name: 'training', python: 'training', kind: 'bool' },
      { name: 'channelsLast', python: 'channels_last', kind: 'bool', default: false },
    ],
    output: 3,
    outputNames: ['output', 'mean', 'invstd'],
    apply: (_f, a) => {
      const r = ir.batchNorm(a.tensor(0), a.optTensor(1), a.optTensor(2), a.optTensor(3), a.optTensor(4), a.scalar(5), a.scalar(6), a.bool(7), a.bool(8));
      return [r.output, r.mean, r.invstd];
    },
  }),
  linear: op<(arg: TensorHandle, weight: TensorHandle, bias?: TensorHandle | null) => TensorHandle>({
    name: 'linear',
    python: 'linear',
    params: [{ ...arg, aliases: ['arg1'] }, { name: 'weight', python: 'weight', aliases: ['arg2'], kind: 'tensor' }, optTensor('bias', 'bias')],
    output: 'tensor',
    apply: (_f, a) => [ir.linear(a.tensor(0), a.tensor(1), a.optTensor(2))],
  }),
  square: unaryTensor('square', 'square', ir.square),
  leakyRelu: op<(arg: TensorHandle, negativeSlope?: Operand) => TensorHandle>({
    name: 'leakyRelu',
    python: 'leaky_relu',
    params: [arg, { name: 'negativeSlope', python: 'negative_slope', kind: 'operand', default: 0.01 }],
    output: 'tensor',
    apply: (_f, a) => [ir.leakyRelu(a.tensor(0), a.operand(1))],
  }),
  geluBackward: op<(grad: TensorHandle, arg: TensorHandle, approximate?: 'none' | 'tanh') => TensorHandle>({
    name: 'geluBackward',
    python: 'gelu_backward',
    params: [
      { name: 'grad', python: 'grad', kind: 'tensor' },
      arg,
      { name: 'approximate', python: 'approximate', kind: 'string', default: 'none', choices: ['none', 'tanh'] },
    ],
    output: 'tensor',
    apply: (_f, a) => [ir.geluBackward(a.tensor(0), a.tensor(1), a.string(2) === 'tanh' ? 'tanh' : 'none')],
  }),
  siluBackward: backward('siluBackward', 'silu_backward', 'arg', ir.siluBackward),
  sigmoidBackward: backward('sigmoidBackward', 'sigmoid_backward', 'output', ir.sigmoidBackward),
  tanhBackward: backward('tanhBackward', 'tanh_backward', 'output', ir.tanhBackward),
  reluBackward: backward('reluBackward', 'relu_backward', 'output', ir.reluBackward),
};
