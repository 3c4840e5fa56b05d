// The sweep families added from nvFuser's benchmarks/python (issue 38) compute, on the reference
// backend at a small size, what independent float64 math says (the math of PyTorch's ops, written
// out here): dropout + layer_norm / rms_norm forward (the keep mask is rand_like's numbers for the
// same seed and offset below 1 − p, drawn by a separate one-op definition) and backward (mask
// given), silu·mul and scale·bias·relu backward, tanh-gelu backward + a reduction over either axis,
// the per-row broadcast add, residual add + rms_norm, and channels-last batch_norm forward and
// backward (statistics per column of [N·H·W, C]), the cross-entropy loss, a transpose, an
// embedding lookup, instance_norm forward and backward on [N, 16, H·W] and group_norm on
// [N, 32, 2, H·W]. Also their byte counts and input lists.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { sweepDefinition, sweepInputs } from '../src/bench/sweep-definitions.js';
import { SWEEP_DROPOUT_OFFSET, SWEEP_DROPOUT_P, SWEEP_DROPOUT_SEED } from '../src/bench/sweep-dropout-definitions.js';
import { NVF_GLUE_SWEEP_FAMILIES, pointBytes, pointName, sweepPoints, type SweepPoint } from '../src/bench/sweep-points.js';
import { importPythonDefinition } from '../src/python/import-definition.js';
import { Random } from '../src/io/random.js';
import type { ExecuteInput } from '../src/execute/backend.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { fakeDevice } from './fake-device.js';

type Family = (typeof NVF_GLUE_SWEEP_FAMILIES)[number];

const RAND_LIKE = `def rand(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    fd.add_output(fd.ops.rand_like(T0, rng_seed=S1, rng_offset=S2))
`;

const rows = 5;
const hidden = 37;
const seed = Number(process.env['SWEEP_TEST_SEED'] ?? Date.now() % 100000);

/** Row-major [rows, hidden] helpers over flat float64 arrays. */
const at = (t: Float64Array, r: number, c: number): number => t[r * hidden + c] as number;
const grid = (f: (r: number, c: number) => number): number[] => Array.from({ length: rows * hidden }, (_, k) => f(Math.floor(k / hidden), k % hidden));
const perRow = (f: (r: number) => number): number[] => Array.from({ length: rows }, (_, r) => f(r));
const perCol = (f: (c: number) => number): number[] => Array.from({ length: hidden }, (_, c) => f(c));
const rowSum = (f: (c: number) => number): number => perCol(f).reduce((a, b) => a + b, 0);
const colSum = (f: (r: number) => number): number => perRow(f).reduce((a, b) => a + b, 0);
const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));
const keepScale = 1 / (1 - SWEEP_DROPOUT_P);

/** d/du of u/2 · (1 + tanh(√(2/π) · (u + 0.044715 u³))). */
function geluTanhGrad(u: number): number {
  const k = Math.sqrt(2 / Math.PI);
  const t = Math.tanh(k * (u + 0.044715 * u ** 3));
  return 0.5 * (1 + t) + 0.5 * u * (1 - t * t) * k * (1 + 3 * 0.044715 * u * u);
}

