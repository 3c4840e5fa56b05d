// Attention kernel variants and their tiling: what a generated flash-attention kernel is
// specialised for (input dtype, head dim, causal, bias / mask, dropout) and the tile shape it
// uses. The source text of a kernel depends only on an `AttentionVariant` and its
// `AttentionTiling`; the sizes of one call (batch, heads, sequence lengths) and the strides
// are kernel arguments, so one compiled kernel serves every problem of its variant.
//
// Invariant: every tiling returned here satisfies the kernels' static requirements (blockM is
// 16 per warp, blockN and the padded head dim are multiples of 16, shared memory fits the
// sm_90 opt-in limit), checked by `checkTiling`.

import { CodegenError } from '../errors.js';

/** Input dtypes of the MMA path (f32 accumulate). */
export type AttentionDtype = 'BFloat16' | 'Half';

/** `additive`: a float bias added to the scaled scores; `bool`: a mask, true = attend. */
export type AttentionBiasKind = 'none' | 'additive' | 'bool';

/** The dtype of an additive bias tensor (ignored for `bool` masks, which are 1 byte each). */
export type AttentionBiasDtype = 'BFloat16' | 'Half' | 'Float';

export interface AttentionVariant {
  dtype: AttentionDtype;
  /** E: 8 … 256. */
  headDim: number;
  /** PyTorch's is_causal: top-left aligned, query l attends keys s ≤ l (also when L ≠ S). */
  causal: boolean;
  bias: AttentionBiasKind;
  /** Required when `bias` is 'additive'. */
  biasDtype?: AttentionBiasDtype;
  dropout: boolean;
}

/** Tile shape of one kernel: per CTA blockM query rows (16 · rowTiles per warp) × blockN key rows. */
export interface AttentionTiling {
  warps: number;
  /** Forward: 16-row tiles of Q per warp (each K / V fragment feeds all of them); backward: 1. */
  rowTiles: number;
  blockM: number;
  blockN: number;
  /** The head dim rounded up to 16 (the MMA's k), zero-filled in shared memory. */
  headDimPadded: number;
  /** Shared-memory row stride in elements: the padded head dim + 8 (16 bytes), so the 8 rows of
   * one ldmatrix fall in distinct banks. */
  rowStride: number;
  /** `__launch_bounds__` minimum blocks per SM. */
  minBlocksPerSm: number;
  /** Forward: Q's MMA fragments stay in registers through the K/V loop (else re-read from shared memory). */
  qInRegisters: boolean;
  /**
   * K/V pipeline (backward: of the Q / dO tiles, joint2 or joint2-1sync). `joint2`: K and V of tile j+1 in one cp.async group, two stages, issued
   * before tile j is computed, two barriers a tile. `joint2-1sync`: the same stages, but tile j+1
   * is issued after the barrier that ends tile j-1's reads, so one barrier a tile suffices.
   * `split1`: FlashAttention-2's schedule: one stage each of K and V in separate groups; V of
   * tile j loads while S = Q Kⱼᵀ is computed, K of tile j+1 while softmax and P·V run.
   */
  pipeline: ForwardPipeline;
  /** Forward: the K/V tiles that need no mask (inside the keys, below the diagonal) run in a loop
   * without any mask code; the others in a second loop. Backward: a warp whose 16 keys and the
   * Q tile's rows are all inside and attended computes P without the per-element tests. */
  maskSplit: boolean;
  /** No bias: P = exp2(s · scaleLog2 − max · scaleLog2) as one FFMA (forward: max over raw scores,
   * a negative scale flips Q's signs in shared memory once instead; backward: − lse · log2e, per
   * query column once a step). */
  foldScale: boolean;
  /** Forward, causal: in tiles crossing the diagonal, a warp whose rows all precede the tile's
   * first key skips the tile's MMAs and softmax. */
  warpSkip: boolean;
  /** Forward: O and the row sums are rescaled only when a row's max grows by more than 2^8
   * (FlashAttention-4's conditional rescale; see forward-body.ts). */
  lazyRescale: boolean;
  /** Forward, causal: the grid is (N·H, query tiles) with the longest query tiles of every head
   * launched first (longest-processing-time order over the whole grid). */
  heavyFirst: boolean;
  /** Backward: query rows of the dQ warp tile (16 or 32; see backward-dq.ts). 32 at blockM 64 and
   * 8 warps makes 32 × 32 tiles (FlashAttention-2's dQ atom layout) instead of 16 × 64: 4 instead
   * of 5 ldmatrix.x4 per 8 MMAs. */
  dqWarpRows: number;
  /** Backward: the dQ product of Q step it runs after step it + 1's barrier, from a second dSᵀ
   * buffer, so one barrier a step fewer (backward-dq.ts). */
  deferDq: boolean;
  /** Backward: the K/V CTAs of a head walk the Q tiles from different starting steps (rotated by
   * the K/V tile index), so that their dQ adds do not meet on the same rows at the same time. */
  staggerQ: boolean;
  /** Forward: the tensor-core instruction. 'mma.sync' (m16n8k16, every tiling above); 'wgmma':
   * Hopper's warpgroup MMA (wgmma-forward.ts: 64 query rows a warpgroup of 4 warps, blockM =
   * 16 · warps, blockN 64 or 128, E 64 or 128, no bias / mask / dropout, sm_90a only), opt-in. */
  mma: AttentionMma;
  /** Forward, wgmma only: O += Pⱼ₋₁·Vⱼ₋₁ runs while the softmax of tile j is computed
   * (FlashAttention-3's intra-warpgroup overlap; wgmma-forward-loop.ts), one barrier a tile. */
  overlapPv: boolean;
  /** Forward, wgmma with overlapPv: a producer warpgroup beyond `warps` loads Q/K/V into mbarrier-
   * signalled stages; the consumers never pass a CTA-wide barrier in the loop (wgmma-forward-ws.ts). */
  warpSpecialized: boolean;
}

