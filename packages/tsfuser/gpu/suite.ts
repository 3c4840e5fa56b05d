// GPU differential suite of the tsfuser GPU path (needs a GPU; not a vitest suite).
//
//   pnpm gpu:bundle && (on the GPU host) bash gpu-bundle/run.sh tsfuser-gpu-suite [--random N] [--seed S]
//
// Every case runs through the whole path — executor cache → scheduler → lowering → CUDA → NVRTC
// → launch — with outputs poisoned (0xFF) before the kernels run, and is compared with the
// fusion-ir reference evaluator (dtype tolerances of `tsfuser run --check`). Cases:
//   fixture:*     the codegen fixtures (every op kind × dtype, casts, broadcasts, odd/0/1 sizes)
//   random:*      random pointwise/broadcast fusions (mixed dtypes, non-contiguous, misaligned)
//   definition:*  test-fixtures/definitions through FusionDefinition.execute({ backend: gpu }),
//                 each listed with the schedulers of its segments (default registry), e.g.
//                 batch_norm_channels_last.py [outer_persistent], so a definition that falls
//                 back to more kernels shows
//   cache:*       kernel reuse across sizes, disk cubin cache in a second executor cache,
//                 independent segments on the side stream (and with concurrentSegments off)
// Fusions the GPU path does not schedule yet (reductions before their scheduler lands) are
// listed as "unsupported", never counted as passed. Last line: `N passed, M failed`.

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { evaluate, Fusion, HostTensor, makeTensor, mul, sum, type EvalValue } from '@tsfuser/fusion-ir';
import { CubinCache, DeviceContext, Tensor, isAvailable } from '@tsfuser/device';
import { FusionExecutorCache, type ExecutorArgument } from '@tsfuser/runtime';
import { makeRuntimeInfo, SchedulingError, segmentPlanFor } from '@tsfuser/scheduler';
import { LoweringError } from '@tsfuser/codegen';
import { allFixtures } from '@tsfuser/test-support';
import { loadDefinition } from '../src/cli/load-definition.js';
import { compareTensors, loosestTolerance, type Tolerance } from '../src/io/compare.js';
import { inputSensitivity } from '../src/io/sensitivity.js';
import { materializeInput } from '../src/io/input-generation.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { evaluateOnHost } from '../src/execute/reference-backend.js';
import { randomHost, toDeviceInput, Random, type DeviceInput } from '../src/bench/device-inputs.js';
import { randomPointwiseCase, type InputLayout } from './random-fusion.js';
import { absoluteHost, summationSlack } from './summation-slack.js';

type Outcome = 'passed' | 'failed' | 'unsupported';
interface Result {
  name: string;
  outcome: Outcome;
  detail: string;
}

const results: Result[] = [];
const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

function record(name: string, work: () => string): void {
  try {
    results.push({ name, outcome: 'passed', detail: work() });
  } catch (error) {
    const e = error as Error;
    const unsupported = e instanceof SchedulingError || e instanceof LoweringError;
    results.push({ name, outcome: unsupported ? 'unsupported' : 'failed', detail: `${e.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}` });
  }
}

/** Outputs are compared at the precision of the least precise tensor the fusion computes with. */
function fusionTolerance(fusion: Fusion): Tolerance {
  const t = loosestTolerance(fusion.allTvs().map((tv) => tv.dtype).filter((d) => d !== 'Bool' && d !== 'Int' && d !== 'Int32' && d !== 'Index'));
  // A float sum over many elements in another order (tree on the GPU, float64 in the evaluator)
  // differs by ~sqrt(n) ulps: reductions get ten times the elementwise tolerance.
  const reduces = fusion.exprs().some((e) => e.kind === 'ReductionOp' || e.kind === 'WelfordOp');
  return reduces ? { rtol: t.rtol * 10, atol: t.atol * 10 } : t;
}

