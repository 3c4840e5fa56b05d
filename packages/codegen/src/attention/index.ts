// Public API of codegen's attention kernels: CUDA C++ generators for flash-attention forward
// and backward (FlashAttention-2 algorithm, mma.sync m16n8k16, sm_90), their launch
// descriptions and the input checks. A runtime segment compiles `kernel.source` with NVRTC,
// raises the function's shared-memory limit to `kernel.sharedBytes`, packs the arguments in
// `kernel.parameters` order and launches `kernel.grid(problem)` × `kernel.block`.
export { generateAttentionForward, forwardKernelName, FORWARD_PARAMETERS } from './forward.js';
export { generateAttentionBackward, backwardKernelName, BACKWARD_PARAMETERS } from './backward.js';
export { dqWarpLayout, type DqWarpLayout } from './backward-dq.js';
export { generateAttentionBackwardPreprocess, generateAttentionBackwardConvert, PREPROCESS_PARAMETERS, CONVERT_PARAMETERS } from './backward-aux.js';
export { checkAttentionInputs, dropoutConstants, type AttentionInputs, type AttentionTensorInfo } from './inputs.js';
export { BACKWARD_TUNING, FORWARD_TUNING, tuningTiling, type TuningEntry } from './tuning.js';
export { generateWgmmaForward, wgmmaForwardKernelName, wgmmaRefusal, WGMMA_ARCH } from './wgmma-forward.js';
export { canonicalAddress, decodeDescriptor, encodeDescriptor, kMajorDescriptor, mnMajorDescriptor, tileOffset, type MatrixDescriptor } from './wgmma-layout.js';
export { kernelArch, orderArguments, type AttentionKernel, type AttentionParameter, type AttentionProblem, type Dim3 } from './kernel.js';
export {
  backwardSharedBytes,
  BASELINE_FLAGS,
  backwardTiling,
  customTiling,
  forwardSharedBytes,
  forwardTiling,
  forwardTilingForDevice,
  WGMMA_DEFAULT_FLAGS,
  MAX_HEAD_DIM,
  MAX_SHARED_BYTES,
  MIN_HEAD_DIM,
  padHeadDim,
  tilingTag,
  variantTag,
  type AttentionBiasDtype,
  type AttentionBiasKind,
  type AttentionDtype,
  type AttentionTiling,
  type ForwardPipeline,
  type AttentionMma,
  type TilingFlags,
  type AttentionVariant,
} from './variant.js';