/** Float64 outputs of a family from its inputs (tensors flat; `mask` the forward's keep mask). */
function expected(family: Family, ins: Float64Array[], mask: Float64Array): number[][] {
  const t = (i: number): Float64Array => ins[i] as Float64Array;
  // z = input2 + input1 · mask / (1 − p), its normalized forms per row.
  const z = (x1: Float64Array, x2: Float64Array, m: Float64Array): Float64Array => Float64Array.from(grid((r, c) => at(x2, r, c) + at(x1, r, c) * at(m, r, c) * keepScale));
  const ln = (zz: Float64Array): { mean: number[]; invstd: number[] } => {
    const mean = perRow((r) => rowSum((c) => at(zz, r, c)) / hidden);
    const invstd = perRow((r) => 1 / Math.sqrt(rowSum((c) => (at(zz, r, c) - (mean[r] as number)) ** 2) / hidden + 1e-5));
    return { mean, invstd };
  };
  switch (family) {
    case 'dropout_layer_norm': {
      const zz = z(t(0), t(1), mask);
      const { mean, invstd } = ln(zz);
      const y = grid((r, c) => (at(zz, r, c) - (mean[r] as number)) * (invstd[r] as number) * (t(2)[c] as number) + (t(3)[c] as number));
      return [y, mean, invstd, Array.from(mask)];
    }
    case 'dropout_rms_norm': {
      const zz = z(t(0), t(1), mask);
      const rms = perRow((r) => Math.sqrt(rowSum((c) => at(zz, r, c) ** 2) / hidden + 1e-5));
      return [grid((r, c) => ((t(2)[c] as number) * at(zz, r, c)) / (rms[r] as number)), Array.from(mask), rms];
    }
    case 'dropout_layer_norm_bwd': {
      // inputs: mask, mean, invstd, grad_out, weight, input1, input2.
      const [m, mean, invstd, dy, w] = [t(0), t(1), t(2), t(3), t(4)];
      const zz = z(t(5), t(6), m);
      const xhat = (r: number, c: number): number => (at(zz, r, c) - (mean[r] as number)) * (invstd[r] as number);
      const g = (r: number, c: number): number => at(dy, r, c) * (w[c] as number);
      const meanG = perRow((r) => rowSum((c) => g(r, c)) / hidden);
      const meanGX = perRow((r) => rowSum((c) => g(r, c) * xhat(r, c)) / hidden);
      const dz = grid((r, c) => (invstd[r] as number) * (g(r, c) - (meanG[r] as number) - xhat(r, c) * (meanGX[r] as number)));
      return [dz.map((v, k) => v * (m[k] as number) * keepScale), dz, perCol((c) => colSum((r) => at(dy, r, c) * xhat(r, c))), perCol((c) => colSum((r) => at(dy, r, c)))];
    }
    case 'dropout_rms_norm_bwd': {
      // inputs: input1, input2, mask, rms, grad_out, weight.
      const [m, rms, dy, w] = [t(2), t(3), t(4), t(5)];
      const zz = z(t(0), t(1), m);
      const xhat = (r: number, c: number): number => at(zz, r, c) / (rms[r] as number);
      const g = (r: number, c: number): number => at(dy, r, c) * (w[c] as number);
      const meanGX = perRow((r) => rowSum((c) => g(r, c) * xhat(r, c)) / hidden);
      const dz = grid((r, c) => (g(r, c) - xhat(r, c) * (meanGX[r] as number)) / (rms[r] as number));
      return [dz.map((v, k) => v * (m[k] as number) * keepScale), dz, perCol((c) => colSum((r) => at(dy, r, c) * xhat(r, c)))];
    }
    case 'silu_mul_bwd': {
      // inputs: grad_out, x, y; outputs grad_y, grad_x of silu(x)·y.
      const [dy, x, y] = [t(0), t(1), t(2)];
      const dSilu = (v: number): number => sigmoid(v) + v * sigmoid(v) * (1 - sigmoid(v));
      return [grid((r, c) => at(dy, r, c) * at(x, r, c) * sigmoid(at(x, r, c))), grid((r, c) => at(dy, r, c) * at(y, r, c) * dSilu(at(x, r, c)))];
    }
    case 'scale_bias_relu_bwd':
      // inputs: scale, mask (x·scale + bias > 0), grad_out.
      return [grid((r, c) => (at(t(1), r, c) !== 0 ? at(t(2), r, c) * (t(0)[c] as number) : 0))];
    case 'gelu_bwd_reduction_outer':
    case 'gelu_bwd_reduction_inner': {
      // inputs: x, grad_out, bias.
      const v = (r: number, c: number): number => at(t(1), r, c) * geluTanhGrad(at(t(0), r, c) + (t(2)[c] as number));
      return [family === 'gelu_bwd_reduction_outer' ? perCol((c) => colSum((r) => v(r, c))) : perRow((r) => rowSum((c) => v(r, c)))];
    }
    case 'broadcast_add_inner':
      return [grid((r, c) => at(t(1), r, c) + (t(0)[r] as number))];
    case 'rms_norm_add': {
      // inputs: x, weight, residual; outputs y, x + residual.
      const h = grid((r, c) => at(t(0), r, c) + at(t(2), r, c));
      const rstd = perRow((r) => 1 / Math.sqrt(rowSum((c) => (h[r * hidden + c] as number) ** 2) / hidden + 1e-5));
      return [h.map((v, k) => v * (rstd[Math.floor(k / hidden)] as number) * (t(1)[k % hidden] as number)), h];
    }
    case 'batch_norm': {
      // inputs: x [N·H·W, C], weight, bias; statistics per column over the rows.
      const x = t(0);
      const mean = perCol((c) => colSum((r) => at(x, r, c)) / rows);
      const invstd = perCol((c) => 1 / Math.sqrt(colSum((r) => (at(x, r, c) - (mean[c] as number)) ** 2) / rows + 1e-5));
      return [grid((r, c) => (at(x, r, c) - (mean[c] as number)) * (invstd[c] as number) * (t(1)[c] as number) + (t(2)[c] as number)), mean, invstd];
    }
    case 'batch_norm_bwd': {
      // inputs: x, grad_out, weight, mean, invstd.
      const [x, dy, w, mean, invstd] = [t(0), t(1), t(2), t(3), t(4)];
      const xhat = (r: number, c: number): number => (at(x, r, c) - (mean[c] as number)) * (invstd[c] as number);
      const db = perCol((c) => colSum((r) => at(dy, r, c)));
      const dw = perCol((c) => colSum((r) => at(dy, r, c) * xhat(r, c)));
      const dx = grid((r, c) => (w[c] as number) * (invstd[c] as number) * (at(dy, r, c) - (db[c] as number) / rows - (xhat(r, c) * (dw[c] as number)) / rows));
      return [dx, dw, db];
    }
    case 'cross_entropy': {
      // inputs: logits [rows, vocab], labels; mean over rows of logsumexp − the label's logit.
      const x = t(0);
      const labels = t(1);
      const lse = perRow((r) => Math.log(rowSum((c) => Math.exp(at(x, r, c)))));
      return [[colSum((r) => (lse[r] as number) - at(x, r, labels[r] as number)) / rows]];
    }
    case 'transpose':
      // output [hidden, rows]: out[c][r] = relu(x[r][c]).
      return [Array.from({ length: rows * hidden }, (_, k) => Math.max(0, at(t(0), k % rows, Math.floor(k / rows))))];
    case 'embedding': {
      // inputs: ids [rows], table [vocab, hidden].
      const ids = t(0);
      const table = t(1);
      return [grid((r, c) => table[(ids[r] as number) * hidden + c] as number)];
    }
    case 'instance_norm':
    case 'instance_norm_bwd':
    case 'group_norm':
      throw new Error(`${family}: rows must be a multiple of 16 / 64; checked on its own below`);
    default: {
      const unreachable: never = family;
      throw new Error(String(unreachable));
    }
  }
}

