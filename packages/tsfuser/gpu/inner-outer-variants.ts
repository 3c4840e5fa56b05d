// Tuning experiment (GPU, issues 35 / 38): the backward normalizations (sweep points
// rms_norm_bwd / layer_norm_bwd, one inner-outer persistent kernel each) under
// InnerOuterPersistentOverrides the heuristic would not choose — bulk row copies of 1–4 stages
// (bulkStages: each block's next S rows in flight), register loads, batches / blocks per SM —
// timed with the method of `tsfuser bench --suite sweep` (L2 flushed by a read, CUDA events,
// median of 30), beside a device-to-device copy of the same bytes. Each variant's outputs are
// checked against the heuristic's on sampled elements (a poisoned run; timed runs are not
// poisoned): grad_input and the column sums, ≤ 2 ulp for 16-bit outputs (the column sums of
// another grid add in another order), relative 1e-4 for Float. Prints one table last.
//
//   bash gpu-bundle/run.sh tsfuser-inner-outer-variants [point,…] [variant-substring,…]
// (points: sweep point names, e.g. rms_norm_bwd_bf16_4096x4096; default: rms_norm_bwd and
// layer_norm_bwd, bf16 at 4096x4096 and 16384x4096, f32 at 4096x4096, and rms_norm_bwd bf16 at
// 1024x4096; the heuristic always runs
// first: the others are checked against it)
//
// The prediction this measures (ptxas -v, sm_90: the bf16 kernels at 4096 use 46–56 registers,
// so 2 blocks of 512 threads per SM, each with one row of grad_out and x — 16 KB — in flight
// during the previous row: ~32 KB per SM, short of what the H200's latency × bandwidth needs):
// 2–4 stages (64–128 KB per SM in flight) should move the bf16 points from 50–70% of the copy
// floor to ≥ 80%; Float rows (32 KB a row) gain less.

