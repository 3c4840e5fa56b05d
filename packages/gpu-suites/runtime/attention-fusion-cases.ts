// The cases of the runtime-attention-fusions GPU entry (attention-fusions.ts): sdpfa_fwd and
// sdpfa_fwd → sdpfa_bwd definitions over causal / GQA / bias / mask / dropout / odd sizes / E
// 16, 40, 64, 128 / bf16, fp16, the attention half of a decoder block, and the inputs' values.
// Apart from the entry so that a CPU dry run can plan every case without a device.
// Invariant: each case's `inputs` describe its fusion's inputs in order; `limits` its outputs.

import {
  add, broadcast, cast, cat, Fusion, HostTensor, linear, makeTensor, mul, neg, permute, reshape, rmsNorm, sdpfaBwd, sdpfaFwd, slice, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';

type Dtype = 'BFloat16' | 'Half';

export interface Case {
  name: string;
  fusion: Fusion;
  inputs: { dtype: DataType; sizes: number[]; kind: 'values' | 'mask' }[];
  /** Per output: the relative-error limit, or 'exact' (philox seed / offset). */
  limits: (number | 'exact')[];
  /**
   * Per output: another output of the same call whose size sets an absolute floor on this one's
   * error norm (see attention-fusions.ts). dQ and dK are sums of dS = P ∘ (dP − D) terms, which
   * cancel to 0 when each query sees one key (S = 1, or L = 1 causal): their reference is then
   * ≈ 0 and a relative error divides by nothing, while the kernel's fp32 rounding of dP − D stays
   * at the scale of dV = Pᵀ·dO's terms. Absent: the error is relative only.
   */
  floors?: (number | null)[];
}

interface AttentionSpec {
  dtype: Dtype;
  n: number;
  h: number;
  hkv: number;
  l: number;
  s: number;
  e: number;
  causal: boolean;
  bias: 'none' | 'additive' | 'mask';
  dropout: number;
  backward: boolean;
}

function input(f: Fusion, rank: number, dtype: DataType, broadcastDims: readonly number[] = []): TensorView {
  const tv = makeTensor(f, { shape: Array.from({ length: rank }, (_, d) => (broadcastDims.includes(d) ? 1 : -1)), dtype });
  f.addInput(tv);
  return tv;
}

function attentionCase(c: AttentionSpec): Case {
  const f = new Fusion();
  const q = input(f, 4, c.dtype);
  const k = input(f, 4, c.dtype);
  const v = input(f, 4, c.dtype);
  const ins: Case['inputs'] = [
    { dtype: c.dtype, sizes: [c.n, c.h, c.l, c.e], kind: 'values' },
    { dtype: c.dtype, sizes: [c.n, c.hkv, c.s, c.e], kind: 'values' },
    { dtype: c.dtype, sizes: [c.n, c.hkv, c.s, c.e], kind: 'values' },
  ];
  let bias: TensorView | null = null;
  let mask: TensorView | null = null;
  if (c.bias === 'additive') {
    bias = input(f, 4, c.dtype, [0]);
    ins.push({ dtype: c.dtype, sizes: [1, c.h, c.l, c.s], kind: 'values' });
  } else if (c.bias === 'mask') {
    mask = input(f, 4, 'Bool', [1]);
    ins.push({ dtype: 'Bool', sizes: [c.n, 1, c.l, c.s], kind: 'mask' });
  }
  const r = sdpfaFwd(q, k, v, { isCausal: c.causal, dropoutP: c.dropout, bias, mask, rng: { rngSeed: 20261201 + c.l, rngOffset: 4 * c.s } });
  f.addOutput(r.output);
  f.addOutput(r.logsumexp);
  f.addOutput(r.philoxSeed);
  f.addOutput(r.philoxOffset);
  const limits: Case['limits'] = [1e-2, 1e-3, 'exact', 'exact'];
  if (c.backward) {
    const go = input(f, 4, c.dtype);
    ins.push({ dtype: c.dtype, sizes: [c.n, c.h, c.l, c.e], kind: 'values' });
    const g = sdpfaBwd(go, q, k, v, r.output, r.logsumexp, c.dropout, c.causal, r.philoxSeed, r.philoxOffset);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
    limits.push(1e-2, 1e-2, 1e-2);
  }
  // dQ (output 4) and dK (5) take dV (6) as their scale floor
  const floors = c.backward ? [null, null, null, null, 6, 6, null] : undefined;
  const what = [c.causal ? 'causal' : '', c.bias === 'none' ? '' : c.bias, c.dropout > 0 ? `dropout ${c.dropout}` : '', c.hkv !== c.h ? 'GQA' : ''].filter((x) => x !== '').join(' ');
  return { name: `${c.backward ? 'fwd+bwd' : 'fwd'} ${c.dtype} N${c.n} H${c.h} Hkv${c.hkv} L${c.l} S${c.s} E${c.e} ${what}`.trim(), fusion: f, inputs: ins, limits, ...(floors === undefined ? {} : { floors }) };
}

export function attentionCases(): Case[] {
  const out: Case[] = [];
  const shapes: [number, number, number, number, number, number][] = [
    // n, h, hkv, l, s, e
    [2, 4, 4, 128, 128, 64],
    [1, 8, 2, 33, 70, 64],
    [2, 4, 1, 129, 17, 128],
    [1, 2, 2, 1, 129, 128],
    [3, 4, 2, 17, 1, 64],
    [1, 4, 2, 70, 33, 40],
    [1, 2, 2, 256, 256, 128],
    // head dim 16 (the small LLaMA block's): its backward differed on the H200 with random saved activations
    [2, 4, 4, 16, 16, 16],
  ];
  for (const backward of [false, true]) {
    for (const [n, h, hkv, l, s, e] of shapes) {
      for (const causal of [false, true]) {
        out.push(attentionCase({ dtype: 'BFloat16', n, h, hkv, l, s, e, causal, bias: 'none', dropout: 0, backward }));
      }
    }
    out.push(attentionCase({ dtype: 'Half', n: 2, h: 4, hkv: 2, l: 65, s: 97, e: 64, causal: true, bias: 'none', dropout: 0, backward }));
    out.push(attentionCase({ dtype: 'Half', n: 1, h: 2, hkv: 2, l: 40, s: 40, e: 128, causal: false, bias: 'none', dropout: 0, backward }));
    // bias / mask are forward-only in sdpfa_bwd's signature: the backward of a biased forward is not expressible there
    if (!backward) {
      out.push(attentionCase({ dtype: 'BFloat16', n: 2, h: 4, hkv: 2, l: 33, s: 70, e: 64, causal: false, bias: 'additive', dropout: 0, backward }));
      out.push(attentionCase({ dtype: 'BFloat16', n: 2, h: 4, hkv: 4, l: 70, s: 33, e: 128, causal: true, bias: 'mask', dropout: 0, backward }));
      out.push(attentionCase({ dtype: 'Half', n: 1, h: 2, hkv: 1, l: 17, s: 129, e: 40, causal: false, bias: 'mask', dropout: 0, backward }));
    }
    out.push(attentionCase({ dtype: 'BFloat16', n: 1, h: 4, hkv: 2, l: 64, s: 96, e: 64, causal: false, bias: 'none', dropout: 0.1, backward }));
    out.push(attentionCase({ dtype: 'BFloat16', n: 1, h: 2, hkv: 2, l: 33, s: 33, e: 128, causal: true, bias: 'none', dropout: 0.25, backward }));
  }
  return out;
}

/** RoPE's rotate-half form on [B, H, T, E]: x · cos + cat(−x₂, x₁) · sin, back to BFloat16. */
function rope(x: TensorView, cos: TensorView, sin: TensorView, sizes: readonly number[]): TensorView {
  const [b, h, t, e] = sizes as [number, number, number, number];
  const rotated = cat([neg(slice(x, [0, 0, 0, e / 2], [b, h, t, e])), slice(x, [0, 0, 0, 0], [b, h, t, e / 2])], 3);
  const c = broadcast(cos, [true, true, false, false]);
  const s = broadcast(sin, [true, true, false, false]);
  return cast(add(mul(x, c), mul(rotated, s)), 'BFloat16');
}

/** The attention half of a decoder block (see the header) with constant sizes. */
export function decoderBlock(bsz: number, t: number, d: number, h: number, hkv: number, e: number): Case {
  const f = new Fusion();
  const bf = 'BFloat16';
  const x = input(f, 3, bf);
  const wNorm = input(f, 1, bf);
  const wq = input(f, 2, bf);
  const wk = input(f, 2, bf);
  const wv = input(f, 2, bf);
  const wo = input(f, 2, bf);
  const cos = input(f, 2, 'Float');
  const sin = input(f, 2, 'Float');
  const normed = cast(rmsNorm(x, 1, wNorm).output, bf);
  const heads = (w: TensorView, n: number): TensorView => permute(reshape(linear(normed, w), [bsz, t, n, e]), [0, 2, 1, 3]);
  const q = rope(heads(wq, h), cos, sin, [bsz, h, t, e]);
  const k = rope(heads(wk, hkv), cos, sin, [bsz, hkv, t, e]);
  const attn = sdpfaFwd(q, k, heads(wv, hkv), { isCausal: true });
  f.addOutput(cast(add(x, linear(reshape(permute(attn.output, [0, 2, 1, 3]), [bsz, t, h * e]), wo)), bf));
  const w = (rows: number, cols: number): Case['inputs'][number] => ({ dtype: bf, sizes: [rows, cols], kind: 'values' });
  return {
    name: `decoder attention block B${bsz} T${t} D${d} H${h} Hkv${hkv} E${e}`,
    fusion: f,
    inputs: [{ dtype: bf, sizes: [bsz, t, d], kind: 'values' }, { dtype: bf, sizes: [d], kind: 'values' }, w(h * e, d), w(hkv * e, d), w(hkv * e, d), w(d, h * e), { dtype: 'Float', sizes: [t, e], kind: 'values' }, { dtype: 'Float', sizes: [t, e], kind: 'values' }],
    limits: [1e-2],
  };
}

export function values(spec: Case['inputs'][number], rand: () => number): HostTensor {
  const numel = spec.sizes.reduce((a, b) => a * b, 1);
  if (spec.kind === 'mask') return HostTensor.fromValues('Bool', spec.sizes, Array.from({ length: numel }, () => rand() >= 0.2));
  // weights scaled by 1/√fan-in keep the block's activations O(1)
  const scale = spec.sizes.length === 2 && spec.dtype !== 'Float' ? 1 / Math.sqrt(spec.sizes[1] ?? 1) : 1;
  return HostTensor.fromValues(spec.dtype, spec.sizes, Array.from({ length: numel }, () => (rand() * 2 - 1) * scale));
}

