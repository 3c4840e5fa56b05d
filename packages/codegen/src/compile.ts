// generateKernel: lower an already scheduled fusion and emit CUDA — everything the executor needs
// to compile (NVRTC) and launch the kernel, including what the launch requires of the device
// (`requirements`: stated here, from the kernel itself, not inferred by the runtime from a
// scheduler name). Codegen never picks a scheduler or computes heuristics for it: the caller
// (the executor cache, from the segmentation plan's choice) schedules once and hands the result
// over. compileFusion is the one-call convenience for tests and tools: pick, heuristics,
// schedule, generateKernel.

import { printFusion, type Fusion } from '@tsfuser/fusion-ir';
import {
  defaultSchedulerRegistry,
  heuristicParamsToString,
  noKernelReason,
  SchedulingError,
  type GreedyParams,
  type IndexType,
  type KernelParams,
  type RuntimeInfo,
  type ScheduledFusion,
  type SchedulerRegistry,
} from '@tsfuser/scheduler';
import { argumentLayout, type ArgumentLayout } from './arguments.js';
import { cudaSource, emitKernel } from './emit/cuda.js';
import { printKernelIr } from './kernel-ir/printer.js';
import { emitGreedyKernel } from './emit/greedy/index.js';
import { lowerFusion } from './lower/index.js';
import { LOWERING_PASS_NAMES } from './lower/passes.js';
import { CodegenError } from './errors.js';
import type { KernelParam, Stmt } from './kernel-ir/nodes.js';
import { someStmt } from './kernel-ir/walk.js';

export interface GenerateOptions {
  /** Names the kernel `nvfuser_<scheduler>_f<fusionId>_c<cacheId>_r<runtimeId>_g<groupId>`. */
  fusionId?: number;
  cacheId?: number;
  runtimeId?: number;
  groupId?: number;
  /**
   * A lowering pass name (lower/passes.ts LOWERING_PASS_NAMES): `dumps.kernelIrAfterPass` is the
   * kernel IR right after that pass (empty when the pass is not enabled for this kernel).
   */
  kernelIrAfterPass?: string;
  /** nvFuser's lower_verbose: `dumps.loweringPasses` holds the kernel IR after every enabled pass, in order. */
  kernelIrAfterEveryPass?: boolean;
}

export interface CompileOptions extends GenerateOptions {
  registry?: SchedulerRegistry;
}

/** What a kernel needs from its launch, beyond grid, block and shared memory. */
export interface LaunchRequirements {
  /**
   * Every block must be resident at once: the kernel synchronizes its whole grid (a grid outer
   * reduction's barrier), so a grid larger than the device holds would never finish.
   */
  allBlocksResident: boolean;
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
  requirements: LaunchRequirements;
  dumps: {
    kernelIr: string;
    cuda: string;
    schedulerParams: string;
    fusionIr: string;
    launchParams: string;
    kernelIrAfterPass?: string;
    /** The kernel IR after each enabled lowering pass (GenerateOptions.kernelIrAfterEveryPass). */
    loweringPasses?: { pass: string; kernelIr: string }[];
  };
}

export function launchParamsText(l: LaunchParams): string {
  return (
    `Launch Parameters: BlockDim.x = ${l.block[0]}, BlockDim.y = ${l.block[1]}, BlockDim.z = ${l.block[2]}, ` +
    `GridDim.x = ${l.grid[0]}, GridDim.y = ${l.grid[1]}, GridDim.z = ${l.grid[2]}, Smem Size = ${l.sharedMemBytes}\n`
  );
}

export function compileFusion(fusion: Fusion, runtimeInfo: RuntimeInfo, opts: CompileOptions = {}): CompiledKernel {
  const registry = opts.registry ?? defaultSchedulerRegistry();
  const { scheduler, analysis } = registry.pick(fusion, runtimeInfo);
  // The heuristics and schedule acceptance made (persistent schedulers) are reused, not redone.
  const params = scheduler.computeHeuristics(fusion, runtimeInfo, analysis);
  const noKernel = noKernelReason(params);
  if (noKernel !== null) throw new SchedulingError(`the fusion needs no kernel (${params.schedulerType}: ${noKernel})`);
  return generateKernel(analysis.scheduled(scheduler), opts);
}

