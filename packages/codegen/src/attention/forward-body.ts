// The body of the flash-attention forward kernel as CUDA text, assembled from the tiling's
// tuning flags: the K/V pipeline (`joint2`, `joint2-1sync`, `split1`), the split of the K/V
// loop into unmasked and masked tiles, the exp2 with the scale folded into one FFMA, the
// per-warp skip of fully masked diagonal tiles, the lazy rescale of O and the heavy-first grid order (see
// AttentionTiling for what each does). forward.ts wraps it into a kernel.
//
// Invariant: every flag combination computes the same function (the one forward.ts states); a
// flag only moves work or barriers. Each cp.async group is waited for, and each barrier passed,
// by all threads of the CTA (no barrier under a warp-dependent condition).

import { mmaTypeName } from './primitives.js';
import type { AttentionTiling, AttentionVariant } from './variant.js';

const DROPOUT_APPLY = `      {  // dropout: P of the dropped elements is 0 (their sum is already counted)
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

/** Whether the kernel folds the scale into the exp2 (only without a bias or mask). */
export function foldsScale(variant: AttentionVariant, t: AttentionTiling): boolean {
  return t.foldScale && variant.bias === 'none';
}

interface Pieces {
  m: string;
  fold: boolean;
  split: boolean;
  lazy: boolean;
}

/** Loads that precede the K/V loop: Q with the first K (and V) tile. */
function prologueLoads(split: boolean): string {
  return `  load_tile<kBlockM>(sQ, qTile, qStrideL, queryLength - m0);
  if (nBlocks > 0) {
    load_tile<kBlockN>(sK, kHead, kStrideL, keyLength);
    ${split ? '' : 'load_tile<kBlockN>(sV, vHead, vStrideL, keyLength);'}
  }
  tsf_cp_async_commit();`;
}

/** Waits and loads at the start of tile j, up to the point where S = Q Kⱼᵀ may start. */
function pipelineTop(t: AttentionTiling): string {
  const next = `load_tile<kBlockN>(sK + (stage ^ 1) * kBlockN * kRowStride, kHead + (n0 + kBlockN) * kStrideL, kStrideL, keyLength - n0 - kBlockN);
        load_tile<kBlockN>(sV + (stage ^ 1) * kBlockN * kRowStride, vHead + (n0 + kBlockN) * vStrideL, vStrideL, keyLength - n0 - kBlockN);
        tsf_cp_async_commit();`;
  switch (t.pipeline) {
    case 'joint2':
      return `      if (j + 1 < nBlocks) {
        ${next}
        tsf_cp_async_wait<1>();
      } else {
        tsf_cp_async_wait<0>();
      }
      __syncthreads();`;
    case 'joint2-1sync':
      // After this barrier every warp has finished tile j-1, whose stage tile j+1 overwrites.
      return `      tsf_cp_async_wait<0>();
      __syncthreads();
      if (j + 1 < nBlocks) {
        ${next}
      }`;
    case 'split1':
      // Kⱼ has landed; every warp is past tile j-1's P·V, so V's single stage is free.
      return `      tsf_cp_async_wait<0>();
      __syncthreads();
      load_tile<kBlockN>(sV, vHead + n0 * vStrideL, vStrideL, keyLength - n0);
      tsf_cp_async_commit();`;
    default: {
      const unreachable: never = t.pipeline;
      throw new Error(`unknown pipeline ${String(unreachable)}`);
    }
  }
}

/** split1: Vⱼ lands and K's stage is free once every warp has computed S; Kⱼ₊₁ then loads. */
const SPLIT_MIDDLE = `      tsf_cp_async_wait<0>();
      __syncthreads();
      if (j + 1 < nBlocks) {
        load_tile<kBlockN>(sK, kHead + (n0 + kBlockN) * kStrideL, kStrideL, keyLength - n0 - kBlockN);
        tsf_cp_async_commit();
      }`;

function scoresCode(p: Pieces): string {
  return `      // S = Q Kᵀ: each K fragment feeds the warp's kRowTiles row tiles.
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
            tsf_mma_${p.m}(s[rt][2 * np], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b0, b1);
            tsf_mma_${p.m}(s[rt][2 * np + 1], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b2, b3);
          }
        }
      }`;
}

/** Scores to the softmax domain (log2, or raw with `fold`); masked ones -inf. */
function maskCode(variant: AttentionVariant, p: Pieces, masked: boolean): string {
  const biased = variant.bias !== 'none';
  if (!masked && !biased && !p.fold) {
    return `#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
        for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s[rt][i][e] *= scoreScale;
        }
      }`;
  }
  if (!masked && !biased) return '      // Unmasked tile, scale folded into the exp2: S is used as it is.';
  const value = biased
    ? masked
      ? `(row < queryLength && col < keyLength) ? score_log2(s[rt][i][e], scoreScale, bias, biasRow + row * biasStrideL + col * biasStrideS) : -tsf_inf()`
      : `row < queryLength ? score_log2(s[rt][i][e], scoreScale, bias, biasRow + row * biasStrideL + col * biasStrideS) : -tsf_inf()`
    : p.fold
      ? 's[rt][i][e]'
      : 's[rt][i][e] * scoreScale';
  const maskLine = masked ? `\n            if (edge && (col >= keyLength || (kCausal && col > row))) x = -tsf_inf();` : '';
  return `      // Scores in the softmax domain; ${masked ? 'masked ones -inf (only tiles that cross the key end or the diagonal of this warp test each element)' : 'an unmasked tile'}.
