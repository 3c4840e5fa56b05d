// Loaded modules, their functions, launch configuration, and CUDA events for timing.

import type { Handle, NativeAddon } from './native/addon.js';

/** CUfunction_attribute values used here (cuda.h). */
export const FunctionAttribute = {
  maxThreadsPerBlock: 0,
  sharedSizeBytes: 1,
  constSizeBytes: 2,
  localSizeBytes: 3,
  numRegs: 4,
  ptxVersion: 5,
  binaryVersion: 6,
  maxDynamicSharedSizeBytes: 8,
} as const;
export type FunctionAttributeName = keyof typeof FunctionAttribute;

export type Dim3 = readonly [number, number, number];

export interface LaunchConfig {
  grid: Dim3 | number;
  block: Dim3 | number;
  /** Dynamic shared memory in bytes. */
  sharedBytes?: number;
  /** Stream handle; default the context's stream. */
  stream?: bigint;
}

export function toDim3(value: Dim3 | number): Dim3 {
  return typeof value === 'number' ? [value, 1, 1] : value;
}

type PreparingAddon = NativeAddon & Required<Pick<NativeAddon, 'prepareLaunch' | 'launchPrepared' | 'releaseLaunch'>>;

/** Whether the addon has the prepared-launch entry points (addons built before them do not). */
function hasPreparedLaunches(addon: NativeAddon): addon is PreparingAddon {
  return addon.prepareLaunch !== undefined && addon.launchPrepared !== undefined && addon.releaseLaunch !== undefined;
}

/**
 * A launch of one function with a fixed configuration and argument size, recorded by the addon
 * (prepareLaunch): each launch converts two arguments instead of ten and allocates nothing in
 * the addon — a cached plan's kernel step launches through one (issue 38's host path).
 */
export class PreparedLaunch {
  private released = false;

  constructor(
    private readonly addon: PreparingAddon,
    private readonly fn: KernelFunction,
    readonly id: number,
    /** Bytes every launch's argument buffer has. */
    readonly size: number,
  ) {}

  /** Enqueues the kernel with `argumentBuffer`'s current bytes (the driver copies them). Does not wait. */
  launch(argumentBuffer: Uint8Array): void {
    if (this.released) throw new Error(`PreparedLaunch of ${this.fn.name}: launched after release`);
    this.fn.module.assertLoaded();
    this.addon.launchPrepared(this.id, argumentBuffer);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.addon.releaseLaunch(this.id);
  }
}

export class KernelFunction {
  /** Launches prepared for this function (released when its module is unloaded). */
  private readonly prepared: PreparedLaunch[] = [];

  constructor(
    private readonly addon: NativeAddon,
    readonly module: KernelModule,
    readonly name: string,
    readonly handle: Handle,
    private readonly defaultStream: bigint,
  ) {}

  attribute(name: FunctionAttributeName): number {
    return this.addon.funcGetAttribute(this.handle, FunctionAttribute[name]);
  }

  /** Allows launches with more than 48 KiB of dynamic shared memory (up to the device's opt-in limit). */
  setMaxDynamicSharedMemory(bytes: number): void {
    this.addon.funcSetAttribute(this.handle, FunctionAttribute.maxDynamicSharedSizeBytes, bytes);
  }

  /** The kernel's parameter layout as the driver reports it, or null on drivers before CUDA 12.4. */
  parameterInfo(): { offset: number; size: number }[] | null {
    return this.addon.funcParamInfo(this.handle);
  }

  /** Blocks of this function one SM holds at once for `blockSize` threads, or null when the driver cannot tell. */
  maxActiveBlocksPerSm(blockSize: number, dynamicSharedBytes = 0): number | null {
    return this.addon.occupancy(this.handle, blockSize, dynamicSharedBytes);
  }

  /**
   * Records a launch of this function with `config` and arguments of `argumentBuffer`'s size,
   * to be launched many times with the buffer's changing bytes (PreparedLaunch.launch); null
   * when the addon predates prepared launches (then launch() is the way).
   */
  prepare(config: LaunchConfig, argumentBuffer: Uint8Array): PreparedLaunch | null {
    this.module.assertLoaded();
    const { addon } = this;
    if (!hasPreparedLaunches(addon)) return null;
    const grid = toDim3(config.grid);
    const block = toDim3(config.block);
    const id = addon.prepareLaunch(this.handle, grid[0], grid[1], grid[2], block[0], block[1], block[2], config.sharedBytes ?? 0, config.stream ?? this.defaultStream, argumentBuffer);
    const launch = new PreparedLaunch(addon, this, id, argumentBuffer.byteLength);
    this.prepared.push(launch);
    return launch;
  }

  /** Releases every launch prepared for this function (its module is being unloaded). */
  releasePrepared(): void {
    for (const p of this.prepared) p.release();
    this.prepared.length = 0;
  }

  /** Enqueues the kernel; `argumentBuffer` comes from packArguments. Does not wait. */
  launch(config: LaunchConfig, argumentBuffer: Uint8Array): void {
    this.module.assertLoaded();
    // Indexed reads, not destructuring: this runs on every launch of a cached call.
    const grid = toDim3(config.grid);
    const block = toDim3(config.block);
    this.addon.launchKernel(
      this.handle,
      grid[0],
      grid[1],
      grid[2],
      block[0],
      block[1],
      block[2],
      config.sharedBytes ?? 0,
      config.stream ?? this.defaultStream,
      argumentBuffer,
    );
  }
}

export class KernelModule {
  private loaded = true;
  private readonly functions = new Map<string, KernelFunction>();

  constructor(
    private readonly addon: NativeAddon,
    readonly handle: Handle,
    private readonly defaultStream: bigint,
  ) {}

  getFunction(name: string): KernelFunction {
    this.assertLoaded();
    let fn = this.functions.get(name);
    if (fn === undefined) {
      fn = new KernelFunction(this.addon, this, name, this.addon.moduleGetFunction(this.handle, name), this.defaultStream);
      this.functions.set(name, fn);
    }
    return fn;
  }

  assertLoaded(): void {
    if (!this.loaded) throw new Error('KernelModule: used after unload()');
  }

  unload(): void {
    if (!this.loaded) return;
    this.loaded = false;
    for (const fn of this.functions.values()) fn.releasePrepared();
    this.functions.clear();
    this.addon.moduleUnload(this.handle);
  }
}

export class CudaEvent {
  private destroyed = false;

  constructor(
    private readonly addon: NativeAddon,
    readonly handle: Handle,
    private readonly defaultStream: bigint,
  ) {}

  record(stream: bigint = this.defaultStream): void {
    this.addon.eventRecord(this.handle, stream);
  }

  synchronize(): void {
    this.addon.eventSynchronize(this.handle);
  }

  /** Milliseconds between `start` and this event (both recorded; this one is waited for). */
  elapsedSince(start: CudaEvent): number {
    this.synchronize();
    return this.addon.eventElapsedTime(start.handle, this.handle);
  }

  dispose(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.addon.eventDestroy(this.handle);
  }
}
