// The warp-specialized schedule of the wgmma forward (tiling.warpSpecialized; FlashAttention-3's
// producer / consumer split, with cp.async instead of TMA): one extra producer warpgroup (the
// block's last, its registers cut with setmaxnreg) streams Q, K and V into two stages each and
// signals each stage through a "full" mbarrier; the consumer warpgroups run the overlapPv
// schedule (S = Q·Kⱼᵀ and O += Pⱼ₋₁·Vⱼ₋₁ issued together, the softmax of tile j during P·V) and
// free each stage through an "empty" mbarrier, so the consumers never pass a CTA-wide barrier in
// the loop and the two consumer warpgroups drift apart as their work allows.
//
// Producer step j: wait K stage j mod 2 empty; load Kⱼ (and Q on step 0); wait for Vⱼ₋₁'s
// copies, proxy fence, arrive "V full"; wait for Kⱼ's, proxy fence, arrive "K full"; wait V stage
// empty; load Vⱼ. After the loop the last V's arrival. Phase parity of the k-th use of a stage
// is k mod 2 (the producer's empty waits pass the fresh barrier with parity 1).
// Invariant: a stage is written only after every consumer thread arrived on its empty barrier
// (its MMAs retired), and read only after every producer thread arrived on its full barrier
// (its copies landed and were fenced for the async proxy); no thread waits for a phase that
// depends on its own later arrival (the order above has no cycle).

import { mmaTypeName } from './primitives.js';
import type { AttentionTiling, AttentionVariant } from './variant.js';
import { maskText, packText, peeledLoops, pvIssue, RESCALE, scoresIssue, softmaxText } from './wgmma-forward-loop.js';

/** Registers a thread after setmaxnreg (2 consumer warpgroups): the consumers' (232 for 128-key
 * tiles, whose overlapped schedule needs 230; 216 for 64-key ones, 168) and the producer's, the
 * rest of the block's launch allocation in multiples of 8. setmaxnreg.inc takes its registers
 * from those setmaxnreg.dec released, within what the block was launched with — 384 threads ×
 * 168 (the 64 K register file over 384 threads, in the allocation's steps of 8), not 64 K: a
 * split summing past 64512 leaves the consumers' inc waiting forever (the H200 hang of session 9:
 * 48 / 232 and 80 / 216 asked for 65536). FlashAttention-3's 24 / 240 sums to 64512 exactly. */
export function wsRegisterSplit(t: AttentionTiling): { producer: number; consumer: number; launch: number } {
  const threads = 32 * (t.warps + 4);
  const launch = Math.floor(65536 / threads / 8) * 8;
  const consumer = t.blockN === 128 ? 232 : 216;
  const producer = Math.floor((threads * launch - 32 * t.warps * consumer) / 128 / 8) * 8;
  return { producer, consumer, launch };
}

/** Barrier addresses (8 bytes each, after the V stages) and their initialisation by thread 0. */
export function wsBarriers(t: AttentionTiling): string {
  return `  // mbarriers: K full ×2, V full ×2 (count: the producer's 128 threads), K empty ×2, V empty ×2 (the consumers').
  const unsigned sBar = sV + 2 * kKVBytes;
  const unsigned fullK = sBar, fullV = sBar + 16, emptyK = sBar + 32, emptyV = sBar + 48;
  constexpr int kConsumerThreads = ${32 * t.warps};
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2; ++i) {
      tsf_mbar_init(fullK + 8 * i, 128);
      tsf_mbar_init(fullV + 8 * i, 128);
      tsf_mbar_init(emptyK + 8 * i, kConsumerThreads);
      tsf_mbar_init(emptyV + 8 * i, kConsumerThreads);
    }
  }
  __syncthreads();`;
}

