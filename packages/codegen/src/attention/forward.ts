// Generator of the flash-attention forward kernel (FlashAttention-2 algorithm) for sm_90:
// one CTA per (query tile of blockM rows, head, batch); the Q tile stays in shared memory, K/V
// tiles of blockN rows stream through two shared-memory stages with cp.async (the next tile
// loads while this one is computed); each warp owns 16 query rows, computes S = Q Kᵀ and
// O += P V with mma.sync m16n8k16 (ldmatrix; .trans for V) in f32, and keeps its rows' running
// max and sum in registers (online softmax, exp2 with the log2e-prescaled scale). Writes O in
// the input dtype and logsumexp (natural log, Float [N, H, L], contiguous).
//
// Invariant: a query row l attends key s iff s < S, (not causal or s ≤ l), and the mask (if
// any) is true; a row that attends nothing gets O = 0 and logsumexp = −inf, as PyTorch gives.
// Dropout drops P after the row sum (logsumexp is of the undropped scores) and scales the
// kept values by keepScale = float32(1 / (1 − p)).

import { ceilDiv, cudaSignature, float32, int32, int64, pointer, type AttentionKernel, type AttentionParameter } from './kernel.js';
import { attentionPrimitives, mmaTypeName } from './primitives.js';
import { DROPOUT_KEEP, philoxOnce, scoreTransform, TILE_LOADER, tileConstants } from './shared-code.js';
import { checkVariant, forwardSharedBytes, forwardTiling, variantTag, type AttentionTiling, type AttentionVariant } from './variant.js';

/** Parameters of every forward kernel, in order (bias and dropout ones ignored by variants without them). */
export const FORWARD_PARAMETERS: readonly AttentionParameter[] = [
  pointer('q'),
  pointer('k'),
  pointer('v'),
  pointer('o'),
  pointer('lse'),
  pointer('bias'),
  int32('heads'),
  int32('kvHeads'),
  int32('queryLength'),
  int32('keyLength'),
  ...['q', 'k', 'v', 'o'].flatMap((t) => ['N', 'H', 'L'].map((d) => int64(`${t}Stride${d}`))),
  ...['N', 'H', 'L', 'S'].map((d) => int64(`biasStride${d}`)),
  float32('scaleLog2'),
  int64('seed'),
  int64('offset'),
  float32('keepProb'),
  float32('keepScale'),
];

const POINTER_TYPES: Readonly<Record<string, string>> = {
  q: 'const unsigned short* __restrict__',
  k: 'const unsigned short* __restrict__',
  v: 'const unsigned short* __restrict__',
  o: 'unsigned short* __restrict__',
  lse: 'float* __restrict__',
  bias: 'const void* __restrict__',
};

export function forwardKernelName(variant: AttentionVariant): string {
  return `tsfuser_attention_fwd_${variantTag(variant)}`;
}

const DROPOUT_APPLY = `    {  // dropout: P of the dropped elements is 0 (their sum is already counted)
#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
        for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int row = row0 + rt * 16 + (e >> 1) * 8;
            const int col = n0 + i * 8 + 2 * tq + (e & 1);
            if (row < queryLength && col < keyLength && !dropout_keep((dropRow + row) * keyLength + col, seed, offset, keepProb)) s[rt][i][e] = 0.0f;
          }
        }
      }
    }
`;

