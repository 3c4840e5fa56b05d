// Public API of @tsfuser/runtime: the orchestration above codegen and the device layer — the
// executor cache, launch plans, FusionExecutor.
export const packageName = '@tsfuser/runtime';

export { ExecutorInputError, InputExtentMismatchError } from './errors.js';
export { inputExtentGroups, inputExtentMismatch, type InputExtentGroups, type InputExtentMismatch } from './executor/extent-groups.js';
export { FusionExecutor, KERNEL_NVRTC_OPTIONS, type CompileReport, type ExecutorCompileOptions } from './executor/fusion-executor.js';
export { hasDivisorArguments, kernelParameterLayout, packKernelArguments, withDivisorArguments } from './executor/pack-kernel-arguments.js';
export {
  FusionExecutorCache,
  type ExecutorCacheOptions,
  type ExecutorCacheStats,
  type ExecutorDump,
  type RunFusionOptions,
} from './executor/fusion-executor-cache.js';
export { captureRefusal, sameScalars, segmentCaptureRefusal, type CapturedPlan, type GraphRun, type PlanGraph, type PointerCapturedPlan, type PointerGraph } from './executor/graph-capture.js';
export { outputLayout, type TensorLayout } from './executor/output-allocation.js';
export { runtimeInfoFor, schedulerDevice, pointerAlignment, plannedArguments, type ExecutorArgument } from './executor/runtime-info.js';
export {
  bindArguments,
  planLaunch,
  type GroupKernelPlanner,
  type LaunchPlanLayout,
  type PlannedArgument,
  type PlannedGroup,
  type PlanRef,
  type PlanStep,
  type PlanView,
} from './executor/launch-planner.js';
export { attentionFlops, finishProfile, gemmFlops, teraflops, type FusionProfile, type KernelProfile, type PendingKernelTiming, type ProfiledKind } from './executor/kernel-profile.js';
export { occupancyLine, occupancyPercent, type OccupancyFigures } from './executor/occupancy-line.js';
export { wholeFusion } from './executor/segment-plan.js';
export {
  buildCompilePlan, planKernels, replaceKernelSegment,
  type CompilePlan, type CompilePlanOptions, type EmptySegment, type PlanSegment, type ViewSegment,
} from './plan/compile-plan.js';
export {
  kernelKey, planKernelSegment,
  type GeneratedKernelSegment, type GreedyKernelSegment, type KernelMemo, type KernelSegment, type KernelSegmentOptions,
} from './plan/kernel-segment.js';
export {
  gemmDescriptorOf, planLibraryCallSegment, runLibraryCall,
  type GemmBuffer, type GemmRunner, type LibraryCallContext, type LibraryCallSegment,
} from './plan/library-call-segment.js';
export {
  attentionKernelsToString, planAttentionSegment, runAttention,
  type AttentionBuffer, type AttentionDevice, type AttentionSegment,
} from './plan/attention-segment.js';
export { ExecutorAttentionDevice } from './executor/attention-device.js';
