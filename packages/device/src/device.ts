// DeviceContext: one CUDA device's primary context and a stream, with memory, copies,
// compilation, module loading and timing. There is no global "current device" object: the
// caller creates a DeviceContext (lazily, when it first needs the GPU) and passes it along.

import { requireAddon, isAvailable } from './availability.js';
import { compileWithNvrtc, type NvrtcOptions, type NvrtcOutput } from './compile.js';
import type { CubinCache } from './cubin-cache.js';
import { RuntimeUnavailableError } from './errors.js';
import { BlockPool } from './block-pool.js';
import { CudaEvent, KernelModule } from './kernel.js';
import { CudaGraph } from './cuda-graph.js';
import type { NativeAddon } from './native/addon.js';

/** CUdevice_attribute values used here (cuda.h). */
const DeviceAttribute = {
  maxThreadsPerBlock: 1,
  warpSize: 10,
  maxRegistersPerBlock: 12,
  multiprocessorCount: 16,
  memoryClockRate: 36,
  globalMemoryBusWidth: 37,
  l2CacheSize: 38,
  maxThreadsPerMultiprocessor: 39,
  computeCapabilityMajor: 75,
  computeCapabilityMinor: 76,
  maxSharedMemoryPerMultiprocessor: 81,
  maxSharedMemoryPerBlockOptin: 97,
} as const;

export interface DeviceProperties {
  ordinal: number;
  name: string;
  computeCapability: { major: number; minor: number };
  /** NVRTC target for this device, e.g. "sm_90". */
  arch: string;
  smCount: number;
  totalMemoryBytes: number;
  l2CacheBytes: number;
  warpSize: number;
  maxThreadsPerBlock: number;
  maxThreadsPerMultiprocessor: number;
  maxRegistersPerBlock: number;
  maxSharedMemoryPerBlockOptin: number;
  maxSharedMemoryPerMultiprocessor: number;
  /** Peak memory clock in kHz and the memory bus width in bits (peak DRAM bandwidth); absent when the driver does not report them. */
  memoryClockKhz?: number;
  memoryBusWidthBits?: number;
}

export interface CopyRange {
  /** Byte offset into the host view; default 0. */
  hostByteOffset?: number;
  /** Bytes to copy; default the rest of the host view. */
  byteCount?: number;
}

export interface DeviceCompileOptions extends Omit<NvrtcOptions, 'arch'> {
  /** Overrides the device's own architecture. */
  arch?: string;
  /** Look the cubin up in (and store it into) this cache. */
  cache?: CubinCache;
}

export interface CachedCompile extends NvrtcOutput {
  /** Where the cubin came from: compiled now, or the cache's memory or disk layer. */
  source: 'compiled' | 'memory' | 'disk';
}

/** CU_STREAM_CAPTURE_MODE_RELAXED (cuda.h). */
const CAPTURE_MODE_RELAXED = 2;

/** CU_EVENT_DISABLE_TIMING: events used only for ordering are cheaper to record. */
const EVENT_DISABLE_TIMING = 2;

export class DeviceContext {
  private disposed = false;
  private readonly liveAllocations = new Map<bigint, number>();
  /** Freed blocks kept for reuse, by rounded byte size (a caching allocator, as PyTorch's). */
  private readonly pool = new BlockPool(2 * 1024 ** 3);

  /** Largest total of pooled (freed, not returned to the driver) bytes. */
  get poolLimitBytes(): number {
    return this.pool.limitBytes;
  }

  set poolLimitBytes(bytes: number) {
    this.pool.limitBytes = bytes;
    for (const p of this.pool.trim()) this.addon.memFree(p);
  }

  private constructor(
    private readonly addon: NativeAddon,
    readonly properties: DeviceProperties,
    private readonly device: number,
    /** CUcontext handle (the device's primary context). */
    readonly context: bigint,
    /** The stream this context launches on by default. */
    readonly stream: bigint,
  ) {}

