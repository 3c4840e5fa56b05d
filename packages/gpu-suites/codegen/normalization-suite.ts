// GPU differential suite for inner persistent normalization (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle codegen-normalization-suite
//   (GPU host) bash gpu-bundle/run.sh codegen-normalization-suite [seed] [count]
//
// Runs every normalization fixture (@tsfuser/test-support normalization-fixtures.ts: softmax, log_softmax,
// two-pass layer_norm with weight/bias and mean/invstd outputs, rms_norm with weight; Float,
// Half, BFloat16; rows of 1, 7, 1000, 4096, 5000 elements, 3-D inputs; size-0 rows, which
// segmentation gives to the other schedulers) and `count` (default 120) random normalization
// fusions through FusionExecutorCache with the default registry (segmentation → inner
// persistent scheduler → codegen → NVRTC → launch, outputs poisoned), device-bound inputs
// (Tensor.fromHost), and compares every output element with the reference evaluator on the
// same fresh random inputs (some with a NaN), and the layer_norm backward fixtures
// (test-support layer-norm-backward-fixtures.ts: one inner_outer_persistent kernel each). Then times the
// issue's benchmark shapes (16384×4096, last dim; layer_norm backward too) and prints achieved
// bandwidth (input + output bytes). Prints failures
// with the spec to rebuild them, a table by scheduler, and `N passed, M failed` last; writes
// normalization-suite.json to $OUT when set; exits 1 on any failure.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { printCategoryTable, timeFusion } from './suite-report.js';
import { defaultSchedulerRegistry, segmentPlanFor } from '@tsfuser/scheduler';
import {
  buildLayerNormBackward, buildNormalization, emptyRowFixtures, layerNormBackwardFixtures, normalizationFixtures, randomNormalizationSpec,
  seededRandom, type NormalizationCase, type NormalizationSpec,
} from '@tsfuser/test-support';
import { runLayerNormBackwardCase, timeLayerNormBackward } from './layer-norm-backward-gpu.js';

interface Result {
  name: string;
  ok: boolean;
  detail: string;
  spec?: NormalizationSpec;
  /** The schedulers of the segments, e.g. `inner_persistent` or `reduction+pointwise`. */
  category: string;
}

function categoryOf(c: NormalizationCase): string {
  try {
    return segmentPlanFor(c.fusion, c.info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType ?? 'none').join('+');
  } catch (error) {
    return `unsegmented (${(error as Error).message.slice(0, 60)})`;
  }
}

function randomValues(dtype: DataType, n: number, nan: boolean): number[] {
  const vals = Array.from({ length: n }, () => (Math.random() - 0.5) * 8);
  if (nan && n > 0 && dtype !== 'Bool') vals[Math.floor(Math.random() * n)] = NaN;
  return vals;
}

function tolerance(dtype: DataType, rowLength: number): number {
  const out = dtype === 'Half' ? 2e-3 : dtype === 'BFloat16' ? 1.6e-2 : 1e-6;
  return out + 2e-7 * Math.sqrt(Math.max(1, rowLength)) * 16;
}

function randomInputs(c: NormalizationCase, nan: boolean): HostTensor[] {
  return c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    return HostTensor.fromValues((v as TensorView).dtype, sizes, randomValues((v as TensorView).dtype, sizes.reduce((a, b) => a * b, 1), nan && i === 0));
  });
}