${masked ? '      const bool edge = n0 + kBlockN > keyLength || (kCausal && n0 + kBlockN - 1 > m0 + warpRow);\n' : ''}#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
        for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int row = row0 + rt * 16 + (e >> 1) * 8;
            const int col = n0 + i * 8 + 2 * tq + (e & 1);
            (void)row;
            (void)col;
            float x = ${value};${maskLine}
            s[rt][i][e] = x;
          }
        }
      }`;
}

function softmaxCode(p: Pieces): string {
  // With `fold` the running max is over raw scores (scoreScale > 0) and its scaled value is
  // subtracted inside the FFMA; otherwise S is already in the log2 domain.
  const base = p.fold ? 'mx * scoreScale' : 'mx';
  const prev = p.fold ? 'rowMax[rt][r] * scoreScale' : 'rowMax[rt][r]';
  const arg = (x: string): string => (p.fold ? `fmaf(${x}, scoreScale, -base)` : `${x} - base`);
  return `      // Online softmax: new running max, rescale O and the sum, P = exp2(x - max).
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
          const float base = mx == -tsf_inf() ? 0.0f : ${base};
          const float alpha = rowMax[rt][r] == -tsf_inf() ? 0.0f : tsf_exp2(${prev} - base);
          rowMax[rt][r] = mx;
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) {
            const float p0 = tsf_exp2(${arg('s[rt][i][2 * r]')}), p1 = tsf_exp2(${arg('s[rt][i][2 * r + 1]')});
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
      }`;
}

/**
 * `lazyRescale`: the base of a row's exponentials (its running max) moves, and O and the sum are
 * rescaled, only when some row of the warp's 16 has a new max more than 2^8 above the base in
 * use (FlashAttention-4's conditional rescale): P is then at most 256, exact in f32 and in the
 * bf16 / fp16 A fragments, and O / sum is the same quotient. Most tiles after the first few skip
 * the 2 · E / 8 multiplies a row tile.
 */
function lazySoftmaxCode(p: Pieces): string {
  const scaled = (x: string): string => (p.fold ? `${x} * scoreScale` : x);
  const arg = (x: string): string => (p.fold ? `fmaf(${x}, scoreScale, -base)` : `${x} - base`);
  return `      // Online softmax with a lazily moved base (see lazyRescale).
