// Generator of the flash-attention backward main kernel (FlashAttention-2 algorithm) for sm_90:
// one CTA per (K/V tile of blockN rows, KV head, batch); K and V stay in shared memory, and the
// CTA loops over the query heads of its group (GQA: dK and dV summed over them in registers)
// and over the Q tiles of blockM rows (Q, dO, logsumexp and D streamed through two stages with
// cp.async). Each warp owns 16 key rows and computes, with mma.sync m16n8k16 in f32:
//   Sᵀ = K Qᵀ, Pᵀ = exp2(Sᵀ·scale·log2e − lse·log2e)   (P recomputed from the saved logsumexp)
//   dPᵀ = V dOᵀ, dSᵀ = Pᵀ ∘ (dPᵀ − D)                   (dropout: dP of the kept elements × keepScale)
//   dV += (P ∘ Z)ᵀ dO, dK += dSᵀ Q                       (Z the dropout keep mask)
// then dSᵀ goes to shared memory and the warps split dQ_tile = dS K over (row group, column
// group), added into the f32 accumulator with atomicAdd (the tiles of one Q block come from
// every K/V CTA, so a separate dQ pass would recompute P once more: FA2 makes the same choice).
// The dQ product is backward-dq.ts's, behind its own barrier or (deferDq) at the top of the next
// step; staggerQ rotates the order of the Q steps.
//
// Invariant: P is exactly 0 where the forward attended nothing (s ≥ S, causal s > l, mask
// false, or a row whose logsumexp is −inf), so those elements add nothing to dQ, dK, dV.

import { ceilDiv, float32, int32, int64, pointer, type AttentionKernel, type AttentionParameter } from './kernel.js';
import { dqProduct } from './backward-dq.js';
import { mmaTypeName } from './primitives.js';
import { attentionKernelSource } from './shared-code.js';
import { backwardSharedBytes, backwardTiling, checkVariant, variantTag, type AttentionTiling, type AttentionVariant } from './variant.js';

export const BACKWARD_PARAMETERS: readonly AttentionParameter[] = [
  pointer('q'),
  pointer('k'),
  pointer('v'),
  pointer('gradOutput'),
  pointer('lse'),
  pointer('delta'),
  pointer('gradQueryAccumulator'),
  pointer('gradKey'),
  pointer('gradValue'),
  pointer('bias'),
  int32('heads'),
  int32('kvHeads'),
  int32('queryLength'),
  int32('keyLength'),
  ...['q', 'k', 'v', 'gradOutput', 'gradKey', 'gradValue'].flatMap((t) => ['N', 'H', 'L'].map((d) => int64(`${t}Stride${d}`))),
  ...['N', 'H', 'L', 'S'].map((d) => int64(`biasStride${d}`)),
  float32('scaleLog2'),
  float32('scale'),
  int64('seed'),
  int64('offset'),
  float32('keepProb'),
  float32('keepScale'),
];

const POINTER_TYPES: Readonly<Record<string, string>> = {
  q: 'const unsigned short* __restrict__',
  k: 'const unsigned short* __restrict__',
  v: 'const unsigned short* __restrict__',
  gradOutput: 'const unsigned short* __restrict__',
  lse: 'const float* __restrict__',
  delta: 'const float* __restrict__',
  gradQueryAccumulator: 'float* __restrict__',
  gradKey: 'unsigned short* __restrict__',
  gradValue: 'unsigned short* __restrict__',
  bias: 'const void* __restrict__',
};

export function backwardKernelName(variant: AttentionVariant): string {
  return `tsfuser_attention_bwd_${variantTag(variant)}`;
}

const DROPOUT_APPLY = `#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int srow = srow0 + (e >> 1) * 8;
        const int lcol = m0 + i * 8 + 2 * tq + (e & 1);
        const bool keep = srow < keyLength && lcol < queryLength && dropout_keep((dropHead + lcol) * keyLength + srow, seed, offset, keepProb);
        dp[i][e] = keep ? dp[i][e] * keepScale : 0.0f;
        pd[i][e] = keep ? p[i][e] : 0.0f;
      }
    }
`;

/**
 * staggerQ: the CTA of K/V tile nBlock starts its Q loop at step nBlock (mod steps) and wraps
 * around, so that the K/V CTAs of one head, which run at the same time, add their dQ tiles into
 * different rows of the accumulator instead of all into the same 64 rows (same-address
 * red.global.add serialises in L2). The order of the steps changes nothing else: every step
 * reads only its own Q / dO / logsumexp / D tiles and adds dK, dV in registers.
 */
