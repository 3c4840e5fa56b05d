// Test helper: a DeviceContext stand-in with an H100's properties that allocates fake 256-byte
// aligned addresses, "compiles" by keeping the source, and records launches instead of running
// them — enough for FusionExecutorCache (the GPU path's segmentation, heuristics, lowering, CUDA
// and launch planning) to run on a machine without a GPU. Output values are not computed.
// Stream capture is modelled: between beginCapture and endCapture launches are recorded into
// the graph instead of run, frees are deferred to the graph (as DeviceContext does), and each
// graph launch runs the recorded launches again. Freed blocks are remembered (never handed out
// again by malloc) so DeviceContext.reclaim can take one back at its address, as the pool does.
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
  /** Graphs captured, launched and destroyed. */
  graphs: { captured: number; launched: number; destroyed: number };
  /** Device-to-device copies (pointer pairs), in order. */
  copies: { destination: bigint; source: bigint; bytes: number }[];
  /** Allocations not yet freed (frees deferred by a capture count as live until its graph is destroyed). */
  live: Set<bigint>;
}

/** An H100 as the driver reports it (DeviceProperties of @tsfuser/runtime); the null-addon device's too. */
export const H100 = {
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
  const graphs = { captured: 0, launched: 0, destroyed: 0 };
  const copies: FakeDevice['copies'] = [];
  const live = new Set<bigint>();
  /** Freed blocks (not deferred by a capture): what reclaim may take back. */
  const pooled = new Set<bigint>();
  let capture: { launches: RecordedLaunch[]; deferred: bigint[] } | null = null;
  const fake = {
    properties: H100,
    arch: 'sm_90',
    isDisposed: false,
    stream: 7n,
    malloc: (bytes: number | bigint): bigint => {
      const p = next;
      next += ((BigInt(bytes) + 255n) / 256n) * 256n + 256n;
      live.add(p);
      return p;
    },
    free: (pointer: bigint): void => {
      if (!live.has(pointer)) throw new Error(`fake device: free of 0x${pointer.toString(16)}, which is not live`);
      if (capture !== null) capture.deferred.push(pointer);
      else {
        live.delete(pointer);
        pooled.add(pointer);
      }
    },
    reclaim: (pointer: bigint): boolean => {
      if (!pooled.delete(pointer)) return false;
      live.add(pointer);
      return true;
    },
    copyHostToDevice: (): void => undefined,
    copyDeviceToDevice: (destination: bigint, source: bigint, bytes: number | bigint): void => {
      if (capture !== null) throw new Error('fake device: a synchronous copy while capturing invalidates the capture');
      copies.push({ destination, source, bytes: Number(bytes) });
    },
    get isCapturing(): boolean {
      return capture !== null;
    },
    beginCapture: (): void => {
      if (capture !== null) throw new Error('fake device: a capture is already in progress');
      capture = { launches: [], deferred: [] };
    },
    endCapture: () => {
      const made = capture;
      if (made === null) throw new Error('fake device: no capture in progress');
      capture = null;
      graphs.captured++;
      let destroyed = false;
      return {
        launches: 0,
        get isDestroyed(): boolean {
          return destroyed;
        },
        launch(): void {
          if (destroyed) throw new Error('fake graph: launched after destroy');
          graphs.launched++;
          this.launches++;
          launches.push(...made.launches);
        },
        destroy: (): void => {
          if (destroyed) return;
          destroyed = true;
          graphs.destroyed++;
          for (const p of made.deferred) live.delete(p);
        },
      };
    },
    abortCapture: (): void => {
      const made = capture;
      capture = null;
      for (const p of made?.deferred ?? []) live.delete(p);
    },
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
          (capture?.launches ?? launches).push({ kernel: name, grid: [...config.grid], block: [...config.block], sharedBytes: config.sharedBytes ?? 0 });
        },
      }),
    }),
  };
  return { device: fake as unknown as DeviceContext, launches, sources, events, graphs, copies, live };
}
