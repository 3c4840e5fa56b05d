// layer_norm backward fusions for the inner-outer persistent scheduler's codegen tests and the
// GPU normalization suite (aten::native_layer_norm_backward over the last dim, in Float):
// from grad_out [N, H], x [N, H], mean [N], rstd [N] (Float) and weight [H]:
//   xhat = (x − mean)·rstd,  g = grad_out·weight
//   grad_input  = rstd · (g − sum(g, 1)/H − xhat · sum(g·xhat, 1)/H)     (inner reductions)
//   grad_weight = sum(grad_out · xhat, 0),  grad_bias = sum(grad_out, 0)   (outer reductions)
// each output cast back to the input dtype. (The scheduler package's tests build the same
// fusion in scheduler/test/layer-norm-backward-fixture.ts.)
import { broadcast, cast, Fusion, HostTensor, isReducedFloat, makeTensor, mul, sub, sum, truediv, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { InnerOuterPersistentScheduler, makeRuntimeInfo, SchedulerRegistry, type InnerOuterPersistentOverrides, type RuntimeInfo } from '@tsfuser/scheduler';

export interface LayerNormBackwardCase {
  name: string;
  dtype: DataType;
  rows: number;
  hidden: number;
  fusion: Fusion;
  sizes: number[][];
  info: RuntimeInfo;
}

function toFloat(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}

function castBack(tv: TensorView, dtype: DataType): TensorView {
  return tv.dtype === dtype ? tv : cast(tv, dtype);
}

/** Inputs: grad_out, x, mean, rstd, weight; outputs: grad_input, grad_weight, grad_bias. */
export function buildLayerNormBackward(dtype: DataType, rows: number, hidden: number, name = `layer_norm_bwd_${dtype}_${rows}x${hidden}`): LayerNormBackwardCase {
  const f = new Fusion();
  const go = makeTensor(f, { shape: [-1, -1], dtype });
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  const mean = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const rstd = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const w = makeTensor(f, { shape: [-1], dtype });
  for (const t of [go, x, mean, rstd, w]) f.addInput(t);
  const gof = toFloat(go);
  const rstdB = broadcast(rstd, [false, true]);
  const xhat = mul(sub(toFloat(x), broadcast(mean, [false, true])), rstdB);
  const g = mul(gof, broadcast(toFloat(w), [true, false]));
  const a = broadcast(sum(mul(g, xhat), [1]), [false, true]);
  const b = broadcast(sum(g, [1]), [false, true]);
  const gi = mul(sub(sub(g, truediv(b, hidden)), truediv(mul(xhat, a), hidden)), rstdB);
  f.addOutput(castBack(gi, dtype));
  f.addOutput(castBack(sum(mul(gof, xhat), [0]), dtype));
  f.addOutput(castBack(sum(gof, [0]), dtype));
  const sizes = [[rows, hidden], [rows, hidden], [rows], [rows], [hidden]];
  return { name, dtype, rows, hidden, fusion: f, sizes, info: makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s }))) };
}

/** Only the inner-outer persistent scheduler (tests that must not fall back to segmentation). */
export function innerOuterPersistentRegistry(overrides: InnerOuterPersistentOverrides = {}): SchedulerRegistry {
  return new SchedulerRegistry([new InnerOuterPersistentScheduler(overrides)]);
}

/**
 * Inputs with the statistics of x (mean and rstd computed on the host from x, as the forward
 * pass saved them), grad_out and weight random in [−2, 2).
 */
export function layerNormBackwardInputs(c: LayerNormBackwardCase, rand: () => number = Math.random): HostTensor[] {
  const { rows, hidden, dtype } = c;
  // Typed arrays throughout: the benchmark shape (16384×4096) has 67M elements per tensor.
  const r = (n: number): Float64Array => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i += 1) v[i] = (rand() - 0.5) * 4;
    return v;
  };
  const x = HostTensor.fromValues(dtype, [rows, hidden], r(rows * hidden));
  const xs = x.toFloat64Array();
  const mean: number[] = [];
  const rstd: number[] = [];
  for (let i = 0; i < rows; i += 1) {
    const row = xs.subarray(i * hidden, (i + 1) * hidden);
    const m = row.reduce((a, b) => a + b, 0) / hidden;
    const v = row.reduce((a, b) => a + (b - m) * (b - m), 0) / hidden;
    mean.push(m);
    rstd.push(1 / Math.sqrt(v + 1e-5));
  }
  return [
    HostTensor.fromValues(dtype, [rows, hidden], r(rows * hidden)),
    x,
    HostTensor.fromValues('Float', [rows], mean),
    HostTensor.fromValues('Float', [rows], rstd),
    HostTensor.fromValues(dtype, [hidden], r(hidden)),
  ];
}

/** Odd and even sizes: H not a multiple of the vector width, N below and above the grid size. */
export const LAYER_NORM_BACKWARD_SHAPES: readonly (readonly [number, number])[] = [
  [1, 1],
  [5, 7],
  [37, 100],
  [300, 96],
  [130, 1000],
  [600, 258],
  [8, 4096],
];

export const LAYER_NORM_BACKWARD_DTYPES: readonly DataType[] = ['Float', 'Half', 'BFloat16'];

export function layerNormBackwardFixtures(): LayerNormBackwardCase[] {
  return LAYER_NORM_BACKWARD_DTYPES.flatMap((d) => LAYER_NORM_BACKWARD_SHAPES.map(([n, h]) => buildLayerNormBackward(d, n, h)));
}
