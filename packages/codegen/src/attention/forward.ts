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

import { ceilDiv, float32, int32, int64, pointer, type AttentionKernel, type AttentionParameter } from './kernel.js';
import { CodegenError } from '../errors.js';
import { forwardBody } from './forward-body.js';
import { generateWgmmaForward } from './wgmma-forward.js';
import { attentionKernelSource } from './shared-code.js';
import { checkVariant, forwardSharedBytes, forwardTiling, tilingTag, variantTag, type AttentionTiling, type AttentionVariant } from './variant.js';

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

/** The forward kernel of `variant` (its tiling from `forwardTiling` unless given). */
export function generateAttentionForward(variant: AttentionVariant, tilingOverride?: AttentionTiling): AttentionKernel {
  checkVariant(variant);
  const t = tilingOverride ?? forwardTiling(variant);
  // The opt-in Hopper variant (tiling.mma 'wgmma') has its own generator.
  if (t.mma === 'wgmma') return generateWgmmaForward(variant, t);
  if (t.overlapPv || t.warpSpecialized) throw new CodegenError('attention forward: overlapPv / warpSpecialized are flags of the wgmma forward (tiling.mma wgmma)');
  const name = forwardKernelName(variant);
  const source = attentionKernelSource(variant, t, name, `tsfuser attention forward: ${name} (${tilingTag(t)}, ${t.pipeline})`, { parameters: FORWARD_PARAMETERS, pointerTypes: POINTER_TYPES }, forwardBody(variant, t));
  return {
    name,
    source,
    parameters: FORWARD_PARAMETERS,
    block: [32 * t.warps, 1, 1],
    sharedBytes: forwardSharedBytes(t),
    tiling: t,
    grid: (p) => {
      if (!t.heavyFirst) return [ceilDiv(p.queryLength, t.blockM), p.heads, p.batch];
      // Heavy-first puts the query tiles on grid y (at most 65535).
      const tiles = ceilDiv(p.queryLength, t.blockM);
      if (tiles > 65535) throw new CodegenError(`attention forward: ${tiles} query tiles exceed the heavy-first grid's 65535 (L ${p.queryLength})`);
      return [p.heads * p.batch, tiles, 1];
    },
  };
}
