// The two small kernels around the flash-attention backward: `preprocess` computes
// D = rowsum(dO ∘ O) in f32 per query row (Float [N, H, L], contiguous) and zeroes that row of
// the f32 dQ accumulator; `convert` writes dQ = scale · accumulator in the input dtype with
// dQ's strides. One warp per query row, lanes over the head dim.
//
// Invariant: both kernels cover rows [0, N·H·L) exactly once; the accumulator is contiguous
// [N, H, L, E] f32, zeroed by `preprocess` before the main kernel adds into it.

import { ceilDiv, cudaSignature, float32, int32, int64, pointer, type AttentionKernel, type AttentionParameter } from './kernel.js';
import { attentionPrimitives, mmaTypeName } from './primitives.js';
import { BASELINE_FLAGS, checkVariant, padHeadDim, variantTag, type AttentionVariant } from './variant.js';

const WARPS = 8;

export const PREPROCESS_PARAMETERS: readonly AttentionParameter[] = [
  pointer('o'),
  pointer('gradOutput'),
  pointer('delta'),
  pointer('gradQueryAccumulator'),
  int32('heads'),
  int32('queryLength'),
  int64('rows'),
  ...['o', 'gradOutput'].flatMap((t) => ['N', 'H', 'L'].map((d) => int64(`${t}Stride${d}`))),
];

export const CONVERT_PARAMETERS: readonly AttentionParameter[] = [
  pointer('gradQueryAccumulator'),
  pointer('gradQuery'),
  int32('heads'),
  int32('queryLength'),
  int64('rows'),
  ...['N', 'H', 'L'].map((d) => int64(`gradQueryStride${d}`)),
  float32('scale'),
];

function auxKernel(variant: AttentionVariant, kind: 'preprocess' | 'convert'): AttentionKernel {
  checkVariant(variant);
  const m = mmaTypeName(variant.dtype);
  const e = variant.headDim;
  const name = `tsfuser_attention_bwd_${kind}_${variantTag(variant)}`;
  const rowIndex = `  const long long row = static_cast<long long>(blockIdx.x) * ${WARPS} + (threadIdx.x >> 5);
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const int l = static_cast<int>(row % queryLength);
  const long long nh = row / queryLength;
  const int h = static_cast<int>(nh % heads), n = static_cast<int>(nh / heads);`;
  const bodyText =
    kind === 'preprocess'
      ? `${rowIndex}
  const unsigned short* oRow = o + n * oStrideN + h * oStrideH + l * oStrideL;
  const unsigned short* dRow = gradOutput + n * gradOutputStrideN + h * gradOutputStrideH + l * gradOutputStrideL;
  float* accRow = gradQueryAccumulator + row * ${e};
  float sum = 0.0f;
  for (int c = lane; c < ${e}; c += 32) {
    sum += tsf_${m}_to_float(oRow[c]) * tsf_${m}_to_float(dRow[c]);
    accRow[c] = 0.0f;
  }
#pragma unroll
  for (int w = 16; w > 0; w >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, w);
  if (lane == 0) delta[row] = sum;`
      : `${rowIndex}
  const float* accRow = gradQueryAccumulator + row * ${e};
  unsigned short* qRow = gradQuery + n * gradQueryStrideN + h * gradQueryStrideH + l * gradQueryStrideL;
  for (int c = lane; c < ${e}; c += 32) qRow[c] = tsf_float_to_${m}(accRow[c] * scale);`;
  const parameters = kind === 'preprocess' ? PREPROCESS_PARAMETERS : CONVERT_PARAMETERS;
  const pointerTypes: Record<string, string> =
    kind === 'preprocess'
      ? { o: 'const unsigned short* __restrict__', gradOutput: 'const unsigned short* __restrict__', delta: 'float* __restrict__', gradQueryAccumulator: 'float* __restrict__' }
      : { gradQueryAccumulator: 'const float* __restrict__', gradQuery: 'unsigned short* __restrict__' };
  const source = `// tsfuser attention backward ${kind}: ${name}
${attentionPrimitives(variant.dtype)}
extern "C" __global__ void __launch_bounds__(${32 * WARPS}) ${name}(
    ${cudaSignature(parameters, pointerTypes)}) {
${bodyText}
}
`;
  const headDimPadded = padHeadDim(e);
  return {
    name,
    source,
    parameters,
    block: [32 * WARPS, 1, 1],
    sharedBytes: 0,
    tiling: { ...BASELINE_FLAGS, warps: WARPS, rowTiles: 1, blockM: WARPS, blockN: 0, headDimPadded, rowStride: headDimPadded },
    grid: (p) => [ceilDiv(p.batch * p.heads * p.queryLength, WARPS), 1, 1],
  };
}

export function generateAttentionBackwardPreprocess(variant: AttentionVariant): AttentionKernel {
  return auxKernel(variant, 'preprocess');
}

export function generateAttentionBackwardConvert(variant: AttentionVariant): AttentionKernel {
  return auxKernel(variant, 'convert');
}
