// The bench's measurements beyond plain device timing (which lives in @tsfuser/runtime's
// timing.ts: l2Flusher, timeDevice, median): copy bandwidth (the roofline floor) and host
// overhead, the wall time of back-to-back cached calls on tiny inputs (the GPU finishes each long
// before the host issues the next).

import { median, timeDevice, type DeviceContext, type L2Flusher } from '@tsfuser/device';

export { l2Flusher, median, timeDevice, type FlushMode, type L2Flusher } from '@tsfuser/device';

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
