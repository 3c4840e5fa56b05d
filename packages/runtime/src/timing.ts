// Device timing as METHOD.md and PyTorch's benchmarks do it: CUDA events around each run on the
// context's stream, the L2 flushed before every run by touching a buffer larger than L2, a few
// warm-up runs, the median of many. Shared by `tsfuser bench` and the GPU suites' timings.
//
// Two flushes: `read` (the default) sums the buffer, so L2 ends full of clean lines that hold
// nothing the timed work uses; `write` memsets it (triton's do_bench), so L2 ends full of dirty
// lines that the timed work's own traffic must write back first — measured on the H100 that
// costs ~7 µs per run whatever the kernel (a 77 MB copy: 31.2 µs after a write flush, 24.5 µs
// after a read flush; 1 GiB: 717 vs 709 µs), which is why small workloads looked far from the
// copy floor. tools/bench/pytorch_bench.py flushes the same way (--flush).

import { Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import type { DeviceContext } from './device.js';
import { FusionExecutorCache } from './executor/fusion-executor-cache.js';
import { Tensor } from './tensor.js';

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

