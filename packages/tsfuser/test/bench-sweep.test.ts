import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { sweepDefinition, sweepInputs } from '../src/bench/sweep-definitions.js';
import {
  chunkOf,
  FIRST_SWEEP_FAMILIES,
  parseChunk,
  parseDtypes,
  parseFamilies,
  parseSizes,
  resolveChunk,
  pointBytes,
  pointName,
  SWEEP_FAMILIES,
  sweepPoints,
  SweepSelectionError,
  type SweepPoint,
} from '../src/bench/sweep-points.js';
import { formatSweepReport, summarize, type SweepReport } from '../src/bench/sweep-report.js';
import { Random } from '../src/io/random.js';
import { runCli } from './helpers.js';

describe('sweep points', () => {
  it('default sweep: every family × dtype × the llm sizes and the offset sizes, ordered, no duplicates', () => {
    const points = sweepPoints();
    // group_norm and group_norm_bwd (N · 64 rows) have no 16-row points: 11 + 12 sizes fewer each,
    // per dtype; rope and rope_bwd (hidden = H · 128) none at hidden 1600 (4 sizes) or at an offset (48).
    expect(points).toHaveLength(SWEEP_FAMILIES.length * 2 * (4 * 11 + 4 * 3 * 4) - 2 * (2 * (11 + 12) + 2 * (4 + 48)));
    expect(new Set(points.map(pointName)).size).toBe(points.length);
    expect(pointName(points[0] as SweepPoint)).toBe('softmax_f32_16x768');
    const sizes = points.filter((p) => p.family === 'layer_norm' && p.dtype === 'BFloat16').map((p) => `${p.rows}x${p.hidden}`);
    // The measured sizes, batch 16384, nvFuser's offsets, PaLM-540B's hidden size.
    for (const s of ['8192x16384', '16x2048', '16384x768', '16384x16400', '1024x4098', '16x772', '8192x18432']) expect(sizes).toContain(s);
    expect(sizes).not.toContain('1024x2050');
    expect(sweepPoints({ sizes: parseSizes('measured'), families: ['softmax'] })).toHaveLength(2 * 15);
  });

  it('default chunks: --chunk i alone splits into chunks of at most 150 points', () => {
    const n = sweepPoints().length;
    const chunk = resolveChunk(parseChunk('3'), n);
    expect(chunk).toEqual({ index: 2, count: Math.ceil(n / 150) });
    const all = Array.from({ length: chunk.count }, (_, i) => chunkOf(sweepPoints(), i, chunk.count));
    expect(Math.max(...all.map((c) => c.length))).toBeLessThanOrEqual(150);
    expect(all.flat().map(pointName)).toEqual(sweepPoints().map(pointName));
    expect(resolveChunk(parseChunk('2/5'), n)).toEqual({ index: 1, count: 5 });
    expect(() => resolveChunk(parseChunk(String(chunk.count + 1)), n)).toThrow(/default chunks of at most 150/);
    expect(resolveChunk(parseChunk('1'), 7)).toEqual({ index: 0, count: 1 });
  });

  it('offsets add hidden + k; the tensor-size cap drops points; filters narrow', () => {
    const points = sweepPoints({ families: ['rms_norm'], dtypes: ['Float'], sizes: [[16, 768]], hiddenOffsets: [2, 4, 8, 16] });
    expect(points.map((p) => p.hidden)).toEqual([768, 770, 772, 776, 784]);
    const capped = sweepPoints({ families: ['softmax'], dtypes: ['Float'], sizes: [[16384, 18432], [16, 768]], maxTensorBytes: 2 ** 30 });
    expect(capped.map(pointName)).toEqual(['softmax_f32_16x768']);
  });

  it('chunks are disjoint and cover the sweep', () => {
    const points = sweepPoints().map(pointName);
    const chunks = [0, 1, 2, 3, 4, 5, 6].map((i) => chunkOf(points, i, 7));
    expect(chunks.flat()).toEqual(points);
    expect(Math.max(...chunks.map((c) => c.length)) - Math.min(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1);
    expect(() => chunkOf(points, 7, 7)).toThrow(SweepSelectionError);
  });

  it('parses filters and names what is wrong', () => {
    expect(parseFamilies('softmax,row_sum')).toEqual(['softmax', 'row_sum']);
    expect(parseDtypes('f32,bf16')).toEqual(['Float', 'BFloat16']);
    expect(parseSizes('16x768, 1024x4096')).toEqual([[16, 768], [1024, 4096]]);
    expect(parseSizes('llm').length).toBe(4 * 11);
    expect(parseSizes('default').length).toBe(4 * 11 + 4 * 3 * 4);
    expect(parseChunk('2/3')).toEqual({ index: 1, count: 3 });
    expect(() => parseFamilies('scatter_reduce')).toThrow(/--family: unknown 'scatter_reduce'/);
    expect(() => parseSizes('16x')).toThrow(/--sizes: '16x'/);
    expect(() => parseChunk('4/3')).toThrow(/--chunk/);
    expect(() => parseChunk('0')).toThrow(/--chunk/);
    expect(() => parseChunk('x/2')).toThrow(/--chunk/);
  });

  it('bytes are the minimal traffic of each family', () => {
    const p = (family: SweepPoint['family']): SweepPoint => ({ family, dtype: 'BFloat16', rows: 8, hidden: 16 });
    expect(pointBytes(p('softmax'))).toBe(2 * 128 * 2);
    expect(pointBytes(p('layer_norm_bwd'))).toBe(3 * 128 * 2 + 2 * 8 * 4 + 3 * 16 * 2);
    expect(pointBytes(p('silu_mul'))).toBe(3 * 128 * 2);
    expect(pointBytes(p('bias_add'))).toBe((2 * 128 + 16) * 2);
    expect(pointBytes(p('layer_norm'))).toBe((2 * 128 + 32) * 2);
    expect(pointBytes(p('rms_norm'))).toBe((2 * 128 + 16) * 2);
    expect(pointBytes(p('row_sum'))).toBe(128 * 2 + 8 * 2);
    expect(pointBytes(p('softmax_bwd'))).toBe(3 * 128 * 2);
    expect(pointBytes(p('gelu_bwd'))).toBe(3 * 128 * 2);
    expect(pointBytes(p('rms_norm_bwd'))).toBe(3 * 128 * 2 + 8 * 4 + 2 * 16 * 2);
    expect(pointBytes(p('scale_bias_relu'))).toBe((2 * 128 + 2 * 16) * 2);
    expect(pointBytes(p('reduction_epilogue'))).toBe(128 * 2 + 2 * 8 * 2);
  });
});

describe('sweep definitions compute what sweep_pytorch.py times', () => {
  const seed = 20261124;
  const rows = 5;
  const hidden = 37;

  // Independent float64 math per family (PyTorch's definitions of each op).
  const erf = (x: number): number => {
    // Abramowitz–Stegun 7.1.26 is too coarse; integrate the series instead (|x| small here).
    let sum = 0;
    let term = x;
    for (let n = 0; n < 60; n += 1) {
      sum += term / (2 * n + 1);
      term *= (-x * x) / (n + 1);
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  };
  const expectedOutputs = (family: (typeof FIRST_SWEEP_FAMILIES)[number], ins: Float64Array[]): number[][] => {
    const [x, second, third, fourth, fifth] = ins as [Float64Array, Float64Array | undefined, Float64Array | undefined, Float64Array | undefined, Float64Array | undefined];
    const row = (t: Float64Array, r: number): number[] => Array.from(t.subarray(r * hidden, (r + 1) * hidden));
    const out: number[][] = [[], [], []];
    const gradW = new Array<number>(hidden).fill(0);
    const gradB = new Array<number>(hidden).fill(0);
    for (let r = 0; r < rows; r += 1) {
      const v = row(x, r);
      const mean = v.reduce((a, e) => a + e, 0) / hidden;
      switch (family) {
        case 'row_sum':
          out[0]?.push(v.reduce((a, e) => a + e, 0));
          break;
        case 'softmax': {
          const m = Math.max(...v);
          const e = v.map((q) => Math.exp(q - m));
          const s = e.reduce((a, q) => a + q, 0);
          out[0]?.push(...e.map((q) => q / s));
          break;
        }
        case 'layer_norm': {
          const variance = v.reduce((a, e) => a + (e - mean) ** 2, 0) / hidden;
          out[0]?.push(...v.map((e, c) => ((e - mean) / Math.sqrt(variance + 1e-5)) * (second?.[c] as number) + (third?.[c] as number)));
          break;
        }
        case 'rms_norm': {
          const ms = v.reduce((a, e) => a + e * e, 0) / hidden;
          out[0]?.push(...v.map((e, c) => (e / Math.sqrt(ms + 1e-6)) * (second?.[c] as number)));
          break;
        }
        case 'gelu':
          out[0]?.push(...v.map((e) => 0.5 * e * (1 + erf(e / Math.SQRT2))));
          break;
        case 'silu_mul':
          out[0]?.push(...v.map((e, c) => (e / (1 + Math.exp(-e))) * (second?.[r * hidden + c] as number)));
          break;
        case 'mul':
          out[0]?.push(...v.map((e, c) => e * (second?.[r * hidden + c] as number)));
          break;
        case 'bias_add':
          out[0]?.push(...v.map((e, c) => e + (second?.[c] as number)));
          break;
        case 'layer_norm_bwd': {
          // inputs: grad_out (x here), x (second), mean, rstd, weight — aten's layer_norm backward.
          const dy = v;
          const xr = row(second as Float64Array, r);
          const mu = third?.[r] as number;
          const rstd = fourth?.[r] as number;
          const xhat = xr.map((e) => (e - mu) * rstd);
          const g = dy.map((d, c) => d * (fifth?.[c] as number));
          const meanG = g.reduce((a, e) => a + e, 0) / hidden;
          const meanGX = g.reduce((a, e, c) => a + e * (xhat[c] as number), 0) / hidden;
          out[0]?.push(...g.map((e, c) => rstd * (e - meanG - (xhat[c] as number) * meanGX)));
          dy.forEach((d, c) => {
            gradW[c] = (gradW[c] as number) + d * (xhat[c] as number);
            gradB[c] = (gradB[c] as number) + d;
          });
          break;
        }
        case 'softmax_bwd': {
          // inputs: grad_output (x here), output y (second) — aten._softmax_backward_data.
          const y = row(second as Float64Array, r);
          const dot = v.reduce((a, d, c) => a + d * (y[c] as number), 0);
          out[0]?.push(...y.map((q, c) => q * ((v[c] as number) - dot)));
          break;
        }
        case 'gelu_bwd': {
          // inputs: grad_out (x here), x (second) — aten.gelu_backward (erf).
          const xr = row(second as Float64Array, r);
          out[0]?.push(...xr.map((q, c) => (v[c] as number) * (0.5 * (1 + erf(q / Math.SQRT2)) + (q * Math.exp(-0.5 * q * q)) / Math.sqrt(2 * Math.PI))));
          break;
        }
        case 'rms_norm_bwd': {
          // inputs: grad_out (x here), x (second), rstd, weight; y = x·rstd·w.
          const xr = row(second as Float64Array, r);
          const rstd = third?.[r] as number;
          const xhat = xr.map((e) => e * rstd);
          const g = v.map((d, c) => d * (fourth?.[c] as number));
          const meanGX = g.reduce((a, e, c) => a + e * (xhat[c] as number), 0) / hidden;
          out[0]?.push(...g.map((e, c) => rstd * (e - (xhat[c] as number) * meanGX)));
          v.forEach((d, c) => {
            gradW[c] = (gradW[c] as number) + d * (xhat[c] as number);
          });
          break;
        }
        case 'scale_bias_relu':
          out[0]?.push(...v.map((e, c) => Math.max(0, e * (second?.[c] as number) + (third?.[c] as number))));
          break;
        case 'reduction_epilogue':
          out[0]?.push(v.reduce((a, e) => a + e, 0) + (second?.[r] as number));
          break;
        default: {
          const unreachable: never = family;
          throw new Error(String(unreachable));
        }
      }
    }
    if (family === 'layer_norm_bwd') return [out[0] as number[], gradW, gradB];
    if (family === 'rms_norm_bwd') return [out[0] as number[], gradW];
    return [out[0] as number[]];
  };

  it.each(FIRST_SWEEP_FAMILIES)('%s (Float, reference backend)', async (family) => {
    const rng = new Random(seed);
    const inputs = sweepInputs(family, 'Float', rows, hidden).map((i) =>
      HostTensor.fromValues('Float', i.sizes, Array.from({ length: i.sizes.reduce((a, b) => a * b, 1) }, () => (i.positive === true ? 0.5 + rng.uniform() : rng.normal()))),
    );
    const outs = await sweepDefinition(family, 'Float', hidden).execute(inputs.map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const expected = expectedOutputs(family, inputs.map((t) => t.toFloat64Array()));
    expect(outs.length, `seed ${seed}`).toBe(expected.length);
    outs.forEach((o, k) => {
      const got = o.toHost().toFloat64Array();
      const want = expected[k] as number[];
      expect(got.length, `seed ${seed}, output ${k}`).toBe(want.length);
      want.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `seed ${seed}, output ${k}, element ${i}`).toBeLessThanOrEqual(1e-5 + 2e-5 * Math.abs(e)));
    });
  });
});

describe('sweep report', () => {
  const point = (rows: number, hidden: number, family: SweepPoint['family'] = 'softmax'): SweepPoint => ({ family, dtype: 'Float', rows, hidden });
  const report: SweepReport = {
    device: 'test GPU',
    date: '2026-11-24',
    commit: 'abc1234',
    copyGbps: 3000,
    chunk: '1/1',
    measurements: [
      { point: point(16, 768), impl: 'tsfuser', medianMs: 0.004 },
      { point: point(16, 768), impl: 'torch.compile', medianMs: 0.003 },
      { point: point(8192, 4096), impl: 'tsfuser', medianMs: 0.1 },
      { point: point(8192, 4096), impl: 'torch.compile', medianMs: 0.12 },
      { point: point(8192, 4096), impl: 'eager', medianMs: 0.2 },
      // tsfuser only: listed, out of the ratios
      { point: point(1024, 2048), impl: 'tsfuser', medianMs: 0.01 },
    ],
    compileMs: { softmax_f32_16x768: 250 },
    notes: ['softmax_f32_1x1: SchedulingError: x'],
  };

  it('summarizes geomean, worst, points below 0.9× and % of the floor of large points', () => {
    const [s] = summarize(report);
    expect(s?.points).toBe(2);
    expect(s?.geomeanSpeedup).toBeCloseTo(Math.sqrt(0.75 * 1.2), 10);
    expect(s?.worst).toEqual({ name: 'softmax_f32_16x768', speedup: 0.75 });
    expect(s?.below09).toBe(1);
    // 8192×4096 f32 softmax moves 268 MB in 0.1 ms: 2684 GB/s of 3000.
    expect(s?.minFloorPercentLarge).toBeCloseTo((100 * (2 * 8192 * 4096 * 4)) / 0.1e-3 / 1e9 / 3000, 6);
  });

  it('prints one table per family and the summary', () => {
    const text = formatSweepReport(report);
    expect(text).toContain('### softmax/Float');
    expect(text).toMatch(/\| 1024 × 2048 \| [\d.]+ \| 0\.0100 \| — \| — \| — \|/);
    expect(text).toContain('| softmax | Float | 2 | 0.949 | softmax_f32_16x768 0.75× | 1 |');
    expect(text).toContain('note: softmax_f32_1x1');
  });
});

describe('tsfuser bench --suite sweep (no GPU needed for --list and usage errors)', () => {
  it('--list prints the chosen chunk', async () => {
    const r = await runCli(['bench', '--suite', 'sweep', '--family', 'layer_norm', '--dtype', 'bf16', '--sizes', '16x768,8192x16384', '--offsets', '8', '--list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('layer_norm_bf16_16x768\nlayer_norm_bf16_16x776\nlayer_norm_bf16_8192x16384\nlayer_norm_bf16_8192x16392\n4 points\n');
  });

  it('--chunk i alone lists one default chunk', async () => {
    const r = await runCli(['bench', '--suite', 'sweep', '--family', 'dropout_layer_norm_bwd', '--chunk', '1', '--list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n92 points \(chunk 1\/2\)\n$/);
    const n = sweepPoints().length;
    const count = Math.ceil(n / 150);
    const all = await runCli(['bench', '--suite', 'sweep', '--chunk', '2', '--list']);
    expect(all.stdout).toMatch(new RegExp(`\\n${Math.floor((2 * n) / count) - Math.floor(n / count)} points \\(chunk 2/${count}\\)\\n$`));
  });

  it('bad filters are usage errors', async () => {
    const r = await runCli(['bench', '--suite', 'sweep', '--family', 'scatter_reduce', '--list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--family: unknown 'scatter_reduce'");
    const s = await runCli(['bench', '--suite', 'nightly']);
    expect(s.code).toBe(2);
  });
});
