// Public API of @tsfuser/runtime: the native executor over the CUDA driver API and NVRTC.
export const packageName = '@tsfuser/runtime';

export { CudaError, CompileError, RuntimeUnavailableError } from './errors.js';
export { isAvailable, type Availability } from './availability.js';
export { loadAddon, addonSearchPaths, ADDON_ABI_VERSION, ADDON_FILE, type AddonLoad, type NativeAddon } from './native/addon.js';
export {
  DeviceContext,
  type DeviceProperties,
  type CopyRange,
  type DeviceCompileOptions,
  type CachedCompile,
} from './device.js';
export { compileWithNvrtc, nvrtcOptions, type NvrtcOptions, type NvrtcOutput } from './compile.js';
export {
  KernelModule,
  KernelFunction,
  CudaEvent,
  FunctionAttribute,
  toDim3,
  type FunctionAttributeName,
  type LaunchConfig,
  type Dim3,
} from './kernel.js';
export {
  parameterLayout,
  packArguments,
  parameterSizeAndAlign,
  type KernelParameter,
  type ParameterLayout,
  type ParameterSlot,
  type KernelArgument,
  type TensorArgument,
} from './kernel-arguments.js';
export { Tensor, storageSpan } from './tensor.js';
export {
  CubinCache,
  type CubinRequest,
  type CubinEntry,
  type CubinCacheStats,
  type CubinCacheOptions,
} from './cubin-cache.js';
export { ExecutorInputError } from './errors.js';
export { FusionExecutor, KERNEL_NVRTC_OPTIONS, type CompileReport, type ExecutorCompileOptions } from './executor/fusion-executor.js';
export { kernelParameterLayout, packKernelArguments } from './executor/pack-kernel-arguments.js';
export {
  FusionExecutorCache,
  type ExecutorCacheOptions,
  type ExecutorCacheStats,
  type ExecutorDump,
} from './executor/fusion-executor-cache.js';
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
export { wholeFusion } from './executor/segment-plan.js';
export { l2Flusher, median, timeDevice, L2_READ_KERNEL_NAME, L2_READ_KERNEL_SOURCE, type FlushMode, type L2Flusher } from './timing.js';
