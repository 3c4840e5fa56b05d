// The tilings that the GPU tuning run (gpu-suites `codegen-attention`) times side by side at
// E 128, L = S = 4096: forward and backward tile shapes with the tuning flags of
// AttentionTiling. Kept here, beside the generators, so that the nvcc test compiles exactly
// the list the GPU times (ptxas registers and spills per entry).
//
// Invariant: every entry is accepted by `customTiling` at head dim 128.

import { customTiling, type AttentionTiling, type TilingFlags } from './variant.js';

/** [warps, blockM, blockN, flags]. */
export type TuningEntry = readonly [number, number, number, Partial<TilingFlags>];

const ALL: Partial<TilingFlags> = { maskSplit: true, foldScale: true, warpSkip: true, heavyFirst: true };
const SYNC1: Partial<TilingFlags> = { pipeline: 'joint2-1sync' };
const SPLIT: Partial<TilingFlags> = { pipeline: 'split1' };
const QREG: Partial<TilingFlags> = { qInRegisters: true };
const CTA2: Partial<TilingFlags> = { minBlocksPerSm: 2 };
const LAZY: Partial<TilingFlags> = { lazyRescale: true };
const DQ32: Partial<TilingFlags> = { dqWarpRows: 32 };
const DEFER: Partial<TilingFlags> = { deferDq: true };
const WGMMA: Partial<TilingFlags> = { mma: 'wgmma' };

/**
 * Forward (blockM 32 · warps: two 16-row Q tiles a warp). The first two are the defaults until
 * 2026-12-02 (baseline flags); then one flag group at a time on 8w 128×64 (1sync, heavy-first,
 * mask split + warp skip, folded scale, all), then FlashAttention-2's single-stage split K/V
 * pipeline on the shapes that fit it; then five of them with the lazy rescale; then four with
 * 3 or 4 CTAs an SM; last, the wgmma forward (f27–f35).
 */
export const FORWARD_TUNING: readonly TuningEntry[] = [
  [8, 128, 64, QREG],
  [8, 256, 32, {}],
  // The defaults from 2026-12-02: E 128 plain, then causal / bias / dropout.
  [8, 256, 32, { ...SYNC1, foldScale: true }],
  [8, 128, 64, { ...QREG, ...SYNC1, maskSplit: true, foldScale: true, warpSkip: true }],
  [8, 128, 64, { ...QREG, ...SYNC1 }],
  [8, 128, 64, { ...QREG, ...SYNC1, heavyFirst: true }],
  [8, 128, 64, { ...QREG, ...SYNC1, maskSplit: true, warpSkip: true }],
  [8, 128, 64, { ...QREG, ...SYNC1, foldScale: true }],
  [8, 128, 64, { ...QREG, ...SPLIT, ...ALL }],
  [8, 128, 64, { ...SPLIT, ...ALL }],
  [8, 256, 32, { ...SPLIT, ...ALL }],
  [8, 128, 128, { ...SYNC1, ...ALL }],
  [8, 128, 128, { ...SPLIT, ...ALL }],
  [4, 128, 32, { ...SPLIT, ...ALL, ...CTA2 }],
  [4, 128, 64, { ...SPLIT, ...ALL, ...CTA2 }],
  [4, 64, 64, { ...QREG, ...SPLIT, ...ALL, ...CTA2 }],
  [4, 64, 64, { ...QREG, ...SYNC1, ...ALL, ...CTA2 }],
  [4, 64, 128, { ...SPLIT, ...ALL, ...CTA2 }],
  // The same with lazyRescale.
  [8, 128, 64, { ...QREG, ...SYNC1, ...ALL, ...LAZY }],
  [8, 128, 64, { ...SPLIT, ...ALL, ...LAZY }],
  [8, 128, 128, { ...SPLIT, ...ALL, ...LAZY }],
  [8, 256, 32, { ...SPLIT, ...ALL, ...LAZY }],
  [4, 64, 64, { ...QREG, ...SPLIT, ...ALL, ...CTA2, ...LAZY }],
  // Occupancy: 12 or 16 warps an SM under a register cap (168 or 128 registers).
  [4, 64, 64, { ...SPLIT, ...ALL, ...LAZY, minBlocksPerSm: 3 }],
  [4, 64, 32, { ...SPLIT, ...ALL, ...LAZY, minBlocksPerSm: 4 }],
  [8, 128, 32, { ...SPLIT, ...ALL, ...LAZY, ...CTA2 }],
  [8, 128, 32, { ...SPLIT, foldScale: true, heavyFirst: true, ...LAZY, ...CTA2 }],
  // f27–f35 (2026-12-03, seventh session): Hopper's wgmma (wgmma-forward.ts, sm_90a): 2 or 1
  // warpgroups of 64 query rows, 128- or 64-key tiles, mask-free inside tiles, causal
  // warpgroup skip, heavy-first grid; 1 warpgroup × 64 keys fits two CTAs an SM.
  [8, 128, 128, { ...WGMMA, ...ALL }],
  [8, 128, 64, { ...WGMMA, ...ALL }],
  [4, 64, 128, { ...WGMMA, ...ALL }],
  [4, 64, 64, { ...WGMMA, ...ALL, ...CTA2 }],
  // f31–f33: f27, f28 and f30 with P·V of the previous tile overlapping the softmax (overlapPv).
  [8, 128, 128, { ...WGMMA, ...ALL, overlapPv: true }],
  [8, 128, 64, { ...WGMMA, ...ALL, overlapPv: true }],
  [4, 64, 64, { ...WGMMA, ...ALL, ...CTA2, overlapPv: true }],
  // f34–f35: warp-specialized (a producer warpgroup, mbarrier stages; consumers overlapped).
  // Untimed: on the H200 (2026-12-04) f34 hung in its first probe, its setmaxnreg split past the
  // launch allocation (wsRegisterSplit, fixed since, not re-run).
  [8, 128, 128, { ...WGMMA, ...ALL, overlapPv: true, warpSpecialized: true }],
  [8, 128, 64, { ...WGMMA, ...ALL, overlapPv: true, warpSpecialized: true }],
];

