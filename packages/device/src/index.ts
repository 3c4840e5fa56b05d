// Public API of @tsfuser/device: the device layer — CUDA driver, NVRTC and cuBLASLt through the
// native addon, device memory (block pool), Tensor, availability, the cubin cache, timing
// primitives, cuBLASLt GEMMs (GemmLibrary).
// It knows nothing of fusions, schedulers or codegen.
export const packageName = '@tsfuser/device';

export { CudaError, CompileError, RuntimeUnavailableError, GemmError } from './errors.js';
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
  PreparedLaunch,
  CudaEvent,
  FunctionAttribute,
  toDim3,
  type FunctionAttributeName,
  type LaunchConfig,
  type Dim3,
} from './kernel.js';
export { CudaGraph, type GraphOwner } from './cuda-graph.js';
export {
  parameterLayout,
  packArguments,
  packArgumentsInto,
  packArgumentAt,
  packPointerAt,
  parameterSizeAndAlign,
  type KernelParameter,
  type ParameterLayout,
  type ParameterSlot,
  type KernelArgument,
  type TensorArgument,
} from './kernel-arguments.js';
export { Tensor, allocationSpan, storageSpan, type DeviceLayout } from './tensor.js';
export {
  CubinCache,
  type CubinRequest,
  type CubinEntry,
  type CubinCacheStats,
  type CubinCacheOptions,
} from './cubin-cache.js';
export { l2Flusher, median, timeDevice, L2_READ_KERNEL_NAME, L2_READ_KERNEL_SOURCE, type FlushMode, type L2Flusher } from './timing.js';
export {
  GemmLibrary,
  cublasLt,
  gemmAvailability,
  describeGemm,
  type GemmAvailability,
  type GemmNative,
  type GemmDevice,
  type GemmLibraryOptions,
  type GemmCall,
  type GemmCallOptions,
  type CublasLtHeuristicResult,
  type GemmFallbackRecord,
} from './gemm/gemm-library.js';
export {
  GEMM_DTYPES,
  GEMM_EPILOGUE_KINDS,
  type GemmDescriptor,
  type GemmMatrix,
  type GemmVector,
  type GemmAux,
  type GemmEpilogue,
  type GemmEpilogueKind,
  type GemmDtype,
  type GemmScales,
} from './gemm/gemm-descriptor.js';
export { validateGemm, type GemmShape } from './gemm/validate-gemm.js';
export { lowerGemm, gemmHeuristicKey, cublasLtEpilogue, cudaDataType, type CublasLtPlan, type CublasLtLayout, type LoweredGemm } from './gemm/cublaslt-plan.js';
export { CUBLASLT_VALUES, type CublasLtValueName } from './gemm/cublaslt-constants.js';
export { fp8ScalesToStage, SCALE_ALIGNMENT, type StagedScale } from './gemm/fp8-scale-staging.js';
export { fallbackForm, fallbackSteps, type GemmFallbackForm, type GemmFallbackResources } from './gemm/gemm-fallback.js';
export { completeFp8Output, fp8OutputCType, type Fp8OutputForm, type Fp8OutputResources } from './gemm/fp8-output.js';
