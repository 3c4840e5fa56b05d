// Tuning experiment (GPU): times the normalization bench workloads (16384×4096 softmax,
// layer_norm, rms_norm) under inner persistent heuristic choices the heuristic would not make
// (persistent batch, rows per block, vector width, input projection, L1 evict-last hints on the
// row parameters, one-barrier block allreduces), with the method of
// `tsfuser bench` (L2 flushed, CUDA events, median), and checks each variant's outputs against
// the default schedule's on sampled elements (a poisoned run; timed runs are not poisoned). Also times a device-to-device copy of each
// workload's bytes. Prints one table.
//
//   bash gpu-bundle/run.sh tsfuser-normalization-variants [workload,…] [variant-substring,…]
// (a workload may also be a sweep point name, e.g. layer_norm_f32_8192x16384: bench --suite sweep)
// (the heuristic's own schedule always runs first: the others are checked against it)

import { DeviceContext, isAvailable } from '@tsfuser/device';
import { InnerPersistentScheduler, SchedulerRegistry, type InnerPersistentOverrides } from '@tsfuser/scheduler';
import { Random } from '../src/bench/device-inputs.js';
import { l2Flusher } from '../src/bench/timing.js';
import { variantRows } from './schedule-variant-rows.js';
import { normalizationWorkloads, type Workload } from '../src/bench/workloads.js';
import { parsePointName, sweepPointWorkload } from '../src/bench/sweep-definitions.js';

