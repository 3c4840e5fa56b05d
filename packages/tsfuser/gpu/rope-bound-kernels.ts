// Hand-written RoPE kernels for tsfuser-resize-variants (GPU tuning experiment, issue 38): the
// body codegen could emit for rope_bf16, to time beside the generated one. The generated 1-D
// kernel reads x's rotate-half partner through two loads under complementary predicates (one per
// cat input, each zero-filled when off) and selects between them per element; these kernels read
// the partner once, at a selected offset (col < half ? col + half : col − half), and negate by
// the same predicate — the "one load per distinct element" form. Same parameters (x, cos, sin,
// out: Int32 Tensor structs), same launch (256 threads × 8 bf16 a thread), same float math
// (x·cos + rotated·sin rounded once to bf16), so outputs are bit-compared with the generated
// kernel's. Three index forms: run-time extents (as generated), IntDivider fast division
// (index-math-variants.ts) and literal extents. sm_90 SASS slots (nvcc 13.0, text / 16): generated
// 224, generated + fast division 184, generated + literals 168; these 200 / 152 / 136.

import { patchConstantExtents, patchFastDivision, type ExtentValue } from './index-math-variants.js';

const HALF = 64;

function body(kernelName: string): string {
  return `extern "C" __global__ void __launch_bounds__(256) ${kernelName}(Tensor<__bfloat, 4, 4> T0, Tensor<__bfloat, 4, 4> T1, Tensor<__bfloat, 4, 4> T2, Tensor<__bfloat, 4, 4> T3) {
  const nvfuser_index_t i1 = T0.logical_size[1];
  const nvfuser_index_t i2 = T0.logical_size[2];
  const nvfuser_index_t i3 = T0.logical_size[3];
  const nvfuser_index_t idx = (blockIdx.x * 256 + threadIdx.x) * 8;
  const nvfuser_index_t row = idx / i3;
  const nvfuser_index_t col = idx - row * i3;
  const nvfuser_index_t s = row / i2 % i1;
  const bool first = col < ${HALF};
  const nvfuser_index_t partner = first ? col + ${HALF} : col - ${HALF};
  Array<__bfloat, 8, 8> X;
  Array<__bfloat, 8, 8> P;
  Array<__bfloat, 8, 8> C;
  Array<__bfloat, 8, 8> S;
  Array<__bfloat, 8, 8> O;
  loadGlobalToLocal<__bfloat, 8>(&X[0], &T0[idx]);
  loadGlobalToLocal<__bfloat, 8>(&P[0], &T0[row * T0.alloc_stride[2] + partner]);
  loadGlobalToLocalEvictLastL2<__bfloat, 8>(&C[0], &T1[s * T1.alloc_stride[1] + col]);
  loadGlobalToLocalEvictLastL2<__bfloat, 8>(&S[0], &T2[s * T2.alloc_stride[1] + col]);
  #pragma unroll
  for (int k = 0; k < 8; ++k) {
    const float p = __bfloat2float(P[k]);
    const float rotated = first ? -p : p;
    // fma(x, cos, rotated · sin): the contraction NVVM makes of the generated x·cos + rotated·sin
    O[k] = __float2bfloat(__fmaf_rn(__bfloat2float(X[k]), __bfloat2float(C[k]), rotated * __bfloat2float(S[k])));
  }
  loadLocalToGlobal<__bfloat, 8>(&T3[idx], &O[0]);
}
`;
}

/**
 * The three hand-written kernels, each the generated source's runtime library (everything before
 * its kernel) plus the body above under the generated kernel's name. Valid only for rope_bf16's
 * launch: contiguous x [B, S, H, 128], rows of 128 = 16 threads × 8, no tail.
 */
export function ropeBoundKernels(generated: string, kernelName: string, size: ExtentValue): { name: string; source: string }[] {
  const at = generated.lastIndexOf('extern "C" __global__');
  if (at < 0) throw new Error('rope bound kernels: the generated kernel was not found');
  const source = generated.slice(0, at) + body(kernelName);
  return [
    { name: 'hand-written: one partner load', source },
    { name: 'hand-written: one partner load + fast division', source: patchFastDivision(source, size) },
    { name: 'hand-written: one partner load + constant extents (bound)', source: patchConstantExtents(source, size) },
  ];
}
