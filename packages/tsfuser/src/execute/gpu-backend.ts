// The GPU backend: scheduler → codegen → runtime. One DeviceContext per device ordinal and one
// FusionExecutorCache per (Fusion, device), kept for the life of the process, so a definition
// executed again reuses its compiled kernels and launch plans; cubins also persist on disk
// (CubinCache's default directory) so a second process skips NVRTC.
//
// Outputs are device tensors (call `.toHost()` / `.toArray()` to read them). Availability is
// the runtime's: addon built, libcuda.so.1 and NVRTC loadable, at least one device.

import type { Fusion } from '@tsfuser/fusion-ir';
import {
  CubinCache,
  DeviceContext,
  Tensor,
  isAvailable,
  type Availability as DeviceAvailability,
} from '@tsfuser/device';
import { FusionExecutorCache, InputExtentMismatchError, type RunFusionOptions } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, type SchedulerRegistry, type Segmenter } from '@tsfuser/scheduler';
import { BackendUnavailableError, InputMismatchError } from '../errors.js';
import type { Availability, Backend, BackendRunOptions, ExecuteInput } from './backend.js';

export interface GpuBackendOptions {
  /** Disk directory for cubins; `null` keeps them in memory only. Default: CubinCache's. */
  cubinDirectory?: string | null;
  /** How fusions are split into kernels (default: the runtime's). */
  segmenter?: Segmenter;
  /** Fill every output with 0xFF bytes before the kernels run (tests: unwritten elements show). */
  poisonOutputs?: boolean;
  /**
   * The device context of an ordinal instead of DeviceContext.create (host-overhead measurements
   * and tests on a stand-in device); the backend then counts as available.
   */
  deviceContext?: (ordinal: number) => DeviceContext;
  /**
   * Codegen's fast division by run-time extents (PointwiseOverrides.fastDivision). Default: on,
   * unless the environment's TSFUSER_DISABLE lists `fast_division` when the backend is created
   * (before/after measurements of one bundle: `TSFUSER_DISABLE=fast_division tsfuser bench …`).
   */
  fastDivision?: boolean;
}

/** Whether TSFUSER_DISABLE (comma-separated, nvFuser's NVFUSER_DISABLE style) turns fast division off. */
export function fastDivisionDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env['TSFUSER_DISABLE'] ?? '').split(',').some((o) => o.trim() === 'fast_division');
}

/** The first missing piece of the GPU path, as a user names it (the device layer probes in this order). */
function missingPiece(a: DeviceAvailability): string {
  if (a.addonPath === undefined) return 'the device addon is not built';
  if (a.driverVersion === undefined) return 'no CUDA driver';
  if ((a.deviceCount ?? 0) === 0) return 'no CUDA device';
  return 'no NVRTC';
}

/** Per-process state of one GPU backend instance. */
class GpuState {
  private readonly devices = new Map<number, DeviceContext>();
  private readonly caches = new WeakMap<Fusion, Map<number, FusionExecutorCache>>();
  private cubins: CubinCache | undefined;
  private nextFusionId = 0;
  private available = false;

  /** Every cache's scheduler registry: the default one, or without fast division (options.fastDivision). */
  private readonly registry: SchedulerRegistry | undefined;

  constructor(private readonly options: GpuBackendOptions) {
    const fast = options.fastDivision ?? !fastDivisionDisabled(process.env);
    this.registry = fast ? undefined : defaultSchedulerRegistry({ pointwise: { fastDivision: false } });
  }

  availability(): Availability {
    // 'auto' asks on every execute: once the driver, NVRTC and a device were found they stay, so
    // the probe (a call into the addon) is not repeated on a cached execute's host path.
    if (this.available || this.options.deviceContext !== undefined) return { available: true };
    const a = isAvailable();
    if (!a.available) return { available: false, summary: missingPiece(a), reason: a.reason ?? 'the CUDA runtime is unavailable' };
    if ((a.deviceCount ?? 0) === 0) return { available: false, summary: 'no CUDA device', reason: 'the CUDA driver found no device' };
    this.available = true;
    return { available: true };
  }

  device(ordinal: number): DeviceContext {
    let ctx = this.devices.get(ordinal);
    if (ctx === undefined || ctx.isDisposed) {
      ctx = this.options.deviceContext?.(ordinal) ?? DeviceContext.create(ordinal);
      this.devices.set(ordinal, ctx);
    }
    return ctx;
  }