#pragma unroll
      for (int rt = 0; rt < kRowTiles; ++rt) {
        float mx[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          mx[r] = rowMax[rt][r];
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) mx[r] = fmaxf(mx[r], fmaxf(s[rt][i][2 * r], s[rt][i][2 * r + 1]));
          mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
          mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
        }
        // -inf + tau stays -inf: a row with no key so far only moves once it has one.
        const bool grow = !(mx[0] <= rowMax[rt][0] + lazyTau) || !(mx[1] <= rowMax[rt][1] + lazyTau);
        if (__any_sync(0xffffffffu, grow)) {
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            const float next = mx[r] == -tsf_inf() ? 0.0f : ${scaled('mx[r]')};
            const float alpha = rowMax[rt][r] == -tsf_inf() ? 0.0f : tsf_exp2(${scaled('rowMax[rt][r]')} - next);
            rowMax[rt][r] = mx[r];
            rowSum[rt][r] *= alpha;
#pragma unroll
            for (int i = 0; i < kOTiles; ++i) {
              acc[rt][i][2 * r] *= alpha;
              acc[rt][i][2 * r + 1] *= alpha;
            }
          }
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          // A row with no key so far keeps max -inf; exp2 against 0 then gives 0 for its -inf scores.
          const float base = rowMax[rt][r] == -tsf_inf() ? 0.0f : ${scaled('rowMax[rt][r]')};
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) {
            const float p0 = tsf_exp2(${arg('s[rt][i][2 * r]')}), p1 = tsf_exp2(${arg('s[rt][i][2 * r + 1]')});
            s[rt][i][2 * r] = p0;
            s[rt][i][2 * r + 1] = p1;
            sum += p0 + p1;
          }
          rowSum[rt][r] += sum;
        }
      }`;
}

function pvCode(p: Pieces): string {
  return `      // O += P V: P from the S registers (C layout = A layout of the next MMA), V through
      // ldmatrix.trans, each V fragment feeding the warp's kRowTiles row tiles.
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        unsigned a[kRowTiles][4];
#pragma unroll
        for (int rt = 0; rt < kRowTiles; ++rt) {
          a[rt][0] = tsf_pack_${p.m}(s[rt][2 * kk][0], s[rt][2 * kk][1]);
          a[rt][1] = tsf_pack_${p.m}(s[rt][2 * kk][2], s[rt][2 * kk][3]);
          a[rt][2] = tsf_pack_${p.m}(s[rt][2 * kk + 1][0], s[rt][2 * kk + 1][1]);
          a[rt][3] = tsf_pack_${p.m}(s[rt][2 * kk + 1][2], s[rt][2 * kk + 1][3]);
        }
#pragma unroll
        for (int ep = 0; ep < kHeadDimPad / 16; ++ep) {
          unsigned b0, b1, b2, b3;
          tsf_ldmatrix_x4_trans(tsf_smem(sVs + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowStride + ep * 16 + (lane >> 4) * 8), b0, b1, b2, b3);
#pragma unroll
          for (int rt = 0; rt < kRowTiles; ++rt) {
            tsf_mma_${p.m}(acc[rt][2 * ep], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b0, b1);
            tsf_mma_${p.m}(acc[rt][2 * ep + 1], a[rt][0], a[rt][1], a[rt][2], a[rt][3], b2, b3);
          }
        }
      }`;
}

/** One K/V tile j (`masked`: the mask code is present). */
function iteration(variant: AttentionVariant, t: AttentionTiling, p: Pieces, masked: boolean): string {
  const skip = masked && variant.causal && t.warpSkip;
  // A warp skips a diagonal tile whose first key follows all its rows (all its scores masked).
  const live = skip ? '      const bool live = n0 <= m0 + warpRow + 16 * kRowTiles - 1;\n' : '';
  const guard = (code: string): string => (skip ? `      if (live) {\n${code}\n      }` : code);
  const stages = t.pipeline === 'split1' ? '' : `      const int stage = j & 1;\n`;
  const sKs = t.pipeline === 'split1' ? 'sK' : 'sK + stage * kBlockN * kRowStride';
  const sVs = t.pipeline === 'split1' ? 'sV' : 'sV + stage * kBlockN * kRowStride';
  const compute = [maskCode(variant, p, masked), p.lazy ? lazySoftmaxCode(p) : softmaxCode(p), variant.dropout ? DROPOUT_APPLY : '', pvCode(p)].join('\n');
  return `${stages}      const int n0 = j * kBlockN;