function body(variant: AttentionVariant): string {
  const m = mmaTypeName(variant.dtype);
  return `  extern __shared__ __align__(16) unsigned char smemRaw[];
  unsigned short* sQ = reinterpret_cast<unsigned short*>(smemRaw);
  unsigned short* sK = sQ + kBlockM * kRowStride;
  unsigned short* sV = sK + 2 * kBlockN * kRowStride;
  // Causal: the last query tiles have the most keys, so they start first.
  const int mBlock = kCausal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int h = blockIdx.y, n = blockIdx.z;
  const int hk = h / (heads / kvHeads);
  const int m0 = mBlock * kBlockM;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, tq = lane & 3;
  // This warp's query rows: kRowTiles tiles of 16 from warpRow.
  const int warpRow = warp * 16 * kRowTiles;
  const unsigned short* qTile = q + n * qStrideN + h * qStrideH + m0 * qStrideL;
  const unsigned short* kHead = k + n * kStrideN + hk * kStrideH;
  const unsigned short* vHead = v + n * vStrideN + hk * vStrideH;
  int nBlocks = (keyLength + kBlockN - 1) / kBlockN;
  if (kCausal) nBlocks = min(nBlocks, (min(m0 + kBlockM, queryLength) - 1) / kBlockN + 1);

  load_tile<kBlockM>(sQ, qTile, qStrideL, queryLength - m0);
  if (nBlocks > 0) {
    load_tile<kBlockN>(sK, kHead, kStrideL, keyLength);
    load_tile<kBlockN>(sV, vHead, vStrideL, keyLength);
  }
  tsf_cp_async_commit();

  constexpr int kOTiles = kHeadDimPad / 8;
  constexpr int kSTiles = kBlockN / 8;
  float acc[kRowTiles][kOTiles][4];
  float rowMax[kRowTiles][2], rowSum[kRowTiles][2];
#pragma unroll
  for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
    for (int i = 0; i < kOTiles; ++i) acc[rt][i][0] = acc[rt][i][1] = acc[rt][i][2] = acc[rt][i][3] = 0.0f;
    rowMax[rt][0] = rowMax[rt][1] = -tsf_inf();
    rowSum[rt][0] = rowSum[rt][1] = 0.0f;
  }
  const int row0 = m0 + warpRow + g;
  const long long biasRow = n * biasStrideN + h * biasStrideH;
  const long long dropRow = (static_cast<long long>(n) * heads + h) * queryLength;
  (void)biasRow;
  (void)dropRow;

  // Q fragments held in registers for the whole K/V loop (tiling.qInRegisters) instead of
  // re-read from shared memory for every K tile.
  unsigned qFrag[kQInRegisters ? kHeadDimPad / 16 : 1][kRowTiles][4];
  if constexpr (kQInRegisters) {
    tsf_cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kHeadDimPad / 16; ++kk) {
#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
        tsf_ldmatrix_x4(tsf_smem(sQ + (warpRow + rt * 16 + (lane & 15)) * kRowStride + kk * 16 + (lane >> 4) * 8), qFrag[kk][rt][0], qFrag[kk][rt][1], qFrag[kk][rt][2], qFrag[kk][rt][3]);
      }
    }
  }
  (void)qFrag;

  for (int j = 0; j < nBlocks; ++j) {
    const int stage = j & 1;
    const int n0 = j * kBlockN;
    if (j + 1 < nBlocks) {
      load_tile<kBlockN>(sK + (stage ^ 1) * kBlockN * kRowStride, kHead + (n0 + kBlockN) * kStrideL, kStrideL, keyLength - n0 - kBlockN);
      load_tile<kBlockN>(sV + (stage ^ 1) * kBlockN * kRowStride, vHead + (n0 + kBlockN) * vStrideL, vStrideL, keyLength - n0 - kBlockN);
      tsf_cp_async_commit();
      tsf_cp_async_wait<1>();
    } else {
      tsf_cp_async_wait<0>();
    }
    __syncthreads();
    const unsigned short* sKs = sK + stage * kBlockN * kRowStride;
    const unsigned short* sVs = sV + stage * kBlockN * kRowStride;

    // S = Q Kᵀ: each K fragment feeds the warp's kRowTiles row tiles.
    float s[kRowTiles][kSTiles][4];
#pragma unroll
    for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
      for (int i = 0; i < kSTiles; ++i) s[rt][i][0] = s[rt][i][1] = s[rt][i][2] = s[rt][i][3] = 0.0f;
    }
#pragma unroll
    for (int kk = 0; kk < kHeadDimPad / 16; ++kk) {
      unsigned a[kRowTiles][4];
#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
        if constexpr (kQInRegisters) {
          a[rt][0] = qFrag[kk][rt][0];
          a[rt][1] = qFrag[kk][rt][1];
          a[rt][2] = qFrag[kk][rt][2];
          a[rt][3] = qFrag[kk][rt][3];
        } else {
          tsf_ldmatrix_x4(tsf_smem(sQ + (warpRow + rt * 16 + (lane & 15)) * kRowStride + kk * 16 + (lane >> 4) * 8), a[rt][0], a[rt][1], a[rt][2], a[rt][3]);
        }
      }
#pragma unroll
      for (int np = 0; np < kBlockN / 16; ++np) {
        unsigned b0, b1, b2, b3;
        tsf_ldmatrix_x4(tsf_smem(sKs + (np * 16 + (lane & 7) + ((lane >> 4) << 3)) * kRowStride + kk * 16 + ((lane >> 3) & 1) * 8), b0, b1, b2, b3);
#pragma unroll
        for (int rt = 0; rt < kRowTiles; ++rt) {
          tsf_mma_${m}(s[rt][2 * np], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b0, b1);
          tsf_mma_${m}(s[rt][2 * np + 1], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b2, b3);
        }
      }
    }

    // Scores in the log2 domain; masked ones -inf. Only tiles that cross the key end or the
    // diagonal test each element.
    const bool edge = n0 + kBlockN > keyLength || (kCausal && n0 + kBlockN - 1 > m0 + warpRow);
#pragma unroll
    for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
      for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int row = row0 + rt * 16 + (e >> 1) * 8;
          const int col = n0 + i * 8 + 2 * tq + (e & 1);
          float x;
          if constexpr (kBias || kMask) {
            const bool inside = row < queryLength && col < keyLength;
            x = inside ? score_log2(s[rt][i][e], scaleLog2, bias, biasRow + row * biasStrideL + col * biasStrideS) : -tsf_inf();
          } else {
            x = s[rt][i][e] * scaleLog2;
          }
          if (edge && (col >= keyLength || (kCausal && col > row))) x = -tsf_inf();
          s[rt][i][e] = x;
        }
      }
    }

    // Online softmax: new running max, rescale O and the sum, P = exp2(x - max).
#pragma unroll
    for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float mx = rowMax[rt][r];
#pragma unroll
        for (int i = 0; i < kSTiles; ++i) mx = fmaxf(mx, fmaxf(s[rt][i][2 * r], s[rt][i][2 * r + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        // A row with no key so far keeps max -inf; exp2 against 0 then gives 0 for its -inf scores.
        const float base = mx == -tsf_inf() ? 0.0f : mx;
        const float alpha = tsf_exp2(rowMax[rt][r] - base);
        rowMax[rt][r] = mx;
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < kSTiles; ++i) {
          const float p0 = tsf_exp2(s[rt][i][2 * r] - base), p1 = tsf_exp2(s[rt][i][2 * r + 1] - base);
          s[rt][i][2 * r] = p0;
          s[rt][i][2 * r + 1] = p1;
          sum += p0 + p1;
        }
        rowSum[rt][r] = rowSum[rt][r] * alpha + sum;
#pragma unroll
        for (int i = 0; i < kOTiles; ++i) {
          acc[rt][i][2 * r] *= alpha;
          acc[rt][i][2 * r + 1] *= alpha;
        }
      }
    }

${variant.dropout ? DROPOUT_APPLY : ''}    // O += P V: P from the S registers (C layout = A layout of the next MMA), V through
    // ldmatrix.trans, each V fragment feeding the warp's kRowTiles row tiles.
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      unsigned a[kRowTiles][4];
#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
        a[rt][0] = tsf_pack_${m}(s[rt][2 * kk][0], s[rt][2 * kk][1]);
        a[rt][1] = tsf_pack_${m}(s[rt][2 * kk][2], s[rt][2 * kk][3]);
        a[rt][2] = tsf_pack_${m}(s[rt][2 * kk + 1][0], s[rt][2 * kk + 1][1]);
        a[rt][3] = tsf_pack_${m}(s[rt][2 * kk + 1][2], s[rt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int ep = 0; ep < kHeadDimPad / 16; ++ep) {
        unsigned b0, b1, b2, b3;
        tsf_ldmatrix_x4_trans(tsf_smem(sVs + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowStride + ep * 16 + (lane >> 4) * 8), b0, b1, b2, b3);
#pragma unroll
        for (int rt = 0; rt < kRowTiles; ++rt) {
          tsf_mma_${m}(acc[rt][2 * ep], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b0, b1);
          tsf_mma_${m}(acc[rt][2 * ep + 1], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b2, b3);
        }
      }
    }
    __syncthreads();
  }
  tsf_cp_async_wait<0>();  // S = 0: the Q tile's copies are still outstanding.

  // Epilogue: the quad's partial sums, O / sum (0 for a row with no key), logsumexp.
#pragma unroll
  for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float sum = rowSum[rt][r];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const int row = row0 + rt * 16 + r * 8;
      const float inv = sum > 0.0f ? (kDropout ? keepScale : 1.0f) / sum : 0.0f;
      if (row < queryLength) {
        unsigned short* oRow = o + n * oStrideN + h * oStrideH + row * oStrideL;
#pragma unroll
        for (int i = 0; i < kOTiles; ++i) {
          const int col = i * 8 + 2 * tq;
          if (col + 1 < kHeadDim) {
            *reinterpret_cast<unsigned*>(oRow + col) = tsf_pack_${m}(acc[rt][i][2 * r] * inv, acc[rt][i][2 * r + 1] * inv);
          } else if (col < kHeadDim) {
            oRow[col] = tsf_float_to_${m}(acc[rt][i][2 * r] * inv);
          }
        }
        if (tq == 0) lse[(static_cast<long long>(n) * heads + h) * queryLength + row] = sum > 0.0f ? (rowMax[rt][r] + log2f(sum)) * TSF_LN2 : -tsf_inf();
      }
    }
  }`;
}

