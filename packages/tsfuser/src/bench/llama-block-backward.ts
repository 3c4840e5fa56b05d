// The backward of the LLaMA-style decoder block (llama-block-forward.ts) as one FusionDefinition,
// as PyTorch's autograd computes it for the bf16 nn.Module: from dy and the saved activations,
// the grads of the block input and of every weight. Per piece, in reverse:
//   y = h + m·Wdᵀ           dm = dy·Wd, dWd = dyᵀ·m (tokens flattened)
//   m = silu(gate) · up      dgate = silu'(gate)·bf16(dm·up), dup = bf16(dm·silu(gate))
//   gate, up = n2·Wgᵀ, n2·Wuᵀ  dn2 = bf16(dgate·Wg + dup·Wu), dWg, dWu
//   n2 = RMSNorm(h)          dh = bf16(dy + RMSNorm'(dn2)), dffn_norm
//   h = x + o·Woᵀ            do = dh·Wo, dWo = dhᵀ·merge(o)
//   o = sdpfa(q, k, v)       dq, dk, dv = sdpfa_bwd (causal, scale 1/√E)
//   q, k = RoPE(…)           the rotate-half adjoint (llama-block-math.ts ropeBackward)
//   q, k, v = n1·W…ᵀ         dn1 = dq·Wq + dk·Wk + dv·Wv, dWq, dWk, dWv
//   n1 = RMSNorm(x)          dx = bf16(dh + RMSNorm'(dn1)), dattn_norm
// Inputs, in order (LLAMA_BACKWARD_INPUTS): dy, the forward's inputs (x, cos, sin, weights), then
// the saved activations in LLAMA_SAVED order. Outputs (LLAMA_GRADS): dx, then the weights' grads.
// Two grads of one tensor (n1's three, n2's two) add in bf16, as autograd accumulates them.
// Invariant: grads come out in the weights' own dtype and layout (bf16, nn.Linear's [out, in]).

import { FusionDefinition } from '../definition/fusion-definition.js';
import type { TensorHandle } from '../definition/handles.js';
import { checkLlamaConfig, type LlamaBlockConfig } from './llama-block-config.js';
import { defineLlamaInputs, defineStatic, llamaSavedShapes, LLAMA_FORWARD_INPUTS, LLAMA_SAVED, type LlamaSavedName } from './llama-block-forward.js';
import { bf16Add, bf16Mul, flattenTokens, mergeHeadsFlat, rmsNormBackward, ropeBackward, silu, siluBackward, splitHeads, weightGrad } from './llama-block-math.js';

/** The backward's inputs, in order. */
export const LLAMA_BACKWARD_INPUTS = ['dy', ...LLAMA_FORWARD_INPUTS, ...LLAMA_SAVED] as const;

/** The backward's outputs, in order: the block input's grad, then the weights' (HF parameter names). */
export const LLAMA_GRADS = ['x', 'attn_norm.weight', 'wq', 'wk', 'wv', 'wo', 'ffn_norm.weight', 'w_gate', 'w_up', 'w_down'] as const;

export interface LlamaBackwardOptions {
  /** Tests only: RoPE's adjoint with the sign flipped (a wrong backward the check must catch). */
  wrongRopeAdjoint?: boolean;
}

function defineSaved(fd: FusionDefinition, c: LlamaBlockConfig): Record<LlamaSavedName, TensorHandle> {
  const shapes = llamaSavedShapes(c);
  // In LLAMA_SAVED order (the definition's input order is the order of these calls).
  return Object.fromEntries(LLAMA_SAVED.map((n) => [n, defineStatic(fd, shapes[n].sizes, shapes[n].dtype)])) as Record<LlamaSavedName, TensorHandle>;
}