export type AttentionMma = 'mma.sync' | 'wgmma';

export type ForwardPipeline = 'joint2' | 'joint2-1sync' | 'split1';

/** The tuning flags of a tiling (everything but the tile shape). */
export type TilingFlags = Pick<AttentionTiling, 'qInRegisters' | 'minBlocksPerSm' | 'pipeline' | 'maskSplit' | 'foldScale' | 'warpSkip' | 'heavyFirst' | 'lazyRescale' | 'dqWarpRows' | 'deferDq' | 'staggerQ' | 'mma' | 'overlapPv' | 'warpSpecialized'>;

/** The flags of the tilings timed until 2026-12-01 (and of every backward tiling). */
export const BASELINE_FLAGS: TilingFlags = { qInRegisters: false, minBlocksPerSm: 1, pipeline: 'joint2', maskSplit: false, foldScale: false, warpSkip: false, heavyFirst: false, lazyRescale: false, dqWarpRows: 16, deferDq: false, staggerQ: false, mma: 'mma.sync', overlapPv: false, warpSpecialized: false };

/** The sm_90 opt-in shared-memory limit per block (227 KiB). */
export const MAX_SHARED_BYTES = 232448;

export const MIN_HEAD_DIM = 8;
export const MAX_HEAD_DIM = 256;

export function padHeadDim(headDim: number): number {
  return Math.ceil(headDim / 16) * 16;
}

export function checkVariant(variant: AttentionVariant): void {
  const e = variant.headDim;
  if (!Number.isInteger(e) || e < MIN_HEAD_DIM || e > MAX_HEAD_DIM) {
    throw new CodegenError(`attention: head dim ${e} is outside the supported range ${MIN_HEAD_DIM}…${MAX_HEAD_DIM}`);
  }
  if (variant.dtype !== 'BFloat16' && variant.dtype !== 'Half') {
    throw new CodegenError(`attention: dtype ${String(variant.dtype)} is not supported (BFloat16 or Half)`);
  }
  if (variant.bias === 'additive' && variant.biasDtype === undefined) {
    throw new CodegenError('attention: an additive bias needs biasDtype (BFloat16, Half or Float)');
  }
}

function tiling(headDim: number, warps: number, blockN: number, minBlocksPerSm: number, blockM = 16 * warps, rowTiles = 1): AttentionTiling {
  const headDimPadded = padHeadDim(headDim);
  return { ...BASELINE_FLAGS, warps, rowTiles, blockM, blockN, headDimPadded, rowStride: headDimPadded + 8, minBlocksPerSm };
}


