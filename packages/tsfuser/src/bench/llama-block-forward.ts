// The forward of a LLaMA-style decoder block as one FusionDefinition, written as nvFuser's
// frontend users write one (issue 35):
//   n1 = RMSNorm(x; attn_norm.weight)
//   q, k, v = n1·Wqᵀ, n1·Wkᵀ, n1·Wvᵀ split into heads [B, n, T, E]; q, k rotated (RoPE rotate-half)
//   o = sdpfa_fwd(q, k, v, causal, scale 1/√E); h = x + merge(o)·Woᵀ
//   n2 = RMSNorm(h; ffn_norm.weight); m = silu(n2·Wgateᵀ) · (n2·Wupᵀ); y = h + m·Wdownᵀ
// Inputs, in order (LLAMA_FORWARD_INPUTS): x [B,T,D], cos, sin [T,E] (bf16, as HF's rotary
// embedding returns them), the nine weights (nn.Linear's [out, in], no bias), all bf16.
// Outputs: y; with saveForBackward also the activations the backward reads (LLAMA_SAVED).
// Invariant: the math is the bf16 nn.Module's of tools/bench/llama_block.py, op for
// op in rounding (llama-block-math.ts); the saved set is exactly what llamaBlockBackward takes.

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { TensorHandle } from '../definition/handles.js';
import { checkLlamaConfig, type LlamaBlockConfig } from './llama-block-config.js';
import { bf16Add, bf16Mul, rmsNorm, rope, silu, splitHeads } from './llama-block-math.js';

/** The forward's inputs, in order (weights as HF names them, nn.Linear layout [out, in]). */
export const LLAMA_FORWARD_INPUTS = ['x', 'cos', 'sin', 'attn_norm.weight', 'wq', 'wk', 'wv', 'wo', 'ffn_norm.weight', 'w_gate', 'w_up', 'w_down'] as const;

/**
 * The activations a training forward saves, in output order after y: what autograd keeps for
 * the backward, minus what is cheap to recompute there (the bf16 normalized rows before the
 * weight, silu(gate)). rstd1/rstd2 are f32 [B,T]; q, k (after RoPE) and o are [B, n, T, E];
 * v is v_proj's output [B, T, Hkv·E] (its [B, Hkv, T, E] view is a strided view on the GPU, which
 * a contiguous backward input would refuse: the backward makes the view again);
 * lse f32 [B,H,T]; philox_seed / philox_offset are sdpfa_fwd's (the backward's signature
 * needs them); the rest bf16 [B, T, ·].
 */
export const LLAMA_SAVED = ['rstd1', 'n1', 'q', 'k', 'v', 'o', 'lse', 'philox_seed', 'philox_offset', 'h', 'rstd2', 'n2', 'gate', 'up', 'm'] as const;

export type LlamaSavedName = (typeof LLAMA_SAVED)[number];

/** Sizes and dtype of each saved activation (LLAMA_SAVED), from the config. */
export function llamaSavedShapes(c: LlamaBlockConfig): Record<LlamaSavedName, { sizes: number[]; dtype: DataType }> {
  const [b, t] = [c.batch, c.seq];
  const bf16 = (sizes: number[]): { sizes: number[]; dtype: DataType } => ({ sizes, dtype: 'BFloat16' });
  const f32 = (sizes: number[]): { sizes: number[]; dtype: DataType } => ({ sizes, dtype: 'Float' });
  return {
    rstd1: f32([b, t]),
    n1: bf16([b, t, c.hidden]),
    q: bf16([b, c.heads, t, c.headDim]),
    k: bf16([b, c.kvHeads, t, c.headDim]),
    v: bf16([b, t, c.kvHeads * c.headDim]),
    o: bf16([b, c.heads, t, c.headDim]),
    lse: f32([b, c.heads, t]),
    philox_seed: { sizes: [2], dtype: 'UInt64' },
    philox_offset: { sizes: [], dtype: 'UInt64' },
    h: bf16([b, t, c.hidden]),
    rstd2: f32([b, t]),
    n2: bf16([b, t, c.hidden]),
    gate: bf16([b, t, c.ffn]),
    up: bf16([b, t, c.ffn]),
    m: bf16([b, t, c.ffn]),
  };
}

export interface LlamaForwardOptions {
  /** Training: add the saved activations (LLAMA_SAVED) as outputs after y. */
  saveForBackward: boolean;
}

/**
 * The input tensors in LLAMA_FORWARD_INPUTS order, defined on `fd` with the config's sizes as
 * static extents (the definition is built for one config: a tensor of other sizes is refused at
 * the input check, naming the input and the dim), contiguous.
 */
export function defineLlamaInputs(fd: FusionDefinition, c: LlamaBlockConfig): Record<(typeof LLAMA_FORWARD_INPUTS)[number], TensorHandle> {
  const tensor = (...shape: number[]): TensorHandle => defineStatic(fd, shape, 'BFloat16');
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  return {
    x: tensor(c.batch, c.seq, c.hidden),
    cos: tensor(c.seq, c.headDim),
    sin: tensor(c.seq, c.headDim),
    'attn_norm.weight': tensor(c.hidden),
    wq: tensor(q, c.hidden),
    wk: tensor(kv, c.hidden),
    wv: tensor(kv, c.hidden),
    wo: tensor(c.hidden, q),
    'ffn_norm.weight': tensor(c.hidden),
    w_gate: tensor(c.ffn, c.hidden),
    w_up: tensor(c.ffn, c.hidden),
    w_down: tensor(c.hidden, c.ffn),
  };
}

/** A contiguous tensor input of static `shape` (a size-1 dim is a broadcast dim, as nvFuser reads shape 1). */
export function defineStatic(fd: FusionDefinition, shape: readonly number[], dtype: DataType): TensorHandle {
  return fd.defineTensor({ shape, contiguity: shape.map((s) => (s === 1 ? null : true)), dtype });
}

/** The forward of one decoder block at config `c` (see the header). */
export function llamaBlockForward(c: LlamaBlockConfig, options: LlamaForwardOptions): FusionDefinition {
  checkLlamaConfig(c);
  return FusionDefinition.build((fd) => {
    const i = defineLlamaInputs(fd, c);
    const norm1 = rmsNorm(fd, c, i.x, i['attn_norm.weight']);
    const n1 = norm1.output;
    const q = rope(fd, c, splitHeads(fd, c, fd.ops.linear(n1, i.wq), c.heads), i.cos, i.sin, c.heads);
    const k = rope(fd, c, splitHeads(fd, c, fd.ops.linear(n1, i.wk), c.kvHeads), i.cos, i.sin, c.kvHeads);
    const vProj = fd.ops.linear(n1, i.wv);
    const v = splitHeads(fd, c, vProj, c.kvHeads);
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
    const saved: Record<LlamaSavedName, TensorHandle> = { rstd1: norm1.rstd, n1, q, k, v: vProj, o, lse, philox_seed: philoxSeed, philox_offset: philoxOffset, h, rstd2: norm2.rstd, n2, gate, up, m };
    for (const name of LLAMA_SAVED) fd.addOutput(saved[name]);
  });
}
