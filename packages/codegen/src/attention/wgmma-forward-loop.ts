// The K/V loop of the wgmma forward (wgmma-forward.ts) as CUDA text, in two schedules:
// - serial (default): per tile j, K and V of tile j+1 load while S = Q·Kⱼᵀ, the softmax and
//   O += Pⱼ·Vⱼ run one after the other in each warpgroup; two barriers a tile.
// - overlapPv (FlashAttention-3's intra-warpgroup overlap): per tile j the warpgroup issues
//   S = Q·Kⱼᵀ and then O += Pⱼ₋₁·Vⱼ₋₁ (P kept packed in registers from the previous tile),
//   waits only for S, computes the softmax of tile j while the P·V MMAs run, then waits for
//   them and rescales O; V streams one tile behind K (Vⱼ loads during tile j, is read in tile
//   j+1), so two stages of each still suffice; one barrier a tile, the last P·V after the loop.
//
// Invariant: both compute the function wgmma-forward.ts states; every thread passes every
// barrier and waits for every cp.async group; a stage is overwritten only after the barrier
// that follows its last read by every warpgroup; an accumulator or A-fragment register is
// touched only before a wgmma.fence that precedes the MMAs using it, or after the wait_group
// that retires them.

import { mmaTypeName } from './primitives.js';
import type { AttentionTiling, AttentionVariant } from './variant.js';

/** Scores of tiles crossing the key end or this warp's diagonal: −inf where masked. */
export function maskText(masked: boolean): string {
  if (!masked) return '';
  return `
        // Tiles crossing the key end or this warp's diagonal test each element.
        const bool edge = n0 + kBlockN > keyLength || (kCausal && n0 + kBlockN - 1 > m0 + wgRow + warp * 16);
        if (edge) {
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int row = row0 + (e >> 1) * 8;
              const int col = n0 + i * 8 + 2 * tq + (e & 1);
              if (col >= keyLength || (kCausal && col > row)) s[i][e] = -tsf_inf();
            }
          }
        }`;
}

/** Online softmax of S in place (P = exp2(s · scale − max · scale)); alpha[r] the rescale of row r's O, applied here unless `deferRescale`. */
export function softmaxText(deferRescale: boolean): string {
  const rescale = deferRescale
    ? ''
    : `
#pragma unroll
          for (int i = 0; i < kOTiles; ++i) {
            acc[i][2 * r] *= alpha[r];
            acc[i][2 * r + 1] *= alpha[r];
          }`;
  return `
        // Online softmax on raw scores (scale > 0, folded into the exp2's FFMA).
        float alpha[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          float mx = rowMax[r];
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) mx = fmaxf(mx, fmaxf(s[i][2 * r], s[i][2 * r + 1]));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
          // A row with no key so far keeps max -inf; exp2 against 0 then gives 0 for its -inf scores.
          const float base = mx == -tsf_inf() ? 0.0f : mx * scoreScale;
          alpha[r] = rowMax[r] == -tsf_inf() ? 0.0f : tsf_exp2(rowMax[r] * scoreScale - base);
          rowMax[r] = mx;
          float sum = 0.0f;
#pragma unroll
          for (int i = 0; i < kSTiles; ++i) {
            const float p0 = tsf_exp2(fmaf(s[i][2 * r], scoreScale, -base)), p1 = tsf_exp2(fmaf(s[i][2 * r + 1], scoreScale, -base));
            s[i][2 * r] = p0;
            s[i][2 * r + 1] = p1;
            sum += p0 + p1;
          }
          rowSum[r] = rowSum[r] * alpha[r] + sum;${rescale}
        }`;
}

/** P of the S registers into A fragments: the D fragment of 16 keys is the A fragment of one k-step. */
export function packText(m: string): string {
  return `
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk) {
          pa[kk][0] = tsf_pack_${m}(s[2 * kk][0], s[2 * kk][1]);
          pa[kk][1] = tsf_pack_${m}(s[2 * kk][2], s[2 * kk][3]);
          pa[kk][2] = tsf_pack_${m}(s[2 * kk + 1][0], s[2 * kk + 1][1]);
          pa[kk][3] = tsf_pack_${m}(s[2 * kk + 1][2], s[2 * kk + 1][3]);
        }`;
}