import { DeviceContext, isAvailable } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { InnerOuterPersistentScheduler, SchedulerRegistry, type InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { l2Flusher, timeDevice } from '../src/bench/timing.js';
import { parsePointName, sweepPointWorkload } from '../src/bench/sweep-definitions.js';

const DEFAULT_POINTS = [
  // 1024 rows: with 4096 and 16384, the fixed part of a launch (grid step, pipeline fill) against the per-row part.
  'rms_norm_bwd_bf16_1024x4096',
  'rms_norm_bwd_bf16_4096x4096',
  'rms_norm_bwd_bf16_16384x4096',
  'rms_norm_bwd_f32_4096x4096',
  'layer_norm_bwd_bf16_4096x4096',
  'layer_norm_bwd_bf16_16384x4096',
  'layer_norm_bwd_f32_4096x4096',
];

function variants(): { name: string; overrides: InnerOuterPersistentOverrides }[] {
  return [
    { name: 'heuristic', overrides: {} },
    { name: 'register loads', overrides: { bulkLoadRows: false } },
    { name: 'bulk 1 stage', overrides: { bulkLoadRows: true, bulkStages: 1 } },
    { name: 'bulk 2 stages', overrides: { bulkLoadRows: true, bulkStages: 2 } },
    { name: 'bulk 3 stages', overrides: { bulkLoadRows: true, bulkStages: 3 } },
    { name: 'bulk 4 stages', overrides: { bulkLoadRows: true, bulkStages: 4 } },
    // Three blocks of 512 per SM (ptxas: rms_norm bf16 fits 40 registers without spills; layer_norm spills ~100 bytes).
    { name: 'bulk 2 stages, 3 blocks/SM', overrides: { bulkLoadRows: true, bulkStages: 2, blocksPerSm: 3 } },
    { name: 'bulk 3 stages, 3 blocks/SM', overrides: { bulkLoadRows: true, bulkStages: 3, blocksPerSm: 3 } },
    // Smaller blocks, more of them per SM (more rows in flight, a larger work buffer).
    { name: 'bulk 2 stages B=2', overrides: { bulkLoadRows: true, bulkStages: 2, batches: 2 } },
    { name: 'bulk 1 stage B=2', overrides: { bulkLoadRows: true, bulkStages: 1, batches: 2 } },
    { name: 'register loads B=4', overrides: { bulkLoadRows: false, batches: 4 } },
  ];
}

/** 16-bit outputs come back as raw bits: ≤ 2 ulp apart (same sign); Float: relative 1e-4. */
function close(a: ArrayLike<number>, b: ArrayLike<number>, sixteenBit: boolean): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k += Math.max(1, Math.floor(a.length / 50_000))) {
    const x = a[k] as number;
    const y = b[k] as number;
    if (sixteenBit ? Math.abs(x - y) > 2 : !(Math.abs(x - y) <= 1e-4 * Math.max(1, Math.abs(y)) || (Number.isNaN(x) && Number.isNaN(y)))) return false;
  }
  return true;
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const points = process.argv[2] !== undefined && process.argv[2] !== '' ? process.argv[2].split(',') : DEFAULT_POINTS;
  const terms = process.argv[3]?.split(',');
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const rng = new Random(17);
  const rows: string[] = [];
  for (const name of points) {
    const p = parsePointName(name);
    if (p === undefined || (p.family !== 'rms_norm_bwd' && p.family !== 'layer_norm_bwd')) {
      rows.push(`| ${name} | not an rms_norm_bwd / layer_norm_bwd sweep point | | | | |`);
      continue;
    }
    const w = sweepPointWorkload(p);
    const fusion = w.build().fusionIr();
    const inputs = w.inputs.map((i) => {
      const strides = i.sizes.map((_, d) => i.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      return toDeviceInput(device, randomHost(i.dtype, i.sizes, strides, rng, i.positive === true), false);
    });
    const args = inputs.map((i) => i.tensor);
    const copyBytes = Math.floor(w.bytes / 2);
    const src = device.malloc(copyBytes);
    const dst = device.malloc(copyBytes);
    const copyMs = timeDevice(device, flusher, () => device.copyDeviceToDevice(dst, src, copyBytes), 30);
    device.free(src);
    device.free(dst);
    rows.push(`| ${w.name} | copy of the same bytes | ${(copyMs * 1000).toFixed(1)} µs | ${(w.bytes / (copyMs * 1e-3) / 1e9).toFixed(0)} GB/s | | |`);
    let reference: ArrayLike<number>[] | undefined;
    for (const v of variants().filter((x) => x.name === 'heuristic' || terms === undefined || terms.some((t) => x.name.includes(t)))) {
      try {
        const registry = new SchedulerRegistry([new InnerOuterPersistentScheduler(v.overrides)]);
        const cache = new FusionExecutorCache(fusion, device, { registry, poisonOutputs: true });
        let launchText = '';
        let params = '';
        cache.setDumps(new Set(['launch_param', 'scheduler_params']), (t) => {
          if (t.includes('Launch Parameters') && !t.includes('=====')) launchText += t;
          else params += t;
        });
        const outs = cache.runFusion(args);
        cache.setDumps(new Set());
        const data = outs.map((t) => t.toHost().data as ArrayLike<number>);
        const sixteen = outs.map((t) => t.dtype !== 'Float');
        for (const t of outs) t.dispose();
        let same = true;
        if (reference === undefined) reference = data;
        else same = data.every((d, i) => close(d, reference?.[i] ?? [], sixteen[i] === true));
        const timed = new FusionExecutorCache(fusion, device, { registry });
        const ms = timeDevice(device, flusher, () => {
          for (const t of timed.runFusion(args)) t.dispose();
        }, 30);
        const grid = /GridDim\.x = (\d+)/.exec(launchText)?.[1] ?? '?';
        const block = /BlockDim\.x = (\d+)/.exec(launchText)?.[1] ?? '?';
        const stages = /\((\d+) stages/.exec(params)?.[1] ?? (params.includes('cp.async.bulk') ? '1' : '0');
        const launch = ` (grid ${grid} × ${block}, bulk stages ${stages})`;
        rows.push(`| ${w.name} | ${v.name}${launch} | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${((copyMs / ms) * 100).toFixed(0)}% | ${same ? 'same' : 'DIFFERENT'} |`);
      } catch (error) {
        rows.push(`| ${w.name} | ${v.name} | error: ${(error as Error).message.split('\n')[0]?.slice(0, 140) ?? ''} | | | |`);
      }
    }
    for (const i of inputs) i.owner.dispose();
    device.releasePool();
  }
  flusher.dispose();
  console.log('| point | variant | median | GB/s | % of same-size copy | output vs heuristic |\n|---|---|---:|---:|---:|---|');
  console.log(rows.join('\n'));
  device.dispose();
}

main();