/** The forward flags of the E ≤ 128 default (tuning.ts FORWARD_TUNING f14): FlashAttention-2's
 * split K/V pipeline, the mask-free loop, the folded scale (no bias), causal warp skip and the
 * heavy-first grid. Fastest of the tilings timed on the H200 on 2026-12-02 at L = S = 4096,
 * non-causal and causal (306 / 293 TFLOP/s against 274 / 187 for the previous defaults). */
const TUNED_E128_FLAGS: Partial<TilingFlags> = { pipeline: 'split1', maskSplit: true, foldScale: true, warpSkip: true, heavyFirst: true };

/**
 * Forward tiling. Up to E 64, 8 warps × 16 query rows × 128-key tiles (timed on the H200,
 * 2026-12-01); E 113–128 (padded to the tuned 128), 4 warps × two 16-row tiles (128 query rows)
 * × 64 keys, two CTAs an SM, with TUNED_E128_FLAGS, causal or not (ptxas: 255 registers, 100 / 8
 * bytes spilled, and still the fastest); with a bias, mask or dropout, whose extra registers
 * would spill 400–600 bytes in that shape, 8 warps × 16 rows × 64 keys with Q's fragments in
 * registers (207 TFLOP/s causal on 2026-12-01, the previous default); E 65–112 (where the tuned
 * shape spills 660 B at E 100) the previous defaults: 8 warps × 256 rows × 32 keys, or 128 × 64
 * with Q in registers when causal, biased or with dropout; above E 128,
 * 4 warps × 16 rows × 32 keys, where the O accumulator alone takes E / 2 registers a thread.
 */
export function forwardTiling(variant: AttentionVariant): AttentionTiling {
  checkVariant(variant);
  const padded = padHeadDim(variant.headDim);
  const t: AttentionTiling =
    padded <= 64
      ? tiling(variant.headDim, 8, 128, 1)
      : padded <= 128
        ? padded === 128 && variant.bias === 'none' && !variant.dropout
          ? { ...tiling(variant.headDim, 4, 64, 2, 128, 2), ...TUNED_E128_FLAGS }
          : padded === 128 || variant.causal || variant.bias !== 'none' || variant.dropout
            ? { ...tiling(variant.headDim, 8, 64, 1), qInRegisters: true }
            : tiling(variant.headDim, 8, 32, 1, 256, 2)
        : tiling(variant.headDim, 4, 32, 1);
  checkTiling(t, forwardSharedBytes(t), 'forward');
  return t;
}

/** The wgmma forward's tiling where it is the default (FORWARD_TUNING f31: 2 warpgroups × 64 rows,
 * 128-key tiles, P·V overlapping the softmax, mask-free inside tiles, heavy-first grid). */
export const WGMMA_DEFAULT_FLAGS: Partial<TilingFlags> = { mma: 'wgmma', overlapPv: true, maskSplit: true, foldScale: true, warpSkip: true, heavyFirst: true };

/**
 * The forward tiling for a device of compute capability `computeCapability`: on 9.0 (sm_90a's
 * wgmma), BFloat16 at E 128 without bias, mask or dropout, the wgmma forward (8 warps, 128 ×
 * 128, WGMMA_DEFAULT_FLAGS) — timed on the H200 (2026-12-03, call 2, c0b02c0) at 453 / 411
 * TFLOP/s (L = S = 4096, non-causal / causal) and 436 / 421 (8192) against 308 / 288 and
 * 321 / 295 for forwardTiling's f14 in the same run; everything else (and every other device)
 * `forwardTiling`. Half and E 64 are correct on that path (the GPU probes) but not timed, so
 * they keep mma.sync.
 */
export function forwardTilingForDevice(variant: AttentionVariant, computeCapability: readonly [number, number]): AttentionTiling {
  const wgmma = computeCapability[0] === 9 && computeCapability[1] === 0 && variant.dtype === 'BFloat16' && variant.headDim === 128 && variant.bias === 'none' && !variant.dropout;
  return wgmma ? customTiling('forward', 128, 8, 128, 128, WGMMA_DEFAULT_FLAGS) : forwardTiling(variant);
}

/**
 * Backward tiling: blockN key rows (16 per warp, dK and dV accumulated in registers) × blockM
 * query rows per step of the Q loop.
 */
