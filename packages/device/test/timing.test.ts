// Device timing's L2 flush: the read flush is one plain kernel compiled by the device layer (no
// Fusion), launched over a buffer larger than L2 with its element count; the write flush memsets.
import { describe, expect, it } from 'vitest';
import { L2_READ_KERNEL_NAME, L2_READ_KERNEL_SOURCE, l2Flusher, median, type DeviceContext } from '../src/index.js';

interface Launch {
  name: string;
  grid: unknown;
  block: unknown;
  args: Uint8Array;
}

function recordingDevice(): { device: DeviceContext; launches: Launch[]; memsets: number[]; sources: string[]; freed: bigint[] } {
  const launches: Launch[] = [];
  const memsets: number[] = [];
  const sources: string[] = [];
  const freed: bigint[] = [];
  let next = 0x10000n;
  const fake = {
    properties: { l2CacheBytes: 50 * 1024 * 1024, smCount: 132 },
    malloc: (bytes: number): bigint => {
      const p = next;
      next += BigInt(bytes) + 256n;
      return p;
    },
    free: (p: bigint): void => void freed.push(p),
    memsetD8: (_p: bigint, _v: number, bytes: number): void => void memsets.push(bytes),
    compile: (source: string) => {
      sources.push(source);
      return { cubin: new Uint8Array(1) };
    },
    loadModule: () => ({
      getFunction: (name: string) => ({
        launch: (config: { grid: unknown; block: unknown }, args: Uint8Array): void => void launches.push({ name, grid: config.grid, block: config.block, args }),
      }),
      unload: (): void => undefined,
    }),
  };
  return { device: fake as unknown as DeviceContext, launches, memsets, sources, freed };
}

describe('l2Flusher', () => {
  it('read: launches the plain read kernel over the whole buffer', () => {
    const { device, launches, memsets, sources, freed } = recordingDevice();
    const flusher = l2Flusher(device, 'read');
    expect(sources).toEqual([L2_READ_KERNEL_SOURCE]);
    expect(memsets).toEqual([512 * 1024 * 1024]);
    flusher.flush();
    flusher.flush();
    expect(launches).toHaveLength(2);
    const launch = launches[0] as Launch;
    expect(launch.name).toBe(L2_READ_KERNEL_NAME);
    expect(launch.grid).toBe(132 * 4);
    const view = new DataView(launch.args.buffer);
    expect(view.getBigUint64(0, true)).toBe(0x10000n);
    expect(view.getBigInt64(8, true)).toBe(BigInt((512 * 1024 * 1024) / 16));
    flusher.dispose();
    expect(freed).toHaveLength(2);
  });

  it('write: memsets the buffer, compiles nothing', () => {
    const { device, launches, memsets, sources } = recordingDevice();
    const flusher = l2Flusher(device, 'write');
    flusher.flush();
    expect(sources).toEqual([]);
    expect(launches).toEqual([]);
    expect(memsets).toEqual([512 * 1024 * 1024]);
  });

  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
