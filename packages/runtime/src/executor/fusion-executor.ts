// FusionExecutor: one scheduled, lowered and compiled kernel of one fusion (or one segment),
// loaded on a device and ready to launch. Compilation goes through codegen (schedule → lower →
// CUDA) and NVRTC behind the CubinCache; launching packs tensors and scalars into the kernel's
// argument buffer. Invariant: the loaded function is the one `kernel.source` compiled to, so a
// reuse for other sizes is valid exactly when those sizes produce the same source.

import type { CompiledKernel, CompileOptions } from '@tsfuser/codegen';
import { packArgumentsInto, type KernelArgument, type LaunchConfig, type ParameterLayout, type CubinCache, type DeviceContext, type KernelFunction, type KernelModule, type PreparedLaunch } from '@tsfuser/device';
import { kernelParameterLayout, withDivisorArguments } from './pack-kernel-arguments.js';
import type { Fusion } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, SchedulerRegistry, SchedulingError, type RuntimeInfo } from '@tsfuser/scheduler';
import { planKernelSegment, type KernelSegment } from '../plan/kernel-segment.js';

/** NVRTC flags every generated kernel is compiled with. */
export const KERNEL_NVRTC_OPTIONS: readonly string[] = ['--std=c++17', '-default-device'];

export interface ExecutorCompileOptions extends CompileOptions {
  cubinCache?: CubinCache;
  registry?: SchedulerRegistry;
}

export interface CompileReport {
  /** Where the cubin came from. */
  cubin: 'compiled' | 'memory' | 'disk';
  /** Wall milliseconds of scheduling + lowering + emission. */
  codegenMs: number;
  /** Wall milliseconds of NVRTC or of the cache lookup. */
  nvrtcMs: number;
  /** Module load + function lookup. */
  loadMs: number;
}

export class FusionExecutor {
  /** The kernel's parameters as the device packer lays them out (computed once, not per launch). */
  readonly parameters: ParameterLayout;
  /** One argument buffer reused by every launch (cuLaunchKernel copies it when called). */
  private readonly argumentBytes: Uint8Array;
  private readonly argumentView: DataView;
  /** The values of launch() with the divisor words appended (kernels with fast divisions; reused). */
  private readonly launchValues: KernelArgument[] = [];
  /** The last launch's configuration (reused while grid and stream are the same). */
  private lastConfig: (LaunchConfig & { grid: readonly [number, number, number]; stream: bigint | undefined }) | null = null;

  private constructor(
    readonly kernel: CompiledKernel,
    private readonly module: KernelModule,
    readonly fn: KernelFunction,
    readonly report: CompileReport,
  ) {
    this.parameters = kernelParameterLayout(kernel.args);
    this.argumentBytes = new Uint8Array(this.parameters.size);
    this.argumentView = new DataView(this.argumentBytes.buffer);
  }

  /**
   * The registry's scheduler for `fusion` (one kernel, no segmentation), its kernel segment
   * (heuristics, schedule, CUDA: plan/kernel-segment.ts) compiled and loaded (FusionExecutor.load).
   */
  static compile(device: DeviceContext, fusion: Fusion, runtimeInfo: RuntimeInfo, options: ExecutorCompileOptions = {}): FusionExecutor {
    const { scheduler, analysis } = (options.registry ?? defaultSchedulerRegistry()).pick(fusion, runtimeInfo);
    const segment = planKernelSegment(fusion, runtimeInfo, options.groupId ?? 0, scheduler, { analysis, generate: options });
    return FusionExecutor.load(device, segment, { generate: options, ...(options.cubinCache === undefined ? {} : { cubinCache: options.cubinCache }) }).executor;
  }

  /**
   * Compiles (or finds the cubin of) a planned kernel segment and loads it. A kernel with a
   * grid-wide barrier (inner-outer persistent) would hang unless all its blocks are resident at
   * once, and the scheduler only estimates how many fit an SM; so its real occupancy is asked of
   * the driver, and when the grid is larger the segment is planned again with that many blocks
   * per SM (the scheduler's `forResidentBlocks` hook: a parameter override; no scheduler is named
   * here): `segment` is then the one that was loaded.
   * If even that does not fit, a SchedulingError instead of a kernel that never ends.
   */
  static load(device: DeviceContext, planned: KernelSegment, options: { cubinCache?: CubinCache; generate?: CompileOptions } = {}): { executor: FusionExecutor; segment: KernelSegment } {
    let segment = planned;
    for (let attempt = 0; ; attempt += 1) {
      const executor = FusionExecutor.fromKernel(device, segment.kernel, options.cubinCache, segment.codegenMs);
      const resident = executor.residentBlocksPerSm();
      if (resident === null) return { executor, segment };
      const [gx, gy, gz] = segment.grid;
      const capacity = resident * device.properties.smCount;
      if (gx * gy * gz <= capacity) return { executor, segment };
      executor.unload();
      const rescheduled = attempt > 0 || resident === 0 ? null : (segment.scheduler.forResidentBlocks?.(resident) ?? null);
      if (rescheduled === null) {
        throw new SchedulingError(
          `${segment.kernel.kernelName}: a grid-synchronizing kernel needs its ${gx * gy * gz} blocks resident at once, but the device holds ${capacity} ` +
            `(${resident} of ${segment.kernel.launch.block.join('×')} threads per SM)`,
        );
      }
      // The scheduler's occupancy estimate was too high: plan again for what the driver says.
      segment = planKernelSegment(segment.fusion, segment.info, segment.groupId, rescheduled, options.generate === undefined ? {} : { generate: options.generate });
    }
  }

