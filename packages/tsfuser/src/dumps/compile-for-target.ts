// Compiles a fusion for a target GPU without one: the segmentation, then the runtime's compile
// plan builder (buildCompilePlan, the one the GPU executor cache runs: per segment the plan's
// scheduler, its heuristics once, the schedule, codegen's kernel and the launch), so the result
// is what the GPU path compiles for a device with these properties. Kernels are named as the GPU backend names the first plan of the first fusion
// it runs (f0, r0).
// Invariant: no device, no NVRTC, no driver call; the only inputs are the fusion, the argument
// layouts (device copies of host tensors are dense or keep their strides, 256-byte aligned) and
// the target's properties.

import type { CompiledKernel } from '@tsfuser/codegen';
import { contiguousStrides, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import {
  bindArguments,
  buildCompilePlan,
  pointerAlignment,
  type CompilePlan,
  type LaunchPlanLayout,
  type PlannedArgument,
} from '@tsfuser/runtime';
import {
  defaultSchedulerRegistry,
  materializeStrideOrders,
  runtimeInfoOf,
  type ExtentBindings,
  segmentFusion,
  segmentationPlanOf,
  type RuntimeInfo,
  type SchedulerRegistry,
  type SegmentationPlan,
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
  /** The compile plan (segments by kind with scheduler, params, scheduled fusion, kernel, launch). */
  compiled: CompilePlan;
  /** `compiled`'s launch layout with each step's kernel. */
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
  return compileForArguments(fusion, inputs.map(plannedInput), target, registry, options);
}

/** The segmentation the GPU path makes for these argument layouts on `target` (no kernels). */
export interface TargetSegmentation {
  /** The fusion as the GPU path runs it (stride orders materialized). */
  fusion: Fusion;
  info: RuntimeInfo;
  /** The inputs' extents bound to `info` (checked once). */
  bindings: ExtentBindings;
  segmented: SegmentedFusion;
  segments: SegmentationPlan;
}

/** The fusion as the executor cache runs it and its runtime info for `args` on `target` (extents checked). */
export function targetRuntimeInfo(original: Fusion, args: readonly PlannedArgument[], target: CompileTarget): { fusion: Fusion; info: RuntimeInfo; bindings: ExtentBindings } {
  // As the executor cache does before anything else (the same pre-segmentation pass).
  const fusion = materializeStrideOrders(original);
  const info = runtimeInfoOf(fusion, args, target.device);
  // The one extent check of this path: segmentation and the compile plan reuse the bindings.
  const bindings = bindArguments(fusion, info);
  return { fusion, info, bindings };
}

/** Segments `fusion` as the executor cache does for `args` on `target` (once: the plan's groups are the record's). */
export function segmentForTarget(original: Fusion, args: readonly PlannedArgument[], target: CompileTarget, registry: SchedulerRegistry = defaultSchedulerRegistry()): TargetSegmentation {
  const { fusion, info, bindings } = targetRuntimeInfo(original, args, target);
  const segmented = segmentFusion(fusion, info, registry, bindings);
  return { fusion, info, bindings, segmented, segments: segmentationPlanOf(segmented) };
}

/** compileForTarget for argument layouts (what an execute saw of its inputs). */
export function compileForArguments(
  original: Fusion,
  args: readonly PlannedArgument[],
  target: CompileTarget,
  registry: SchedulerRegistry = defaultSchedulerRegistry(),
  options: TargetCompileOptions = {},
): TargetCompilation {
  const { fusion, info, bindings, segments } = segmentForTarget(original, args, target, registry);
  // The executor cache's builder: per segment the plan's scheduler, its heuristics once, generateKernel.
  const compiled = buildCompilePlan(fusion, args, target.device, info, segments, {
    registry,
    bindings,
    generate: { fusionId: 0, runtimeId: 0, ...(options.kernelIrAfterEveryPass === true ? { kernelIrAfterEveryPass: true } : {}) },
  });
  return targetCompilationOf(compiled, target, registry);
}

/**
 * The dumps' view of a compile plan — one that ran (the GPU executor cache's lastPlan) or one
 * made for a target; its segmentation record, when the segmenter that made the plan kept none,
 * is made again for the same runtime info.
 */
export function targetCompilationOf(compiled: CompilePlan, target: CompileTarget, registry: SchedulerRegistry = compiled.registry): TargetCompilation {
  const segmented = compiled.segmentation.segmented ?? segmentFusion(compiled.fusion, compiled.info, registry);
  return { target, info: compiled.info, segments: compiled.segmentation, segmented, compiled, plan: kernelLayout(compiled), registry, args: compiled.args };
}

/** The plan's launch layout with each step's generated kernel (what the dump renderers read). */
export function kernelLayout(compiled: CompilePlan): LaunchPlanLayout<CompiledKernel> {
  const { groups, buffers, views, outputs, isOutput } = compiled;
  return { groups, buffers, views, outputs, isOutput, steps: compiled.steps.map((s) => ({ ...s, kernel: s.kernel.kernel })) };
}
