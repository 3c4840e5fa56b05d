// Shared by the codegen GPU suites: timing one fusion the way `tsfuser bench` does (L2 flushed
// by a read before each run, CUDA events, median of 20; bandwidth of input + output bytes) and
// the pass/fail table by category (the segments' schedulers, or the schedule shape) that each
// suite prints before its `N passed, M failed` line.

import { dataTypeSize, type Fusion, type HostTensor } from '@tsfuser/fusion-ir';
import { Tensor, timeDevice, type DeviceContext, type L2Flusher } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import type { SchedulerRegistry } from '@tsfuser/scheduler';

export interface FusionTiming {
  ms: number;
  gbps: number;
  kernels: number;
}

/** Median device milliseconds of the whole fusion (every segment) on device copies of `hosts`. */
export function timeFusion(device: DeviceContext, flusher: L2Flusher, fusion: Fusion, hosts: readonly HostTensor[], registry?: SchedulerRegistry): FusionTiming {
  const inputs = hosts.map((h) => Tensor.fromHost(h).toDevice(device));
  const cache = new FusionExecutorCache(fusion, device, registry === undefined ? {} : { registry });
  const warm = cache.runFusion(inputs);
  const bytesOf = (t: Tensor): number => t.sizes.reduce((x, y) => x * y, 1) * dataTypeSize(t.dtype);
  const bytes = inputs.reduce((a, t) => a + bytesOf(t), 0) + warm.reduce((a, t) => a + bytesOf(t), 0);
  for (const t of warm) t.dispose();
  const ms = timeDevice(device, flusher, () => {
    for (const t of cache.runFusion(inputs)) t.dispose();
  }, 20);
  for (const t of inputs) t.dispose();
  // Hand the big inputs back now: pooled, they would be evicted inside a later timed run.
  device.releasePool();
  return { ms, gbps: bytes / (ms * 1e6), kernels: cache.stats.kernels };
}

/** Prints `header` then one `category passed failed` row per category, sorted. */
export function printCategoryTable(results: readonly { category?: string; ok: boolean }[], header: string, width: number): void {
  const table = new Map<string, { passed: number; failed: number }>();
  for (const r of results) {
    const key = r.category ?? '?';
    const row = table.get(key) ?? { passed: 0, failed: 0 };
    if (r.ok) row.passed += 1;
    else row.failed += 1;
    table.set(key, row);
  }
  console.log(`${header.padEnd(width)}passed  failed`);
  for (const [k, v] of [...table].sort()) console.log(`${k.slice(0, width - 2).padEnd(width)}${String(v.passed).padStart(6)}  ${String(v.failed).padStart(6)}`);
}