export function scoresIssue(m: string, t: AttentionTiling, stage: string): string {
  return `        // S = Q Kᵀ: kHeadDim / 16 wgmma k-steps, the first overwriting S.
        {
          const unsigned long long dK = tsf_desc(sK + (${stage}) * kKVBytes, kKMajorLbo, kKMajorSbo);
#pragma unroll
          for (int kk = 0; kk < kHeadDim / 16; ++kk) tsf_wgmma_ss_${m}_n${t.blockN}(s, dQ + kQStep[kk], dK + kKStep[kk], kk > 0 ? 1 : 0);
        }
        tsf_wgmma_commit();`;
}

export function pvIssue(m: string, e: number, stage: string): string {
  return `        {
          const unsigned long long dV = tsf_desc(sV + (${stage}) * kKVBytes, kVLbo, kVSbo);
#pragma unroll
          for (int kk = 0; kk < kBlockN / 16; ++kk) tsf_wgmma_rs_${m}_n${e}(acc, pa[kk][0], pa[kk][1], pa[kk][2], pa[kk][3], dV + kVStep[kk]);
        }
        tsf_wgmma_commit();`;
}

const LOAD_NEXT_K = `tsf_load_swizzled<kBlockN, kHeadDim, kThreads>(sK + ((j + 1) & 1) * kKVBytes, kHead + (n0 + kBlockN) * kStrideL, kStrideL, keyLength - n0 - kBlockN, static_cast<int>(threadIdx.x));`;

/** One tile of the serial schedule (`masked`: the mask code is present). */
function serialIteration(variant: AttentionVariant, t: AttentionTiling, masked: boolean): string {
  const m = mmaTypeName(variant.dtype);
  const skip = masked && variant.causal && t.warpSkip;
  return `      const int n0 = j * kBlockN;
      if (j + 1 < nBlocks) {
        ${LOAD_NEXT_K}
        tsf_load_swizzled<kBlockN, kHeadDim, kThreads>(sV + ((j + 1) & 1) * kKVBytes, vHead + (n0 + kBlockN) * vStrideL, vStrideL, keyLength - n0 - kBlockN, static_cast<int>(threadIdx.x));
        tsf_cp_async_commit();
        tsf_cp_async_wait<1>();
      } else {
        tsf_cp_async_wait<0>();
      }
      tsf_fence_proxy_async();
      __syncthreads();
      // ${skip ? "A warpgroup whose 64 rows all precede the tile's first key skips it (uniform over its threads)." : 'Every warpgroup computes the tile.'}
      if (${skip ? 'n0 <= m0 + wgRow + 63' : 'true'}) {
        float s[kSTiles][4];
        tsf_wgmma_fence();
${scoresIssue(m, t, 'j & 1')}
        tsf_wgmma_wait<0>();
        tsf_fence_acc(s);${maskText(masked)}${softmaxText(false)}
        // O += P V: P from the S registers, V through a transposed descriptor.
        unsigned pa[kBlockN / 16][4];${packText(m)}
        tsf_wgmma_fence();
${pvIssue(m, variant.headDim, 'j & 1')}
        tsf_wgmma_wait<0>();
        tsf_fence_acc(acc);
      }
      // Every warpgroup is done with this stage before the next tile's loads overwrite it.
      __syncthreads();`;
}

/** O rescaled by the tile's alpha (after the previous tile's P·V retired). */
export const RESCALE = `
#pragma unroll
        for (int r = 0; r < 2; ++r) {
#pragma unroll
          for (int i = 0; i < kOTiles; ++i) {
            acc[i][2 * r] *= alpha[r];
            acc[i][2 * r + 1] *= alpha[r];
          }
        }`;

/**
 * The loops of a schedule whose first tile differs (`iteration(masked, first)`): tile 0 peeled
 * (masked: it may cross the diagonal or the key end), so that no MMA sits under a j > 0 test in
 * the loops (ptxas serializes wgmma it must guard with an arrive in a divergent path); with
 * maskSplit the mask-free tiles 1 … jClean − 1, then the rest.
 */
export function peeledLoops(t: AttentionTiling, iteration: (masked: boolean, first: boolean) => string): string {
  const head = `  if (nBlocks > 0) {
    const int j = 0;
${iteration(true, true)}
  }`;
  return t.maskSplit
    ? `${head}
  // Tiles inside the keys and below the diagonal of the whole block need no mask.
  const int jClean = max(0, min(nBlocks, min(keyLength / kBlockN, kCausal ? (m0 + 1) / kBlockN : nBlocks)));
  for (int j = 1; j < jClean; ++j) {
${iteration(false, false)}
  }
  for (int j = max(1, jClean); j < nBlocks; ++j) {
${iteration(true, false)}
  }`
    : `${head}
  for (int j = 1; j < nBlocks; ++j) {
${iteration(true, false)}
  }`;
}

