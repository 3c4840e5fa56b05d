// CPU-side tests of `tsfuser bench` and the GPU suite's building blocks: the workloads compute
// what their PyTorch twins compute (checked on small sizes on the reference backend), the byte
// counts behind GB/s, the report table, tolerances, random-case generation, and the clear
// errors when there is no GPU.
import { describe, expect, it } from 'vitest';
import { HostTensor, dataTypeSize, evaluate, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { bindExtents, defaultSchedulerRegistry, evaluateExtent, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { SchedulingError } from '@tsfuser/scheduler';
import { Tensor, isAvailable } from '@tsfuser/device';
import { benchWorkloads, layerNormBackwardWorkloads, normalizationWorkloads, tinyWorkload } from '../src/bench/workloads.js';
import { formatBenchReport, type BenchReport } from '../src/bench/run-bench.js';
import { median } from '../src/bench/timing.js';
import { randomHost, Random } from '../src/bench/device-inputs.js';
import { loosestTolerance, toleranceFor } from '../src/io/compare.js';
import { randomPointwiseCase } from '../gpu/random-fusion.js';
import { runCli } from './helpers.js';
import { helpText } from '../src/cli/help.js';

const gpu = isAvailable().available;
// TSFUSER_SEED replays a failure (every message names the seed).
const seed = process.env.TSFUSER_SEED !== undefined ? Number(process.env.TSFUSER_SEED) : Date.now() % 100000;

describe('bench workloads', () => {
  it('bn_add_relu is relu(batch_norm(x) + batch_norm(y)) in inference mode', async () => {
    const w = benchWorkloads().find((x) => x.name === 'bn_add_relu');
    if (w === undefined) throw new Error('bn_add_relu missing');
    const rng = new Random(seed);
    const [n, c, h, wd] = [2, 3, 4, 5];
    const x = randomHost('Float', [n, c, h, wd], [c * h * wd, h * wd, wd, 1], rng);
    const y = randomHost('Float', [n, c, h, wd], [c * h * wd, h * wd, wd, 1], rng);
    const p = Array.from({ length: 8 }, (_, i) => randomHost('Float', [c], [1], rng, i % 4 === 3));
    const fd = w.build();
    const [out] = await fd.execute([x, y, ...p].map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const got = (out as Tensor).toHost();
    for (let i = 0; i < n * c * h * wd; i += 1) {
      const ch = Math.floor(i / (h * wd)) % c;
      const bn = (v: number, k: number): number => {
        const [weight, bias, mean, variance] = [0, 1, 2, 3].map((j) => (p[4 * k + j] as HostTensor).getNumber(ch)) as [number, number, number, number];
        return ((v - mean) / Math.sqrt(variance + 1e-5)) * weight + bias;
      };
      const want = Math.max(0, bn(x.getNumber(i), 0) + bn(y.getNumber(i), 1));
      expect(got.getNumber(i)).toBeCloseTo(want, 4);
    }
  });

  it('the CLI help lists every workload of --workloads', () => {
    const text = helpText().replace(/\s+/g, ' ');
    for (const w of benchWorkloads()) expect(text, w.name).toMatch(new RegExp(`\\b${w.name}\\b`));
  });

  it('byte counts are each input read once plus each output written once', () => {
    // Workloads of several definitions (steps) count every step's traffic: test/llama-block-bench.test.ts.
    for (const w of [...benchWorkloads(), tinyWorkload()].filter((x) => x.steps === undefined)) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => (i.scalar !== undefined ? null : { sizes: i.sizes })));
      const bindings = bindExtents(fusion, info);
      const numel = (tv: TensorView): number => tv.domain.logicalNoReductions().reduce((a, id) => a * evaluateExtent(id.logicalExtent(), bindings), 1);
      // A lookup table (an uninitialized input) counts the rows looked up: the output's elements.
      const table = (v: unknown): boolean => w.inputs[fusion.inputs.indexOf(v as TensorView)]?.uninitialized === true;
      const tvs = [...fusion.inputs, ...fusion.outputs].filter((v): v is TensorView => v.kind === 'tensorView' && !table(v));
      const lookedUp = fusion.inputs.some(table) ? fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView') : [];
      expect(w.bytes, w.name).toBe([...tvs, ...lookedUp].reduce((acc, tv) => acc + numel(tv) * dataTypeSize(tv.dtype), 0));
    }
  });

  it('the pointwise workloads schedule as one vectorized pointwise kernel at their bench sizes', () => {
    for (const w of benchWorkloads().filter((x) => x.name === 'readme_pointwise' || x.name === 'bn_add_relu')) {
      const fusion = w.build().fusionIr();
      const k = compileFusion(fusion, makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes }))));
      expect(k.dumps.schedulerParams).toContain('Pointwise');
      expect(k.source).toContain('loadGlobalToLocalEvictLastL2<float, 4>');
    }
  });
});