  /** Retains device `ordinal`'s primary context, makes it current and creates a stream. */
  static create(ordinal = 0): DeviceContext {
    const availability = isAvailable();
    if (!availability.available) throw new RuntimeUnavailableError(availability.reason ?? 'unknown reason');
    const addon = requireAddon();
    const device = addon.deviceGet(ordinal);
    const properties = queryProperties(addon, ordinal, device);
    const context = addon.primaryContextRetain(device);
    const stream = addon.streamCreate(0);
    return new DeviceContext(addon, properties, device, context, stream);
  }

  get arch(): string {
    return this.properties.arch;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  nvrtcVersion(): { major: number; minor: number; path: string } {
    return this.addon.nvrtcVersion();
  }

  memoryInfo(): { free: number; total: number } {
    return this.addon.memGetInfo();
  }

  /**
   * Device memory of at least `bytes` (256-byte aligned). Blocks come from the pool of freed
   * blocks of the same rounded size when there is one: cuMemAlloc/cuMemFree synchronize and cost
   * microseconds, which would dominate a small fused kernel's launch.
   */
  malloc(bytes: number | bigint): bigint {
    this.assertLive();
    const rounded = roundAllocation(Number(bytes));
    const reused = this.pool.take(rounded);
    if (reused !== undefined) {
      this.liveAllocations.set(reused, rounded);
      return reused;
    }
    let pointer: bigint;
    try {
      pointer = this.addon.memAlloc(rounded);
    } catch (error) {
      if (this.pool.bytes === 0) throw error;
      this.releasePool();
      pointer = this.addon.memAlloc(rounded);
    }
    this.liveAllocations.set(pointer, rounded);
    return pointer;
  }

  /**
   * Makes the pooled block at `pointer` (allocated before for `bytes`, as malloc rounds them)
   * live again, when it is still in the pool: the exact addresses a CUDA graph was captured
   * with. False when it is not pooled (live elsewhere, or given back to the driver).
   */
  reclaim(pointer: bigint, bytes: number | bigint): boolean {
    this.assertLive();
    const rounded = roundAllocation(Number(bytes));
    if (!this.pool.takeBlock(pointer, rounded)) return false;
    this.liveAllocations.set(pointer, rounded);
    return true;
  }

  /** Returns a block to the pool (or to the driver when the pool is full); deferred while capturing. */
  free(pointer: bigint): void {
    if (this.disposed) return; // the context's release already reclaimed everything
    const bytes = this.liveAllocations.get(pointer);
    if (bytes === undefined) {
      throw new Error(`DeviceContext.free: 0x${pointer.toString(16)} is not a live allocation of this context`);
    }
    if (this.capture !== null) {
      // Captured work used the block: it stays live until the graph is destroyed (cuda-graph.ts).
      this.capture.deferred.push(pointer);
      return;
    }
    this.liveAllocations.delete(pointer);
    for (const p of this.pool.give(pointer, bytes)) this.addon.memFree(p);
  }

  /** Gives every pooled block back to the driver. */
  releasePool(): void {
    for (const pointer of this.pool.drain()) this.addon.memFree(pointer);
  }

  /** Bytes held in the pool of freed blocks. */
  get pooledByteCount(): number {
    return this.pool.bytes;
  }

  /** Number of allocations not yet freed (leak checks in tests). */
  get liveAllocationCount(): number {
    return this.liveAllocations.size;
  }

  copyHostToDevice(destination: bigint, source: ArrayBufferView, range: CopyRange = {}): void {
    this.assertLive();
    const offset = range.hostByteOffset ?? 0;
    this.addon.memcpyHtoD(destination, source, offset, range.byteCount ?? source.byteLength - offset);
  }

  copyDeviceToHost(destination: ArrayBufferView, source: bigint, range: CopyRange = {}): void {
    this.assertLive();
    const offset = range.hostByteOffset ?? 0;
    this.addon.memcpyDtoH(destination, offset, source, range.byteCount ?? destination.byteLength - offset);
  }

  copyDeviceToDevice(destination: bigint, source: bigint, byteCount: number | bigint): void {
    this.assertLive();
    this.addon.memcpyDtoD(destination, source, byteCount);
  }

  memsetD8(pointer: bigint, value: number, byteCount: number | bigint): void {
    this.assertLive();
    this.addon.memsetD8(pointer, value, byteCount);
  }

  /** Waits for all work on this context's stream. */
  synchronize(): void {
    this.addon.streamSynchronize(this.stream);
  }

  private side: { stream: bigint; fork: bigint; join: bigint } | undefined;

  /** The capture in progress (beginCapture … endCapture): the frees it deferred. */
  private capture: { deferred: bigint[] } | null = null;

  /** Whether this context's stream is being captured into a CUDA graph. */
  get isCapturing(): boolean {
    return this.capture !== null;
  }

  /**
   * Starts capturing this context's stream (cuStreamBeginCapture_v2) in relaxed mode, so the
   * caching allocator may still call cuMemAlloc while capturing (as PyTorch's does); work enqueued
   * until endCapture is recorded, not run. Frees are deferred until the graph is destroyed.
   */
  beginCapture(): void {
    this.assertLive();
    if (this.capture !== null) throw new Error('DeviceContext.beginCapture: a capture is already in progress');
    this.addon.streamBeginCapture(this.stream, CAPTURE_MODE_RELAXED);
    this.capture = { deferred: [] };
  }

  /** Ends the capture and instantiates the graph; on failure the deferred blocks are freed and the error rethrown. */
  endCapture(): CudaGraph {
    const capture = this.capture;
    if (capture === null) throw new Error('DeviceContext.endCapture: no capture in progress');
    this.capture = null;
    let graph: bigint | undefined;
    try {
      graph = this.addon.streamEndCapture(this.stream);
      const exec = this.addon.graphInstantiate(graph);
      return new CudaGraph(this.addon, this, graph, exec, capture.deferred);
    } catch (error) {
      if (graph !== undefined) this.addon.graphDestroy(graph);
      for (const p of capture.deferred) this.free(p);
      throw error;
    }
  }

  /** Ends a capture that failed part-way: the partial graph is destroyed, deferred blocks freed. */
  abortCapture(): void {
    const capture = this.capture;
    if (capture === null) return;
    this.capture = null;
    try {
      this.addon.graphDestroy(this.addon.streamEndCapture(this.stream));
    } catch {
      // An invalidated capture ends with an error and no graph: nothing to destroy.
    }
    for (const p of capture.deferred) this.free(p);
  }

  /**
   * A second stream for work independent of what the main stream does meanwhile (segments of
   * one fusion that share no data, FusionExecutorCache). `forkSide` makes it wait for
   * everything enqueued on the main stream so far and returns it; `joinSide` makes the main
   * stream wait for everything enqueued on it. Work on the side stream between the two runs
   * concurrently with the main stream's.
   */
  forkSide(): bigint {
    this.assertLive();
    if (this.side === undefined) {
      this.side = { stream: this.addon.streamCreate(0), fork: this.addon.eventCreate(EVENT_DISABLE_TIMING), join: this.addon.eventCreate(EVENT_DISABLE_TIMING) };
    }
    this.addon.eventRecord(this.side.fork, this.stream);
    this.addon.streamWaitEvent(this.side.stream, this.side.fork);
    return this.side.stream;
  }

  joinSide(): void {
    if (this.side === undefined) return;
    this.addon.eventRecord(this.side.join, this.side.stream);
    this.addon.streamWaitEvent(this.stream, this.side.join);
  }

  /** Compiles CUDA C++ for this device (or `options.arch`); throws CompileError with NVRTC's log. */
  compile(source: string, options: DeviceCompileOptions = {}): CachedCompile {
    const compileOptions: NvrtcOptions = { ...options, arch: options.arch ?? this.arch };
    const { cache } = options;
    if (cache === undefined) return { ...compileWithNvrtc(this.addon, source, compileOptions), source: 'compiled' };
    const version = this.addon.nvrtcVersion();
    let compiled: NvrtcOutput | undefined;
    const start = performance.now();
    const entry = cache.getOrCompile(
      { source, options: compileOptions.options ?? [], arch: compileOptions.arch, compilerVersion: `nvrtc-${version.major}.${version.minor}` },
      () => {
        compiled = compileWithNvrtc(this.addon, source, compileOptions);
        return { cubin: compiled.cubin, log: compiled.log };
      },
    );
    if (compiled !== undefined) return { ...compiled, source: 'compiled' };
    return {
      cubin: entry.cubin,
      log: entry.log,
      arch: compileOptions.arch,
      options: [`--gpu-architecture=${compileOptions.arch}`, ...(compileOptions.options ?? [])],
      compileMs: performance.now() - start,
      source: entry.hit === 'memory' ? 'memory' : 'disk',
    };
  }

  loadModule(image: Uint8Array): KernelModule {
    this.assertLive();
    return new KernelModule(this.addon, this.addon.moduleLoadData(image), this.stream);
  }

  createEvent(): CudaEvent {
    this.assertLive();
    return new CudaEvent(this.addon, this.addon.eventCreate(0), this.stream);
  }

  /** Runs `work` (which enqueues on this stream) between two events; returns device milliseconds. */
  time(work: () => void): number {
    const start = this.createEvent();
    const end = this.createEvent();
    try {
      start.record();
      work();
      end.record();
      return end.elapsedSince(start);
    } finally {
      start.dispose();
      end.dispose();
    }
  }

  /** Frees every live allocation, destroys the stream and releases the primary context. */
  dispose(): void {
    if (this.disposed) return;
    this.addon.streamSynchronize(this.stream);
    if (this.side !== undefined) {
      this.addon.streamSynchronize(this.side.stream);
      this.addon.eventDestroy(this.side.fork);
      this.addon.eventDestroy(this.side.join);
      this.addon.streamDestroy(this.side.stream);
      this.side = undefined;
    }
    for (const pointer of this.liveAllocations.keys()) this.addon.memFree(pointer);
    this.liveAllocations.clear();
    this.releasePool();
    this.addon.streamDestroy(this.stream);
    this.addon.primaryContextRelease(this.device);
    this.disposed = true;
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('DeviceContext: used after dispose()');
  }
}

/** Allocation granularity: 512 bytes up to 1 MiB, then 2 MiB pages (few distinct pool sizes). */
export function roundAllocation(bytes: number): number {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`DeviceContext.malloc: invalid size ${bytes}`);
  const b = Math.max(bytes, 1);
  const granule = b <= 1024 * 1024 ? 512 : 2 * 1024 * 1024;
  return Math.ceil(b / granule) * granule;
}

