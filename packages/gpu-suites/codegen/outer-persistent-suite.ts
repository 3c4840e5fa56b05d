// GPU differential suite for the outer persistent scheduler and batch-norm-like fusions (not a
// vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle codegen-outer-persistent-suite
//   (GPU host) bash gpu-bundle/run.sh codegen-outer-persistent-suite
//
// Runs every outer persistent fixture (@tsfuser/test-support outer-persistent-fixtures.ts: batch-norm training
// two-pass and Welford, x − sum(x, 0), x − mean(x, 0); x[N, C] with N in {1, 7, 64, 1000, 4096},
// C in {1, 3, 32, 256, 1001}; Float, Half, BFloat16; channels-last 4-D) and the batch-norm
// fixtures (test-support batch-norm-fixtures.ts: channels-last and NCHW batch_norm with weight, bias and
// running stats, nvFuser's decomposed channels-last form, var_mean + normalize, fallbacks to
// reduction (sum or Welford) + pointwise kernels) through FusionExecutorCache with the default registry, as users run them
// (segmentation → outer / inner persistent or reduction + pointwise → codegen → NVRTC → launch;
// outputs poisoned, device-bound inputs), compares every output element with the reference
// evaluator, then times a few batch-norm shapes and prints achieved bandwidth (input + output
// bytes). A batch-norm fixture whose segments differ from the ones it expects fails. Prints
// failures, a table by segments (e.g. `outer_persistent`, `reduction+pointwise`,
// `pointwise+reduction+pointwise` for a Welford fallback), and `N passed, M failed` last;
// writes outer-persistent-suite.json to $OUT when set; exits 1 on any failure.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, type L2Flusher } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { printCategoryTable, timeFusion, type FusionTiming } from './suite-report.js';
import { segmentPlanFor } from '@tsfuser/scheduler';
import {
  batchNormCase, buildOuter, CS, DTYPES, gpuBatchNormCases, KINDS, minusMean, NS, randomBatchNormInputs, type BatchNormCase, type OuterCase,
} from '@tsfuser/test-support';

interface Result {
  name: string;
  ok: boolean;
  detail: string;
  /** The schedulers of the default registry's segments, e.g. `outer_persistent` or `reduction+pointwise`. */
  category: string;
}

function categoryOf(c: { fusion: OuterCase['fusion']; info: OuterCase['info'] }): string {
  try {
    return segmentPlanFor(c.fusion, c.info).groups.map((g) => g.schedulerType ?? 'none').join('+');
  } catch (error) {
    return `unsegmented (${(error as Error).message.slice(0, 60)})`;
  }
}

function tolerance(dtype: DataType, reduced: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : 1e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, reduced)) * 16;
}

function randomInputs(c: OuterCase): HostTensor[] {
  return c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    const n = sizes.reduce((a, b) => a * b, 1);
    return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: n }, () => (Math.random() - 0.5) * 8));
  });
}

function runCase(device: DeviceContext, c: OuterCase | BatchNormCase, expected?: string): Result {
  const category = categoryOf(c);
  if (expected !== undefined && category !== expected) return { name: c.name, ok: false, detail: `segments ${category}, expected ${expected}`, category };
  const inputs = 'kind' in c ? randomInputs(c) : randomBatchNormInputs(c);
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true });
  const base = { name: c.name, category };
  let outs: Tensor[] = [];
  try {
    outs = cache.runFusion(inputs.map((h) => Tensor.fromHost(h)));
    device.synchronize();
    const tol = tolerance(c.dtype, c.reduced);
    for (let i = 0; i < want.length; i += 1) {
      const w = (want[i] as HostTensor).toNumbers();
      const g = (outs[i] as Tensor).toHost().toNumbers();
      // x − sum(x): the sum's rounding scales with the column's magnitude, not the element's.
      const scale = 'kind' in c && c.kind === 'minus_sum' ? w.reduce((m, x) => (Number.isFinite(x) ? Math.max(m, Math.abs(x)) : m), 1) : 1;
      for (let k = 0; k < w.length; k += 1) {
        const x = w[k] as number;
        const y = g[k] as number;
        const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x), scale);
        if (!ok) return { ...base, ok: false, detail: `output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol.toExponential(2)})` };
      }
    }
    return { ...base, ok: true, detail: `${want.length} outputs, ${cache.stats.kernels} kernel(s)` };
  } catch (error) {
    const e = error as Error;
    return { ...base, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}` };
  } finally {
    for (const t of outs) t.dispose();
  }
}

function timeCase(device: DeviceContext, flusher: L2Flusher, c: OuterCase | BatchNormCase): { name: string } & FusionTiming {
  return { name: c.name, ...timeFusion(device, flusher, c.fusion, 'kind' in c ? randomInputs(c) : randomBatchNormInputs(c)) };
}

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`OUTER PERSISTENT SUITE: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const device = DeviceContext.create(0);
  console.log(`device: ${device.properties.name}`);
  const cases: OuterCase[] = [];
  for (const kind of KINDS) for (const dtype of DTYPES) for (const n of NS) for (const c of CS) cases.push(buildOuter(kind, dtype, [n, c]));
  cases.push(buildOuter('batch_norm', 'Float', [3, 5, 7, 33]), buildOuter('batch_norm_welford', 'Half', [2, 4, 4, 8]), buildOuter('minus_sum', 'BFloat16', [4, 3, 3, 130]));
  const results = cases.map((c) => runCase(device, c));
  for (const c of gpuBatchNormCases()) results.push(runCase(device, c, c.segments.join('+')));
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`FAIL ${r.name} [${r.category}]: ${r.detail}`);
  const timings: ReturnType<typeof timeCase>[] = [];
  const flusher = l2Flusher(device);
  for (const [kind, dtype, shape] of [
    ['batch_norm', 'Float', [4096, 4096]],
    ['batch_norm', 'BFloat16', [4096, 4096]],
    ['batch_norm_welford', 'BFloat16', [8, 32, 32, 1024]],
    ['minus_mean', 'Float', [1024, 16384]],
  ] as const) {
    const c = buildOuter(kind, dtype, [...shape]);
    try {
      timings.push(timeCase(device, flusher, c));
    } catch (error) {
      console.log(`TIMING ${c.name} failed: ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  // With weight, bias and running stats: channels-last (outer persistent), NCHW (inner
  // persistent), and a column too long for registers (reduction + pointwise kernels).
  for (const c of [
    batchNormCase('BFloat16', [8, 32, 32, 1024], true, []),
    batchNormCase('Float', [32, 64, 28, 28], false, []),
    batchNormCase('BFloat16', [32, 256, 14, 14], false, []),
    minusMean([200_000, 64], []),
  ]) {
    try {
      timings.push({ ...timeCase(device, flusher, c), name: `${c.name} [${categoryOf(c)}]` });
    } catch (error) {
      console.log(`TIMING ${c.name} failed: ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  flusher.dispose();
  const out = process.env.OUT;
  if (out !== undefined && out !== '') writeFileSync(join(out, 'outer-persistent-suite.json'), JSON.stringify({ device: device.properties.name, results, timings }, null, 1));
  console.log('benchmark                                                          kernels   ms      GB/s');
  for (const t of timings) console.log(`${t.name.padEnd(67)}${String(t.kernels).padStart(7)}  ${t.ms.toFixed(4).padStart(7)}  ${t.gbps.toFixed(0).padStart(6)}`);
  printCategoryTable(results, 'segments', 45);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