/** Backward: [warps, blockM (Q tile), blockN (K/V tile, 16 · warps), flags]: the shapes timed
 * until 2026-12-02, then one barrier a Q step fewer (1sync), the mask-free P of inside tiles and
 * the FFMA exp2 (fold); b13–b18 the 32-row dQ warp tiles, the deferred dQ and the staggered Q
 * loop on b7. The E 128 default is b13 since 2026-12-02 (fifth session; b7 before). */
export const BACKWARD_TUNING: readonly TuningEntry[] = [
  [8, 32, 128, {}],
  [8, 32, 128, { ...SYNC1, maskSplit: true, foldScale: true }],
  [8, 64, 128, {}],
  [4, 32, 64, {}],
  [4, 32, 64, CTA2],
  [8, 32, 128, SYNC1],
  [8, 32, 128, { ...SYNC1, maskSplit: true }],
  [8, 64, 128, { ...SYNC1, maskSplit: true }],
  [4, 32, 64, { ...SYNC1, maskSplit: true, ...CTA2 }],
  [4, 32, 64, { ...SYNC1, maskSplit: true, foldScale: true, ...CTA2 }],
  // FlashAttention-2's hdim-128 shape (64-row Q tiles, 128 keys, 8 warps) with the new flags,
  // and the default shape with them but the two-barrier pipeline.
  [8, 64, 128, { ...SYNC1, maskSplit: true, foldScale: true }],
  [8, 64, 128, { maskSplit: true, foldScale: true }],
  [8, 32, 128, { maskSplit: true, foldScale: true }],
  // b13–b16 (2026-12-02, fifth session): the default b7 with 32 × 32 dQ warp tiles
  // (FlashAttention-2's dQ atom layout: 32 instead of 40 ldmatrix.x4 a warp and Q step), with the
  // dQ product deferred to the next step's barrier (one barrier a step instead of 2), with both,
  // and both with the folded exp2.
  [8, 64, 128, { ...SYNC1, maskSplit: true, ...DQ32 }],
  [8, 64, 128, { ...SYNC1, maskSplit: true, ...DEFER }],
  [8, 64, 128, { ...SYNC1, maskSplit: true, ...DQ32, ...DEFER }],
  [8, 64, 128, { ...SYNC1, maskSplit: true, foldScale: true, ...DQ32, ...DEFER }],
  // The Q loop of each K/V CTA rotated (staggerQ), on b7 and on b15.
  [8, 64, 128, { ...SYNC1, maskSplit: true, staggerQ: true }],
  [8, 64, 128, { ...SYNC1, maskSplit: true, ...DQ32, ...DEFER, staggerQ: true }],
];

export function tuningTiling(pass: 'forward' | 'backward', entry: TuningEntry, headDim = 128): AttentionTiling {
  const [warps, blockM, blockN, flags] = entry;
  return customTiling(pass, headDim, warps, blockM, blockN, flags);
}