/** One tile of the overlapped schedule: Kⱼ and Vⱼ₋₁ have landed; Kⱼ₊₁ and Vⱼ load during it. */
function overlapIteration(variant: AttentionVariant, t: AttentionTiling, masked: boolean, first: boolean): string {
  const m = mmaTypeName(variant.dtype);
  return `      const int n0 = j * kBlockN;
      tsf_cp_async_wait<0>();
      tsf_fence_proxy_async();
      // Every warpgroup is past tile j-1: K's stage of tile j-1 and V's of tile j-2 are free.
      __syncthreads();
      if (j + 1 < nBlocks) {
        ${LOAD_NEXT_K}
      }
      tsf_load_swizzled<kBlockN, kHeadDim, kThreads>(sV + (j & 1) * kKVBytes, vHead + n0 * vStrideL, vStrideL, keyLength - n0, static_cast<int>(threadIdx.x));
      tsf_cp_async_commit();
      float s[kSTiles][4];
      tsf_wgmma_fence();
${scoresIssue(m, t, 'j & 1')}
${first ? '' : `        // O += Pⱼ₋₁ Vⱼ₋₁ runs while this tile's softmax is computed.\n${pvIssue(m, variant.headDim, '(j - 1) & 1')}\n`}        tsf_wgmma_wait<${first ? 0 : 1}>();
      tsf_fence_acc(s);
      {${maskText(masked)}${softmaxText(true)}${first ? '' : `\n        tsf_wgmma_wait<0>();\n        tsf_fence_acc(acc);${RESCALE}`}${packText(m)}
      }`;
}

/** The overlapped schedule's last P·V (tile nBlocks − 1, its V loaded during that tile). */
function overlapTail(variant: AttentionVariant): string {
  const m = mmaTypeName(variant.dtype);
  return `  if (nBlocks > 0) {
    const int j = nBlocks;
    tsf_cp_async_wait<0>();
    tsf_fence_proxy_async();
    __syncthreads();
    tsf_wgmma_fence();
${pvIssue(m, variant.headDim, '(j - 1) & 1')}
    tsf_wgmma_wait<0>();
    tsf_fence_acc(acc);
  }`;
}

/** The K/V loop(s): with maskSplit, the mask-free tiles (inside the keys, below the block's diagonal) first. */
export function wgmmaLoops(variant: AttentionVariant, t: AttentionTiling): string {
  if (t.overlapPv) return `  unsigned pa[kBlockN / 16][4];  // P of the previous tile, the A fragments of its P·V\n${peeledLoops(t, (masked, first) => overlapIteration(variant, t, masked, first))}\n${overlapTail(variant)}`;
  const iteration = (masked: boolean): string => serialIteration(variant, t, masked);
  const loops = t.maskSplit
    ? `  // Tiles inside the keys and below the diagonal of the whole block need no mask.
  const int jClean = max(0, min(nBlocks, min(keyLength / kBlockN, kCausal ? (m0 + 1) / kBlockN : nBlocks)));
  for (int j = 0; j < jClean; ++j) {
${iteration(false)}
  }
  for (int j = jClean; j < nBlocks; ++j) {
${iteration(true)}
  }`
    : `  for (int j = 0; j < nBlocks; ++j) {
${iteration(true)}
  }`;
  return loops;
}

/** Loads before the loop: Q and K₀, with V₀ unless V streams one tile behind (overlapPv). */
export function wgmmaPrologueLoads(t: AttentionTiling): string {
  return `  tsf_load_swizzled<kBlockM, kHeadDim, kThreads>(sQ, qTile, qStrideL, queryLength - m0, static_cast<int>(threadIdx.x));
  if (nBlocks > 0) {
    tsf_load_swizzled<kBlockN, kHeadDim, kThreads>(sK, kHead, kStrideL, keyLength, static_cast<int>(threadIdx.x));
    ${t.overlapPv ? '// V₀ loads during tile 0 (overlapPv).' : 'tsf_load_swizzled<kBlockN, kHeadDim, kThreads>(sV, vHead, vStrideL, keyLength, static_cast<int>(threadIdx.x));'}
  }
  tsf_cp_async_commit();`;
}
