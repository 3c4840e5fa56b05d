// The forward of a LLaMA-style decoder block as one FusionDefinition, written as nvFuser's
// frontend users write one (issue 35):
//   n1 = RMSNorm(x; attn_norm.weight)
//   q, k, v = n1·Wqᵀ, n1·Wkᵀ, n1·Wvᵀ split into heads [B, n, T, E]; q, k rotated (RoPE rotate-half)
//   o = sdpfa_fwd(q, k, v, causal, scale 1/√E); h = x + merge(o)·Woᵀ
//   n2 = RMSNorm(h; ffn_norm.weight); m = silu(n2·Wgateᵀ) · (n2·Wupᵀ); y = h + m·Wdownᵀ
// Inputs, in order (LLAMA_FORWARD_INPUTS): x [B,T,D], cos, sin [T,E] (bf16, as HF's rotary
// embedding returns them), the nine weights (nn.Linear's [out, in], no bias), all bf16.
// Outputs: y; with saveForBackward also the activations the backward reads (LLAMA_SAVED).
// Invariant: the math is the bf16 nn.Module's of tools/torch-values/llama_block_values.py, op for
// op in rounding (llama-block-math.ts); the saved set is exactly what llamaBlockBackward takes.

import { FusionDefinition } from '../definition/fusion-definition.js';
import type { TensorHandle } from '../definition/handles.js';
import { checkLlamaConfig, type LlamaBlockConfig } from './llama-block-config.js';
import { bf16Add, bf16Mul, rmsNorm, rope, silu, splitHeads } from './llama-block-math.js';

/** The forward's inputs, in order (weights as HF names them, nn.Linear layout [out, in]). */
export const LLAMA_FORWARD_INPUTS = ['x', 'cos', 'sin', 'attn_norm.weight', 'wq', 'wk', 'wv', 'wo', 'ffn_norm.weight', 'w_gate', 'w_up', 'w_down'] as const;

/**
 * The activations a training forward saves, in output order after y: what autograd keeps for
 * the backward, minus what is cheap to recompute there (the bf16 normalized rows before the
 * weight, silu(gate)). rstd1/rstd2 are f32 [B,T]; q, k (after RoPE), v and o are [B, n, T, E];
 * lse f32 [B,H,T]; philox_seed / philox_offset are sdpfa_fwd's (the backward's signature
 * needs them); the rest bf16 [B, T, ·].
 */
export const LLAMA_SAVED = ['rstd1', 'n1', 'q', 'k', 'v', 'o', 'lse', 'philox_seed', 'philox_offset', 'h', 'rstd2', 'n2', 'gate', 'up', 'm'] as const;

export type LlamaSavedName = (typeof LLAMA_SAVED)[number];

export interface LlamaForwardOptions {
  /** Training: add the saved activations (LLAMA_SAVED) as outputs after y. */
  saveForBackward: boolean;
}

/** The input tensors in LLAMA_FORWARD_INPUTS order, defined on `fd` (symbolic sizes, contiguous). */
export function defineLlamaInputs(fd: FusionDefinition): Record<(typeof LLAMA_FORWARD_INPUTS)[number], TensorHandle> {
  const tensor = (rank: number): TensorHandle => fd.defineTensor({ shape: new Array<number>(rank).fill(-1), contiguity: new Array<boolean>(rank).fill(true), dtype: 'BFloat16' });
  return {
    x: tensor(3),
    cos: tensor(2),
    sin: tensor(2),
    'attn_norm.weight': tensor(1),
    wq: tensor(2),
    wk: tensor(2),
    wv: tensor(2),
    wo: tensor(2),
    'ffn_norm.weight': tensor(1),
    w_gate: tensor(2),
    w_up: tensor(2),
    w_down: tensor(2),
  };
}

/** The forward of one decoder block at config `c` (see the header). */
export function llamaBlockForward(c: LlamaBlockConfig, options: LlamaForwardOptions): FusionDefinition {
  checkLlamaConfig(c);
  return FusionDefinition.build((fd) => {
    const i = defineLlamaInputs(fd);
    const norm1 = rmsNorm(fd, c, i.x, i['attn_norm.weight']);
    const n1 = norm1.output;
    const q = rope(fd, c, splitHeads(fd, c, fd.ops.linear(n1, i.wq), c.heads), i.cos, i.sin, c.heads);
    const k = rope(fd, c, splitHeads(fd, c, fd.ops.linear(n1, i.wk), c.kvHeads), i.cos, i.sin, c.kvHeads);
    const v = splitHeads(fd, c, fd.ops.linear(n1, i.wv), c.kvHeads);
    const [o, lse, philoxSeed, philoxOffset] = fd.ops.sdpfaFwd(q, k, v, null, null, fd.defineScalar(0.0, 'Double'), true, fd.defineScalar(1 / Math.sqrt(c.headDim), 'Double'));
    const merged = fd.ops.reshape(fd.ops.permute(o, [0, 2, 1, 3]), [c.batch, c.seq, c.heads * c.headDim]);
    const h = bf16Add(fd, i.x, fd.ops.linear(merged, i.wo));
    const norm2 = rmsNorm(fd, c, h, i['ffn_norm.weight']);
    const n2 = norm2.output;
    const gate = fd.ops.linear(n2, i.w_gate);
    const up = fd.ops.linear(n2, i.w_up);
    const m = bf16Mul(fd, silu(fd, gate), up);
    fd.addOutput(bf16Add(fd, h, fd.ops.linear(m, i.w_down)));
    if (!options.saveForBackward) return;
    const saved: Record<LlamaSavedName, TensorHandle> = { rstd1: norm1.rstd, n1, q, k, v, o, lse, philox_seed: philoxSeed, philox_offset: philoxOffset, h, rstd2: norm2.rstd, n2, gate, up, m };
    for (const name of LLAMA_SAVED) fd.addOutput(saved[name]);
  });
}
