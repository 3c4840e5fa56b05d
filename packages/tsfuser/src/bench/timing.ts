// Device timing as METHOD.md and PyTorch's benchmarks do it: CUDA events around each run on the
// executor's stream, the L2 flushed before every run by touching a buffer larger than L2, a few
// warm-up runs, the median of many. Host overhead is wall time of back-to-back cached calls on
// tiny inputs (the GPU finishes each long before the host issues the next).
//
// Two flushes: `read` (the default) sums the buffer, so L2 ends full of clean lines that hold
// nothing the timed work uses; `write` memsets it (triton's do_bench), so L2 ends full of dirty
// lines that the timed work's own traffic must write back first — measured on the H100 that
// costs ~7 µs per run whatever the kernel (a 77 MB copy: 31.2 µs after a write flush, 24.5 µs
// after a read flush; 1 GiB: 717 vs 709 µs), which is why small workloads looked far from the
// copy floor. tools/bench/pytorch_bench.py flushes the same way (--flush).

import { Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import { FusionExecutorCache, Tensor, type DeviceContext } from '@tsfuser/runtime';

export type FlushMode = 'read' | 'write';

export interface L2Flusher {
  flush(): void;
  dispose(): void;
}

export function l2Flusher(device: DeviceContext, mode: FlushMode = 'read'): L2Flusher {
  // 512 MiB as tools/bench/pytorch_bench.py: touching it takes long enough (~170 µs) that the
  // host work of the timed call is enqueued before the GPU reaches it.
  const bytes = Math.max(2 * device.properties.l2CacheBytes, 512 * 1024 * 1024);
  if (mode === 'write') {
    const buffer = device.malloc(bytes);
    return {
      flush: () => device.memsetD8(buffer, 0, bytes),
      dispose: () => device.free(buffer),
    };
  }
  const buffer = Tensor.emptyDevice(device, 'Float', [Math.ceil(bytes / 4)]);
  device.memsetD8(buffer.dataPtr, 0, buffer.sizes[0] as number * 4);
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addOutput(sum(x, [0]));
  const reader = new FusionExecutorCache(f, device);
  return {
    flush: () => {
      for (const t of reader.runFusion([buffer])) t.dispose();
    },
    dispose: () => buffer.dispose(),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median device milliseconds of `work` over `iters` flushed runs after `warmup` runs. */
export function timeDevice(device: DeviceContext, flusher: L2Flusher, work: () => void, iters: number, warmup = 3): number {
  for (let i = 0; i < warmup; i += 1) work();
  device.synchronize();
  const times: number[] = [];
  for (let i = 0; i < iters; i += 1) {
    flusher.flush();
    times.push(device.time(work));
  }
  return median(times);
}

/**
 * Device-to-device copy bandwidth (GB/s, read + write) of `bytes` (default 1 GiB: the roofline
 * floor). A copy moving a workload's own traffic shows what its size can reach at all (launch
 * and ramp-up weigh on small transfers).
 */
export function copyBandwidth(device: DeviceContext, flusher: L2Flusher, iters: number, bytes = 1024 * 1024 * 1024): number {
  const src = device.malloc(bytes);
  const dst = device.malloc(bytes);
  try {
    const ms = timeDevice(device, flusher, () => device.copyDeviceToDevice(dst, src, bytes), iters, 2);
    return (2 * bytes) / (ms * 1e-3) / 1e9;
  } finally {
    device.free(src);
    device.free(dst);
    // Hand the two big buffers back to the driver now: pooled, they would be evicted (a
    // synchronous cuMemFree) inside some later timed run.
    device.releasePool();
  }
}

/** Median wall microseconds per call of `work` in batches (synchronizing between batches). */
export async function hostMicroseconds(device: DeviceContext, work: () => Promise<void> | void, calls: number, batches = 7): Promise<number> {
  for (let i = 0; i < 100; i += 1) await work();
  device.synchronize();
  const perCall: number[] = [];
  for (let b = 0; b < batches; b += 1) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i += 1) await work();
    device.synchronize();
    perCall.push(((performance.now() - t0) * 1000) / calls);
  }
  return median(perCall);
}
