// DeviceContext's stream capture (device.ts, cuda-graph.ts) over a recording stand-in of the
// native addon (no GPU): while capturing, frees are deferred — nothing goes back to the pool or
// the driver — and the CudaGraph returns those blocks to the pool only when destroyed, after a
// stream synchronize; a failed instantiation destroys the captured graph and frees the blocks;
// an aborted capture frees them too; a second beginCapture is refused.
import { describe, expect, it } from 'vitest';
import { DeviceContext, Tensor, type DeviceProperties, type NativeAddon } from '../src/index.js';

interface Recorded {
  calls: string[];
  freed: bigint[];
}

function recordingAddon(options: { failInstantiate?: boolean; failEndCapture?: boolean } = {}): { addon: NativeAddon; log: Recorded } {
  const log: Recorded = { calls: [], freed: [] };
  let next = 0x1000n;
  const addon = {
    memAlloc: (bytes: number | bigint): bigint => {
      const p = next;
      next += BigInt(bytes);
      log.calls.push('memAlloc');
      return p;
    },
    memFree: (p: bigint): void => void log.freed.push(p),
    streamSynchronize: (): void => void log.calls.push('streamSynchronize'),
    streamBeginCapture: (stream: bigint, mode: number): void => void log.calls.push(`begin ${stream} mode ${mode}`),
    streamEndCapture: (): bigint => {
      log.calls.push('end');
      if (options.failEndCapture === true) throw new Error('CUDA_ERROR_STREAM_CAPTURE_INVALIDATED');
      return 0x77n;
    },
    graphInstantiate: (graph: bigint): bigint => {
      log.calls.push(`instantiate ${graph}`);
      if (options.failInstantiate === true) throw new Error('instantiate failed');
      return 0x88n;
    },
    graphLaunch: (exec: bigint, stream: bigint): void => void log.calls.push(`launch ${exec} on ${stream}`),
    graphExecDestroy: (exec: bigint): void => void log.calls.push(`execDestroy ${exec}`),
    graphDestroy: (graph: bigint): void => void log.calls.push(`graphDestroy ${graph}`),
  };
  return { addon: addon as unknown as NativeAddon, log };
}

/** A DeviceContext over the stand-in (its constructor is private: DeviceContext.create needs a GPU). */
function context(addon: NativeAddon): DeviceContext {
  const Ctor = DeviceContext as unknown as new (addon: NativeAddon, properties: DeviceProperties, device: number, context: bigint, stream: bigint) => DeviceContext;
  return new Ctor(addon, {} as DeviceProperties, 0, 1n, 5n);
}

describe('DeviceContext.reclaim / Tensor.reclaimDeviceOf (a graph replayed at its captured output addresses)', () => {
  it('takes a freed block back from the pool at its address; a live or unknown block is refused', () => {
    const { addon, log } = recordingAddon();
    const ctx = context(addon);
    const layout = Tensor.deviceLayout('Float', [8, 8]);
    const t = Tensor.emptyDeviceOf(ctx, layout);
    const pointer = t.dataPtr;
    expect(Tensor.reclaimDeviceOf(ctx, layout, pointer)).toBeNull(); // live: not pooled
    t.dispose();
    const pooled = ctx.pooledByteCount;
    expect(pooled).toBeGreaterThan(0);
    const again = Tensor.reclaimDeviceOf(ctx, layout, pointer);
    expect(again?.dataPtr).toBe(pointer);
    expect(again?.sizes).toEqual([8, 8]);
    expect(ctx.pooledByteCount).toBe(0);
    expect(ctx.liveAllocationCount).toBe(1);
    expect(ctx.reclaim(pointer, layout.bytes)).toBe(false); // live again
    expect(ctx.reclaim(0xdead00n, layout.bytes)).toBe(false);
    again?.dispose();
    expect(ctx.pooledByteCount).toBe(pooled);
    expect(log.calls.filter((c) => c === 'memAlloc')).toHaveLength(1);
  });
});

describe('DeviceContext stream capture', () => {
  it('defers every free while capturing; the graph frees those blocks when destroyed, after a synchronize', () => {
    const { addon, log } = recordingAddon();
    const ctx = context(addon);
    const before = ctx.malloc(1024);
    ctx.beginCapture();
    expect(ctx.isCapturing).toBe(true);
    const during = ctx.malloc(4096);
    ctx.free(before);
    ctx.free(during);
    expect(ctx.pooledByteCount).toBe(0);
    expect(ctx.liveAllocationCount).toBe(2);
    const graph = ctx.endCapture();
    expect(ctx.isCapturing).toBe(false);
    expect(graph.ownedBlocks).toEqual([before, during]);
    graph.launch();
    graph.launch();
    expect(graph.launches).toBe(2);
    expect(log.calls.filter((c) => c.startsWith('launch'))).toEqual(['launch 136 on 5', 'launch 136 on 5']);
    expect(ctx.liveAllocationCount).toBe(2);
    graph.destroy();
    const tail = log.calls.slice(-3);
    expect(tail).toEqual(['streamSynchronize', 'execDestroy 136', 'graphDestroy 119']);
    expect(ctx.liveAllocationCount).toBe(0);
    expect(ctx.pooledByteCount).toBeGreaterThan(0);
    expect(() => graph.launch()).toThrow(/after destroy/);
    graph.destroy(); // idempotent
    expect(log.calls.filter((c) => c.startsWith('graphDestroy'))).toHaveLength(1);
    // Outside a capture, frees go to the pool at once again.
    const after = ctx.malloc(1024);
    ctx.free(after);
    expect(ctx.liveAllocationCount).toBe(0);
    expect(log.calls[0]).toBe('memAlloc');
    expect(log.calls).toContain('begin 5 mode 2');
  });

  it('a failed instantiation destroys the captured graph, frees the deferred blocks and rethrows', () => {
    const { addon, log } = recordingAddon({ failInstantiate: true });
    const ctx = context(addon);
    ctx.beginCapture();
    ctx.free(ctx.malloc(512));
    expect(() => ctx.endCapture()).toThrow(/instantiate failed/);
    expect(log.calls).toContain('graphDestroy 119');
    expect(ctx.isCapturing).toBe(false);
    expect(ctx.liveAllocationCount).toBe(0);
  });

  it('abortCapture ends an invalidated capture and frees the deferred blocks; nested captures are refused', () => {
    const { addon } = recordingAddon({ failEndCapture: true });
    const ctx = context(addon);
    ctx.beginCapture();
    expect(() => ctx.beginCapture()).toThrow(/already in progress/);
    ctx.free(ctx.malloc(512));
    expect(ctx.liveAllocationCount).toBe(1);
    ctx.abortCapture();
    expect(ctx.isCapturing).toBe(false);
    expect(ctx.liveAllocationCount).toBe(0);
    expect(() => ctx.endCapture()).toThrow(/no capture in progress/);
  });
});