export function backwardTiling(variant: AttentionVariant): AttentionTiling {
  checkVariant(variant);
  const padded = padHeadDim(variant.headDim);
  // Backward: blockN is the K/V tile (16 rows per warp), blockM the Q tile.
  // E 113–128 without bias or dropout: BACKWARD_TUNING b13 (b7 — 64-row Q tiles, one barrier a Q
  // step, the mask-free P of inside tiles — with FlashAttention-2's 32 × 32 dQ warp tiles), the
  // fastest timed on the H200 (2026-12-02, fifth session, s5-call3-attention.log: 220 / 200
  // TFLOP/s at L = S = 4096, non-causal / causal, against 195 / 180 for b7 in the same run and
  // 195–220 for the deferred dQ and staggered Q loop, b14–b18; b7 itself had beaten 32-row Q
  // tiles, 197 / 177 against 183 / 167, in the fourth session). With a bias or dropout it spills 104 B and at E 100 64 B
  // (ptxas), so those keep 32-row Q tiles; up to E 64 and above E 128 the baseline as timed on
  // 2026-12-01.
  const t =
    padded <= 64
      ? tiling(variant.headDim, 8, 128, 1, 64)
      : padded <= 128
        ? padded === 128 && variant.bias === 'none' && !variant.dropout
          ? { ...tiling(variant.headDim, 8, 128, 1, 64), pipeline: 'joint2-1sync' as const, maskSplit: true, dqWarpRows: 32 as const }
          : tiling(variant.headDim, 8, 128, 1, 32)
        : tiling(variant.headDim, 4, 64, 1, 32);
  checkTiling(t, backwardSharedBytes(t), 'backward');
  return t;
}

/** Q tile + two stages of K and V tiles (one stage each for `split1`), 2-byte elements; wgmma:
 * the swizzled tiles of wgmma-layout.ts (head dim rounded up to 64) and 1024 bytes of alignment slack. */
export function forwardSharedBytes(t: AttentionTiling): number {
  if (t.mma === 'wgmma') return 1024 + 2 * Math.ceil(t.headDimPadded / 64) * 64 * (t.blockM + 4 * t.blockN) + (t.warpSpecialized ? 64 : 0);
  return 2 * t.rowStride * (t.blockM + (t.pipeline === 'split1' ? 2 : 4) * t.blockN);
}

/** K, V tiles (resident) + two stages of Q and dO tiles + the dSᵀ tile (two with deferDq) + two stages of logsumexp and D. */
export function backwardSharedBytes(t: AttentionTiling): number {
  return 2 * t.rowStride * (2 * t.blockN + 4 * t.blockM) + (t.deferDq ? 2 : 1) * 2 * t.blockN * (t.blockM + 8) + 4 * 4 * t.blockM;
}

export function checkTiling(t: AttentionTiling, sharedBytes: number, pass: string): void {
  const problems: string[] = [];
  if (t.warps < 1 || t.warps > 16) problems.push(`warps ${t.warps} not in 1…16`);
  if (t.blockM !== 16 * t.warps * t.rowTiles && t.rowTiles !== 1) problems.push(`blockM ${t.blockM} is not 16 × ${t.warps} warps × ${t.rowTiles} row tiles`);
  if (t.blockM % 16 !== 0 || t.blockN % 16 !== 0) problems.push(`tile ${t.blockM}×${t.blockN} not a multiple of 16`);
  if (t.headDimPadded % 16 !== 0) problems.push(`padded head dim ${t.headDimPadded} not a multiple of 16`);
  if (sharedBytes > MAX_SHARED_BYTES) problems.push(`${sharedBytes} B of shared memory > ${MAX_SHARED_BYTES}`);
  if (problems.length > 0) throw new CodegenError(`attention ${pass} tiling invalid: ${problems.join('; ')}`);
}

/** A stable identifier of a variant, part of every kernel name. */
export function variantTag(variant: AttentionVariant): string {
  const dtype = variant.dtype === 'BFloat16' ? 'bf16' : 'f16';
  const bias = variant.bias === 'none' ? '' : variant.bias === 'bool' ? '_mask' : `_bias${variant.biasDtype === 'Float' ? 'f32' : variant.biasDtype === 'Half' ? 'f16' : 'bf16'}`;
  return `${dtype}_e${variant.headDim}${variant.causal ? '_causal' : ''}${bias}${variant.dropout ? '_dropout' : ''}`;
}