${pipelineTop(t)}
      const unsigned short* sKs = ${sKs};
      const unsigned short* sVs = ${sVs};
      (void)sVs;
${live}      float s[kRowTiles][kSTiles][4];
${guard(scoresCode(p))}
${t.pipeline === 'split1' ? SPLIT_MIDDLE : ''}
${guard(compute)}
${t.pipeline === 'joint2' ? '      __syncthreads();' : ''}`;
}

/** With `fold` and a scale ≤ 0: Q negated (or zeroed, with scale 1) in shared memory once. */
const FOLD_SIGN = `  if (!(scoreScale > 0.0f)) {
    tsf_cp_async_wait<0>();
    __syncthreads();
    const bool negative = scoreScale < 0.0f;
    for (int i = threadIdx.x; i < kBlockM * kRowStride; i += kThreads) sQ[i] = negative ? static_cast<unsigned short>(sQ[i] ^ 0x8000u) : static_cast<unsigned short>(0);
    scoreScale = negative ? -scoreScale : 1.0f;
    __syncthreads();
  }`;

export function forwardBody(variant: AttentionVariant, t: AttentionTiling): string {
  const p: Pieces = { m: mmaTypeName(variant.dtype), fold: foldsScale(variant, t), split: t.pipeline === 'split1', lazy: t.lazyRescale };
  const kvStages = p.split ? 1 : 2;
  const block = t.heavyFirst
    ? `  // Longest query tiles first over the whole grid: grid (N·H, query tiles), y reversed.
  const int mBlock = static_cast<int>(gridDim.y - 1 - blockIdx.y);
  const int h = static_cast<int>(blockIdx.x % heads), n = static_cast<int>(blockIdx.x / heads);`
    : `  // Causal: the last query tiles have the most keys, so they start first.
  const int mBlock = kCausal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int h = blockIdx.y, n = blockIdx.z;`;
  const loops = t.maskSplit
    ? `  // Tiles inside the keys and below the diagonal of the whole block need no mask.
  const int jClean = max(0, min(nBlocks, min(keyLength / kBlockN, kCausal ? (m0 + 1) / kBlockN : nBlocks)));
  for (int j = 0; j < jClean; ++j) {
${iteration(variant, t, p, false)}
  }
  for (int j = jClean; j < nBlocks; ++j) {
${iteration(variant, t, p, true)}
  }`
    : `  for (int j = 0; j < nBlocks; ++j) {
${iteration(variant, t, p, true)}
  }`;
  const lse = p.fold ? 'rowMax[rt][r] * scoreScale' : 'rowMax[rt][r]';
  return `  extern __shared__ __align__(16) unsigned char smemRaw[];
  unsigned short* sQ = reinterpret_cast<unsigned short*>(smemRaw);
  unsigned short* sK = sQ + kBlockM * kRowStride;
  unsigned short* sV = sK + ${kvStages} * kBlockN * kRowStride;
${block}
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
  float scoreScale = scaleLog2;

${prologueLoads(p.split)}
${p.fold ? FOLD_SIGN : ''}

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
${p.lazy ? `  // lazyRescale's threshold: 8 in the log2 domain (raw units when the scale is folded).\n  const float lazyTau = ${p.fold ? '8.0f / scoreScale' : '8.0f'};\n` : ''}
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

${loops}
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
            *reinterpret_cast<unsigned*>(oRow + col) = tsf_pack_${p.m}(acc[rt][i][2 * r] * inv, acc[rt][i][2 * r + 1] * inv);
          } else if (col < kHeadDim) {
            oRow[col] = tsf_float_to_${p.m}(acc[rt][i][2 * r] * inv);
          }
        }
        if (tq == 0) lse[(static_cast<long long>(n) * heads + h) * queryLength + row] = sum > 0.0f ? (${lse} + log2f(sum)) * TSF_LN2 : -tsf_inf();
      }
    }
  }`;
}