function compareAll(actual: readonly Tensor[], expected: readonly HostTensor[], tolerance?: Tolerance, slack?: readonly Float64Array[]): string {
  if (actual.length !== expected.length) throw new Error(`${actual.length} outputs, expected ${expected.length}`);
  let worst = 0;
  actual.forEach((t, i) => {
    const e = expected[i] as HostTensor;
    const exact = e.dtype === 'Bool' || e.dtype === 'Int' || e.dtype === 'Int32' || e.dtype === 'Index';
    const r = compareTensors(t.toHost(), e, exact ? undefined : tolerance, exact ? undefined : slack?.[i]);
    if (!r.ok) {
      const m = r.mismatch === undefined ? '' : ` first at ${r.mismatch.index}: ${r.mismatch.actual} vs ${r.mismatch.expected}`;
      throw new Error(`output ${i}: ${r.reason}${m}`);
    }
    worst = Math.max(worst, r.maxAbsDiff);
  });
  return `max abs diff ${worst.toPrecision(3)}`;
}

/** Runs `fusion` on fresh random inputs of the given layouts; compares with the evaluator. */
function runCase(device: DeviceContext, fusion: Fusion, layouts: readonly (InputLayout | null)[], rng: Random, positive: readonly boolean[] = []): string {
  const inputs: DeviceInput[] = [];
  const args: ExecutorArgument[] = [];
  const evalArgs: EvalValue[] = [];
  try {
    fusion.inputs.forEach((v, i) => {
      const layout = layouts[i];
      if (v.kind === 'tensorView' && layout !== null && layout !== undefined) {
        const host = randomHost(v.dtype, layout.sizes, layout.strides, rng, positive[i] === true);
        const input = toDeviceInput(device, host, layout.misalign);
        inputs.push(input);
        args.push(input.tensor);
        evalArgs.push(host);
      } else {
        const value = v.kind === 'scalar' && (v.dtype === 'Int' || v.dtype === 'Int32' || v.dtype === 'Index') ? 3 : 0.75 + rng.uniform();
        args.push(value);
        evalArgs.push(value);
      }
    });
    const expected = evaluate(fusion, evalArgs).map((o) => {
      if (!(o instanceof HostTensor)) throw new Error('scalar fusion output');
      return o;
    });
    const cache = new FusionExecutorCache(fusion, device, { cubinCache: sharedCubins, poisonOutputs: true });
    const outputs = cache.runFusion(args);
    try {
      // Ill-conditioned random compositions: allow what a one-ulp input move does (sensitivity.ts).
      return compareAll(outputs, expected, fusionTolerance(fusion), inputSensitivity(fusion, evalArgs, expected));
    } finally {
      for (const o of outputs) o.dispose();
    }
  } finally {
    for (const input of inputs) input.owner.dispose();
  }
}

let sharedCubins: CubinCache;

/** The default registry's segments for a definition's inputs, e.g. `outer_persistent` or `reduction+pointwise`. */
function segmentsOf(fusion: Fusion, inputs: readonly unknown[]): string {
  try {
    const info = makeRuntimeInfo(fusion, inputs.map((t) => (t instanceof Tensor ? { sizes: t.sizes, strides: t.strides } : null)));
    return segmentPlanFor(fusion, info).groups.map((g) => g.schedulerType ?? 'none').join('+');
  } catch (error) {
    return `unsegmented: ${(error as Error).message.slice(0, 80)}`;
  }
}

