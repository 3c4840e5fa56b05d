// FusionExecutor: one scheduled, lowered and compiled kernel of one fusion (or one segment),
// loaded on a device and ready to launch. Compilation goes through codegen (schedule → lower →
// CUDA) and NVRTC behind the CubinCache; launching packs tensors and scalars into the kernel's
// argument buffer. Invariant: the loaded function is the one `kernel.source` compiled to, so a
// reuse for other sizes is valid exactly when those sizes produce the same source.

import { generateKernel, type CompiledKernel, type CompileOptions } from '@tsfuser/codegen';
import { packArguments, type KernelArgument, type ParameterLayout, type CubinCache, type DeviceContext, type KernelFunction, type KernelModule } from '@tsfuser/device';
import { kernelParameterLayout } from './pack-kernel-arguments.js';
import type { Fusion } from '@tsfuser/fusion-ir';
import {
  defaultSchedulerRegistry,
  HeuristicDataCache,
  InnerOuterPersistentScheduler,
  SchedulerRegistry,
  SchedulingError,
  type KernelParams,
  type RuntimeInfo,
  type Scheduler,
  type ScheduledFusion,
} from '@tsfuser/scheduler';

/** NVRTC flags every generated kernel is compiled with. */
export const KERNEL_NVRTC_OPTIONS: readonly string[] = ['--std=c++17', '-default-device'];

export interface ExecutorCompileOptions extends CompileOptions {
  cubinCache?: CubinCache;
  registry?: SchedulerRegistry;
  /**
   * The scheduling decision already made for this fusion (the executor cache's, from the
   * segmentation plan): used as it is, so heuristics are computed once. Without it the registry
   * picks and computes them here. `analysis`: the cache the params came from (for this fusion
   * and runtime info): its schedule is the kernel's, made once.
   */
  choice?: KernelChoice;
}

/** A kernel scheduler with its heuristics for one fusion and runtime info. */
export interface KernelChoice {
  scheduler: Scheduler;
  params: KernelParams;
  analysis?: HeuristicDataCache;
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
  private readonly parameters: ParameterLayout;

  private constructor(
    readonly kernel: CompiledKernel,
    private readonly module: KernelModule,
    readonly fn: KernelFunction,
    readonly report: CompileReport,
  ) {
    this.parameters = kernelParameterLayout(kernel.args);
  }

  /**
   * Schedules `fusion` for `runtimeInfo`, emits CUDA, compiles (or finds the cubin) and loads it.
   * A kernel with a grid-wide barrier (inner-outer persistent) would hang unless all its blocks
   * are resident at once, and the scheduler only estimates how many fit an SM; so its real
   * occupancy is asked of the driver, and when the grid is larger the fusion is scheduled again
   * with that many blocks per SM (the heuristic's `blocksPerSm` override); if even that does not
   * fit, compilation fails with a SchedulingError instead of launching a kernel that never ends.
   */
  static compile(device: DeviceContext, fusion: Fusion, runtimeInfo: RuntimeInfo, options: ExecutorCompileOptions = {}): FusionExecutor {
    let choice = options.choice ?? FusionExecutor.choose(fusion, runtimeInfo, options.registry ?? defaultSchedulerRegistry());
    for (let attempt = 0; ; attempt += 1) {
      const t0 = performance.now();
      const kernel = generateKernel(FusionExecutor.scheduled(fusion, runtimeInfo, choice), options);
      const executor = FusionExecutor.fromKernel(device, kernel, options.cubinCache, performance.now() - t0);
      const resident = executor.residentBlocksPerSm();
      if (resident === null) return executor;
      const [gx, gy, gz] = kernel.launch.grid;
      const capacity = resident * device.properties.smCount;
      if (gx * gy * gz <= capacity) return executor;
      executor.unload();
      if (attempt > 0 || resident === 0 || choice.scheduler.type !== 'inner_outer_persistent') {
        throw new SchedulingError(
          `${kernel.kernelName}: a grid-synchronizing kernel needs its ${gx * gy * gz} blocks resident at once, but the device holds ${capacity} ` +
            `(${resident} of ${kernel.launch.block.join('×')} threads per SM)`,
        );
      }
      // The scheduler's occupancy estimate was too high: schedule again for what the driver says.
      const scheduler = new InnerOuterPersistentScheduler({ blocksPerSm: resident });
      choice = { scheduler, params: FusionExecutor.kernelParams(scheduler.computeHeuristics(fusion, runtimeInfo)) };
    }
  }

  /** The registry's scheduler for `fusion` and its heuristics (when no choice was handed in). */
  private static choose(fusion: Fusion, runtimeInfo: RuntimeInfo, registry: SchedulerRegistry): KernelChoice {
    const { scheduler, analysis } = registry.pick(fusion, runtimeInfo);
    return { scheduler, params: FusionExecutor.kernelParams(scheduler.computeHeuristics(fusion, runtimeInfo, analysis)), analysis };
  }

  /** The choice's scheduled fusion: its analysis cache's (scheduled once), or scheduled here on a clone. */
  private static scheduled(fusion: Fusion, runtimeInfo: RuntimeInfo, choice: KernelChoice): ScheduledFusion {
    const { analysis } = choice;
    if (analysis !== undefined && analysis.describes(fusion, runtimeInfo)) return analysis.scheduled(choice.scheduler);
    return choice.scheduler.schedule(fusion.clone().fusion, choice.params);
  }

  private static kernelParams(p: ReturnType<Scheduler['computeHeuristics']>): KernelParams {
    if (p.schedulerType === 'expr_eval' || p.schedulerType === 'no_op') throw new SchedulingError(`the fusion needs no kernel (${p.schedulerType})`);
    return p;
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
   * Enqueues the kernel on the device's stream with one value per kernel parameter (inputs
   * then outputs). `grid` overrides the compiled launch grid (other sizes, same kernel). A grid
   * with a zero dimension means there is nothing to compute: no launch. `stream`: another
   * stream than the device's (FusionExecutorCache's side stream).
   */
  launch(values: readonly KernelArgument[], grid: readonly [number, number, number] = this.kernel.launch.grid, stream?: bigint): void {
    if (grid[0] === 0 || grid[1] === 0 || grid[2] === 0) return;
    const buffer = packArguments(this.parameters, values);
    this.fn.launch({ grid: [grid[0], grid[1], grid[2]], block: this.kernel.launch.block, sharedBytes: this.kernel.launch.sharedMemBytes, ...(stream === undefined ? {} : { stream }) }, buffer);
  }

  unload(): void {
    this.module.unload();
  }
}