const STAGGER = `  const int stepRotation = steps > 0 ? nBlock % steps : 0;
  auto stepOrder = [&](int x) {
    const int y = x + stepRotation;
    return y < steps ? y : y - steps;
  };
`;

/** Waits and loads at the top of step it (see AttentionTiling.pipeline; split1 is forward-only). */
function pipelineTop(t: AttentionTiling): string {
  if (t.pipeline === 'joint2-1sync') {
    // After this barrier every warp has finished step it-1: its stage and the dSᵀ tile are free.
    return `    tsf_cp_async_wait<0>();
    __syncthreads();
    if (it + 1 < steps) {
      loadStep(it + 1, stage ^ 1);
      tsf_cp_async_commit();
    }`;
  }
  return `    if (it + 1 < steps) {
      loadStep(it + 1, stage ^ 1);
      tsf_cp_async_commit();
      tsf_cp_async_wait<1>();
    } else {
      tsf_cp_async_wait<0>();
    }
    __syncthreads();`;
}

/**
 * Pᵀ from the saved logsumexp; 0 where the forward attended nothing. `masked`: each element
 * tested (keys past S, queries past L, causal); otherwise the warp's 16 keys and the tile's
 * queries are all inside and attended (`edge` false, tiling.maskSplit).
 */
function pLoop(masked: boolean, fold: boolean): string {
  if (fold) {
    // No bias: P = exp2(s · scaleLog2 − lse · log2e) as one FFMA, lse in the log2 domain per column.
    const value = 'tsf_exp2(fmaf(p[i][e], scaleLog2, -lseLog2[i][e & 1]))';
    return `#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
${masked ? `        const int srow = srow0 + (e >> 1) * 8;
        const int lcol = m0 + i * 8 + 2 * tq + (e & 1);
        const bool inside = srow < keyLength && lcol < queryLength && (!kCausal || srow <= lcol);
        p[i][e] = inside ? ${value} : 0.0f;` : `        p[i][e] = ${value};`}
      }
    }`;
  }
  const x = masked
    ? `const bool inside = srow < keyLength && lcol < queryLength && (!kCausal || srow <= lcol);
        const float x = inside ? score_log2(p[i][e], scaleLog2, bias, biasHead + lcol * biasStrideL + srow * biasStrideS) : -tsf_inf();`
    : 'const float x = score_log2(p[i][e], scaleLog2, bias, biasHead + lcol * biasStrideL + srow * biasStrideS);';
  return `#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int srow = srow0 + (e >> 1) * 8;
        const int lc = i * 8 + 2 * tq + (e & 1);
        const int lcol = m0 + lc;
        ${x}
        // A row that attended nothing (logsumexp -inf): P = exp2(x - inf) = 0.
        const float lseRaw = sLses[lc];
        p[i][e] = tsf_exp2(x - (lseRaw == -tsf_inf() ? tsf_inf() : lseRaw * TSF_LOG2E));
      }
    }`;
}

/** foldScale (no bias): this thread's 2 · kLTiles query columns' logsumexp in the log2 domain, +inf
 * for a row that attended nothing (so that P = exp2(−inf) = 0). */
const LSE_LOG2 = `    float lseLog2[kLTiles][2];
#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const float raw = sLses[i * 8 + 2 * tq + c];
        lseLog2[i][c] = raw == -tsf_inf() ? tsf_inf() : raw * TSF_LOG2E;
      }
    }
`;