  /**
   * For a kernel whose blocks synchronize across the grid: how many of its blocks one SM holds
   * at once (the driver's occupancy for its block and shared memory); null for other kernels or
   * when the driver cannot tell.
   */
  residentBlocksPerSm(): number | null {
    if (!this.kernel.requirements.allBlocksResident) return null;
    const [bx, by, bz] = this.kernel.launch.block;
    return this.fn.maxActiveBlocksPerSm(bx * by * bz, this.kernel.launch.sharedMemBytes);
  }

  /** Compiles and loads an already generated kernel. */
  static fromKernel(device: DeviceContext, kernel: CompiledKernel, cubinCache?: CubinCache, codegenMs = 0): FusionExecutor {
    const t1 = performance.now();
    const compiled = device.compile(kernel.source, {
      options: KERNEL_NVRTC_OPTIONS,
      name: `${kernel.kernelName}.cu`,
      ...(cubinCache === undefined ? {} : { cache: cubinCache }),
    });
    const t2 = performance.now();
    const module = device.loadModule(compiled.cubin);
    const fn = module.getFunction(kernel.kernelName);
    if (kernel.launch.sharedMemBytes > 48 * 1024) fn.setMaxDynamicSharedMemory(kernel.launch.sharedMemBytes);
    const report: CompileReport = { cubin: compiled.source, codegenMs, nvrtcMs: t2 - t1, loadMs: performance.now() - t2 };
    return new FusionExecutor(kernel, module, fn, report);
  }

  /**
   * Enqueues the kernel on the device's stream with one value per fusion parameter (inputs
   * then outputs; the fast divisors' words, if any, are computed from their sizes). `grid` overrides the compiled launch grid (other sizes, same kernel). A grid
   * with a zero dimension means there is nothing to compute: no launch. `stream`: another
   * stream than the device's (FusionExecutorCache's side stream).
   */
  launch(values: readonly KernelArgument[], grid: readonly [number, number, number] = this.kernel.launch.grid, stream?: bigint): void {
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return;
    // A kernel with fast divisions also takes its divisors' magic numbers, from these sizes.
    const all = this.kernel.args.divisors === null ? values : withDivisorArguments(this.kernel.args, values, this.launchValues);
    packArgumentsInto(this.parameters, all, this.argumentView);
    this.launchPacked(this.argumentBytes, grid, stream);
  }

  /**
   * Enqueues the kernel with an argument buffer the caller packed in this kernel's `parameters`
   * layout (a launch plan's step keeps one per step: packed once, then only its pointers
   * rewritten per call). A grid with a zero dimension launches nothing, as launch().
   */
  launchPacked(argumentBytes: Uint8Array, grid: readonly [number, number, number], stream?: bigint): void {
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return;
    // A plan step launches with the same grid array and stream on every call: its launch
    // configuration is made once, not an object per launch.
    let config = this.lastConfig;
    if (config === null || config.grid !== grid || config.stream !== stream) {
      config = { grid, block: this.kernel.launch.block, sharedBytes: this.kernel.launch.sharedMemBytes, stream };
      this.lastConfig = config;
    }
    this.fn.launch(config, argumentBytes);
  }

  /**
   * A prepared launch (KernelFunction.prepare) of this kernel for a plan step's fixed grid,
   * stream and argument buffer: its later launches pass only the buffer to the addon. Null for
   * an empty grid (nothing launches) or where functions cannot prepare (an addon built before
   * prepared launches, a stand-in device): the step then launches with launchPacked.
   */
  prepareLaunch(argumentBytes: Uint8Array, grid: readonly [number, number, number], stream?: bigint): PreparedLaunch | null {
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return null;
    const fn: Partial<Pick<KernelFunction, 'prepare'>> = this.fn;
    if (fn.prepare === undefined) return null;
    return fn.prepare.call(this.fn, { grid, block: this.kernel.launch.block, sharedBytes: this.kernel.launch.sharedMemBytes, stream }, argumentBytes);
  }

  unload(): void {
    this.module.unload();
  }
}