/** Float64 instance_norm (backward) of x [n, C, S] flat; ins in sweepInputs order. */
function instanceNormExpected(family: 'instance_norm' | 'instance_norm_bwd', ins: Float64Array[], n: number, channels: number, s: number): number[][] {
  const t = (i: number): Float64Array => ins[i] as Float64Array;
  const x = t(0);
  const at3 = (a: Float64Array, i: number, c: number, k: number): number => a[(i * channels + c) * s + k] as number;
  const each = (f: (i: number, c: number, k: number) => number): number[] => Array.from({ length: n * channels * s }, (_, q) => f(Math.floor(q / (channels * s)), Math.floor(q / s) % channels, q % s));
  const sumS = (f: (k: number) => number): number => Array.from({ length: s }, (_, k) => f(k)).reduce((a, b) => a + b, 0);
  const perNC = (f: (i: number, c: number) => number): number[] => Array.from({ length: n * channels }, (_, q) => f(Math.floor(q / channels), q % channels));
  const perC = (f: (c: number) => number): number[] => Array.from({ length: channels }, (_, c) => f(c));
  const sumN = (f: (i: number) => number): number => Array.from({ length: n }, (_, i) => f(i)).reduce((a, b) => a + b, 0);
  if (family === 'instance_norm') {
    const mean = perNC((i, c) => sumS((k) => at3(x, i, c, k)) / s);
    const invstd = perNC((i, c) => 1 / Math.sqrt(sumS((k) => (at3(x, i, c, k) - (mean[i * channels + c] as number)) ** 2) / s + 1e-5));
    const y = each((i, c, k) => (at3(x, i, c, k) - (mean[i * channels + c] as number)) * (invstd[i * channels + c] as number) * (t(1)[c] as number) + (t(2)[c] as number));
    return [y, mean, invstd];
  }
  // inputs: x, grad_out, weight, mean, invstd.
  const [dy, w, mean, invstd] = [t(1), t(2), t(3), t(4)];
  const xhat = (i: number, c: number, k: number): number => (at3(x, i, c, k) - (mean[i * channels + c] as number)) * (invstd[i * channels + c] as number);
  const g = (i: number, c: number, k: number): number => at3(dy, i, c, k) * (w[c] as number);
  const meanG = perNC((i, c) => sumS((k) => g(i, c, k)) / s);
  const meanGX = perNC((i, c) => sumS((k) => g(i, c, k) * xhat(i, c, k)) / s);
  const dx = each((i, c, k) => (invstd[i * channels + c] as number) * (g(i, c, k) - (meanG[i * channels + c] as number) - xhat(i, c, k) * (meanGX[i * channels + c] as number)));
  return [dx, perC((c) => sumN((i) => sumS((k) => at3(dy, i, c, k) * xhat(i, c, k)))), perC((c) => sumN((i) => sumS((k) => at3(dy, i, c, k))))];
}

