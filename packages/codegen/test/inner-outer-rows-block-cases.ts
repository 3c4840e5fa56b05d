// Shared by the multi-row inner-outer persistent tests (inner-outer-rows-block.test.ts, fast
// tier; inner-outer-rows-block-random.test.ts, slow tier): an rms_norm backward fusion beside
// test-support's layer_norm backward one, seeded inputs for both, and a simulation compared
// with the reference evaluator norm-wise (test-support's normwiseSlack: the kernel sums the
// rows of grad_weight in its own order — per threadIdx.y, then across threadIdx.y, then across
// blocks — so an element may differ by the rounding of its output's largest terms, never by a
// tolerance a different summation order can exceed).
//
// rms_norm backward (aten-level, over the last dim, in Float): from grad_out [N, H], x [N, H],
// rstd [N] (Float) and weight [H]:
//   xhat = x·rstd,  g = grad_out·weight
//   grad_input  = rstd · (g − xhat · sum(g·xhat, 1)/H)      (one inner reduction)
//   grad_weight = sum(grad_out · xhat, 0)                    (one outer reduction)
// each output cast back to the input dtype.
import { broadcast, cast, evaluate, Fusion, HostTensor, isReducedFloat, makeTensor, mul, sub, sum, truediv, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { compareOutput, layerNormBackwardInputs, normwiseSlack, seededRandom, testSeed, type LayerNormBackwardCase } from '@tsfuser/test-support';
import { simulateKernel } from './kernel-simulator.js';
import { lowerCase } from './inner-outer-lowering.js';

export interface BackwardNormCase extends LayerNormBackwardCase {
  kind: 'layer_norm_bwd' | 'rms_norm_bwd';
}

function toFloat(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}

function castBack(tv: TensorView, dtype: DataType): TensorView {
  return dtype === 'Float' ? tv : cast(tv, dtype);
}

export function buildRmsNormBackward(dtype: DataType, rows: number, hidden: number): BackwardNormCase {
  const f = new Fusion();
  const go = makeTensor(f, { shape: [-1, -1], dtype });
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  const rstd = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const w = makeTensor(f, { shape: [-1], dtype });
  for (const t of [go, x, rstd, w]) f.addInput(t);
  const gof = toFloat(go);
  const rstdB = broadcast(rstd, [false, true]);
  const xhat = mul(toFloat(x), rstdB);
  const g = mul(gof, broadcast(toFloat(w), [true, false]));
  const a = broadcast(sum(mul(g, xhat), [1]), [false, true]);
  f.addOutput(castBack(mul(sub(g, truediv(mul(xhat, a), hidden)), rstdB), dtype));
  f.addOutput(castBack(sum(mul(gof, xhat), [0]), dtype));
  const sizes = [[rows, hidden], [rows, hidden], [rows], [hidden]];
  return { kind: 'rms_norm_bwd', name: `rms_norm_bwd_${dtype}_${rows}x${hidden}`, dtype, rows, hidden, fusion: f, sizes, info: makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s }))) };
}

export function layerNormCase(c: LayerNormBackwardCase): BackwardNormCase {
  return { ...c, kind: 'layer_norm_bwd' };
}

/** Seeded inputs: values in [−2, 2); rstd of x's rows (rms) or layer_norm's saved statistics. */
function inputsOf(c: BackwardNormCase, rand: () => number): HostTensor[] {
  if (c.kind === 'layer_norm_bwd') return layerNormBackwardInputs(c, rand);
  const r = (n: number): number[] => Array.from({ length: n }, () => (rand() - 0.5) * 4);
  const x = HostTensor.fromValues(c.dtype, [c.rows, c.hidden], r(c.rows * c.hidden));
  const xs = x.toFloat64Array();
  const rstd = Array.from({ length: c.rows }, (_, i) => {
    const row = xs.subarray(i * c.hidden, (i + 1) * c.hidden);
    return 1 / Math.sqrt(row.reduce((s, v) => s + v * v, 0) / c.hidden + 1e-5);
  });
  return [HostTensor.fromValues(c.dtype, [c.rows, c.hidden], r(c.rows * c.hidden)), x, HostTensor.fromValues('Float', [c.rows], rstd), HostTensor.fromValues(c.dtype, [c.hidden], r(c.hidden))];
}

/** Simulates the case's kernel and compares every output norm-wise; returns the launch's block. */
export function simulateNormwise(c: BackwardNormCase, overrides: InnerOuterPersistentOverrides = {}, seed = testSeed()): readonly number[] {
  const { kernel, compiled } = lowerCase(c, overrides);
  const inputs = inputsOf(c, seededRandom(seed));
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
  const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
  want.forEach((w, i) => compareOutput(w, got[i] as HostTensor, `${c.name} ${JSON.stringify(overrides)} (inputs: seed ${seed}) output ${i}`, normwiseSlack(w)));
  return compiled.launch.block;
}
