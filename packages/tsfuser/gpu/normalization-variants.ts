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
import { FusionExecutorCache } from '@tsfuser/runtime';
import { InnerPersistentScheduler, SchedulerRegistry, type InnerPersistentOverrides } from '@tsfuser/scheduler';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { l2Flusher, timeDevice } from '../src/bench/timing.js';
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
function close(a: ArrayLike<number>, b: ArrayLike<number>, sixteenBit: boolean): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k += 997) {
    const x = a[k] as number;
    const y = b[k] as number;
    if (sixteenBit ? Math.abs(x - y) > 2 : !(Math.abs(x - y) <= 1e-5 * Math.max(1, Math.abs(y)) || (Number.isNaN(x) && Number.isNaN(y)))) return false;
  }
  return true;
}

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
    const terms = process.argv[3]?.split(',');
    const chosen = variants().filter((v) => v.name === 'heuristic' || terms === undefined || terms.some((t) => v.name.includes(t)));
    for (const v of chosen) {
      try {
        const registry = new SchedulerRegistry([new InnerPersistentScheduler(v.overrides)]);
        const cache = new FusionExecutorCache(fusion, device, { registry, poisonOutputs: true });
        let launchText = '';
        cache.setDumps(new Set(['launch_param']), (t) => {
          launchText += t;
        });
        const outs = cache.runFusion(args);
        cache.setDumps(new Set());
        const data = outs.map((t) => t.toHost().data as ArrayLike<number>);
        const sixteen = outs.map((t) => t.dtype !== 'Float');
        for (const t of outs) t.dispose();
        let same = true;
        if (reference === undefined) reference = data;
        else same = data.every((d, i) => close(d, reference?.[i] ?? [], sixteen[i] === true));
        // Timed without poisoning (a memset of every output inside the timed region).
        const timed = new FusionExecutorCache(fusion, device, { registry });
        const ms = timeDevice(device, flusher, () => {
          for (const t of timed.runFusion(args)) t.dispose();
        }, 30);
        const dims = ` (${launchText.replace(/\s+/g, ' ').trim().slice(0, 80)})`;
        rows.push(`| ${w.name} | ${v.name}${dims} | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${(copyMs / ms * 100).toFixed(0)}% | ${same ? 'same' : 'DIFFERENT'} |`);
      } catch (error) {
        rows.push(`| ${w.name} | ${v.name} | error: ${(error as Error).message.split('\n')[0]?.slice(0, 120) ?? ''} | | | |`);
      }
    }
    for (const i of inputs) i.owner.dispose();
    device.releasePool();
  }
  flusher.dispose();
  console.log('| workload | variant | median | GB/s | % of same-size copy | output |\n|---|---|---:|---:|---:|---|');
  console.log(rows.join('\n'));
  device.dispose();
}

main();
