// Tuning experiment (GPU): times the bench workloads with an outer reduction (pow_sum and
// gelu_bias_grad of issue #785, 16×512×4096 f32: sums over [0, 1]) under outer-reduction
// choices the heuristic would not make (columns per block, unroll, threadIdx.y rows, grid
// blocks), the whole fusion as `tsfuser bench` runs it (L2 flushed, CUDA events, median), and
// checks each variant's outputs against the default schedule's on sampled elements (a
// poisoned run; timed runs are not poisoned). Prints one table, fastest first per workload.
//
//   bash gpu-bundle/run.sh tsfuser-reduction-variants [workload,…] [--no-flush-experiment] [--iter-vector]
// (--iter-vector: the heuristic against the scalar-column schedule of before iteration vectors,
// ReductionOverrides.iterVector = 1, and vector schedules of other block shapes)
// (a workload may also be a sweep point name, e.g. gelu_bwd_reduction_outer_bf16_8192x16384:
// bench --suite sweep; the variants then add blocks of 256 columns)

import { DeviceContext, Tensor, isAvailable } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import { InnerPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type ReductionOverrides } from '@tsfuser/scheduler';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { l2Flusher, timeDevice } from '../src/bench/timing.js';
import { benchWorkloads, type Workload } from '../src/bench/workloads.js';
import { parsePointName, sweepPointWorkload } from '../src/bench/sweep-definitions.js';

/**
 * `--iter-vector`: the heuristic (iteration-dim vectors of outer reductions), the schedule
 * before them (iterVector 1: one column per thread), and vector schedules of other block shapes.
 */
function iterVectorVariants(): { name: string; overrides: ReductionOverrides }[] {
  const out: { name: string; overrides: ReductionOverrides }[] = [
    { name: 'heuristic', overrides: {} },
    { name: 'iterVector=1 (scalar columns)', overrides: { iterVector: 1 } },
  ];
  for (const bdimx of [8, 16, 32, 64]) {
    for (const bdimy of [4, 8, 16, 32]) {
      if (bdimx * bdimy > 1024 || bdimx * bdimy < 128) continue;
      for (const unroll of [4, 8]) out.push({ name: `vector bdimx=${bdimx} bdimy=${bdimy} unroll=${unroll}`, overrides: { bdimx, bdimy, unroll } });
    }
  }
  for (const bdimx of [64, 128]) out.push({ name: `iterVector=1 bdimx=${bdimx}`, overrides: { iterVector: 1, bdimx } });
  return out;
}

function variants(): { name: string; overrides: ReductionOverrides }[] {
  const out: { name: string; overrides: ReductionOverrides }[] = [{ name: 'heuristic', overrides: {} }];
  for (const bdimx of [32, 64, 128, 256]) {
    for (const bdimy of [2, 4, 8, 16]) {
      if (bdimx * bdimy > 1024 || bdimx * bdimy < 128) continue;
      for (const unroll of [4, 8, 16]) {
        for (const gdimy of [undefined, 1, 2, 4, 8]) {
          out.push({ name: `bdimx=${bdimx} bdimy=${bdimy} unroll=${unroll} gdimy=${gdimy ?? 'h'}`, overrides: { bdimx, bdimy, unroll, ...(gdimy === undefined ? {} : { gdimy }) } });
        }
      }
    }
  }
  return out;
}

function close(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k += 97) {
    const x = a[k] as number;
    const y = b[k] as number;
    if (!(Math.abs(x - y) <= 1e-3 * Math.max(1, Math.abs(y)))) return false;
  }
  return true;
}

/**
 * The bench flushes L2 with a 512 MiB memset, which leaves L2 full of dirty lines that the
 * timed kernel's own traffic must write back. Times bn_add_relu and device-to-device copies
 * (its bytes, 1 GiB) after that flush and after a read-only one (a sum over the same buffer,
 * run by tsfuser itself), to see how much of the gap to the 1 GiB copy floor is the flush.
 */
