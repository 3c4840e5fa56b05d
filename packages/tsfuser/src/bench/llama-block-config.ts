// The sizes of a LLaMA-style decoder block (issue 35) and what follows from them alone: the
// LLaMA-7B layer the bench times, the small block the reference evaluator checks against PyTorch,
// and the block's floating-point work (GEMMs and causal attention) for TFLOP/s.
// Invariant: a config that `checkLlamaConfig` accepts builds; every other one is refused with one
// message naming the field.

export interface LlamaBlockConfig {
  batch: number;
  seq: number;
  /** The model width D (= heads · headDim in LLaMA). */
  hidden: number;
  /** Query heads H. */
  heads: number;
  /** Key/value heads Hkv (H a multiple of it: grouped-query attention when smaller). */
  kvHeads: number;
  /** E, even (rotate-half splits it in two). */
  headDim: number;
  /** The MLP's inner width (gate, up: D → ffn; down: ffn → D). */
  ffn: number;
  /** RMSNorm's epsilon (HF LlamaRMSNorm's variance_epsilon). */
  eps: number;
}

/** A LLaMA-7B layer at batch 2, sequence 2048 (the bench's size). */
export const LLAMA_7B_CONFIG: LlamaBlockConfig = { batch: 2, seq: 2048, hidden: 4096, heads: 32, kvHeads: 32, headDim: 128, ffn: 11008, eps: 1e-6 };

/** The block the reference evaluator checks against PyTorch in the test suite. */
export const LLAMA_SMALL_CONFIG: LlamaBlockConfig = { batch: 2, seq: 16, hidden: 64, heads: 4, kvHeads: 4, headDim: 16, ffn: 160, eps: 1e-6 };

/** The small block with grouped-query attention (4 query heads over 2 key/value heads). */
export const LLAMA_SMALL_GQA_CONFIG: LlamaBlockConfig = { ...LLAMA_SMALL_CONFIG, kvHeads: 2 };

export class LlamaConfigError extends Error {
  override name = 'LlamaConfigError';
}

/** Refuses a config whose sizes the block cannot be built with, naming the field. */
export function checkLlamaConfig(c: LlamaBlockConfig): void {
  for (const field of ['batch', 'seq', 'hidden', 'heads', 'kvHeads', 'headDim', 'ffn'] as const) {
    if (!Number.isInteger(c[field]) || c[field] <= 0) throw new LlamaConfigError(`llama block config: ${field} must be a positive integer, got ${String(c[field])}`);
  }
  if (c.headDim % 2 !== 0) throw new LlamaConfigError(`llama block config: headDim must be even (RoPE's rotate-half splits it), got ${c.headDim}`);
  if (c.heads % c.kvHeads !== 0) throw new LlamaConfigError(`llama block config: heads (${c.heads}) must be a multiple of kvHeads (${c.kvHeads})`);
  if (!(c.eps > 0)) throw new LlamaConfigError(`llama block config: eps must be positive, got ${String(c.eps)}`);
}

/** 2·M·N·K of each linear of the forward: q, k, v, o, gate, up, down over the B·T tokens. */
function forwardGemmFlops(c: LlamaBlockConfig): number {
  const tokens = c.batch * c.seq;
  const qo = 2 * c.hidden * c.heads * c.headDim;
  const kv = 2 * c.hidden * c.kvHeads * c.headDim;
  const mlp = 3 * c.hidden * c.ffn;
  return 2 * tokens * (qo + kv + mlp);
}

/**
 * Causal attention's forward: Q·Kᵀ and P·V, 2·2·B·H·T²·E, halved by the causal mask (the
 * convention of flash-attention's benchmarks).
 */
function forwardAttentionFlops(c: LlamaBlockConfig): number {
  return (4 * c.batch * c.heads * c.seq * c.seq * c.headDim) / 2;
}

/** Floating-point work of the inference forward (GEMMs + attention; pointwise work not counted). */
export function llamaForwardFlops(c: LlamaBlockConfig): number {
  return forwardGemmFlops(c) + forwardAttentionFlops(c);
}

/**
 * A training step (forward + backward): the backward's GEMMs are twice the forward's (the
 * activation grad and the weight grad of each linear) and its attention 2.5 times (dV, dP, dQ,
 * dK, and the recomputed scores: flash-attention's count).
 */
export function llamaTrainingStepFlops(c: LlamaBlockConfig): number {
  return 3 * forwardGemmFlops(c) + 3.5 * forwardAttentionFlops(c);
}

/** `B{batch} T{seq} D{hidden} H{heads}[/Hkv] E{headDim} ffn{ffn}`: how tables and test names spell a config. */
export function describeLlamaConfig(c: LlamaBlockConfig): string {
  const kv = c.kvHeads === c.heads ? '' : `/${c.kvHeads}`;
  return `B${c.batch} T${c.seq} D${c.hidden} H${c.heads}${kv} E${c.headDim} ffn${c.ffn}`;
}
