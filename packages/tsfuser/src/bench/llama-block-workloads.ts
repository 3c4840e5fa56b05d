// The LLaMA decoder block's bench workloads (issue 35), shared by name with
// tools/bench/pytorch_bench.py (the same block as an nn.Module, eager and torch.compile):
//   llama_block_fwd_bf16  inference forward (one definition: y only)
//   llama_block_bwd_bf16  a training step: the forward with its saved activations, then the
//                         backward (dx and every weight's grad), timed together
// at a LLaMA-7B layer (B2 T2048 D4096 H32 E128 ffn 11008). Inputs: x and dy random, weights
// random scaled by 1/√fan-in (std ≈ 1/√in, so the block's activations stay O(1) as in a trained
// model), norm weights positive, cos / sin HF's real RoPE tables (θ = 10000) in bf16.
// Invariant: `bytes` counts every step's inputs read once and outputs written once (the saved
// activations twice: written by the forward, read by the backward); `flops` GEMMs + attention.

import { dataTypeSize, HostTensor } from '@tsfuser/fusion-ir';
import { LLAMA_7B_CONFIG, describeLlamaConfig, llamaForwardFlops, llamaTrainingStepFlops, type LlamaBlockConfig } from './llama-block-config.js';
import { llamaBlockForward, llamaSavedShapes, LLAMA_FORWARD_INPUTS, LLAMA_SAVED } from './llama-block-forward.js';
import { llamaBlockBackward, LLAMA_GRADS } from './llama-block-backward.js';
import type { StepArgument, Workload, WorkloadInput } from './workloads.js';

const BF16 = 2;

/** HF LlamaRotaryEmbedding's tables: cos / sin of t·θ^(−2i/E), the E/2 frequencies repeated, [T, E] bf16. */
export function ropeTables(c: LlamaBlockConfig, theta = 10000): { cos: HostTensor; sin: HostTensor } {
  const half = c.headDim / 2;
  const cos: number[] = [];
  const sin: number[] = [];
  for (let t = 0; t < c.seq; t += 1) {
    for (let e = 0; e < c.headDim; e += 1) {
      // f32 as HF computes inv_freq and the outer product; the bf16 rounding happens in fromValues.
      const invFreq = Math.fround(1 / Math.fround(theta ** Math.fround((2 * (e % half)) / c.headDim)));
      const angle = Math.fround(t * invFreq);
      cos.push(Math.fround(Math.cos(angle)));
      sin.push(Math.fround(Math.sin(angle)));
    }
  }
  return { cos: HostTensor.fromValues('BFloat16', [c.seq, c.headDim], cos), sin: HostTensor.fromValues('BFloat16', [c.seq, c.headDim], sin) };
}

/** The forward's inputs as bench inputs (LLAMA_FORWARD_INPUTS order). */
function forwardInputs(c: LlamaBlockConfig): WorkloadInput[] {
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  // randomHost draws N(0, 2²): scale 1/(2√in) gives std 1/√in.
  const weight = (out: number, inFeatures: number): WorkloadInput => ({ sizes: [out, inFeatures], dtype: 'BFloat16', tiled: true, scale: 1 / (2 * Math.sqrt(inFeatures)) });
  const norm: WorkloadInput = { sizes: [c.hidden], dtype: 'BFloat16', positive: true };
  const table = (which: 'cos' | 'sin'): WorkloadInput => ({ sizes: [c.seq, c.headDim], dtype: 'BFloat16', values: () => ropeTables(c)[which] });
  const byName: Record<(typeof LLAMA_FORWARD_INPUTS)[number], WorkloadInput> = {
    x: { sizes: [c.batch, c.seq, c.hidden], dtype: 'BFloat16', tiled: true, scale: 0.5 },
    cos: table('cos'),
    sin: table('sin'),
    'attn_norm.weight': norm,
    wq: weight(q, c.hidden),
    wk: weight(kv, c.hidden),
    wv: weight(kv, c.hidden),
    wo: weight(c.hidden, q),
    'ffn_norm.weight': norm,
    w_gate: weight(c.ffn, c.hidden),
    w_up: weight(c.ffn, c.hidden),
    w_down: weight(c.hidden, c.ffn),
  };
  return LLAMA_FORWARD_INPUTS.map((n) => byName[n]);
}

function inputBytes(inputs: readonly WorkloadInput[]): number {
  return inputs.reduce((a, i) => a + i.sizes.reduce((x, y) => x * y, 1) * BF16, 0);
}

/** Inference: the block's inputs read once, y written once. */
export function llamaForwardWorkload(c: LlamaBlockConfig = LLAMA_7B_CONFIG): Workload {
  const inputs = forwardInputs(c);
  const y = c.batch * c.seq * c.hidden * BF16;
  return {
    name: 'llama_block_fwd_bf16',
    description: `LLaMA decoder block forward, inference (RMSNorm, q/k/v, RoPE, causal sdpfa, o, residual, RMSNorm, SiLU·up, down, residual) ${describeLlamaConfig(c)} bf16`,
    build: () => llamaBlockForward(c, { saveForBackward: false }),
    inputs,
    bytes: inputBytes(inputs) + y,
    flops: llamaForwardFlops(c),
  };
}

/** A training step: forward with saves, then backward from dy (the last input). */
export function llamaTrainingWorkload(c: LlamaBlockConfig = LLAMA_7B_CONFIG): Workload {
  const forward = forwardInputs(c);
  const dy: WorkloadInput = { sizes: [c.batch, c.seq, c.hidden], dtype: 'BFloat16', tiled: true, scale: 0.5 };
  const saved = llamaSavedShapes(c);
  const savedTotal = LLAMA_SAVED.reduce((a, n) => a + saved[n].sizes.reduce((x, y) => x * y, 1) * dataTypeSize(saved[n].dtype), 0);
  const y = c.batch * c.seq * c.hidden * BF16;
  const weights = inputBytes(forward.slice(3));
  // forward: inputs read, y + saved written; backward: dy, the inputs and saved read, dx + weight grads written.
  const bytes = inputBytes(forward) + y + savedTotal + inputBytes([dy]) + inputBytes(forward) + savedTotal + y + weights;
  const args: StepArgument[] = [{ input: forward.length }, ...forward.map((_, i): StepArgument => ({ input: i })), ...LLAMA_SAVED.map((_, j): StepArgument => ({ step: 0, output: 1 + j }))];
  return {
    name: 'llama_block_bwd_bf16',
    description: `LLaMA decoder block training step: forward saving ${LLAMA_SAVED.length} activations, then backward (dx and ${LLAMA_GRADS.length - 1} weight grads) ${describeLlamaConfig(c)} bf16, timed together`,
    build: () => llamaBlockForward(c, { saveForBackward: true }),
    inputs: [...forward, dy],
    bytes,
    flops: llamaTrainingStepFlops(c),
    steps: [{ name: 'backward', build: () => llamaBlockBackward(c), args }],
  };
}

export function llamaBlockWorkloads(): Workload[] {
  return [llamaForwardWorkload(), llamaTrainingWorkload()];
}