function queryProperties(addon: NativeAddon, ordinal: number, device: number): DeviceProperties {
  const attribute = (name: keyof typeof DeviceAttribute): number => addon.deviceAttribute(device, DeviceAttribute[name]);
  // Deprecated attributes on newer drivers: a failure leaves the field out rather than failing the context.
  const optional = (name: keyof typeof DeviceAttribute): { value: number } | null => {
    try {
      const value = attribute(name);
      return value > 0 ? { value } : null;
    } catch {
      return null;
    }
  };
  const memoryClock = optional('memoryClockRate');
  const busWidth = optional('globalMemoryBusWidth');
  const major = attribute('computeCapabilityMajor');
  const minor = attribute('computeCapabilityMinor');
  return {
    ordinal,
    name: addon.deviceName(device),
    computeCapability: { major, minor },
    arch: `sm_${major}${minor}`,
    smCount: attribute('multiprocessorCount'),
    totalMemoryBytes: addon.deviceTotalMem(device),
    l2CacheBytes: attribute('l2CacheSize'),
    warpSize: attribute('warpSize'),
    maxThreadsPerBlock: attribute('maxThreadsPerBlock'),
    maxThreadsPerMultiprocessor: attribute('maxThreadsPerMultiprocessor'),
    maxRegistersPerBlock: attribute('maxRegistersPerBlock'),
    maxSharedMemoryPerBlockOptin: attribute('maxSharedMemoryPerBlockOptin'),
    maxSharedMemoryPerMultiprocessor: attribute('maxSharedMemoryPerMultiprocessor'),
    ...(memoryClock === null ? {} : { memoryClockKhz: memoryClock.value }),
    ...(busWidth === null ? {} : { memoryBusWidthBits: busWidth.value }),
  };
}
