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
import { InnerOuterPersistentScheduler, SchedulerRegistry, type InnerOuterPersistentOverrides } from '@tsfuser/scheduler';
import { Random } from '../src/bench/device-inputs.js';
import { l2Flusher } from '../src/bench/timing.js';
import { variantRows } from './schedule-variant-rows.js';
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
    const chosen = variants().filter((x) => x.name === 'heuristic' || terms === undefined || terms.some((t) => x.name.includes(t)));
    rows.push(...variantRows(device, flusher, rng, sweepPointWorkload(p), chosen.map((v) => ({
      name: v.name,
      registry: new SchedulerRegistry([new InnerOuterPersistentScheduler(v.overrides)]),
      dumps: ['launch_param', 'scheduler_params'],
      describe: (launchText: string, params: string) => {
        const grid = /GridDim\.x = (\d+)/.exec(launchText)?.[1] ?? '?';
        const block = /BlockDim\.x = (\d+)/.exec(launchText)?.[1] ?? '?';
        const stages = /\((\d+) stages/.exec(params)?.[1] ?? (params.includes('cp.async.bulk') ? '1' : '0');
        return ` (grid ${grid} × ${block}, bulk stages ${stages})`;
      },
    })), { rtol: 1e-4, step: (n) => Math.floor(n / 50_000), errorChars: 140 }));
  }
  flusher.dispose();
  console.log('| point | variant | median | GB/s | % of same-size copy | output vs heuristic |\n|---|---|---:|---:|---:|---|');
  console.log(rows.join('\n'));
  device.dispose();
}

main();