/** The backward of one decoder block at config `c` (see the header). */
export function llamaBlockBackward(c: LlamaBlockConfig, options: LlamaBackwardOptions = {}): FusionDefinition {
  checkLlamaConfig(c);
  return FusionDefinition.build((fd) => {
    const dy = defineStatic(fd, [c.batch, c.seq, c.hidden], 'BFloat16');
    const i = defineLlamaInputs(fd, c);
    const s = defineSaved(fd, c);
    const tokens = (t: TensorHandle, k: number): TensorHandle => flattenTokens(fd, c, t, k);

    // MLP: y = h + down(silu(gate) · up)
    const dyFlat = tokens(dy, c.hidden);
    const dm = fd.ops.matmul(dyFlat, i.w_down);
    const dwDown = weightGrad(fd, dyFlat, tokens(s.m, c.ffn));
    const dm3 = fd.ops.reshape(dm, [c.batch, c.seq, c.ffn]);
    const dgate = siluBackward(fd, bf16Mul(fd, dm3, s.up), s.gate);
    const dup = bf16Mul(fd, dm3, silu(fd, s.gate));
    const dgateFlat = tokens(dgate, c.ffn);
    const dupFlat = tokens(dup, c.ffn);
    const dn2 = fd.ops.reshape(bf16Add(fd, fd.ops.matmul(dgateFlat, i.w_gate), fd.ops.matmul(dupFlat, i.w_up)), [c.batch, c.seq, c.hidden]);
    const n2Flat = tokens(s.n2, c.hidden);
    const dwGate = weightGrad(fd, dgateFlat, n2Flat);
    const dwUp = weightGrad(fd, dupFlat, n2Flat);
    const norm2 = rmsNormBackward(fd, c, dn2, s.h, s.rstd2, i['ffn_norm.weight']);
    const dh = bf16Add(fd, dy, norm2.dx);

    // attention: h = x + o_proj(merge(sdpfa(rope(q), rope(k), v)))
    const dhFlat = tokens(dh, c.hidden);
    const dwO = weightGrad(fd, dhFlat, mergeHeadsFlat(fd, c, s.o, c.heads));
    const dO = splitHeads(fd, c, fd.ops.matmul(dhFlat, i.wo), c.heads);
    const v = splitHeads(fd, c, s.v, c.kvHeads);
    const [dq, dk, dv] = fd.ops.sdpfaBwd(dO, s.q, s.k, v, s.o, s.lse, fd.defineScalar(0.0, 'Double'), true, s.philox_seed, s.philox_offset, fd.defineScalar(1 / Math.sqrt(c.headDim), 'Double'));
    const flip = options.wrongRopeAdjoint === true;
    const dqFlat = mergeHeadsFlat(fd, c, ropeBackward(fd, c, dq, i.cos, i.sin, c.heads, flip), c.heads);
    const dkFlat = mergeHeadsFlat(fd, c, ropeBackward(fd, c, dk, i.cos, i.sin, c.kvHeads, flip), c.kvHeads);
    const dvFlat = mergeHeadsFlat(fd, c, dv, c.kvHeads);
    const dn1Flat = bf16Add(fd, bf16Add(fd, fd.ops.matmul(dqFlat, i.wq), fd.ops.matmul(dkFlat, i.wk)), fd.ops.matmul(dvFlat, i.wv));
    const n1Flat = tokens(s.n1, c.hidden);
    const dwQ = weightGrad(fd, dqFlat, n1Flat);
    const dwK = weightGrad(fd, dkFlat, n1Flat);
    const dwV = weightGrad(fd, dvFlat, n1Flat);
    const norm1 = rmsNormBackward(fd, c, fd.ops.reshape(dn1Flat, [c.batch, c.seq, c.hidden]), i.x, s.rstd1, i['attn_norm.weight']);
    const dx = bf16Add(fd, dh, norm1.dx);

    const grads: Record<(typeof LLAMA_GRADS)[number], TensorHandle> = {
      x: dx,
      'attn_norm.weight': norm1.dweight,
      wq: dwQ,
      wk: dwK,
      wv: dwV,
      wo: dwO,
      'ffn_norm.weight': norm2.dweight,
      w_gate: dwGate,
      w_up: dwUp,
      w_down: dwDown,
    };
    for (const name of LLAMA_GRADS) fd.addOutput(grads[name]);
  });
}
