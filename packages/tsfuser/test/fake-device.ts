// Test helper: a DeviceContext stand-in with an H100's properties that allocates fake 256-byte
// aligned addresses, "compiles" by keeping the source, and records launches instead of running
// them — enough for FusionExecutorCache (the GPU path's segmentation, heuristics, lowering, CUDA
// and launch planning) to run on a machine without a GPU. Output values are not computed.
import type { DeviceContext } from '@tsfuser/device';

export interface RecordedLaunch {
  kernel: string;
  grid: readonly number[];
  block: readonly number[];
  sharedBytes: number;
}

/** Device time the fake charges per launch: an event recorded after the n-th launch reads n × this. */
export const FAKE_LAUNCH_MS = 0.25;

export interface FakeDevice {
  device: DeviceContext;
  launches: RecordedLaunch[];
  sources: Map<string, string>;
  /** CUDA events created and destroyed (a profile frees every event it made). */
  events: { created: number; disposed: number };
}

/** An H100 as the driver reports it (DeviceProperties of @tsfuser/runtime). */
const H100 = {
  ordinal: 0,
  name: 'NVIDIA H100 80GB HBM3',
  computeCapability: { major: 9, minor: 0 },
  arch: 'sm_90',
  smCount: 132,
  totalMemoryBytes: 80 * 1024 ** 3,
  l2CacheBytes: 50 * 1024 * 1024,
  warpSize: 32,
  maxThreadsPerBlock: 1024,
  maxThreadsPerMultiprocessor: 2048,
  maxRegistersPerBlock: 65536,
  maxSharedMemoryPerBlockOptin: 232448,
  maxSharedMemoryPerMultiprocessor: 233472,
};

/**
 * `blocksPerSm`: what the fake driver's occupancy query answers for every kernel (default 64:
 * every grid fits); a small value makes a grid-synchronizing kernel be planned again.
 */
export function fakeDevice(options: { blocksPerSm?: number } = {}): FakeDevice {
  const launches: RecordedLaunch[] = [];
  const sources = new Map<string, string>();
  let next = 1n << 32n;
  const events = { created: 0, disposed: 0 };
  const fake = {
    properties: H100,
    arch: 'sm_90',
    isDisposed: false,
    malloc: (bytes: number | bigint): bigint => {
      const p = next;
      next += ((BigInt(bytes) + 255n) / 256n) * 256n + 256n;
      return p;
    },
    free: (): void => undefined,
    copyHostToDevice: (): void => undefined,
    copyDeviceToDevice: (): void => undefined,
    copyDeviceToHost: (): void => undefined,
    memsetD8: (): void => undefined,
    forkSide: (): bigint => 1n,
    // Events read a clock that advances FAKE_LAUNCH_MS per launch (and record their stream).
    createEvent: () => {
      let at = -1;
      const event = {
        stream: -1n,
        record: (stream: bigint = 0n): void => {
          at = launches.length * FAKE_LAUNCH_MS;
          event.stream = stream;
        },
        synchronize: (): void => undefined,
        elapsedSince: (start: { readAt: () => number }): number => {
          if (at < 0 || start.readAt() < 0) throw new Error('fake event: elapsedSince on an event that was not recorded');
          return at - start.readAt();
        },
        readAt: (): number => at,
        dispose: (): void => void events.disposed++,
      };
      events.created++;
      return event;
    },
    joinSide: (): void => undefined,
    compile: (source: string, options: { name?: string }) => {
      sources.set(options.name ?? 'kernel.cu', source);
      return { cubin: new TextEncoder().encode(source), log: '', arch: 'sm_90', options: [], compileMs: 0, source: 'compiled' as const };
    },
    loadModule: () => ({
      unload: (): void => undefined,
      getFunction: (name: string) => ({
        setMaxDynamicSharedMemory: (): void => undefined,
        // Every block of a grid-synchronizing kernel fits (the GPU may say fewer: then it reschedules).
        maxActiveBlocksPerSm: (): number => options.blocksPerSm ?? 64,
        launch: (config: { grid: readonly number[]; block: readonly number[]; sharedBytes?: number }): void => {
          launches.push({ kernel: name, grid: [...config.grid], block: [...config.block], sharedBytes: config.sharedBytes ?? 0 });
        },
      }),
    }),
  };
  return { device: fake as unknown as DeviceContext, launches, sources, events };
}
