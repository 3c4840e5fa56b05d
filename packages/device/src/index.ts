// Public API of @tsfuser/device: the device layer — CUDA driver and NVRTC through the native
// addon, device memory (block pool), Tensor, availability, the cubin cache, timing primitives.
// It knows nothing of fusions, schedulers or codegen.
export const packageName = '@tsfuser/device';

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
export { l2Flusher, median, timeDevice, L2_READ_KERNEL_NAME, L2_READ_KERNEL_SOURCE, type FlushMode, type L2Flusher } from './timing.js';
