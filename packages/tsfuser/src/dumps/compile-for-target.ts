// Compiles a fusion for a target GPU without one: the segmentation, the per-segment runtime info,
// the schedulers' heuristics, the lowering and the CUDA text, walked through the runtime's launch
// planner (the one the GPU executor cache plans with) and, per kernel segment, the plan's
// scheduler with its heuristics and codegen's generateKernel (what the executor cache hands its
// FusionExecutor), so the result is what the GPU path compiles for a device with
// these properties. Kernels are named as the GPU backend names the first plan of the first fusion
// it runs (f0, r0).
// Invariant: no device, no NVRTC, no driver call; the only inputs are the fusion, the argument
// layouts (device copies of host tensors are dense or keep their strides, 256-byte aligned) and
// the target's properties.

import { generateKernel, type CompiledKernel } from '@tsfuser/codegen';
import { contiguousStrides, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import {
  bindArguments,
  planLaunch,
  pointerAlignment,
  type LaunchPlanLayout,
  type PlannedArgument,
} from '@tsfuser/runtime';
import {
  defaultSchedulerRegistry,
  HeuristicDataCache,
  materializeStrideOrders,
  segmentFusion,
  segmentationPlanner,
  type SchedulerDevice,
  type RuntimeInfo,
  type SchedulerRegistry,
  type SegmentPlan,
  type SegmentedFusion,
} from '@tsfuser/scheduler';
import type { ExecuteInput } from '../execute/backend.js';
import type { CompileTarget } from './target.js';

export interface TargetCompilation {
  target: CompileTarget;
  /** The top-level runtime info segmentation saw. */
  info: RuntimeInfo;
  segments: SegmentPlan;
  /** The segmenter's full record (edges and their reasons), for segmenter_logging. */
  segmented: SegmentedFusion;
  plan: LaunchPlanLayout<CompiledKernel>;
  registry: SchedulerRegistry;
  /** The arguments as the plan saw them. */
  args: readonly PlannedArgument[];
}

/** The layout and alignment an input has once on the device (what the executor cache sees). */
export function plannedInput(v: ExecuteInput): PlannedArgument {
  if (!(v instanceof Tensor)) return typeof v === 'number' || typeof v === 'bigint' ? { kind: 'scalar', value: Number(v) } : { kind: 'scalar' };
  if (v.isDevice) return { kind: 'tensor', sizes: v.sizes, strides: v.strides, alignment: pointerAlignment(v.dataPtr) };
  // Tensor.toDevice copies a host tensor into a fresh (256-byte aligned) allocation, keeping its
  // strides unless one is negative (then it is made contiguous first).
  const strides = v.strides.some((s) => s < 0) ? contiguousStrides(v.sizes) : v.strides;
  return { kind: 'tensor', sizes: v.sizes, strides, alignment: 256 };
}

function runtimeInfo(fusion: Fusion, args: readonly PlannedArgument[], device: SchedulerDevice): RuntimeInfo {
  return {
    device,
    inputs: fusion.inputs.map((v, i) => {
      const a = args[i];
      if (v.kind === 'tensorView' && a !== undefined && a.kind === 'tensor') return { kind: 'tensor', dtype: v.dtype, sizes: a.sizes, strides: a.strides, alignment: a.alignment };
      const dtype = v.kind === 'scalar' ? v.dtype : 'Double';
      // Integral scalar inputs keep their value, as the executor cache's RuntimeInfo does (sizes).
      const integral = dtype === 'Int' || dtype === 'Int32' || dtype === 'Index';
      return integral && a?.kind === 'scalar' && a.value !== undefined ? { kind: 'scalar', dtype, value: a.value } : { kind: 'scalar', dtype };
    }),
  };
}

/** What compileForTarget keeps beyond the kernels (only what a requested dump needs). */
export interface TargetCompileOptions {
  /** Keep the kernel IR after every lowering pass (the lower_verbose dump). */
  kernelIrAfterEveryPass?: boolean;
}

export function compileForTarget(
  fusion: Fusion,
  inputs: readonly ExecuteInput[],
  target: CompileTarget,
  registry: SchedulerRegistry = defaultSchedulerRegistry(),
  options: TargetCompileOptions = {},
): TargetCompilation {
  // As the executor cache does before anything else (the same pre-segmentation pass).
  fusion = materializeStrideOrders(fusion);
  const args = inputs.map(plannedInput);
  const info = runtimeInfo(fusion, args, target.device);
  const bindings = bindArguments(fusion, info);
  const segments = segmentationPlanner(registry)(fusion, info);
  const segmented = segmentFusion(fusion, info, registry);
  const plan = planLaunch(fusion, args, target.device, segments, bindings, registry, (groupFusion, groupInfo, groupId, schedulerType, accepted) => {
    // As the executor cache makes it: the plan's scheduler, its heuristics once, generateKernel.
    const scheduler = registry.schedulers.find((s) => s.type === schedulerType);
    if (scheduler === undefined) throw new Error(`segment ${groupId} was planned for the ${schedulerType} scheduler, which the registry does not have`);
    const analysis = HeuristicDataCache.for(groupFusion, groupInfo, accepted);
    const params = scheduler.computeHeuristics(groupFusion, groupInfo, analysis);
    if (params.schedulerType === 'expr_eval' || params.schedulerType === 'no_op') throw new Error(`segment ${groupId} needs no kernel (${params.schedulerType}) but was planned as one`);
    const kernel = generateKernel(analysis.scheduled(scheduler), {
      fusionId: 0,
      runtimeId: 0,
      groupId,
      ...(options.kernelIrAfterEveryPass === true ? { kernelIrAfterEveryPass: true } : {}),
    });
    return { kernel, grid: [...kernel.launch.grid] };
  });
  return { target, info, segments, segmented, plan, registry, args };
}