async function main(): Promise<void> {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`GPU suite: runtime unavailable: ${availability.reason ?? '?'}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const seed = flag('seed', Date.now() % 1000000);
  const randomCount = flag('random', 250);
  const rng = new Random(seed);
  const device = DeviceContext.create(0);
  sharedCubins = new CubinCache({ directory: mkdtempSync(join(tmpdir(), 'tsfuser-suite-cubins-')) });
  console.log(`device: ${device.properties.name}; seed ${seed}`);
  const started = performance.now();
  // A line per phase as it ends (the full report comes last): a run killed by its time limit
  // still shows how far it got (H200 2026-12-04: a cold run killed at 135 s printed nothing).
  let phaseStart = 0;
  const phaseDone = (label: string): void => {
    const done = results.slice(phaseStart);
    phaseStart = results.length;
    const failed = done.filter((r) => r.outcome === 'failed').map((r) => r.name);
    console.log(`${label}: ${done.length} cases, ${failed.length} failed${failed.length > 0 ? ` (${failed.slice(0, 5).join(', ')})` : ''}; ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };

  for (const f of allFixtures()) {
    const layouts = f.info.inputs.map((inp) => (inp.kind === 'tensor' ? { sizes: [...inp.sizes], strides: [...inp.strides], misalign: false } : null));
    record(`fixture:${f.name}`, () => runCase(device, f.fusion, layouts, rng, layouts.map((_, i) => i > 0)));
  }
  for (let i = 0; i < randomCount; i += 1) {
    const c = randomPointwiseCase(rng, i);
    record(`random:${c.name}`, () => runCase(device, c.fusion, c.layouts, rng, c.positive));
  }
  phaseDone('fixtures and random cases');

  // FusionDefinition.execute through the GPU backend, on the files users run.
  const backend = createGpuBackend({ cubinDirectory: null, poisonOutputs: true });
  const dir = resolve('test-fixtures/definitions');
  // Subfolders too (definitions/nvfuser/: repros exactly as nvFuser's frontend prints them).
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(py|mjs|js)$/.test(f)).sort();
  for (const file of files) {
    const name = `definition:${file}`;
    try {
      const { definition, inputs } = await loadDefinition(join(dir, file), process.cwd());
      const ins = (inputs ?? []).map((spec) => materializeInput(spec, rng));
      if (ins.length === 0) {
        results.push({ name, outcome: 'unsupported', detail: 'no inputs list in the file' });
        continue;
      }
      const segments = segmentsOf(definition.fusionIr(), ins);
      const outputs = await definition.execute(ins, { backend });
      const expected = evaluateOnHost(definition.fusionIr(), ins).map((t) => t.toHost());
      results.push({ name, outcome: 'passed', detail: `[${segments}] ${compareAll(outputs, expected, fusionTolerance(definition.fusionIr()))}` });
    } catch (error) {
      const e = error as Error;
      const unsupported = e instanceof SchedulingError || e instanceof LoweringError;
      results.push({ name, outcome: unsupported ? 'unsupported' : 'failed', detail: `${e.name}: ${e.message.split('\n')[0] ?? ''}` });
    }
  }

  phaseDone('definitions');

  // Kernel reuse: other sizes of the same signature launch the same kernel.
  record('cache:kernel-reuse-across-sizes', () => {
    const f = allFixtures().find((x) => x.name === 'bcast_odd');
    if (f === undefined) throw new Error('fixture bcast_odd missing');
    const cache = new FusionExecutorCache(f.fusion, device, { cubinCache: sharedCubins, poisonOutputs: true });
    for (const [a, b, c] of [[3, 5, 7], [9, 11, 13], [4, 6, 130]] as const) {
      const x = toDeviceInput(device, randomHost('Float', [a, 1, c], [c, c, 1], rng), false);
      const y = toDeviceInput(device, randomHost('Float', [a, b, c], [b * c, c, 1], rng), false);
      const out = cache.runFusion([x.tensor, y.tensor]);
      compareAll(out, evaluate(f.fusion, [x.host, y.host]) as HostTensor[]);
      for (const t of [...out, x.owner, y.owner]) t.dispose();
    }
    if (cache.stats.kernels !== 1) throw new Error(`3 sizes compiled ${cache.stats.kernels} kernels, expected 1`);
    return `3 sizes, ${cache.stats.kernels} kernel, ${cache.stats.launchPlans} launch plans`;
  });
  record('cache:disk-cubin-in-new-cache', () => {
    const f = allFixtures().find((x) => x.name === 'bcast_odd');
    if (f === undefined) throw new Error('fixture bcast_odd missing');
    const directory = mkdtempSync(join(tmpdir(), 'tsfuser-disk-'));
    const x = toDeviceInput(device, randomHost('Float', [3, 1, 7], [7, 7, 1], rng), false);
    const y = toDeviceInput(device, randomHost('Float', [3, 5, 7], [35, 7, 1], rng), false);
    const first = new FusionExecutorCache(f.fusion, device, { cubinCache: new CubinCache({ directory }) });
    first.runFusion([x.tensor, y.tensor]).forEach((t) => t.dispose());
    const second = new FusionExecutorCache(f.fusion, device, { cubinCache: new CubinCache({ directory }) });
    second.runFusion([x.tensor, y.tensor]).forEach((t) => t.dispose());
    x.owner.dispose();
    y.owner.dispose();
    const a = first.stats.compiles[0];
    const b = second.stats.compiles[0];
    if (a?.cubin !== 'compiled' || b?.cubin !== 'disk') throw new Error(`cubin sources ${a?.cubin} then ${b?.cubin}, expected compiled then disk`);
    return `cold NVRTC ${a.nvrtcMs.toFixed(1)} ms, disk ${b.nvrtcMs.toFixed(2)} ms`;
  });

  // Segments that share no data (a sum of one input beside a pointwise op of another, as nvFuser
  // issue #785's pow + sum) run concurrently: the second on the device's side stream.
  record('cache:concurrent-segments', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
    const b = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
    f.addInput(a);
    f.addInput(b);
    f.addOutput(sum(a, [0, 1]));
    f.addOutput(mul(mul(b, b), b));
    const launches: number[] = [];
    for (const concurrentSegments of [true, false]) {
      const cache = new FusionExecutorCache(f, device, { poisonOutputs: true, concurrentSegments });
      for (const sizes of [[16, 64, 1024], [3, 5, 7]]) {
        const strides = [(sizes[1] as number) * (sizes[2] as number), sizes[2] as number, 1];
        const x = toDeviceInput(device, randomHost('Float', sizes, strides, rng), false);
        const y = toDeviceInput(device, randomHost('Float', sizes, strides, rng), false);
        const out = cache.runFusion([x.tensor, y.tensor]);
        // The sum cancels in some elements: widen those by its rounding bound (summation-slack.ts).
        const absoluteSums = evaluate(f, [absoluteHost(x.host), absoluteHost(y.host)])[0] as HostTensor;
        const terms = (sizes[0] as number) * (sizes[1] as number);
        compareAll(out, evaluate(f, [x.host, y.host]) as HostTensor[], fusionTolerance(f), [summationSlack(absoluteSums, terms), new Float64Array(0)]);
        for (const t of [...out, x.owner, y.owner]) t.dispose();
      }
      launches.push(cache.stats.sideLaunches);
    }
    if (launches[0] !== 2 || launches[1] !== 0) throw new Error(`side-stream launches ${launches.join(' / ')}, expected 2 (concurrent) / 0 (off)`);
    return 'reduction + pointwise, the pointwise on the side stream (2 calls), and with concurrentSegments off';
  });

  const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
  const byKind = new Map<string, Record<Outcome, number>>();
  for (const r of results) {
    const kind = r.name.split(':')[0] as string;
    const row = byKind.get(kind) ?? { passed: 0, failed: 0, unsupported: 0 };
    row[r.outcome] += 1;
    byKind.set(kind, row);
  }
  const failures = results.filter((r) => r.outcome === 'failed');
  for (const r of failures.slice(0, 40)) console.log(`FAIL ${r.name}: ${r.detail}`);
  for (const r of results.filter((x) => x.outcome === 'unsupported').slice(0, 20)) console.log(`unsupported ${r.name}: ${r.detail}`);
  for (const r of results.filter((x) => (x.name.startsWith('definition:') && x.outcome === 'passed') || x.name.startsWith('cache:'))) console.log(`${r.outcome} ${r.name}: ${r.detail}`);
  const out = process.env['OUT'];
  if (out !== undefined && out !== '') writeFileSync(join(out, 'gpu-suite.json'), JSON.stringify({ seed, device: device.properties.name, results }, null, 1));
  console.log(`\n${'kind'.padEnd(12)} passed  failed  unsupported`);
  for (const [kind, row] of byKind) console.log(`${kind.padEnd(12)} ${String(row.passed).padStart(6)}  ${String(row.failed).padStart(6)}  ${String(row.unsupported).padStart(11)}`);
  console.log(`time ${((performance.now() - started) / 1000).toFixed(1)} s, seed ${seed}`);
  console.log(`${count('passed')} passed, ${count('failed')} failed`);
  if (count('failed') > 0) process.exitCode = 1;
  device.dispose();
}

main().catch((error: unknown) => {
  console.error(error);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
