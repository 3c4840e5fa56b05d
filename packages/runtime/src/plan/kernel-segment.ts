// One kernel segment of a compile plan, made without a device: the scheduler the segmentation
// chose, its heuristics (computed once, through the segment's HeuristicDataCache), the fusion
// scheduled with them (once), the kernel codegen generated from that scheduled fusion, and the
// grid it launches with. Kernels are memoized by their parameters minus the grid size (a
// KernelMemo kept per input signature): other sizes with the same decisions reuse the kernel,
// sizes being kernel arguments.
// Invariant: `kernel` was generated from `scheduled`, which was scheduled with `params`, which
// `scheduler` computed for `fusion` and `info` — or, on a memo hit, for sizes with equal
// parameters (the same kernel).

import { generateKernel, type CompiledKernel, type GenerateOptions } from '@tsfuser/codegen';
import type { Fusion } from '@tsfuser/fusion-ir';
import {
  HeuristicDataCache,
  kernelParamsOf,
  SchedulingError,
  type GreedyParams,
  type KernelParams,
  type LoopKernelParams,
  type RuntimeInfo,
  type ScheduledFusion,
  type Scheduler,
} from '@tsfuser/scheduler';

interface KernelSegmentBase {
  groupId: number;
  /** The segment's fusion and the runtime info its scheduler saw. */
  fusion: Fusion;
  info: RuntimeInfo;
  scheduler: Scheduler;
  scheduled: ScheduledFusion;
  kernel: CompiledKernel;
  grid: [number, number, number];
  /** Milliseconds of scheduling + lowering + emission (0 when the kernel came from the memo). */
  codegenMs: number;
}

/** A generated kernel of a scheduled fusion (lowered through a loop nest). */
export interface GeneratedKernelSegment extends KernelSegmentBase {
  kind: 'kernel';
  params: LoopKernelParams;
}

/** A greedy kernel (scan, sort, scatter), emitted from its parameters. */
export interface GreedyKernelSegment extends KernelSegmentBase {
  kind: 'greedy';
  params: GreedyParams;
}

/** A segment that launches a kernel tsfuser generated. */
export type KernelSegment = GeneratedKernelSegment | GreedyKernelSegment;

/** Kernels already generated for one input signature, by group and parameters minus the grid size. */
export type KernelMemo = Map<string, { scheduled: ScheduledFusion; kernel: CompiledKernel }>;

/** The kernel memo's key: equal keys mean the same kernel (the grid size is a launch argument). */
export function kernelKey(groupId: number, params: KernelParams): string {
  return `${groupId}:${JSON.stringify(params, (k, v: unknown) => (k === 'gdimx' || k === 'gdimy' || k === 'gdimz' ? undefined : v))}`;
}

export interface KernelSegmentOptions {
  /** What acceptance computed for this fusion (reused when it describes `fusion` and `info`). */
  analysis?: HeuristicDataCache | undefined;
  memo?: KernelMemo;
  /** Kernel names and the dumps codegen keeps (fusionId, runtimeId, kernelIrAfterEveryPass, …). */
  generate?: GenerateOptions;
}

/**
 * The kernel segment of `fusion` made by `scheduler` (see the header). A scheduler whose
 * parameters make no kernel (expr_eval, no_op) is a SchedulingError: such a group is not a
 * kernel segment.
 */
export function planKernelSegment(fusion: Fusion, info: RuntimeInfo, groupId: number, scheduler: Scheduler, options: KernelSegmentOptions = {}): KernelSegment {
  const analysis = HeuristicDataCache.for(fusion, info, options.analysis);
  const computed = scheduler.computeHeuristics(fusion, info, analysis);
  const params = kernelParamsOf(computed);
  if (params === null) throw new SchedulingError(`segment ${groupId} needs no generated kernel (${computed.schedulerType}) but was planned as one`);
  const key = kernelKey(groupId, params);
  const t0 = performance.now();
  let made = options.memo?.get(key);
  let codegenMs = 0;
  if (made === undefined) {
    const scheduled = analysis.scheduled(scheduler);
    made = { scheduled, kernel: generateKernel(scheduled, { ...options.generate, groupId }) };
    options.memo?.set(key, made);
    codegenMs = performance.now() - t0;
  }
  const { kernel, scheduled } = made;
  const lp = params.lparams;
  // A grid-synchronizing kernel launches exactly the grid it was compiled for (its rows per block
  // are constants); any other kernel takes the grid of these sizes.
  const grid: [number, number, number] = kernel.requirements.allBlocksResident ? [...kernel.launch.grid] : [lp.gdimx, lp.gdimy, lp.gdimz];
  const base = { groupId, fusion, info, scheduler, scheduled, kernel, grid, codegenMs };
  return params.schedulerType === 'greedy' ? { ...base, kind: 'greedy', params } : { ...base, kind: 'kernel', params };
}
