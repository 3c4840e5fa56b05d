// compileFusion: schedule a fusion for one set of runtime sizes, lower it and emit CUDA —
// everything the executor needs to compile (NVRTC) and launch the kernel.

import { printFusion, type Fusion } from '@tsfuser/fusion-ir';
import {
  defaultSchedulerRegistry,
  heuristicParamsToString,
  SchedulingError,
  type IndexType,
  type KernelParams,
  type RuntimeInfo,
  type SchedulerRegistry,
} from '@tsfuser/scheduler';
import { argumentLayout, type ArgumentLayout } from './arguments.js';
import { cudaSource, emitKernel } from './emit/cuda.js';
import { printKernelIr } from './kernel-ir/printer.js';
import { lowerFusion } from './lower/index.js';

export interface CompileOptions {
  /** Names the kernel `nvfuser_<scheduler>_f<fusionId>_c<cacheId>_r<runtimeId>_g<groupId>`. */
  fusionId?: number;
  cacheId?: number;
  runtimeId?: number;
  groupId?: number;
  registry?: SchedulerRegistry;
}

export interface LaunchParams {
  grid: [number, number, number];
  block: [number, number, number];
  sharedMemBytes: number;
}

export interface CompiledKernel {
  kernelName: string;
  /** The fusion as scheduled for this kernel (the `fusion_ir` / `fusion_ir_math` dumps print it). */
  scheduledFusion: Fusion;
  /** Static `__device__` work buffers and semaphores (zero at module load; the kernel leaves them zero). */
  deviceGlobals: ReturnType<typeof lowerFusion>['deviceGlobals'];
  /** Full CUDA C++: runtime helpers + kernel. */
  source: string;
  params: KernelParams;
  launch: LaunchParams;
  args: ArgumentLayout;
  indexType: IndexType;
  vectorizeFactor: number;
  dumps: { kernelIr: string; cuda: string; schedulerParams: string; fusionIr: string; launchParams: string };
}

export function launchParamsText(l: LaunchParams): string {
  return (
    `Launch Parameters: BlockDim.x = ${l.block[0]}, BlockDim.y = ${l.block[1]}, BlockDim.z = ${l.block[2]}, ` +
    `GridDim.x = ${l.grid[0]}, GridDim.y = ${l.grid[1]}, GridDim.z = ${l.grid[2]}, Smem Size = ${l.sharedMemBytes}\n`
  );
}

export function compileFusion(fusion: Fusion, runtimeInfo: RuntimeInfo, opts: CompileOptions = {}): CompiledKernel {
  const registry = opts.registry ?? defaultSchedulerRegistry();
  const { scheduler } = registry.pick(fusion, runtimeInfo);
  const params = scheduler.computeHeuristics(fusion, runtimeInfo);
  if (params.schedulerType === 'expr_eval' || params.schedulerType === 'no_op') {
    throw new SchedulingError(`the fusion needs no kernel (${params.schedulerType}: ${params.schedulerType === 'expr_eval' ? 'its outputs are views of its inputs' : 'every output is empty'})`);
  }
  const scheduled = scheduler.schedule(fusion.clone().fusion, params);
  const name = `nvfuser_${params.schedulerType}_f${opts.fusionId ?? 0}_c${opts.cacheId ?? 1}_r${opts.runtimeId ?? 0}_g${opts.groupId ?? 0}`;
  const lp = params.lparams;
  const kernel = lowerFusion(scheduled, { kernelName: name, maxThreadsPerBlock: Math.max(1, lp.bdimx * lp.bdimy * lp.bdimz) });
  const launch: LaunchParams = { grid: [lp.gdimx, lp.gdimy, lp.gdimz], block: [lp.bdimx, lp.bdimy, lp.bdimz], sharedMemBytes: kernel.sharedMemBytes };
  const cuda = emitKernel(kernel);
  return {
    kernelName: name,
    scheduledFusion: scheduled.fusion,
    deviceGlobals: kernel.deviceGlobals,
    source: cudaSource(kernel),
    params,
    launch,
    args: argumentLayout(kernel.params, kernel.indexType),
    indexType: kernel.indexType,
    vectorizeFactor: kernel.vectorizeFactor,
    dumps: {
      kernelIr: printKernelIr(kernel),
      cuda,
      schedulerParams: heuristicParamsToString(params),
      fusionIr: printFusion(scheduled.fusion),
      launchParams: launchParamsText(launch),
    },
  };
}