/** The producer warpgroup (threadIdx.x ≥ kConsumerThreads); returns when its loads are issued and signalled. */
export function wsProducer(t: AttentionTiling): string {
  const { producer, consumer } = wsRegisterSplit(t);
  const shrink = t.warps === 8 ? `    tsf_setmaxnreg_dec<${producer}>();\n` : '';
  return `  if (threadIdx.x >= kConsumerThreads) {
${shrink}    const int ptid = static_cast<int>(threadIdx.x) - kConsumerThreads;
    for (int j = 0; j < nBlocks; ++j) {
      const int n0 = j * kBlockN;
      const unsigned stage = j & 1, parity = ((j >> 1) & 1) ^ 1;
      tsf_mbar_wait(emptyK + 8 * stage, parity);
      if (j == 0) tsf_load_swizzled<kBlockM, kHeadDim, 128>(sQ, qTile, qStrideL, queryLength - m0, ptid);
      tsf_load_swizzled<kBlockN, kHeadDim, 128>(sK + stage * kKVBytes, kHead + n0 * kStrideL, kStrideL, keyLength - n0, ptid);
      tsf_cp_async_commit();
      if (j > 0) {
        tsf_cp_async_wait<1>();  // Vⱼ₋₁ has landed
        tsf_fence_proxy_async();
        tsf_mbar_arrive(fullV + 8 * (stage ^ 1));
      }
      tsf_cp_async_wait<0>();  // Kⱼ (and Q) have landed
      tsf_fence_proxy_async();
      tsf_mbar_arrive(fullK + 8 * stage);
      tsf_mbar_wait(emptyV + 8 * stage, parity);
      tsf_load_swizzled<kBlockN, kHeadDim, 128>(sV + stage * kKVBytes, vHead + n0 * vStrideL, vStrideL, keyLength - n0, ptid);
      tsf_cp_async_commit();
    }
    if (nBlocks > 0) {
      tsf_cp_async_wait<0>();
      tsf_fence_proxy_async();
      tsf_mbar_arrive(fullV + 8 * ((nBlocks - 1) & 1));
    }
    return;
  }
${t.warps === 8 ? `  tsf_setmaxnreg_inc<${consumer}>();\n` : ''}`;
}

/** With a scale ≤ 0: the consumers negate (or zero) Q once it has landed, fenced and joined on barrier 1. */
export const WS_FOLD_SIGN = `  if (!(scoreScale > 0.0f)) {
    if (nBlocks > 0) {
      tsf_mbar_wait(fullK, 0);
      const bool negative = scoreScale < 0.0f;
      unsigned short* q16 = reinterpret_cast<unsigned short*>(smemRaw + (sQ - tsf_smem(smemRaw)));
      for (int i = threadIdx.x; i < kBlockM * kHeadDim; i += kConsumerThreads) q16[i] = negative ? static_cast<unsigned short>(q16[i] ^ 0x8000u) : static_cast<unsigned short>(0);
      tsf_fence_proxy_async();
      tsf_bar_consumers(kConsumerThreads);
    }
    scoreScale = scoreScale < 0.0f ? -scoreScale : 1.0f;
  }`;

function consumerIteration(variant: AttentionVariant, t: AttentionTiling, masked: boolean, first: boolean): string {
  const m = mmaTypeName(variant.dtype);
  return `      const int n0 = j * kBlockN;
      tsf_mbar_wait(fullK + 8 * (j & 1), (j >> 1) & 1);${first ? '' : `
      // Vⱼ₋₁ was signalled before Kⱼ (producer order): no wait between the fence and the MMAs.
      tsf_mbar_wait(fullV + 8 * ((j - 1) & 1), ((j - 1) >> 1) & 1);`}
      float s[kSTiles][4];
      tsf_wgmma_fence();
${scoresIssue(m, t, 'j & 1')}
${first ? '' : `        // O += Pⱼ₋₁ Vⱼ₋₁ runs while this tile's softmax is computed.
${pvIssue(m, variant.headDim, '(j - 1) & 1')}
`}        tsf_wgmma_wait<${first ? 0 : 1}>();
      tsf_fence_acc(s);
      tsf_mbar_arrive(emptyK + 8 * (j & 1));  // S retired: Kⱼ's stage is free
      {${maskText(masked)}${softmaxText(true)}${first ? '' : `
        tsf_wgmma_wait<0>();
        tsf_fence_acc(acc);
        tsf_mbar_arrive(emptyV + 8 * ((j - 1) & 1));${RESCALE}`}${packText(m)}
      }`;
}

/** The consumers' K/V loops (mask-free tiles first with maskSplit) and the last P·V. */
export function wsConsumerLoops(variant: AttentionVariant, t: AttentionTiling): string {
  const m = mmaTypeName(variant.dtype);
  return `  unsigned pa[kBlockN / 16][4];  // P of the previous tile, the A fragments of its P·V
${peeledLoops(t, (masked, first) => consumerIteration(variant, t, masked, first))}
  if (nBlocks > 0) {
    const int j = nBlocks;
    tsf_mbar_wait(fullV + 8 * ((j - 1) & 1), ((j - 1) >> 1) & 1);
    tsf_wgmma_fence();
${pvIssue(m, variant.headDim, '(j - 1) & 1')}
    tsf_wgmma_wait<0>();
    tsf_fence_acc(acc);
  }`;
}