function variants(): { name: string; overrides: InnerPersistentOverrides }[] {
  const out: { name: string; overrides: InnerPersistentOverrides }[] = [
    { name: 'heuristic', overrides: {} },
    { name: 'evict_last row params', overrides: { evictLastRowParams: true } },
    { name: 'one-barrier allreduce', overrides: { singleBarrierAllreduce: true } },
    { name: 'row params loaded first', overrides: { hoistRowParamLoads: true } },
    { name: 'row params loaded first B=2', overrides: { hoistRowParamLoads: true, batches: 2 } },
    { name: 'row params loaded first + evict_last', overrides: { hoistRowParamLoads: true, evictLastRowParams: true } },
    { name: 'one-barrier B=2', overrides: { singleBarrierAllreduce: true, batches: 2 } },
    { name: 'one-barrier B=8', overrides: { singleBarrierAllreduce: true, batches: 8 } },
    { name: 'no projection', overrides: { project: false } },
  ];
  for (const batches of [1, 2, 4, 8, 16]) for (const bdimy of [1, 2, 4]) out.push({ name: `B=${batches} bdimy=${bdimy}`, overrides: { batches, bdimy } });
  for (const batches of [2, 4, 8, 16]) out.push({ name: `vec 8B B=${batches}`, overrides: { batches, maxVectorBytes: 8 } });
  for (const batches of [2, 4, 8]) out.push({ name: `B=${batches} no projection`, overrides: { batches, project: false } });
  // Sweep points: wide rows (B=32 at 16384 f32 is 128 threads), short rows (more rows per block,
  // a warp per row at 768 bf16: B=3).
  out.push({ name: 'B=32 bdimy=1', overrides: { batches: 32, bdimy: 1 } });
  for (const bdimy of [8, 16]) out.push({ name: `B=1 bdimy=${bdimy}`, overrides: { batches: 1, bdimy } });
  for (const bdimy of [2, 4, 8]) out.push({ name: `B=3 bdimy=${bdimy}`, overrides: { batches: 3, bdimy } });
  // Issue 38 on the H200 (select with the term `h200`): layer_norm f32 at 16384×4096 ran 90% of
  // the copy under the H100's default (bulk row copies, parameters hoisted, 67 registers: 3
  // blocks of 256 per SM) and 98% with register loads at B=2 or B=8. Which knob costs the 8%:
  // the bulk copy, the hoisting, or the residency? (layer_norm f32, ptxas sm_90: B=4 hoisted 68
  // registers → 3 blocks per SM, in place 47 → 5; B=2 32 → 4 blocks of 512, hoisted 40 → 3;
  // B=8 59 → 8 blocks of 128.)
  out.push(
    { name: 'h200 register loads', overrides: { bulkLoadRows: false } },
    { name: 'h200 register loads, params in place', overrides: { bulkLoadRows: false, hoistRowParamLoads: false } },
    { name: 'h200 register loads, params in place, evict_last', overrides: { bulkLoadRows: false, hoistRowParamLoads: false, evictLastRowParams: true } },
    { name: 'h200 bulk, params in place', overrides: { bulkLoadRows: true, hoistRowParamLoads: false, maxBlocksPerSm: 0 } },
    { name: 'h200 B=2', overrides: { batches: 2, bulkLoadRows: false, hoistRowParamLoads: false } },
    { name: 'h200 B=2 evict_last', overrides: { batches: 2, bulkLoadRows: false, hoistRowParamLoads: false, evictLastRowParams: true } },
    { name: 'h200 B=2 hoisted, register loads', overrides: { batches: 2, bulkLoadRows: false, hoistRowParamLoads: true } },
    { name: 'h200 B=2 bulk, params in place', overrides: { batches: 2, bulkLoadRows: true, hoistRowParamLoads: false, maxBlocksPerSm: 0 } },
    { name: 'h200 B=8', overrides: { batches: 8, bulkLoadRows: false, hoistRowParamLoads: false } },
    { name: 'h200 B=8 evict_last', overrides: { batches: 8, bulkLoadRows: false, hoistRowParamLoads: false, evictLastRowParams: true } },
    { name: 'h200 B=8 bdimy=2', overrides: { batches: 8, bdimy: 2, bulkLoadRows: false, hoistRowParamLoads: false } },
  );
  // The persistent grid (blocksPerSm: each block walks a chunk of rows; its next row's loads in
  // flight during this row's reductions by register prefetch or pipelined bulk copies; hoisted
  // weight and bias loaded once per block). blocksPerSm is what ptxas's registers allow for
  // layer_norm f32 (sm_90: in place 64 → 4 blocks of 256; hoisted 72 → 3; prefetch 96 / 100
  // hoisted → 2; bulk 64 → 4, hoisted 80 → 3; B=2 prefetch 63 → 2 of 512, bulk hoisted 58 → 2).
  const grid = (o: InnerPersistentOverrides): InnerPersistentOverrides => ({ bulkLoadRows: false, hoistRowParamLoads: false, ...o });
  out.push(
    { name: 'h200 grid 4/SM', overrides: grid({ blocksPerSm: 4 }) },
    { name: 'h200 grid 3/SM hoisted', overrides: grid({ blocksPerSm: 3, hoistRowParamLoads: true }) },
    { name: 'h200 grid 2/SM prefetch', overrides: grid({ blocksPerSm: 2, prefetchNextRow: true }) },
    { name: 'h200 grid 2/SM prefetch hoisted', overrides: grid({ blocksPerSm: 2, prefetchNextRow: true, hoistRowParamLoads: true }) },
    { name: 'h200 grid 4/SM bulk pipelined', overrides: grid({ blocksPerSm: 4, bulkLoadRows: true }) },
    { name: 'h200 grid 3/SM bulk pipelined hoisted', overrides: grid({ blocksPerSm: 3, bulkLoadRows: true, hoistRowParamLoads: true }) },
    { name: 'h200 grid B=2 2/SM prefetch', overrides: grid({ blocksPerSm: 2, batches: 2, prefetchNextRow: true }) },
    { name: 'h200 grid B=2 2/SM bulk pipelined hoisted', overrides: grid({ blocksPerSm: 2, batches: 2, bulkLoadRows: true, hoistRowParamLoads: true }) },
  );
  return out;
}

/** Whether two outputs agree on sampled elements (Float: relative 1e-5; 16-bit: ≤ 2 ulp). */
function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const only = process.argv[2]?.split(',');
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const rng = new Random(11);
  const rows: string[] = [];
  const sweepPoints = (only ?? []).flatMap((name): Workload[] => {
    const p = parsePointName(name);
    return p === undefined ? [] : [sweepPointWorkload(p)];
  });
  for (const w of [...normalizationWorkloads().filter((x) => only === undefined || only.includes(x.name)), ...sweepPoints]) {
    const terms = process.argv[3]?.split(',');
    const chosen = variants().filter((v) => v.name === 'heuristic' || terms === undefined || terms.some((t) => v.name.includes(t)));
    rows.push(...variantRows(device, flusher, rng, w, chosen.map((v) => ({
      name: v.name,
      registry: new SchedulerRegistry([new InnerPersistentScheduler(v.overrides)]),
      dumps: ['launch_param'],
      describe: (launchText: string) => ` (${launchText.replace(/\s+/g, ' ').trim().slice(0, 80)})`,
    })), { rtol: 1e-5, step: () => 997, errorChars: 120 }));
  }
  flusher.dispose();
  console.log('| workload | variant | median | GB/s | % of same-size copy | output |\n|---|---|---:|---:|---:|---|');
  console.log(rows.join('\n'));
  device.dispose();
}

main();