describe('issue #785 workloads', () => {
  it('split into a reduction and a pointwise kernel', () => {
    for (const w of benchWorkloads().filter((x) => x.name === 'pow_sum' || x.name === 'gelu_bias_grad')) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => (i.scalar !== undefined ? null : { sizes: i.sizes })));
      const sf = segmentFusion(fusion, info, defaultSchedulerRegistry());
      expect(sf.groups.map((g) => g.schedulerType).sort(), w.name).toEqual(['pointwise', 'reduction']);
    }
  });
});

describe('normalization workloads', () => {
  it('are one persistent kernel each (inner; inner-outer for layer_norm backward) and compute softmax / layer_norm / rms_norm', async () => {
    const kinds = [...normalizationWorkloads().map((w) => [w, 'inner_persistent'] as const), ...layerNormBackwardWorkloads().map((w) => [w, 'inner_outer_persistent'] as const)];
    expect(kinds.length).toBe(7);
    for (const [w, want] of kinds) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes })));
      expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType), w.name).toEqual([want]);
    }
    const sm = normalizationWorkloads().find((w) => w.name === 'softmax_f32');
    if (sm === undefined) throw new Error('softmax_f32 missing');
    const rng = new Random(seed);
    const x = randomHost('Float', [3, 7], [7, 1], rng);
    const [y] = await sm.build().execute([Tensor.fromHost(x)], { backend: 'reference' });
    const got = (y as Tensor).toHost();
    for (let r = 0; r < 3; r += 1) {
      const row = Array.from({ length: 7 }, (_, c) => x.getNumber(r * 7 + c));
      const m = Math.max(...row);
      const z = row.reduce((a, v) => a + Math.exp(v - m), 0);
      row.forEach((v, c) => expect(got.getNumber(r * 7 + c)).toBeCloseTo(Math.exp(v - m) / z, 6));
    }
  });
});

describe('layer_norm backward workloads', () => {
  it('compute grad_input, grad_weight and grad_bias of layer_norm over H = 4096', async () => {
    const w = layerNormBackwardWorkloads().find((x) => x.name === 'layer_norm_bwd_f32');
    if (w === undefined) throw new Error('layer_norm_bwd_f32 missing');
    const [n, h] = [3, 4096];
    const rng = new Random(seed);
    const dy = randomHost('Float', [n, h], [h, 1], rng);
    const x = randomHost('Float', [n, h], [h, 1], rng);
    const mean = randomHost('Float', [n], [1], rng);
    const rstd = HostTensor.fromValues('Float', [n], [0.5, 1.25, 2]);
    const wt = randomHost('Float', [h], [1], rng);
    const outs = await w.build().execute([dy, x, mean, rstd, wt].map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const [gi, gw, gb] = outs.map((t) => t.toHost()) as [HostTensor, HostTensor, HostTensor];
    const xhat = (i: number, j: number): number => (x.getNumber(i * h + j) - mean.getNumber(i)) * rstd.getNumber(i);
    const g = (i: number, j: number): number => dy.getNumber(i * h + j) * wt.getNumber(j);
    for (let i = 0; i < n; i += 1) {
      let sg = 0;
      let sgx = 0;
      for (let j = 0; j < h; j += 1) {
        sg += g(i, j);
        sgx += g(i, j) * xhat(i, j);
      }
      for (const j of [0, 1, 2047, 4095]) {
        const want = rstd.getNumber(i) * (g(i, j) - sg / h - (xhat(i, j) * sgx) / h);
        expect(gi.getNumber(i * h + j)).toBeCloseTo(want, 4);
      }
    }
    for (const j of [0, 5, 4095]) {
      let sw = 0;
      let sb = 0;
      for (let i = 0; i < n; i += 1) {
        sw += dy.getNumber(i * h + j) * xhat(i, j);
        sb += dy.getNumber(i * h + j);
      }
      expect(gw.getNumber(j)).toBeCloseTo(sw, 4);
      expect(gb.getNumber(j)).toBeCloseTo(sb, 4);
    }
  });
});

describe('bench report and timing helpers', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('formats the side-by-side table with % of the copy floor', () => {
    const report: BenchReport = {
      device: 'NVIDIA H100 80GB HBM3',
      date: '2026-11-23',
      flush: 'read',
      copyGbps: 3000,
      sameSizeCopyGbps: { readme_pointwise: 2990 },
      rows: [
        { workload: 'readme_pointwise', impl: 'torch.compile', medianMs: 0.723, gbps: 2975, percentOfCopy: 99.2, percentOfSameSizeCopy: 99.5 },
        { workload: 'readme_pointwise', impl: 'tsfuser', medianMs: 0.719, gbps: 2988, percentOfCopy: 99.6, percentOfSameSizeCopy: 99.9 },
        { workload: 'readme_pointwise', impl: 'eager', medianMs: 1.614, gbps: 1331, percentOfCopy: 44.4, percentOfSameSizeCopy: 44.5 },
      ],
      hostOverheadUs: { execute: 11.8, executorCache: 10.5, pytorchEager: 22.3 },
      compile: { coldMs: 51.4, coldNvrtcMs: 46.6, diskMs: 3.1, memoryHitMs: 0.18 },
      notes: [],
    };
    const text = formatBenchReport(report);
    const rows = text.split('\n').filter((l) => l.startsWith('| readme_pointwise'));
    expect(rows.map((r) => r.split('|')[2]?.trim())).toEqual(['tsfuser', 'eager', 'torch.compile']);
    expect(rows[0]).toBe('| readme_pointwise | tsfuser | 0.719 | 2988 | 99.6% | 99.9% |');
    expect(text).toContain('PyTorch eager 22.3 µs');
    expect(text).toContain('from disk cache 3.10 ms');
    expect(text).toContain('L2 flushed by a read of 512 MiB');
  });
});