/**
 * A tiling other than the tuned one (tuning experiments, tests): `pass` says whose shared-memory
 * layout it must fit; the backward needs blockN = 16 · warps (each warp owns 16 key rows) and
 * takes only minBlocksPerSm, pipeline (joint2 or joint2-1sync), maskSplit, foldScale, dqWarpRows
 * (16, or 32 where blockM is a multiple of 32 and the warps split into its 32-row groups) and
 * deferDq and staggerQ of the flags.
 */
export function customTiling(pass: 'forward' | 'backward', headDim: number, warps: number, blockM: number, blockN: number, flags: Partial<TilingFlags> = {}): AttentionTiling {
  const rowTiles = pass === 'forward' ? blockM / (16 * warps) : 1;
  const chosen = pass === 'forward' ? flags : { minBlocksPerSm: flags.minBlocksPerSm ?? 1, pipeline: flags.pipeline ?? 'joint2', maskSplit: flags.maskSplit ?? false, foldScale: flags.foldScale ?? false, dqWarpRows: flags.dqWarpRows ?? 16, deferDq: flags.deferDq ?? false, staggerQ: flags.staggerQ ?? false };
  if (pass === 'backward' && flags.mma === 'wgmma') throw new CodegenError('attention backward tiling: wgmma is forward-only');
  if (pass === 'backward' && chosen.pipeline === 'split1') throw new CodegenError('attention backward tiling: the split1 pipeline is forward-only (joint2 or joint2-1sync)');
  const t = { ...tiling(headDim, warps, blockN, 1, blockM, rowTiles), ...chosen };
  if (pass === 'forward' && rowTiles !== 1 && rowTiles !== 2) throw new CodegenError(`attention forward tiling: blockM ${blockM} must be 16 or 32 rows a warp (${16 * warps} or ${32 * warps})`);
  if (pass === 'backward' && blockN !== 16 * warps) throw new CodegenError(`attention backward tiling: blockN ${blockN} must be 16 × warps (${16 * warps})`);
  if (pass === 'backward' && t.dqWarpRows !== 16 && t.dqWarpRows !== 32) throw new CodegenError(`attention backward tiling: dQ warp tiles of ${t.dqWarpRows} rows (16 or 32)`);
  if (pass === 'backward' && (blockM % t.dqWarpRows !== 0 || warps % (blockM / t.dqWarpRows) !== 0)) throw new CodegenError(`attention backward tiling: ${warps} warps do not split into the ${blockM / t.dqWarpRows} dQ row groups of ${t.dqWarpRows} rows of blockM ${blockM}`);
  if (!Number.isInteger(t.minBlocksPerSm) || t.minBlocksPerSm < 1 || t.minBlocksPerSm * 32 * warps > 2048) throw new CodegenError(`attention ${pass} tiling: ${t.minBlocksPerSm} blocks of ${32 * warps} threads per SM is not possible`);
  checkTiling(t, pass === 'forward' ? forwardSharedBytes(t) : backwardSharedBytes(t), pass);
  return t;
}

/** Every field of a tiling in one short string: a kernel cache key and a table label. */
export function tilingTag(t: AttentionTiling): string {
  const flags = [
    t.rowTiles > 1 ? `${16 * t.rowTiles}r/w` : '',
    t.qInRegisters ? 'qreg' : '',
    t.minBlocksPerSm > 1 ? `${t.minBlocksPerSm}cta` : '',
    t.pipeline === 'joint2' ? '' : t.pipeline,
    t.maskSplit ? 'msplit' : '',
    t.foldScale ? 'fold' : '',
    t.warpSkip ? 'wskip' : '',
    t.heavyFirst ? 'heavy' : '',
    t.lazyRescale ? 'lazy' : '',
    t.dqWarpRows !== 16 ? `dq${t.dqWarpRows}` : '',
    t.deferDq ? 'defer' : '',
    t.staggerQ ? 'stagger' : '',
    t.mma === 'wgmma' ? 'wgmma' : '',
    t.overlapPv ? 'overlap' : '',
    t.warpSpecialized ? 'ws' : '',
  ].filter((f) => f !== '');
  return `${t.warps}w ${t.blockM}x${t.blockN}${flags.length > 0 ? ` ${flags.join(' ')}` : ''}`;
}