function body(variant: AttentionVariant, t: AttentionTiling): string {
  // The (query head, Q tile) pair of loop step x: step x itself, or (staggerQ) rotated.
  const order = (x: string): string => (t.staggerQ ? `stepOrder(${x})` : x);
  const top = pipelineTop(t);
  const fold = t.foldScale && variant.bias === 'none';
  const pCode = `${fold ? LSE_LOG2 : ''}${t.maskSplit ? `    if (edge) {\n${pLoop(true, fold)}\n    } else {\n${pLoop(false, fold)}\n    }` : pLoop(true, fold)}`;
  const end = t.pipeline === 'joint2' ? '    __syncthreads();' : '';
  // dQ of step it: right after its dSᵀ is stored, behind a barrier; or (deferDq) at the top of
  // step it + 1, whose barrier already orders it after every warp's dSᵀ of step it, reading the
  // buffer of stage it & 1 (the next write to that buffer, in step it + 2, follows step it + 2's
  // barrier, which every warp reaches only after this product): one barrier a step fewer.
  const m = mmaTypeName(variant.dtype);
  const dq = t.deferDq
    ? ''
    : `    __syncthreads();\n\n    // dQ tile += dS K: warp = (row group of ${t.dqWarpRows} queries, column group of the head dim).\n${dqProduct(m, t, 'sdS', 'hq', 'm0')}`;
  // The dSᵀ buffer, query head and first query row of the deferred step.
  const previous = (step: string, pad: string): string =>
    `${pad}const unsigned short* sdSPrev = sdS + ((${step}) & 1) * kBlockN * kDsStride;\n${pad}const int hqPrev = hk * group + ${order(`(${step})`)} / mCount, m0Prev = (mStart + ${order(`(${step})`)} % mCount) * kBlockM;\n`;
  const deferred = (step: string): string => `${previous(step, '    ')}${dqProduct(m, t, 'sdSPrev', 'hqPrev', 'm0Prev')}`;
  const deferredTop = t.deferDq ? `    // dQ tile of step it - 1 += dS K (deferDq; warp = row group of ${t.dqWarpRows} queries, column group).\n    if (it > 0) {\n${deferred('it - 1')}\n    }\n` : '';
  const deferredTail = t.deferDq ? `  // dQ of the last step (deferDq).\n  if (steps > 0) {\n    __syncthreads();\n${deferred('steps - 1')}\n  }\n\n` : '';
  const drop = variant.dropout;
  // Without dropout the dropped P is P itself.
  const pd = drop ? 'pd' : 'p';
  return `  extern __shared__ __align__(16) unsigned char smemRaw[];
  unsigned short* sK = reinterpret_cast<unsigned short*>(smemRaw);
  unsigned short* sV = sK + kBlockN * kRowStride;
  unsigned short* sQ = sV + kBlockN * kRowStride;          // 2 stages
  unsigned short* sdO = sQ + 2 * kBlockM * kRowStride;     // 2 stages
  unsigned short* sdS = sdO + 2 * kBlockM * kRowStride;    // [kBlockN][kBlockM + 8]${t.deferDq ? ', 2 buffers (deferDq)' : ''}
  float* sLse = reinterpret_cast<float*>(sdS + ${t.deferDq ? '2 * ' : ''}kBlockN * (kBlockM + 8));  // 2 stages
  float* sD = sLse + 2 * kBlockM;                                        // 2 stages
  constexpr int kDsStride = kBlockM + 8;
  static_assert(kBlockN == 16 * kWarps, "each warp owns 16 key rows");
  const int nBlock = blockIdx.x, hk = blockIdx.y, n = blockIdx.z;
  const int group = heads / kvHeads;
  const int n0 = nBlock * kBlockN;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, tq = lane & 3;
  const int srow0 = n0 + warp * 16 + g;

  load_tile<kBlockN>(sK, k + n * kStrideN + hk * kStrideH + n0 * kStrideL, kStrideL, keyLength - n0);
  load_tile<kBlockN>(sV, v + n * vStrideN + hk * vStrideH + n0 * vStrideL, vStrideL, keyLength - n0);

  const int mTotal = (queryLength + kBlockM - 1) / kBlockM;
  const int mStart = kCausal ? min(n0 / kBlockM, mTotal) : 0;
  const int mCount = mTotal - mStart;
  const int steps = group * mCount;
${t.staggerQ ? STAGGER : ''}
  constexpr int kETiles = kHeadDimPad / 8;
  constexpr int kLTiles = kBlockM / 8;
  float dk[kETiles][4], dv[kETiles][4];
#pragma unroll
  for (int i = 0; i < kETiles; ++i) {
    dk[i][0] = dk[i][1] = dk[i][2] = dk[i][3] = 0.0f;
    dv[i][0] = dv[i][1] = dv[i][2] = dv[i][3] = 0.0f;
  }

  // Stage loads of step it: Q, dO (cp.async) and log2-domain logsumexp, D (plain loads).
  auto loadStep = [&](int it, int stage) {
    const int hq = hk * group + ${order('it')} / mCount;
    const int mq = (mStart + ${order('it')} % mCount) * kBlockM;
    load_tile<kBlockM>(sQ + stage * kBlockM * kRowStride, q + n * qStrideN + hq * qStrideH + mq * qStrideL, qStrideL, queryLength - mq);
    load_tile<kBlockM>(sdO + stage * kBlockM * kRowStride, gradOutput + n * gradOutputStrideN + hq * gradOutputStrideH + mq * gradOutputStrideL, gradOutputStrideL, queryLength - mq);
    // logsumexp and D rows through cp.async too (4 bytes each, zero past L: those columns are
    // masked anyway); converted to the log2 domain where they are used.
    const long long rowAt = (static_cast<long long>(n) * heads + hq) * queryLength + mq;
    for (int r = threadIdx.x; r < kBlockM; r += kThreads) {
      const bool valid = mq + r < queryLength;
      tsf_cp_async4(tsf_smem(sLse + stage * kBlockM + r), valid ? lse + rowAt + r : lse, valid ? 4 : 0);
      tsf_cp_async4(tsf_smem(sD + stage * kBlockM + r), valid ? delta + rowAt + r : delta, valid ? 4 : 0);
    }
  };
  if (steps > 0) loadStep(0, 0);
  tsf_cp_async_commit();

  for (int it = 0; it < steps; ++it) {
    const int stage = it & 1;
    const int hq = hk * group + ${order('it')} / mCount;
    const int m0 = (mStart + ${order('it')} % mCount) * kBlockM;
${top}
    const unsigned short* sQs = sQ + stage * kBlockM * kRowStride;
    const unsigned short* sdOs = sdO + stage * kBlockM * kRowStride;
    const float* sLses = sLse + stage * kBlockM;
    const float* sDs = sD + stage * kBlockM;
${t.deferDq ? '    unsigned short* sdSs = sdS + stage * kBlockN * kDsStride;\n' : ''}${deferredTop}
    // Sᵀ = K Qᵀ and dPᵀ = V dOᵀ (rows: this warp's 16 keys; columns: the tile's queries).
    float p[kLTiles][4], dp[kLTiles][4];
#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
      p[i][0] = p[i][1] = p[i][2] = p[i][3] = 0.0f;
      dp[i][0] = dp[i][1] = dp[i][2] = dp[i][3] = 0.0f;
    }
#pragma unroll
    for (int kk = 0; kk < kHeadDimPad / 16; ++kk) {
      unsigned a0, a1, a2, a3, c0, c1, c2, c3;
      tsf_ldmatrix_x4(tsf_smem(sK + (warp * 16 + (lane & 15)) * kRowStride + kk * 16 + (lane >> 4) * 8), a0, a1, a2, a3);
      tsf_ldmatrix_x4(tsf_smem(sV + (warp * 16 + (lane & 15)) * kRowStride + kk * 16 + (lane >> 4) * 8), c0, c1, c2, c3);
#pragma unroll
      for (int lp = 0; lp < kBlockM / 16; ++lp) {
        const int r = (lp * 16 + (lane & 7) + ((lane >> 4) << 3)) * kRowStride + kk * 16 + ((lane >> 3) & 1) * 8;
        unsigned b0, b1, b2, b3;
        tsf_ldmatrix_x4(tsf_smem(sQs + r), b0, b1, b2, b3);
        tsf_mma_${m}(p[2 * lp], a0, a1, a2, a3, b0, b1);
        tsf_mma_${m}(p[2 * lp + 1], a0, a1, a2, a3, b2, b3);
        tsf_ldmatrix_x4(tsf_smem(sdOs + r), b0, b1, b2, b3);
        tsf_mma_${m}(dp[2 * lp], c0, c1, c2, c3, b0, b1);
        tsf_mma_${m}(dp[2 * lp + 1], c0, c1, c2, c3, b2, b3);
      }
    }

    // Pᵀ from the saved logsumexp; 0 where the forward attended nothing.
    const long long biasHead = n * biasStrideN + hq * biasStrideH;
    const long long dropHead = (static_cast<long long>(n) * heads + hq) * queryLength;
    (void)biasHead;
    (void)dropHead;
${t.maskSplit ? '    const bool edge = n0 + warp * 16 + 16 > keyLength || m0 + kBlockM > queryLength || (kCausal && n0 + warp * 16 + 15 > m0);\n' : ''}${pCode}
${drop ? `    float pd[kLTiles][4];\n${DROPOUT_APPLY}` : ''}
    // dSᵀ = Pᵀ ∘ (dPᵀ − D); dP becomes dS in place.
#pragma unroll
    for (int i = 0; i < kLTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) dp[i][e] = p[i][e] * (dp[i][e] - sDs[i * 8 + 2 * tq + (e & 1)]);
    }

    // dV += (P∘Z)ᵀ dO and dK += dSᵀ Q: A from registers, B = dO / Q through ldmatrix.trans.
#pragma unroll
    for (int kk = 0; kk < kBlockM / 16; ++kk) {
      const unsigned pa0 = tsf_pack_${m}(${pd}[2 * kk][0], ${pd}[2 * kk][1]);
      const unsigned pa1 = tsf_pack_${m}(${pd}[2 * kk][2], ${pd}[2 * kk][3]);
      const unsigned pa2 = tsf_pack_${m}(${pd}[2 * kk + 1][0], ${pd}[2 * kk + 1][1]);
      const unsigned pa3 = tsf_pack_${m}(${pd}[2 * kk + 1][2], ${pd}[2 * kk + 1][3]);
      const unsigned sa0 = tsf_pack_${m}(dp[2 * kk][0], dp[2 * kk][1]);
      const unsigned sa1 = tsf_pack_${m}(dp[2 * kk][2], dp[2 * kk][3]);
      const unsigned sa2 = tsf_pack_${m}(dp[2 * kk + 1][0], dp[2 * kk + 1][1]);
      const unsigned sa3 = tsf_pack_${m}(dp[2 * kk + 1][2], dp[2 * kk + 1][3]);
      // dSᵀ to shared memory for the dQ product (rows: keys, columns: queries).
      unsigned short* dsRow = ${t.deferDq ? 'sdSs' : 'sdS'} + (warp * 16 + g) * kDsStride + kk * 16 + 2 * tq;
      *reinterpret_cast<unsigned*>(dsRow) = sa0;
      *reinterpret_cast<unsigned*>(dsRow + 8 * kDsStride) = sa1;
      *reinterpret_cast<unsigned*>(dsRow + 8) = sa2;
      *reinterpret_cast<unsigned*>(dsRow + 8 * kDsStride + 8) = sa3;
#pragma unroll
      for (int ep = 0; ep < kHeadDimPad / 16; ++ep) {
        const int r = (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowStride + ep * 16 + (lane >> 4) * 8;
        unsigned b0, b1, b2, b3;
        tsf_ldmatrix_x4_trans(tsf_smem(sdOs + r), b0, b1, b2, b3);
        tsf_mma_${m}(dv[2 * ep], pa0, pa1, pa2, pa3, b0, b1);
        tsf_mma_${m}(dv[2 * ep + 1], pa0, pa1, pa2, pa3, b2, b3);
        tsf_ldmatrix_x4_trans(tsf_smem(sQs + r), b0, b1, b2, b3);
        tsf_mma_${m}(dk[2 * ep], sa0, sa1, sa2, sa3, b0, b1);
        tsf_mma_${m}(dk[2 * ep + 1], sa0, sa1, sa2, sa3, b2, b3);
      }
    }
${dq}
${end}
  }

${deferredTail}  // dK = scale · Σ dSᵀ Q, dV = keepScale · Σ (P∘Z)ᵀ dO, rows past S not written.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int srow = srow0 + r * 8;
    if (srow < keyLength) {
      unsigned short* dkRow = gradKey + n * gradKeyStrideN + hk * gradKeyStrideH + srow * gradKeyStrideL;
      unsigned short* dvRow = gradValue + n * gradValueStrideN + hk * gradValueStrideH + srow * gradValueStrideL;
      const float vScale = ${drop ? 'keepScale' : '1.0f'};
#pragma unroll
      for (int i = 0; i < kETiles; ++i) {
        const int col = i * 8 + 2 * tq;
        if (col + 1 < kHeadDim) {
          *reinterpret_cast<unsigned*>(dkRow + col) = tsf_pack_${m}(dk[i][2 * r] * scale, dk[i][2 * r + 1] * scale);
          *reinterpret_cast<unsigned*>(dvRow + col) = tsf_pack_${m}(dv[i][2 * r] * vScale, dv[i][2 * r + 1] * vScale);
        } else if (col < kHeadDim) {
          dkRow[col] = tsf_float_to_${m}(dk[i][2 * r] * scale);
          dvRow[col] = tsf_float_to_${m}(dv[i][2 * r] * vScale);
        }
      }
    }
  }`;
}

/** The backward main kernel of `variant` (its tiling from `backwardTiling` unless given). */
export function generateAttentionBackward(variant: AttentionVariant, tilingOverride?: AttentionTiling): AttentionKernel {
  checkVariant(variant);
  const t = tilingOverride ?? backwardTiling(variant);
  const name = backwardKernelName(variant);
  const source = attentionKernelSource(variant, t, name, `tsfuser attention backward: ${name} (K/V tile ${t.blockN}, Q tile ${t.blockM}, ${t.warps} warps)`, { parameters: BACKWARD_PARAMETERS, pointerTypes: POINTER_TYPES }, body(variant, t));
  return {
    name,
    source,
    parameters: BACKWARD_PARAMETERS,
    block: [32 * t.warps, 1, 1],
    sharedBytes: backwardSharedBytes(t),
    tiling: t,
    grid: (p) => [ceilDiv(p.keyLength, t.blockN), p.kvHeads, p.batch],
  };
}