function runCase(device: DeviceContext, c: NormalizationCase, spec?: NormalizationSpec): Result {
  // SUITE_PROGRESS=1: name each case before it runs (stderr is written synchronously), so a case that never returns is named.
  if (process.env.SUITE_PROGRESS === '1') process.stderr.write(`case ${c.name}\n`);
  const category = categoryOf(c);
  const nan = Math.random() < 0.1;
  const inputs = randomInputs(c, nan);
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true });
  const base = { name: c.name, category, ...(spec ? { spec } : {}) };
  let outs: Tensor[] = [];
  try {
    outs = cache.runFusion(inputs.map((h) => Tensor.fromHost(h)));
    device.synchronize();
    const tol = tolerance(c.spec.dtype, c.spec.shape[c.spec.shape.length - 1] as number);
    for (let i = 0; i < want.length; i += 1) {
      const w = (want[i] as HostTensor).toNumbers();
      const g = (outs[i] as Tensor).toHost().toNumbers();
      if (g.length !== w.length) return { ...base, ok: false, detail: `output ${i}: ${g.length} elements, want ${w.length}` };
      for (let k = 0; k < w.length; k += 1) {
        const x = w[k] as number;
        const y = g[k] as number;
        const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
        if (!ok) return { ...base, ok: false, detail: `output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol.toExponential(2)}, nan inputs ${nan})` };
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

interface Timing {
  name: string;
  ms: number;
  gbps: number;
  kernels: number;
}

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`NORMALIZATION SUITE: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const seed = Number(process.argv[2] ?? Math.floor(Math.random() * 2 ** 31));
  const count = Number(process.argv[3] ?? 120);
  const device = DeviceContext.create(0);
  console.log(`device: ${device.properties.name}; seed ${seed}; ${count} random fusions`);
  const results: Result[] = [];
  // Short rows again with many rows, so several rows share a block on threadIdx.y.
  const manyShortRows = normalizationFixtures(3000).filter((c) => (c.spec.shape[c.spec.shape.length - 1] as number) <= 7);
  const fixtures = [...normalizationFixtures(64), ...manyShortRows, ...emptyRowFixtures()];
  for (const c of fixtures) results.push(runCase(device, c));
  const rand = seededRandom(seed);
  for (let i = 0; i < count; i += 1) {
    const spec = randomNormalizationSpec(rand);
    results.push(runCase(device, buildNormalization(`random_${i}`, spec), spec));
  }
  // layer_norm backward (inner + outer reductions: one inner_outer_persistent kernel).
  for (const c of layerNormBackwardFixtures()) results.push(runLayerNormBackwardCase(device, c));
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`FAIL ${r.name} [${r.category}]: ${r.detail}${r.spec ? ` spec ${JSON.stringify(r.spec)}` : ''}`);

  const timings: Timing[] = [];
  const flusher = l2Flusher(device);
  for (const kind of ['softmax', 'layer_norm', 'rms_norm'] as const) {
    for (const dtype of ['Float', 'BFloat16'] as const) {
      const c = buildNormalization(`${kind}_${dtype}_16384x4096`, { kind, dtype, shape: [16384, 4096], affine: kind !== 'softmax' });
      try {
        timings.push({ name: c.name, ...timeFusion(device, flusher, c.fusion, randomInputs(c, false)) });
      } catch (error) {
        console.log(`TIMING ${c.name} failed: ${(error as Error).message.split('\n')[0] ?? ''}`);
      }
    }
  }
  for (const dtype of ['Float', 'BFloat16'] as const) {
    const c = buildLayerNormBackward(dtype, 16384, 4096, `layer_norm_bwd_${dtype}_16384x4096`);
    try {
      const t = timeLayerNormBackward(device, flusher, c, {});
      timings.push({ name: t.name, ms: t.ms, gbps: t.gbps, kernels: t.kernels });
    } catch (error) {
      console.log(`TIMING ${c.name} failed: ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  flusher.dispose();
  const out = process.env.OUT;
  if (out !== undefined && out !== '') writeFileSync(join(out, 'normalization-suite.json'), JSON.stringify({ seed, device: device.properties.name, results, timings }, null, 1));
  console.log('benchmark                        kernels   ms      GB/s');
  for (const t of timings) console.log(`${t.name.padEnd(33)}${String(t.kernels).padStart(7)}  ${t.ms.toFixed(4).padStart(7)}  ${t.gbps.toFixed(0).padStart(6)}`);
  printCategoryTable(results, 'segments', 34);
  console.log(`fixtures: ${fixtures.length}, random: ${count} (seed ${seed})`);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
