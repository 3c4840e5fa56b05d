// The measurement loop the schedule-variant experiments share (normalization-variants.ts,
// inner-outer-variants.ts): for one workload, a device-to-device copy of the same bytes (the
// floor), then each variant's whole fusion — first one poisoned run whose outputs are compared
// with the first variant's (the heuristic's) on sampled elements, then the median of 30 runs as
// `tsfuser bench` times them (L2 flushed, CUDA events, no poisoning inside the timed region) —
// one markdown row each: | workload | variant (launch) | median | GB/s | % of copy | output |.
//
// Invariant: the first variant is the reference of the output column; a variant that throws is a
// row with its error, never an abort of the table.

import type { DeviceContext } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import type { SchedulerRegistry } from '@tsfuser/scheduler';
import { randomHost, toDeviceInput, type Random } from '../src/bench/device-inputs.js';
import { timeDevice, type L2Flusher } from '../src/bench/timing.js';
import type { Workload } from '../src/bench/workloads.js';

/** One schedule to time: the registry that makes it, and what its dumps say of its launch. */
export interface TimedVariant {
  name: string;
  registry: SchedulerRegistry;
  /** Dumps captured on the checked run (launch_param, scheduler_params, …). */
  dumps: readonly string[];
  /** The launch description appended to the name, from the captured launch and other dump text. */
  describe: (launchText: string, otherText: string) => string;
}

/** How a variant's outputs are compared with the first's: Float within `rtol`, every `step(n)`-th of n elements. */
export interface OutputComparison {
  rtol: number;
  step: (elements: number) => number;
  /** Characters of an error message kept in its row. */
  errorChars: number;
}

/** Sampled comparison of two outputs: 16-bit outputs within 2 units, Float within `rtol`. */
export function closeOutputs(a: ArrayLike<number>, b: ArrayLike<number>, sixteenBit: boolean, compare: OutputComparison): boolean {
  if (a.length !== b.length) return false;
  const rtol = compare.rtol;
  for (let k = 0; k < a.length; k += Math.max(1, compare.step(a.length))) {
    const x = a[k] as number;
    const y = b[k] as number;
    if (sixteenBit ? Math.abs(x - y) > 2 : !(Math.abs(x - y) <= rtol * Math.max(1, Math.abs(y)) || (Number.isNaN(x) && Number.isNaN(y)))) return false;
  }
  return true;
}

/** The rows of `w` under every variant (the copy floor first). */
export function variantRows(
  device: DeviceContext,
  flusher: L2Flusher,
  rng: Random,
  w: Workload,
  variants: readonly TimedVariant[],
  compare: OutputComparison,
): string[] {
  const rows: string[] = [];
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
  for (const v of variants) {
    try {
      const cache = new FusionExecutorCache(fusion, device, { registry: v.registry, poisonOutputs: true });
      let launchText = '';
      let otherText = '';
      cache.setDumps(new Set(v.dumps), (t) => {
        if (t.includes('Launch Parameters') && !t.includes('=====')) launchText += t;
        else otherText += t;
      });
      const outs = cache.runFusion(args);
      cache.setDumps(new Set());
      const data = outs.map((t) => t.toHost().data as ArrayLike<number>);
      const sixteen = outs.map((t) => t.dtype !== 'Float');
      for (const t of outs) t.dispose();
      let same = true;
      if (reference === undefined) reference = data;
      else same = data.every((d, i) => closeOutputs(d, reference?.[i] ?? [], sixteen[i] === true, compare));
      // Timed without poisoning (a memset of every output inside the timed region).
      const timed = new FusionExecutorCache(fusion, device, { registry: v.registry });
      const ms = timeDevice(device, flusher, () => {
        for (const t of timed.runFusion(args)) t.dispose();
      }, 30);
      rows.push(`| ${w.name} | ${v.name}${v.describe(launchText, otherText)} | ${(ms * 1000).toFixed(1)} µs | ${(w.bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${((copyMs / ms) * 100).toFixed(0)}% | ${same ? 'same' : 'DIFFERENT'} |`);
    } catch (error) {
      rows.push(`| ${w.name} | ${v.name} | error: ${(error as Error).message.split('\n')[0]?.slice(0, compare.errorChars) ?? ''} | | | |`);
    }
  }
  for (const i of inputs) i.owner.dispose();
  device.releasePool();
  return rows;
}
