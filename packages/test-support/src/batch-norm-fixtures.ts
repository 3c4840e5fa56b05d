// Batch-norm-like fusions with the segments the default registry should give them, for the
// codegen tests (small: simulated on the CPU) and the GPU outer persistent suite (also
// realistic sizes): batch_norm training on channels-last inputs (fusion-ir's Welford batchNorm
// with weight, bias and running stats; decomposed as nvFuser's python_definition writes it,
// broadcast_in_dim expanding to the input's shape), x − mean(x, 0), var_mean(x, 0) then
// normalize — one outer_persistent kernel each while a column fits in registers; NCHW
// batch_norm (the innermost dim is reduced too: nvFuser's inner persistent pattern); and
// columns too long for registers, or long columns with too few columns to fill the device,
// which segmentation splits into reduction + pointwise kernels (a Welford reduction for
// fusion-ir's batchNorm).
import {
  add, batchNorm, broadcast, broadcastInDim, cast, Fusion, HostTensor, makeTensor, mean, mul, rsqrt, shape, sub, varMean,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type RuntimeInfo } from '@tsfuser/scheduler';

export interface BatchNormCase {
  name: string;
  fusion: Fusion;
  sizes: number[][];
  info: RuntimeInfo;
  /** Scheduler of each segment, in plan order, that the default registry gives. */
  segments: string[];
  /** The least precise dtype the fusion computes in (for the tolerance). */
  dtype: DataType;
  /** Elements reduced per output value (for the tolerance). */
  reduced: number;
}

function newFusion(shapes: number[][], dtypes: DataType[]): { f: Fusion; ins: TensorView[] } {
  const f = new Fusion();
  const ins = shapes.map((s, i) => {
    const t = makeTensor(f, { shape: s.map(() => -1), dtype: dtypes[i] ?? 'Float' });
    f.addInput(t);
    return t;
  });
  return { f, ins };
}

function finish(name: string, f: Fusion, sizes: number[][], segments: string[], dtype: DataType, reduced: number): BatchNormCase {
  return { name, fusion: f, sizes, info: makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s }))), segments, dtype, reduced };
}

const toFloat = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));
const product = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** fusion-ir's batchNorm (training, Welford) with weight, bias and running stats. */
export function batchNormCase(dtype: DataType, xShape: number[], channelsLast: boolean, segments: string[]): BatchNormCase {
  const cDim = channelsLast ? xShape.length - 1 : 1;
  const c = xShape[cDim] as number;
  const sizes = [xShape, [c], [c], [c], [c]];
  const { f, ins } = newFusion(sizes, [dtype, dtype, dtype, 'Float', 'Float']);
  const [x, w, b, rm, rv] = ins as [TensorView, TensorView, TensorView, TensorView, TensorView];
  const r = batchNorm(x, w, b, rm, rv, 0.1, 1e-5, true, channelsLast);
  for (const o of [r.output, r.mean, r.invstd, r.newRunningMean, r.newRunningVar]) if (o !== null) f.addOutput(o);
  const name = `batch_norm_${channelsLast ? 'channels_last' : 'nchw'}_${dtype}_${xShape.join('x')}`;
  return finish(name, f, sizes, segments, dtype, product(xShape) / c);
}

/** Channels-last batch norm written as nvFuser's python_definition dump writes it. */
export function decomposedChannelsLast(dtype: DataType, xShape: number[], segments: string[] = ['outer_persistent']): BatchNormCase {
  const rank = xShape.length;
  const c = xShape[rank - 1] as number;
  const sizes = [xShape, [c], [c]];
  const { f, ins } = newFusion(sizes, [dtype, dtype, dtype]);
  const [x, w, b] = ins as [TensorView, TensorView, TensorView];
  const xf = toFloat(x);
  const vm = varMean(xf, Array.from({ length: rank - 1 }, (_, d) => d), 0);
  const invstd = rsqrt(add(vm.var, 1e-5));
  const perChannel = (t: TensorView): TensorView => broadcastInDim(t, shape(x), [rank - 1]);
  const y = add(mul(mul(sub(xf, perChannel(vm.mean)), perChannel(invstd)), toFloat(perChannel(w))), toFloat(perChannel(b)));
  f.addOutput(cast(y, dtype));
  f.addOutput(vm.mean);
  f.addOutput(invstd);
  return finish(`batch_norm_decomposed_channels_last_${dtype}_${xShape.join('x')}`, f, sizes, segments, dtype, product(xShape) / c);
}

/** x − mean(x, 0) over x[N, C] (Float). */
export function minusMean(xShape: number[], segments: string[]): BatchNormCase {
  const { f, ins } = newFusion([xShape], ['Float']);
  const x = ins[0] as TensorView;
  f.addOutput(sub(x, broadcast(mean(x, [0]), [true, false])));
  return finish(`minus_mean_${xShape.join('x')}`, f, [xShape], segments, 'Float', xShape[0] as number);
}

