// CUDA text shared by the forward and backward generators, emitted inside each kernel's own
// namespace (so kernels of one translation unit do not collide): the cp.async tile loader with
// zero-fill beyond the valid rows and the head dim, the score transform (scale to the log2
// domain, additive bias or boolean mask) and the dropout keep test.
//
// Invariant: the keep test is exactly the reference's: element (n, h, l, s) has linear index
// i = ((n·H + h)·L + l)·S + s; u = uniformf(philox(seed, i / 4, offset)[i % 4]); kept iff
// u < keepProb, keepProb = float32(1 − p).

import { PHILOX_CORE } from '../emit/runtime/philox.js';
import { cudaSignature, type AttentionParameter } from './kernel.js';
import { attentionPrimitives, biasLoader } from './primitives.js';
import type { AttentionTiling, AttentionVariant } from './variant.js';

/**
 * The whole translation unit of one attention kernel: the header comment, Philox when the
 * variant has dropout, the mma / bias primitives, the kernel's namespace (tile constants, tile
 * loader, score transform, keep test) and the `extern "C"` kernel around `body` — the skeleton
 * the forward and the backward generators share (their bodies and parameters differ);
 * `helpers` (the wgmma forward's PTX helpers) follow the primitives.
 */
export function attentionKernelSource(
  variant: AttentionVariant,
  t: AttentionTiling,
  name: string,
  header: string,
  signature: { parameters: readonly AttentionParameter[]; pointerTypes: Readonly<Record<string, string>> },
  body: string,
  helpers = '',
): string {
  return `// ${header}
${variant.dropout ? philoxOnce() : ''}
${attentionPrimitives(variant.dtype, variant.bias === 'additive' ? variant.biasDtype : undefined)}${helpers}
namespace ${name}_impl {
${tileConstants(variant, t)}
${TILE_LOADER}
${scoreTransform(variant)}
${variant.dropout ? DROPOUT_KEEP : ''}
}  // namespace ${name}_impl

extern "C" __global__ void __launch_bounds__(${32 * t.warps}, ${t.minBlocksPerSm}) ${name}(
    ${cudaSignature(signature.parameters, signature.pointerTypes)}) {
  using namespace ${name}_impl;
${body}
}
`;
}

/** `constexpr` constants every kernel body uses. */
export function tileConstants(variant: AttentionVariant, t: AttentionTiling): string {
  return `constexpr int kWarps = ${t.warps};
constexpr int kRowTiles = ${t.rowTiles};
constexpr bool kQInRegisters = ${t.qInRegisters ? 'true' : 'false'};
constexpr int kThreads = ${32 * t.warps};
constexpr int kBlockM = ${t.blockM};
constexpr int kBlockN = ${t.blockN};
constexpr int kHeadDim = ${variant.headDim};
constexpr int kHeadDimPad = ${t.headDimPadded};
constexpr int kRowStride = ${t.rowStride};
constexpr int kChunks = kHeadDimPad / 8;
constexpr bool kCausal = ${variant.causal ? 'true' : 'false'};
constexpr bool kBias = ${variant.bias === 'additive' ? 'true' : 'false'};
constexpr bool kMask = ${variant.bias === 'bool' ? 'true' : 'false'};
constexpr bool kDropout = ${variant.dropout ? 'true' : 'false'};
static_assert(kBlockM % 16 == 0 && kBlockN % 16 == 0 && kHeadDimPad % 16 == 0 && kThreads == 32 * kWarps, "attention tile shape");`;
}

/**
 * Copies rows [0, kRows) × head dim of a global tile into shared memory (cp.async, not
 * committed). When the threads cover whole rows (kThreads a multiple of the row's 16-byte
 * chunks), each thread copies one column chunk of every kRowStep-th row through one advancing
 * pointer: the per-row 64-bit offsets of the general path are loop invariants that the
 * compiler keeps in registers across the K/V loop (measured: 168 → 40 bytes of spills in the
 * 4-warp 128×64 forward at E 128).
 */
export const TILE_LOADER = `template <int kRows>
TSF_D void load_tile(unsigned short* smem, const unsigned short* g, long long rowStride, int validRows) {
  if constexpr (kThreads % kChunks == 0 && kRows % (kThreads / kChunks) == 0) {
    constexpr int kRowStep = kThreads / kChunks;
    const int r0 = static_cast<int>(threadIdx.x) / kChunks, col = (static_cast<int>(threadIdx.x) % kChunks) * 8;
    const int left = kHeadDim - col;
    const int chunkBytes = left >= 8 ? 16 : left > 0 ? 2 * left : 0;
    const unsigned short* src = g + r0 * rowStride + col;
    const long long step = kRowStep * rowStride;
    const unsigned dst = tsf_smem(smem + r0 * kRowStride + col);
#pragma unroll
    for (int i = 0; i < kRows / kRowStep; ++i) {
      const int bytes = r0 + i * kRowStep < validRows ? chunkBytes : 0;
      tsf_cp_async16(dst + 2 * i * kRowStep * kRowStride, bytes > 0 ? src : g, bytes);
      src += step;
    }
  } else {
#pragma unroll
    for (int c0 = 0; c0 < kRows * kChunks; c0 += kThreads) {
      const int c = c0 + static_cast<int>(threadIdx.x);
      if (kRows * kChunks % kThreads == 0 || c < kRows * kChunks) {
        const int r = c / kChunks, col = (c % kChunks) * 8;
        const int left = kHeadDim - col;
        const int bytes = r < validRows && left > 0 ? (left >= 8 ? 16 : 2 * left) : 0;
        const unsigned short* src = bytes > 0 ? g + r * rowStride + col : g;
        tsf_cp_async16(tsf_smem(smem + r * kRowStride + col), src, bytes);
      }
    }
  }
}`;

/** The bias / mask term of one score in the log2 domain (`value` is the MMA result). */
export function scoreTransform(variant: AttentionVariant): string {
  const bias = variant.bias;
  switch (bias) {
    case 'none':
      return `TSF_D float score_log2(float value, float scaleLog2, const void*, long long) { return value * scaleLog2; }`;
    case 'additive': {
      const loader = biasLoader(variant.biasDtype ?? 'Float');
      return `TSF_D float score_log2(float value, float scaleLog2, const void* bias, long long at) {
  const ${loader.type}* b = static_cast<const ${loader.type}*>(bias);
  return fmaf(${loader.load('b[at]')}, TSF_LOG2E, value * scaleLog2);
}`;
    }
    case 'bool':
      return `TSF_D float score_log2(float value, float scaleLog2, const void* mask, long long at) {
  return static_cast<const unsigned char*>(mask)[at] != 0 ? value * scaleLog2 : -tsf_inf();
}`;
    default: {
      const unreachable: never = bias;
      throw new Error(`unknown bias kind ${String(unreachable)}`);
    }
  }
}

/** keep(i): the dropout keep test of element i (needs PHILOX_CORE). */
export const DROPOUT_KEEP = `TSF_D bool dropout_keep(long long i, long long seed, long long offset, float keepProb) {
  unsigned w[4];
  nvf_philox(static_cast<unsigned long long>(seed), static_cast<unsigned long long>(i >> 2), static_cast<unsigned long long>(offset), w);
  return nvf_uniformf(tsf_pick(w[0], w[1], w[2], w[3], static_cast<int>(i & 3))) < keepProb;
}`;

/** codegen's Philox helpers, guarded so that several dropout kernels can share a translation unit. */
export function philoxOnce(): string {
  return `#ifndef TSF_ATTENTION_PHILOX\n#define TSF_ATTENTION_PHILOX\n${PHILOX_CORE}\n#endif\n`;
}
