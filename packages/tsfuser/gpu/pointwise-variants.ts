// Tuning experiment (GPU): times the bench workloads under several pointwise heuristic choices
// (break point, block width, unroll) with the same method as `tsfuser bench`, checking every
// variant's output against the default kernel's. Prints one table.
//
//   bash gpu-bundle/run.sh tsfuser-pointwise-variants

import { DeviceContext, Tensor, isAvailable } from '@tsfuser/device';
import { FusionExecutor, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { CACHE_VARIANTS, patchCacheHints as patch } from './cache-hint-variants.js';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { l2Flusher, timeDevice } from '../src/bench/timing.js';
import { benchWorkloads } from '../src/bench/workloads.js';

const VARIANTS: { name: string; overrides: PointwiseOverrides }[] = [
  { name: 'heuristic', overrides: {} },
  { name: 'heuristic, every vector load evict-last in L1 + L2', overrides: { evictLastLoads: 'all' } },
  { name: 'heuristic, cached inputs evict-last', overrides: { evictLastLoads: 'cached' } },
  { name: 'heuristic, plain loads', overrides: { evictLastLoads: 'none' } },
];
for (const bdimx of [32, 64, 128]) for (const unroll of [1, 2, 4]) VARIANTS.push({ name: `2D bdimx=${bdimx} unroll=${unroll}`, overrides: { bdimx, unroll } });
for (const bdimx of [128, 256, 512]) for (const unroll of [1, 2]) VARIANTS.push({ name: `1D bdimx=${bdimx} unroll=${unroll}`, overrides: { breakPoint: 0, bdimx, unroll } });

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const rng = new Random(7);
  const rows: string[] = [];
  for (const w of benchWorkloads().filter((x) => x.name === 'readme_pointwise' || x.name === 'bn_add_relu')) {
    const fusion = w.build().fusionIr();
    const inputs = w.inputs.map((i) => {
      const strides = i.sizes.map((_, d) => i.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      return toDeviceInput(device, randomHost(i.dtype, i.sizes, strides, rng, i.positive === true), false);
    });
    const args = inputs.map((i) => i.tensor);
    let reference: Float32Array | undefined;
    for (const v of VARIANTS) {
      try {
        const vinfo = runtimeInfoFor(fusion, args, schedulerDevice(device.properties));
        const ve = FusionExecutor.compile(device, fusion, vinfo, { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
        const vout = Tensor.emptyDevice(device, 'Float', w.inputs[w.inputs.length > 2 ? 0 : 1]?.sizes ?? []);
        vout.poison();
        const vvalues = [...args.map((a) => a.asKernelArgument()), vout.asKernelArgument()];
        ve.launch(vvalues);
        const data = vout.toHost().data as Float32Array;
        let same = true;
        if (reference === undefined) reference = data.slice();
        else for (let k = 0; k < data.length && same; k += 997) same = Object.is(data[k], reference[k]);
        const ms = timeDevice(device, flusher, () => ve.launch(vvalues), 50);
        const l = ve.kernel.launch;
        rows.push(`| ${w.name} | ${v.name} (grid ${l.grid.join('x')}, block ${l.block.join('x')}) | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${same ? 'same' : 'DIFFERENT'} |`);
        vout.dispose();
      } catch (error) {
        rows.push(`| ${w.name} | ${v.name} | error: ${(error as Error).message.split('\n')[0] ?? ''} | | |`);
      }
    }
    // The same default kernel launched alone (output preallocated): what the timed region
    // costs beyond the kernel is host work the GPU waited for.
    const info = runtimeInfoFor(fusion, args, schedulerDevice(device.properties));
    const exec = FusionExecutor.compile(device, fusion, info);
    const out = Tensor.emptyDevice(device, 'Float', w.inputs[w.inputs.length > 2 ? 0 : 1]?.sizes ?? []);
    const values = [...args.map((a) => a.asKernelArgument()), out.asKernelArgument()];
    const kms = timeDevice(device, flusher, () => exec.launch(values), 50);
    rows.push(`| ${w.name} | kernel alone (heuristic) | ${(kms * 1000).toFixed(1)} µs | ${(w.bytes / (kms * 1e-3) / 1e9).toFixed(0)} GB/s | |`);
    const kernel = compileFusion(fusion, info);
    let plain: Float32Array | undefined;
    for (const cv of CACHE_VARIANTS) {
      try {
        const e = FusionExecutor.fromKernel(device, { ...kernel, source: patch(kernel.source, cv.load, cv.store) });
        out.poison();
        e.launch(values);
        const data = out.toHost().data as Float32Array;
        let same = true;
        if (plain === undefined) plain = data.slice();
        else for (let k = 0; k < data.length && same; k += 997) same = Object.is(data[k], plain[k]);
        const ms = timeDevice(device, flusher, () => e.launch(values), 50);
        rows.push(`| ${w.name} | kernel alone, ${cv.name} | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${same ? 'same' : 'DIFFERENT'} |`);
      } catch (error) {
        rows.push(`| ${w.name} | kernel alone, ${cv.name} | error: ${(error as Error).message.split('\n').slice(0, 3).join(' ')} | | |`);
      }
    }
    out.dispose();
    for (const i of inputs) i.owner.dispose();
  }
  const t0 = performance.now();
  flusher.flush();
  const flushHostUs = (performance.now() - t0) * 1000;
  device.synchronize();
  rows.push(`| (L2 flush) | host time of one 512 MiB memsetD8 call | ${flushHostUs.toFixed(1)} µs | | |`);
  flusher.dispose();
  console.log('| workload | variant | median | GB/s | output |\n|---|---|---:|---:|---|');
  console.log(rows.join('\n'));
  device.dispose();
}

main();