function flushExperiment(device: DeviceContext): string[] {
  const out: string[] = [];
  const memset = l2Flusher(device);
  const elems = 128 * 1024 * 1024;
  const buf = Tensor.emptyDevice(device, 'Float', [elems]);
  buf.poison();
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addOutput(sum(x, [0]));
  const reader = new FusionExecutorCache(f, device);
  const readFlush = { flush: () => { for (const t of reader.runFusion([buf])) t.dispose(); }, dispose: () => buf.dispose() };
  readFlush.flush();
  const w = benchWorkloads().find((x) => x.name === 'bn_add_relu');
  const rng = new Random(5);
  const cases: { name: string; bytes: number; run: () => void; free: () => void }[] = [];
  for (const bytes of [38_535_168, 1024 * 1024 * 1024]) {
    const src = device.malloc(bytes);
    const dst = device.malloc(bytes);
    cases.push({ name: `copy ${(2 * bytes / 1e6).toFixed(0)} MB`, bytes: 2 * bytes, run: () => device.copyDeviceToDevice(dst, src, bytes), free: () => { device.free(src); device.free(dst); } });
  }
  if (w !== undefined) {
    const fusion = w.build().fusionIr();
    const inputs = w.inputs.map((i) => {
      const strides = i.sizes.map((_, d) => i.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      return toDeviceInput(device, randomHost(i.dtype, i.sizes, strides, rng, i.positive === true), false);
    });
    const cache = new FusionExecutorCache(fusion, device);
    const args = inputs.map((i) => i.tensor);
    cases.push({ name: 'bn_add_relu', bytes: w.bytes, run: () => { for (const t of cache.runFusion(args)) t.dispose(); }, free: () => { for (const i of inputs) i.owner.dispose(); } });
  }
  for (const c of cases) {
    for (const [fname, fl] of [['memset flush', memset], ['read-only flush', readFlush]] as const) {
      const ms = timeDevice(device, fl, c.run, 30);
      out.push(`| ${c.name} | ${fname} | ${(ms * 1000).toFixed(1)} µs | ${(c.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | |`);
    }
    c.free();
  }
  memset.dispose();
  readFlush.dispose();
  device.releasePool();
  return out;
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const argv = process.argv.slice(2);
  const flushExperimentToo = !argv.includes('--no-flush-experiment');
  const variantList = argv.includes('--iter-vector') ? iterVectorVariants() : variants();
  const only = argv.find((a) => !a.startsWith('--'))?.split(',') ?? ['pow_sum', 'gelu_bias_grad'];
  const sweepPoints = only.flatMap((name): Workload[] => {
    const p = parsePointName(name);
    return p === undefined ? [] : [sweepPointWorkload(p)];
  });
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const rng = new Random(13);
  const lines: string[] = [];
  for (const w of [...benchWorkloads().filter((x) => only.includes(x.name)), ...sweepPoints]) {
    const fusion = w.build().fusionIr();
    const inputs = w.inputs.map((i) => {
      const strides = i.sizes.map((_, d) => i.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      return toDeviceInput(device, randomHost(i.dtype, i.sizes, strides, rng, i.positive === true), false);
    });
    const args = inputs.map((i) => i.tensor);
    let reference: ArrayLike<number>[] | undefined;
    const rows: { ms: number; text: string }[] = [];
    for (const v of variantList) {
      try {
        const registry = new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler({}, v.overrides), new InnerPersistentScheduler()]);
        const check = new FusionExecutorCache(fusion, device, { registry, poisonOutputs: true });
        const outs = check.runFusion(args);
        const data = outs.map((t) => t.toHost().data as ArrayLike<number>);
        for (const t of outs) t.dispose();
        let same = true;
        if (reference === undefined) reference = data;
        else same = data.every((d, i) => close(d, reference?.[i] ?? []));
        const timed = new FusionExecutorCache(fusion, device, { registry });
        const ms = timeDevice(device, flusher, () => {
          for (const t of timed.runFusion(args)) t.dispose();
        }, 30);
        rows.push({ ms, text: `| ${w.name} | ${v.name} | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${same ? 'same' : 'DIFFERENT'} |` });
      } catch (error) {
        rows.push({ ms: Infinity, text: `| ${w.name} | ${v.name} | error: ${(error as Error).message.split('\n')[0]?.slice(0, 120) ?? ''} | | |` });
      }
    }
    rows.sort((a, b) => a.ms - b.ms);
    lines.push(...rows.slice(0, 25).map((r) => r.text), ...rows.filter((r) => r.text.includes('| heuristic |')).map((r) => r.text), ...rows.filter((r) => r.ms === Infinity || r.text.includes('DIFFERENT')).slice(0, 5).map((r) => r.text));
    for (const i of inputs) i.owner.dispose();
    device.releasePool();
  }
  if (flushExperimentToo) lines.push(...flushExperiment(device));
  flusher.dispose();
  console.log('| workload | variant | median | GB/s | output |\n|---|---|---:|---:|---|');
  console.log(lines.join('\n'));
  device.dispose();
}

main();