describe('tolerances', () => {
  it('the loosest of several dtypes wins', () => {
    expect(loosestTolerance(['Double', 'Float'])).toEqual(toleranceFor('Float'));
    expect(loosestTolerance(['Half', 'BFloat16', 'Float'])).toEqual({ rtol: 2e-2, atol: 1e-2 });
  });
});

describe('GPU suite random cases', () => {
  it('evaluate on the reference and compile as one pointwise kernel, or are rejected by the scheduler with a reason', () => {
    const rng = new Random(seed);
    let compiled = 0;
    for (let i = 0; i < 120; i += 1) {
      const c = randomPointwiseCase(rng, i);
      const hosts: EvalValue[] = c.fusion.inputs.map((v, k) => {
        const l = c.layouts[k];
        if (v.kind !== 'tensorView' || l === undefined) throw new Error('random cases have tensor inputs only');
        expect(l.sizes.length).toBe(v.domain.logicalNoReductions().length);
        return randomHost(v.dtype, l.sizes, l.strides, rng, c.positive[k] === true);
      });
      const outs = evaluate(c.fusion, hosts);
      expect(outs.length).toBe(c.fusion.outputs.length);
      try {
        compileFusion(c.fusion, makeRuntimeInfo(c.fusion, c.layouts.map((l) => ({ sizes: l.sizes, strides: l.strides, alignment: l.misalign ? 4 : 16 }))));
        compiled += 1;
      } catch (error) {
        expect(error, `${c.name} (seed ${seed}): ${(error as Error).message}`).toBeInstanceOf(SchedulingError);
        // Refused with the pointwise reason, or taken by no_op (every output empty: no kernel).
        expect((error as Error).message).toMatch(/pointwise: |needs no kernel \(no_op/);
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });
});

describe('tsfuser bench flags', () => {
  it('rejects bad flags before touching the GPU', async () => {
    expect((await runCli(['bench', '--iters', '0'])).code).toBe(2);
    expect((await runCli(['bench', '--flush', 'sometimes'])).code).toBe(2);
    expect((await runCli(['bench', '--bogus'])).code).toBe(2);
    const r = await runCli(['bench', '--workloads', 'readme_pointwise,nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workloads: unknown nope (known: readme_pointwise, bn_add_relu');
  });
});

describe.skipIf(gpu)('without a GPU', () => {
  it('tsfuser bench says it needs a GPU and why', async () => {
    const r = await runCli(['bench', '--no-pytorch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tsfuser: tsfuser bench needs a GPU: .+\n$/);
  });

  it('run --backend gpu fails with one line naming the reason', async () => {
    const r = await runCli(['run', '../../test-fixtures/definitions/nvfuser_readme.py', '--backend', 'gpu']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tsfuser: backend 'gpu' is unavailable: .+\n$/);
  });

});

describe('tsfuser run --explain', () => {
  it('prints the segments of issue #785 pow+sum and why they are two kernels', async () => {
    const r = await runCli(['run', '../../test-fixtures/definitions/issue785_pow_sum.py', '--explain', '--backend', 'reference']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('=== fusion_ir_segments (--explain) ===');
    expect(r.stdout).toContain('Fusion IR with segments: 2 segments (2 kernels)');
    expect(r.stdout).toMatch(/segment 0 \[reduction\] and segment 1 \[pointwise\]: no scheduler accepts them together/);
  });

  it('batch norm training: channels-last is one outer_persistent segment, NCHW one inner_persistent', async () => {
    for (const [file, scheduler] of [['batch_norm_channels_last.py', 'outer_persistent'], ['batch_norm_nchw.py', 'inner_persistent']] as const) {
      const r = await runCli(['run', `../../test-fixtures/definitions/${file}`, '--explain', '--backend', 'reference']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Fusion IR with segments: 1 segment (1 kernel), 0 edges');
      expect(r.stdout).toMatch(new RegExp(`segment 0 \\[${scheduler}\\] — reads T0, T1, T2`));
    }
  });

  it('a pointwise definition is one segment', async () => {
    const r = await runCli(['run', '../../test-fixtures/definitions/gelu_bias.mjs', '--explain', '--backend', 'reference']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('=== fusion_ir_segments (--explain) ===');
  });
});
