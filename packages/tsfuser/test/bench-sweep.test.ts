import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/runtime';
import { sweepDefinition, sweepInputSizes } from '../src/bench/sweep-definitions.js';
import {
  chunkOf,
  parseChunk,
  parseDtypes,
  parseFamilies,
  parseSizes,
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
  it('default sweep: every family × dtype × the 15 measured sizes, ordered, no duplicates', () => {
    const points = sweepPoints();
    expect(points).toHaveLength(SWEEP_FAMILIES.length * 2 * 15);
    expect(new Set(points.map(pointName)).size).toBe(points.length);
    expect(pointName(points[0] as SweepPoint)).toBe('softmax_f32_16x768');
    expect(points.filter((p) => p.family === 'layer_norm' && p.dtype === 'BFloat16').map((p) => `${p.rows}x${p.hidden}`)).toContain('8192x16384');
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
    expect(parseChunk('2/3')).toEqual({ index: 1, count: 3 });
    expect(() => parseFamilies('gelu')).toThrow(/--family: unknown 'gelu'/);
    expect(() => parseSizes('16x')).toThrow(/--sizes: '16x'/);
    expect(() => parseChunk('4/3')).toThrow(/--chunk/);
  });

  it('bytes are the minimal traffic of each family', () => {
    const p = (family: SweepPoint['family']): SweepPoint => ({ family, dtype: 'BFloat16', rows: 8, hidden: 16 });
    expect(pointBytes(p('softmax'))).toBe(2 * 128 * 2);
    expect(pointBytes(p('layer_norm'))).toBe((2 * 128 + 32) * 2);
    expect(pointBytes(p('rms_norm'))).toBe((2 * 128 + 16) * 2);
    expect(pointBytes(p('row_sum'))).toBe(128 * 2 + 8 * 2);
  });
});

describe('sweep definitions compute what sweep_pytorch.py times', () => {
  const seed = 20261124;
  const rows = 5;
  const hidden = 37;
  const rowsOf = (t: HostTensor): number[][] => {
    const v = t.toFloat64Array();
    return Array.from({ length: rows }, (_, r) => Array.from(v.subarray(r * hidden, (r + 1) * hidden)));
  };

  it.each(SWEEP_FAMILIES)('%s (Float, reference backend, seed %#)', async (family) => {
    const rng = new Random(seed);
    const inputs = sweepInputSizes(family, rows, hidden).map((sizes) =>
      HostTensor.fromValues('Float', sizes, Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => rng.normal())),
    );
    const [out] = await sweepDefinition(family, 'Float').execute(inputs.map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const got = (out as Tensor).toHost().toFloat64Array();
    const x = rowsOf(inputs[0] as HostTensor);
    const w = inputs[1]?.toFloat64Array();
    const b = inputs[2]?.toFloat64Array();
    const expected: number[] = [];
    for (const row of x) {
      const mean = row.reduce((a, v) => a + v, 0) / hidden;
      if (family === 'row_sum') expected.push(row.reduce((a, v) => a + v, 0));
      if (family === 'softmax') {
        const m = Math.max(...row);
        const e = row.map((v) => Math.exp(v - m));
        const s = e.reduce((a, v) => a + v, 0);
        expected.push(...e.map((v) => v / s));
      }
      if (family === 'layer_norm') {
        const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / hidden;
        expected.push(...row.map((v, c) => ((v - mean) / Math.sqrt(variance + 1e-5)) * (w?.[c] as number) + (b?.[c] as number)));
      }
      if (family === 'rms_norm') {
        const ms = row.reduce((a, v) => a + v * v, 0) / hidden;
        expected.push(...row.map((v, c) => (v / Math.sqrt(ms + 1e-6)) * (w?.[c] as number)));
      }
    }
    expect(got.length, `seed ${seed}`).toBe(expected.length);
    expected.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `seed ${seed}, element ${i}`).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(e)));
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

  it('bad filters are usage errors', async () => {
    const r = await runCli(['bench', '--suite', 'sweep', '--family', 'gelu', '--list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--family: unknown 'gelu'");
    const s = await runCli(['bench', '--suite', 'nightly']);
    expect(s.code).toBe(2);
  });
});
