// GPU differential suite for reductions (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle codegen-reduction-suite
//   (GPU host) bash gpu-bundle/run.sh codegen-reduction-suite [seed] [count]
//
// Runs every reduction fixture (@tsfuser/test-support: reduction-fixtures.ts) and `count` (default 320) random
// single-reduction fusions (sum/max/min/prod and the Welford ops var_mean / welford over random
// axes, keepdim, pointwise before and after, Float/Half/BFloat16/Double, sizes 0/1/odd/large,
// some NaN inputs; and welford / var_mean with NaN and ±Inf at fixed places) through
// FusionExecutorCache (reduction scheduler → codegen → NVRTC → launch, outputs poisoned) and
// compares every output element with the reference evaluator on the same fresh random
// inputs. Tolerance: the output dtype's rounding plus float accumulation over the reduced
// extent. The summary table splits the schedule classes by op (`welford` for var_mean /
// welford: block / grid Welford kernels). Prints failures (with the spec to rebuild them),
// `N passed, M failed` last, and
// writes reduction-suite.json to $OUT when set; exits 1 on any failure.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate, HostTensor, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import {
  buildReduction, isWelfordKind, randomReductionSpec, reductionFixtures, reductionRegistry, seededRandom, type ReductionCase, type ReductionSpec,
} from '@tsfuser/test-support';
import { printCategoryTable } from './suite-report.js';

interface Result {
  name: string;
  ok: boolean;
  detail: string;
  spec?: ReductionSpec;
  kernelMs?: number;
  /** inner / outer, + grid when the heuristics split the reduction over blockIdx.y. */
  category?: string;
}

/** The schedule class the heuristics pick for a case (for the summary table). */
function categoryOf(c: ReductionCase): string {
  try {
    const { scheduler } = reductionRegistry().pick(c.fusion, c.info);
    const p = scheduler.computeHeuristics(c.fusion, c.info);
    if (p.schedulerType !== 'reduction') return p.schedulerType;
    return `${isWelfordKind(c.op) ? 'welford ' : ''}${p.fastestDim ? 'inner' : 'outer'}${p.crossGridInnerReduction ? '+grid' : ''}`;
  } catch {
    return 'unscheduled';
  }
}

function randomValues(dtype: DataType, n: number, op: ReductionCase['op'], nan: boolean): (number | boolean | bigint)[] {
  if (dtype === 'Bool') return Array.from({ length: n }, () => Math.random() < 0.8);
  if (dtype === 'Int') return Array.from({ length: n }, () => BigInt(Math.floor((Math.random() - 0.5) * 100)));
  if (dtype === 'Int32') return Array.from({ length: n }, () => Math.floor((Math.random() - 0.5) * 100));
  const vals = Array.from({ length: n }, () => (op === 'prod' ? 0.9 + Math.random() * 0.2 : (Math.random() - 0.5) * 8));
  if (nan && n > 0) vals[Math.floor(Math.random() * n)] = NaN;
  return vals;
}

/** The least precise float dtype of the fusion bounds the error. */
function coarsestDtype(c: ReductionCase): DataType {
  const dtypes = new Set(c.fusion.allTvs().map((tv) => tv.dtype));
  return (['BFloat16', 'Half', 'Float', 'Double'] as const).find((d) => dtypes.has(d)) ?? 'Int';
}

function tolerance(c: ReductionCase): number {
  const d = coarsestDtype(c);
  const out = d === 'Half' ? 2e-3 : d === 'BFloat16' ? 1.6e-2 : d === 'Float' ? 1e-6 : d === 'Double' ? 1e-12 : 0;
  const acc = (d === 'Double' ? 1e-15 : 2e-7) * Math.sqrt(Math.max(1, c.reductionSize)) * 8;
  return (out + acc) * (c.op === 'sum' || isWelfordKind(c.op) ? 4 : 1);
}

function runCase(device: DeviceContext, c: ReductionCase, spec?: ReductionSpec, nonFinite = false): Result {
  return { ...runOne(device, c, spec, nonFinite), category: categoryOf(c) };
}

/**
 * Every 3rd element NaN; with `inf`, every 5th +Inf and every 7th −Inf too (only where each
 * reduction has one element: Inf merged with finite values gives Inf or NaN by merge order).
 */