/** The forward kernel of `variant` (its tiling from `forwardTiling` unless given). */
export function generateAttentionForward(variant: AttentionVariant, tilingOverride?: AttentionTiling): AttentionKernel {
  checkVariant(variant);
  const t = tilingOverride ?? forwardTiling(variant);
  const name = forwardKernelName(variant);
  const source = `// tsfuser attention forward: ${name} (tile ${t.blockM}x${t.blockN}, ${t.warps} warps)
${variant.dropout ? philoxOnce() : ''}
${attentionPrimitives(variant.dtype, variant.bias === 'additive' ? variant.biasDtype : undefined)}
namespace ${name}_impl {
${tileConstants(variant, t)}
${TILE_LOADER}
${scoreTransform(variant)}
${variant.dropout ? DROPOUT_KEEP : ''}
}  // namespace ${name}_impl

extern "C" __global__ void __launch_bounds__(${32 * t.warps}, ${t.minBlocksPerSm}) ${name}(
    ${cudaSignature(FORWARD_PARAMETERS, POINTER_TYPES)}) {
  using namespace ${name}_impl;
${body(variant)}
}
`;
  return {
    name,
    source,
    parameters: FORWARD_PARAMETERS,
    block: [32 * t.warps, 1, 1],
    sharedBytes: forwardSharedBytes(t),
    tiling: t,
    grid: (p) => [ceilDiv(p.queryLength, t.blockM), p.heads, p.batch],
  };
}