async function keepMask(): Promise<Float64Array> {
  const shape = HostTensor.fromValues('Float', [rows, hidden], new Array<number>(rows * hidden).fill(0));
  const [u] = await importPythonDefinition(RAND_LIKE).execute([Tensor.fromHost(shape), SWEEP_DROPOUT_SEED, SWEEP_DROPOUT_OFFSET], { backend: 'reference' });
  return Float64Array.from((u as Tensor).toHost().toFloat64Array(), (v) => (v < 1 - SWEEP_DROPOUT_P ? 1 : 0));
}

describe('nvFuser benchmark families in the sweep (issue 38)', () => {
  it.each(NVF_GLUE_SWEEP_FAMILIES.filter((f) => f !== 'instance_norm' && f !== 'instance_norm_bwd' && f !== 'group_norm'))('%s equals float64 math (Float, reference backend, 5x37)', async (family) => {
    const rng = new Random(seed);
    const mask = await keepMask();
    const hosts: (HostTensor | number)[] = sweepInputs(family, 'Float', rows, hidden).map((i) => {
      if (i.scalar !== undefined) return i.scalar;
      const n = i.sizes.reduce((a, b) => a * b, 1);
      if (i.indexBound !== undefined) {
        const bound = i.indexBound;
        return HostTensor.fromValues('Int', i.sizes, Array.from({ length: n }, () => BigInt(Math.min(bound - 1, Math.floor(rng.uniform() * bound)))));
      }
      if (i.dtype === 'Bool') return HostTensor.fromValues('Bool', i.sizes, Array.from({ length: n }, () => rng.uniform() < 1 - SWEEP_DROPOUT_P));
      return HostTensor.fromValues('Float', i.sizes, Array.from({ length: n }, () => (i.positive === true ? 0.5 + rng.uniform() : rng.normal())));
    });
    const args: ExecuteInput[] = hosts.map((h) => (typeof h === 'number' ? h : Tensor.fromHost(h)));
    const outs = await sweepDefinition(family, 'Float').execute(args, { backend: 'reference' });
    const want = expected(
      family,
      hosts.filter((h): h is HostTensor => typeof h !== 'number').map((h) => h.toFloat64Array()),
      mask,
    );
    expect(outs.length, `seed ${seed}`).toBe(want.length);
    outs.forEach((o, k) => {
      const got = o.toHost().toFloat64Array();
      const w = want[k] as number[];
      expect(got.length, `seed ${seed}, output ${k}`).toBe(w.length);
      w.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `seed ${seed}, output ${k}, element ${i}: ${got[i]} vs ${e}`).toBeLessThanOrEqual(1e-5 + 2e-5 * Math.abs(e)));
    });
    if (family === 'dropout_layer_norm' || family === 'dropout_rms_norm') {
      // p = 0.2 of 185 elements: the mask drops some and keeps most.
      const dropped = mask.reduce((a, v) => a + (1 - v), 0);
      expect(dropped).toBeGreaterThan(10);
      expect(dropped).toBeLessThan(70);
    }
  });

  it.each(['instance_norm', 'instance_norm_bwd'] as const)('%s equals float64 math on [2, 16, 37] (Float, reference backend, point 32x37)', async (family) => {
    const rng = new Random(seed);
    const specs = sweepInputs(family, 'Float', 32, hidden);
    expect(specs[0]?.sizes).toEqual([2, 16, hidden]);
    const hosts = specs.map((i) => HostTensor.fromValues('Float', i.sizes, Array.from({ length: i.sizes.reduce((a, b) => a * b, 1) }, () => (i.positive === true ? 0.5 + rng.uniform() : rng.normal()))));
    const outs = await sweepDefinition(family, 'Float').execute(hosts.map((h) => Tensor.fromHost(h)), { backend: 'reference' });
    const want = instanceNormExpected(family, hosts.map((h) => h.toFloat64Array()), 2, 16, hidden);
    expect(outs.length, `seed ${seed}`).toBe(want.length);
    outs.forEach((o, k) => {
      const got = o.toHost().toFloat64Array();
      const w = want[k] as number[];
      expect(got.length, `seed ${seed}, output ${k}`).toBe(w.length);
      w.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `seed ${seed}, output ${k}, element ${i}`).toBeLessThanOrEqual(1e-5 + 2e-5 * Math.abs(e)));
    });
  });

  it('group_norm equals float64 math on [2, 32, 2, 37] (Float, reference backend, point 128x37)', async () => {
    const rng = new Random(seed);
    const specs = sweepInputs('group_norm', 'Float', 128, hidden);
    expect(specs.map((i) => i.sizes)).toEqual([[2, 32, 2, hidden], [32, 2], [32, 2]]);
    const hosts = specs.map((i) => HostTensor.fromValues('Float', i.sizes, Array.from({ length: i.sizes.reduce((a, b) => a * b, 1) }, () => rng.normal())));
    const [y] = await sweepDefinition('group_norm', 'Float').execute(hosts.map((h) => Tensor.fromHost(h)), { backend: 'reference' });
    const [x, w, b] = hosts.map((h) => h.toFloat64Array()) as [Float64Array, Float64Array, Float64Array];
    // group (n, g) holds channels 2g, 2g + 1 of sample n: 2 · 37 contiguous values.
    const per = 2 * hidden;
    const got = (y as Tensor).toHost().toFloat64Array();
    for (let grp = 0; grp < 64; grp += 1) {
      const v = Array.from(x.subarray(grp * per, (grp + 1) * per));
      const mean = v.reduce((a, q) => a + q, 0) / per;
      const invstd = 1 / Math.sqrt(v.reduce((a, q) => a + (q - mean) ** 2, 0) / per + 1e-5);
      v.forEach((q, k) => {
        const channel = (grp % 32) * 2 + Math.floor(k / hidden);
        const want = (q - mean) * invstd * (w[channel] as number) + (b[channel] as number);
        expect(Math.abs((got[grp * per + k] as number) - want), `seed ${seed}, group ${grp}, element ${k}`).toBeLessThanOrEqual(1e-5 + 2e-5 * Math.abs(want));
      });
    }
  });

  it('instance_norm points exist only where 16 channels divide the rows', () => {
    const names = sweepPoints({ families: ['instance_norm', 'layer_norm'], dtypes: ['Float'], sizes: [[5, 37], [32, 37]] }).map(pointName);
    expect(names).toEqual(['instance_norm_f32_32x37', 'layer_norm_f32_5x37', 'layer_norm_f32_32x37']);
    expect(sweepPoints({ families: ['group_norm'], dtypes: ['Float'], sizes: [[32, 37], [16, 768], [1024, 768]] }).map(pointName)).toEqual(['group_norm_f32_1024x768']);
  });

  it('bytes: every input read once, every output written once (masks 1 byte, statistics f32)', () => {
    const p = (family: Family): SweepPoint => ({ family, dtype: 'BFloat16', rows: 8, hidden: 16 });
    const n = 128;
    expect(pointBytes(p('dropout_layer_norm'))).toBe(3 * n * 2 + 2 * 16 * 2 + 2 * 8 * 4 + n);
    expect(pointBytes(p('dropout_layer_norm_bwd'))).toBe(5 * n * 2 + n + 2 * 8 * 4 + 3 * 16 * 2);
    expect(pointBytes(p('dropout_rms_norm'))).toBe(3 * n * 2 + 16 * 2 + n + 8 * 4);
    expect(pointBytes(p('dropout_rms_norm_bwd'))).toBe(5 * n * 2 + n + 8 * 4 + 2 * 16 * 2);
    expect(pointBytes(p('silu_mul_bwd'))).toBe(5 * n * 2);
    expect(pointBytes(p('scale_bias_relu_bwd'))).toBe(2 * n * 2 + n + 16 * 2);
    expect(pointBytes(p('gelu_bwd_reduction_outer'))).toBe(2 * n * 2 + 2 * 16 * 2);
    expect(pointBytes(p('gelu_bwd_reduction_inner'))).toBe(2 * n * 2 + (16 + 8) * 2);
    expect(pointBytes(p('broadcast_add_inner'))).toBe((2 * n + 8) * 2);
    expect(pointBytes(p('rms_norm_add'))).toBe((4 * n + 16) * 2);
    expect(pointBytes(p('batch_norm'))).toBe((2 * n + 2 * 16) * 2 + 2 * 16 * 4);
    expect(pointBytes(p('batch_norm_bwd'))).toBe((3 * n + 3 * 16) * 2 + 2 * 16 * 4);
    expect(pointBytes(p('cross_entropy'))).toBe(n * 2 + 8 * 8 + 4);
    expect(pointBytes(p('transpose'))).toBe(2 * n * 2);
    expect(pointBytes(p('embedding'))).toBe(2 * n * 2 + 8 * 8);
    expect(pointBytes({ family: 'instance_norm', dtype: 'BFloat16', rows: 32, hidden: 16 })).toBe((2 * 512 + 2 * 16) * 2 + 2 * 32 * 4);
    expect(pointBytes({ family: 'group_norm', dtype: 'BFloat16', rows: 128, hidden: 16 })).toBe((2 * 2048 + 2 * 64) * 2);
    expect(pointBytes({ family: 'instance_norm_bwd', dtype: 'BFloat16', rows: 32, hidden: 16 })).toBe((3 * 512 + 3 * 16) * 2 + 2 * 32 * 4);
  });

  it('bf16 definitions take the inputs sweepInputs lists, dtype for dtype (masks Bool, statistics Float, seed Int)', () => {
    for (const family of NVF_GLUE_SWEEP_FAMILIES) {
      const fusion = sweepDefinition(family, 'BFloat16').fusionIr();
      const inputs = sweepInputs(family, 'BFloat16', 128, hidden);
      expect(fusion.inputs.map((v) => ('dtype' in v ? v.dtype : 'none')), family).toEqual(inputs.map((i) => i.dtype));
    }
  });
});

describe('the GPU path on the fake H100 (no GPU) takes every new family with the inputs runSweep makes', () => {
  it.each(['Float', 'BFloat16'] as const)('%s: each family at 1024x772 is segmented, lowered and launched', async (dtype) => {
    const fake = fakeDevice();
    const backend = createGpuBackend({ cubinDirectory: null, deviceContext: () => fake.device });
    for (const family of NVF_GLUE_SWEEP_FAMILIES) {
      const before = fake.launches.length;
      // As runSweep passes them: device tensors of each input's dtype and sizes, scalars as numbers.
      const inputs: ExecuteInput[] = sweepInputs(family, dtype, 1024, 772).map((i) => i.scalar ?? Tensor.emptyDevice(fake.device, i.dtype, i.sizes));
      const outs = await sweepDefinition(family, dtype).execute(inputs, { backend });
      expect(outs.length, family).toBeGreaterThan(0);
      expect(fake.launches.length, family).toBeGreaterThan(before);
    }
  }, 300000);
});