function withNonFinite(values: (number | boolean | bigint)[], inf: boolean): (number | boolean | bigint)[] {
  return values.map((v, i) => (i % 3 === 0 ? NaN : inf && i % 5 === 0 ? Infinity : inf && i % 7 === 0 ? -Infinity : v));
}

function runOne(device: DeviceContext, c: ReductionCase, spec?: ReductionSpec, nonFinite = false): Result {
  const nan = nonFinite || Math.random() < 0.1;
  const inputs = c.fusion.inputs.map((v, i) => {
    const tv = v as TensorView;
    const sizes = c.sizes[i] as number[];
    const values = randomValues(tv.dtype, sizes.reduce((a, b) => a * b, 1), c.op, nonFinite ? false : nan);
    return HostTensor.fromValues(tv.dtype, sizes, nonFinite ? withNonFinite(values, c.reductionSize === 1) : values);
  });
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true, registry: reductionRegistry() });
  let outs: Tensor[] = [];
  try {
    const t0 = performance.now();
    outs = cache.runFusion(inputs.map((h) => Tensor.fromHost(h)));
    device.synchronize();
    const ms = performance.now() - t0;
    const tol = tolerance(c);
    for (let i = 0; i < want.length; i += 1) {
      const w = (want[i] as HostTensor).toNumbers();
      const g = (outs[i] as Tensor).toHost().toNumbers();
      if (g.length !== w.length) return { name: c.name, ok: false, detail: `output ${i}: ${g.length} elements, want ${w.length}`, ...(spec ? { spec } : {}) };
      for (let k = 0; k < w.length; k += 1) {
        const x = w[k] as number;
        const y = g[k] as number;
        const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= tol * Math.max(1, Math.abs(x));
        if (!ok) {
          return { name: c.name, ok: false, detail: `output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol.toExponential(2)}, nan inputs ${nan})`, ...(spec ? { spec } : {}) };
        }
      }
    }
    return { name: c.name, ok: true, detail: `${want.length} outputs`, kernelMs: ms };
  } catch (error) {
    const e = error as Error;
    return { name: c.name, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}`, ...(spec ? { spec } : {}) };
  } finally {
    for (const t of outs) t.dispose();
  }
}

function main(): number {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`REDUCTION SUITE: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const seed = Number(process.argv[2] ?? Math.floor(Math.random() * 2 ** 31));
  const count = Number(process.argv[3] ?? 320);
  const device = DeviceContext.create(0);
  console.log(`device: ${device.properties.name}; seed ${seed}; ${count} random fusions`);
  const results: Result[] = [];
  for (const c of reductionFixtures()) results.push(runCase(device, c));
  // Welford over one element (the merge copies the first state: NaN and ±Inf inputs) and over
  // many (NaN inputs; [40, 3] over dim 0 leaves columns 1 and 2 finite): M2 is NaN where a NaN or
  // Inf was merged, as torch.var_mean.
  for (const op of ['welford', 'var_mean'] as const) {
    for (const dtype of ['Float', 'Double'] as const) {
      for (const [shape, axes] of [[[4, 1, 9], [1]], [[6, 33], [1]], [[40, 3], [0]]] as const) {
        const spec: ReductionSpec = { op, dtype, shape: [...shape], axes: [...axes] };
        results.push(runCase(device, buildReduction(`nonfinite_${op}_${dtype}_${shape.join('x')}`, spec), spec, true));
      }
    }
  }
  const rand = seededRandom(seed);
  for (let i = 0; i < count; i += 1) {
    const spec = randomReductionSpec(rand);
    results.push(runCase(device, buildReduction(`random_${i}`, spec), spec));
  }
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`FAIL ${r.name}: ${r.detail}${r.spec ? ` spec ${JSON.stringify(r.spec)}` : ''}`);
  const out = process.env.OUT;
  if (out !== undefined && out !== '') writeFileSync(join(out, 'reduction-suite.json'), JSON.stringify({ seed, device: device.properties.name, results }, null, 1));
  printCategoryTable(results, 'schedule', 22);
  console.log(`fixtures: ${reductionFixtures().length}, random: ${count} (seed ${seed})`);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = main();
