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
//
// Device layer only: flushing compiles no Fusion (the read flush is one hand-written kernel).

import type { DeviceContext } from './device.js';
import { packArguments, parameterLayout } from './kernel-arguments.js';

export type FlushMode = 'read' | 'write';

export interface L2Flusher {
  flush(): void;
  dispose(): void;
}

/**
 * The read flush: a plain kernel (no Fusion, no codegen) that loads every 16-byte word of the
 * buffer with a grid-stride loop and sums it; the sum is stored only when it equals a value the
 * zeroed buffer never sums to, so the loads stay and nothing is written.
 */
export const L2_READ_KERNEL_NAME = 'tsfuser_l2_read';
export const L2_READ_KERNEL_SOURCE = `extern "C" __global__ void ${L2_READ_KERNEL_NAME}(const float4* __restrict__ data, long long n, float* sink) {
  float acc = 0.0f;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float4 v = data[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1.0e-30f) *sink = acc;
}
`;

const READ_THREADS = 256;
const READ_BLOCKS_PER_SM = 4;

export function l2Flusher(device: DeviceContext, mode: FlushMode = 'read'): L2Flusher {
  // 512 MiB as tools/bench/pytorch_bench.py: touching it takes long enough (~170 µs) that the
  // host work of the timed call is enqueued before the GPU reaches it.
  const bytes = Math.max(2 * device.properties.l2CacheBytes, 512 * 1024 * 1024);
  const buffer = device.malloc(bytes);
  if (mode === 'write') {
    return {
      flush: () => device.memsetD8(buffer, 0, bytes),
      dispose: () => device.free(buffer),
    };
  }
  device.memsetD8(buffer, 0, bytes);
  const sink = device.malloc(16);
  const module = device.loadModule(device.compile(L2_READ_KERNEL_SOURCE, { name: `${L2_READ_KERNEL_NAME}.cu` }).cubin);
  const reader = module.getFunction(L2_READ_KERNEL_NAME);
  const layout = parameterLayout([{ kind: 'pointer' }, { kind: 'scalar', dtype: 'Int' }, { kind: 'pointer' }]);
  const args = packArguments(layout, [buffer, BigInt(Math.floor(bytes / 16)), sink]);
  const grid = device.properties.smCount * READ_BLOCKS_PER_SM;
  return {
    flush: () => reader.launch({ grid, block: READ_THREADS }, args),
    dispose: () => {
      module.unload();
      device.free(sink);
      device.free(buffer);
    },
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