  cacheFor(fusion: Fusion, ordinal: number): FusionExecutorCache {
    let perDevice = this.caches.get(fusion);
    if (perDevice === undefined) {
      perDevice = new Map();
      this.caches.set(fusion, perDevice);
    }
    let cache = perDevice.get(ordinal);
    if (cache === undefined) {
      this.cubins ??= new CubinCache(this.options.cubinDirectory === undefined ? {} : { directory: this.options.cubinDirectory });
      cache = new FusionExecutorCache(fusion, this.device(ordinal), {
        cubinCache: this.cubins,
        fusionId: this.nextFusionId,
        ...(this.options.segmenter === undefined ? {} : { segmenter: this.options.segmenter }),
        ...(this.registry === undefined ? {} : { registry: this.registry }),
        ...(this.options.poisonOutputs === true ? { poisonOutputs: true } : {}),
      });
      this.nextFusionId += 1;
      perDevice.set(ordinal, cache);
    }
    return cache;
  }

  run(fusion: Fusion, inputs: readonly ExecuteInput[], options: BackendRunOptions): Tensor[] {
    // A cached execute's host path: no closure, spread or array made here per call (issue 38).
    for (const v of fusion.outputs) {
      if (v.kind !== 'tensorView') {
        throw new BackendUnavailableError(`gpu backend: fusion output ${v.kind} ${v.name} is not a tensor (scalar outputs run on the reference backend)`);
      }
    }
    const cache = this.cacheFor(fusion, options.device);
    cache.setDumps(options.dump ?? NO_DUMPS, options.dumpSink);
    const profiled = options.onProfile !== undefined;
    const runOptions = profiled ? { profile: true, cudaGraph: options.cudaGraph, graphKeyedByPointers: options.graphKeyedByPointers } : graphRunOptions(options.cudaGraph, options.graphKeyedByPointers);
    let outputs: Tensor[];
    try {
      outputs = cache.runFusion(inputs, runOptions);
    } catch (error) {
      // execute() leaves the input-extent check (made once per new input layout) to this backend.
      if (error instanceof InputExtentMismatchError) throw new InputMismatchError(error.input, error.detail);
      throw error;
    }
    const profile = cache.lastProfile();
    if (options.onProfile !== undefined && profile !== null) options.onProfile(profile);
    const plan = cache.lastPlan();
    if (options.onPlan !== undefined && plan !== null) options.onPlan(plan);
    return outputs;
  }
}

const NO_DUMPS: ReadonlySet<string> = new Set();
const PLAIN_RUN: RunFusionOptions = Object.freeze({});
const TRI = [undefined, false, true] as const;
/** By (cudaGraph, graphKeyedByPointers), each undefined / false / true: the frozen run options. */
const GRAPH_RUNS: readonly RunFusionOptions[] = TRI.flatMap((cudaGraph) => TRI.map((graphKeyedByPointers) => Object.freeze({ cudaGraph, graphKeyedByPointers })));
const triIndex = (v: boolean | undefined): number => (v === undefined ? 0 : v ? 2 : 1);

/** The run options of an unprofiled call, one frozen object per combination (a cached execute builds none). */
function graphRunOptions(cudaGraph: boolean | undefined, keyedByPointers: boolean | undefined): RunFusionOptions {
  if (cudaGraph === undefined && keyedByPointers === undefined) return PLAIN_RUN;
  return GRAPH_RUNS[triIndex(cudaGraph) * 3 + triIndex(keyedByPointers)] as RunFusionOptions;
}

/** A GPU backend with its own device contexts and caches. */
export interface GpuBackend extends Backend {
  /** The executor cache this backend uses for `fusion` on `device` (stats, dumps). */
  executorCache(fusion: Fusion, device?: number): FusionExecutorCache;
  /** The device context of an ordinal (created on first use). */
  device(ordinal?: number): DeviceContext;
}

export function createGpuBackend(options: GpuBackendOptions = {}): GpuBackend {
  const state = new GpuState(options);
  return {
    name: 'gpu',
    checksInputExtents: true,
    availability: () => state.availability(),
    run: (fusion, inputs, runOptions) => {
      try {
        return Promise.resolve(state.run(fusion, inputs, runOptions));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    executorCache: (fusion, device = 0) => state.cacheFor(fusion, device),
    device: (ordinal = 0) => state.device(ordinal),
  };
}

let shared: Backend | undefined;

/** The process-wide GPU backend `execute({ backend: 'gpu' | 'auto' })` uses. */
export function gpuBackend(): Backend {
  shared ??= createGpuBackend();
  return shared;
}