/** var_mean(x, 0) (unbiased) then (x − mean) · rsqrt(var + eps) over x[N, C]. */
export function varMeanNormalize(dtype: DataType, xShape: number[], segments: string[] = ['outer_persistent']): BatchNormCase {
  const { f, ins } = newFusion([xShape], [dtype]);
  const xf = toFloat(ins[0] as TensorView);
  const vm = varMean(xf, [0], 1);
  const y = mul(sub(xf, broadcast(vm.mean, [true, false])), broadcast(rsqrt(add(vm.var, 1e-5)), [true, false]));
  f.addOutput(cast(y, dtype));
  f.addOutput(vm.var);
  return finish(`var_mean_dim0_normalize_${dtype}_${xShape.join('x')}`, f, [xShape], segments, dtype, xShape[0] as number);
}

/** Two-pass batch norm over x[N, C] (Float, no Welford): its fallback segments compile today. */
export function twoPassBatchNorm(xShape: number[], segments: string[]): BatchNormCase {
  const { f, ins } = newFusion([xShape], ['Float']);
  const x = ins[0] as TensorView;
  const mu = mean(x, [0]);
  const xm = sub(x, broadcast(mu, [true, false]));
  const invstd = rsqrt(add(mean(mul(xm, xm), [0]), 1e-5));
  f.addOutput(mul(xm, broadcast(invstd, [true, false])));
  f.addOutput(mu);
  return finish(`batch_norm_two_pass_${xShape.join('x')}`, f, [xShape], segments, 'Float', xShape[0] as number);
}

/** Column-too-long fallback: a column of 60000 floats is 240000 bytes, over the 227328-byte budget. */
const FALLBACK_ROWS = 60_000;

/** Small enough to simulate every kernel on the CPU. */
export function batchNormCases(): BatchNormCase[] {
  return [
    batchNormCase('Float', [4, 6, 5, 24], true, ['outer_persistent']),
    batchNormCase('Half', [3, 3, 7, 40], true, ['outer_persistent']),
    batchNormCase('Float', [4, 8, 5, 6], false, ['inner_persistent']),
    decomposedChannelsLast('BFloat16', [3, 4, 4, 40]),
    minusMean([300, 20], ['outer_persistent']),
    varMeanNormalize('Half', [200, 17]),
    minusMean([FALLBACK_ROWS, 2], ['reduction', 'pointwise']),
    twoPassBatchNorm([FALLBACK_ROWS, 2], ['reduction', 'reduction', 'pointwise']),
    // Welford fallbacks: a column over the budget; 8192-element columns but only 4 of them
    // (too few blocks for a persistent kernel, nvFuser's rule).
    batchNormCase('Float', [FALLBACK_ROWS, 2], true, ['reduction', 'pointwise']),
    batchNormCase('BFloat16', [8192, 4], true, ['reduction', 'pointwise']),
  ];
}

/** GPU sizes: ResNet-like and larger shapes, NCHW and channels-last, plus the fallbacks. */
export function gpuBatchNormCases(): BatchNormCase[] {
  return [
    ...batchNormCases(),
    batchNormCase('Float', [8, 32, 32, 1024], true, ['outer_persistent']),
    batchNormCase('BFloat16', [16, 14, 14, 512], true, ['outer_persistent']),
    batchNormCase('Half', [2, 7, 7, 2048], true, ['outer_persistent']),
    batchNormCase('Float', [32, 64, 28, 28], false, ['inner_persistent']),
    batchNormCase('BFloat16', [8, 256, 14, 14], false, ['inner_persistent']),
    batchNormCase('Float', [3, 5, 7, 9], false, ['inner_persistent']),
    decomposedChannelsLast('Float', [8, 16, 16, 256]),
    decomposedChannelsLast('Half', [5, 9, 11, 77]),
    minusMean([1024, 16384], ['outer_persistent']),
    minusMean([4097, 33], ['outer_persistent']),
    varMeanNormalize('BFloat16', [2048, 3000]),
    varMeanNormalize('Float', [1, 513]),
    minusMean([200_000, 64], ['reduction', 'pointwise']),
    twoPassBatchNorm([100_000, 48], ['reduction', 'reduction', 'pointwise']),
    // 8192 reduced elements, 64 columns: too few blocks for a persistent kernel (nvFuser's rule).
    batchNormCase('BFloat16', [8, 32, 32, 64], true, ['reduction', 'pointwise']),
    // 262144-element columns: over the register budget.
    batchNormCase('Float', [64, 64, 64, 32], true, ['reduction', 'pointwise']),
  ];
}

/**
 * Random inputs drawn from `rand` (tests pass `seededRandom(seed)` and name the seed on failure);
 * running variances (input 4 of batchNormCase) positive.
 */
export function randomBatchNormInputs(c: BatchNormCase, rand: () => number = Math.random): HostTensor[] {
  return c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    const n = product(sizes);
    return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: n }, () => (i === 4 ? 0.5 + rand() : (rand() - 0.5) * 6)));
  });
}