/** The kernel of a scheduled fusion (its parameters are the ones it was scheduled with). */
export function generateKernel(scheduled: ScheduledFusion, opts: GenerateOptions = {}): CompiledKernel {
  const params = scheduled.params;
  const name = `nvfuser_${params.schedulerType}_f${opts.fusionId ?? 0}_c${opts.cacheId ?? 1}_r${opts.runtimeId ?? 0}_g${opts.groupId ?? 0}`;
  if (scheduled.lowering.kind === 'greedy') return compileGreedy(scheduled.fusion, scheduled.lowering.params, name);
  const lp = params.lparams;
  const after = opts.kernelIrAfterPass;
  if (after !== undefined && !LOWERING_PASS_NAMES.includes(after)) {
    throw new CodegenError(`kernel_ir after '${after}': no such lowering pass (passes: ${LOWERING_PASS_NAMES.join(', ')})`);
  }
  let afterText: string | undefined;
  const kernelIndexType = params.indexType;
  const everyPass: { pass: string; kernelIr: string }[] | undefined = opts.kernelIrAfterEveryPass === true ? [] : undefined;
  const observe = (pass: string, body: readonly Stmt[], kernelParams: readonly KernelParam[]): void => {
    if (pass === after) afterText = printKernelIrOf(name, kernelIndexType, kernelParams, body);
    everyPass?.push({ pass, kernelIr: printKernelIrOf(name, kernelIndexType, kernelParams, body) });
  };
  const kernel = lowerFusion(scheduled, {
    kernelName: name,
    maxThreadsPerBlock: Math.max(1, lp.bdimx * lp.bdimy * lp.bdimz),
    ...(after === undefined && everyPass === undefined ? {} : { observe }),
  });
  const launch: LaunchParams = { grid: [lp.gdimx, lp.gdimy, lp.gdimz], block: [lp.bdimx, lp.bdimy, lp.bdimz], sharedMemBytes: kernel.sharedMemBytes };
  const cuda = emitKernel(kernel);
  return {
    kernelName: name,
    scheduledFusion: scheduled.fusion,
    deviceGlobals: kernel.deviceGlobals,
    source: cudaSource(kernel),
    params,
    launch,
    args: argumentLayout(kernel.params, kernel.indexType, kernel.divisors),
    indexType: kernel.indexType,
    vectorizeFactor: kernel.vectorizeFactor,
    requirements: { allBlocksResident: someStmt(kernel.body, (st) => st.kind === 'GridOuterReduce') },
    dumps: {
      kernelIr: printKernelIr(kernel),
      cuda,
      schedulerParams: heuristicParamsToString(params),
      fusionIr: printFusion(scheduled.fusion),
      launchParams: launchParamsText(launch),
      ...(after === undefined ? {} : { kernelIrAfterPass: afterText ?? `(lowering pass '${after}' is not enabled for ${name})\n` }),
      ...(everyPass === undefined ? {} : { loweringPasses: everyPass }),
    },
  };
}

/** Kernel IR text of statements in the middle of lowering (before shared memory is laid out). */
function printKernelIrOf(name: string, indexType: IndexType, params: readonly KernelParam[], body: readonly Stmt[]): string {
  return printKernelIr({ name, indexType, params: [...params], indexLocals: [], divisors: [], body: [...body], maxThreadsPerBlock: 0, vectorizeFactor: 1, sharedMemBytes: 0, deviceGlobals: [] });
}

/** A greedy segment (one scan or sort): its kernel comes from the parameters, not a loop nest. */
function compileGreedy(fusion: Fusion, params: GreedyParams, name: string): CompiledKernel {
  const emitted = emitGreedyKernel(fusion, params, name);
  const lp = params.lparams;
  const launch: LaunchParams = { grid: [lp.gdimx, lp.gdimy, lp.gdimz], block: [lp.bdimx, lp.bdimy, lp.bdimz], sharedMemBytes: emitted.sharedMemBytes };
  return {
    kernelName: name,
    source: emitted.source,
    params,
    launch,
    args: argumentLayout(emitted.params, params.indexType),
    indexType: params.indexType,
    vectorizeFactor: params.kernel.kind === 'scan' && params.kernel.vectorized ? params.kernel.itemsPerThread : 1,
    // A greedy kernel is written from the parameters: the fusion is scheduled as it is, and it
    // uses no device globals (no grid reductions).
    scheduledFusion: fusion,
    deviceGlobals: [],
    requirements: { allBlocksResident: false },
    dumps: {
      kernelIr: `// ${name}: a greedy ${params.op} kernel emitted from its parameters (no kernel IR)\n`,
      cuda: emitted.kernel,
      schedulerParams: heuristicParamsToString(params),
      fusionIr: printFusion(fusion),
      launchParams: launchParamsText(launch),
    },
  };
}
