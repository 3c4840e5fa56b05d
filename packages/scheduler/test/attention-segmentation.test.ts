// The attention segment (default registry): an sdpfa_fwd / sdpfa_bwd is a segment of its own
// (generated flash-attention kernels), every other op around it in generated kernels or GEMM
// segments, each boundary with its reason; the parameters are checked against values derived
// by hand from the layouts (sizes, strides, GQA heads, the 1/√E default scale, flags, output
// positions); layouts the kernels cannot read are refused naming the tensor and the rule. The
// attention half of a decoder block (RMSNorm → QKV linears → RoPE → causal sdpfa_fwd → O linear
// → residual) has golden dumps (UPDATE_GOLDEN=1 rewrites them).
import { fileURLToPath } from 'node:url';
import {
  add, broadcast, cast, cat, checkGolden, Fusion, linear, makeTensor, mul, neg, permute, reshape, rmsNorm, sdpfaBwd, sdpfaFwd, slice, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import {
  analyzeAttentionSegment, defaultSchedulerRegistry, fusionIrSegmentsToString, heuristicParamsToString, makeRuntimeInfo, segmentFusion, segmentKindOf,
  type AttentionParams, type SegmentedFusion,
} from '../src/index.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/', import.meta.url));

function input(f: Fusion, shape: number[], dtype: DataType = 'BFloat16'): TensorView {
  const tv = makeTensor(f, { shape, dtype });
  f.addInput(tv);
  return tv;
}

type Layout = { sizes: number[]; strides?: number[]; alignment?: number };

function segment(f: Fusion, layouts: Layout[]): SegmentedFusion {
  return segmentFusion(f, makeRuntimeInfo(f, layouts), defaultSchedulerRegistry());
}

function attentionParams(sf: SegmentedFusion): AttentionParams {
  const g = sf.groups.find((x) => x.schedulerType === 'attention');
  if (g === undefined) throw new Error('no attention segment');
  const r = analyzeAttentionSegment(g.fusion, g.analysis?.runtimeInfo ?? makeRuntimeInfo(g.fusion, []));
  if (!r.ok) throw new Error(r.reason);
  return r.params;
}

/** q, k, v as fusion inputs with symbolic sizes; the forward's outputs as requested. */
function forwardFusion(options: { bias?: 'additive' | 'bool'; causal?: boolean; scale?: number; lse?: boolean } = {}): Fusion {
  const f = new Fusion();
  const q = input(f, [-1, -1, -1, -1]);
  const k = input(f, [-1, -1, -1, -1]);
  const v = input(f, [-1, -1, -1, -1]);
  const b = options.bias === undefined ? null : input(f, [-1, -1, -1, -1], options.bias === 'bool' ? 'Bool' : 'BFloat16');
  const r = sdpfaFwd(q, k, v, {
    isCausal: options.causal ?? false,
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    ...(b === null ? {} : options.bias === 'bool' ? { mask: b } : { bias: b }),
  });
  f.addOutput(r.output);
  if (options.lse === true) f.addOutput(r.logsumexp);
  return f;
}

function contiguous(sizes: number[]): Layout {
  return { sizes };
}

/** RoPE's rotate-half form on [B, H, T, E]: x · cos + cat(−x₂, x₁) · sin. */
function rope(x: TensorView, cos: TensorView, sin: TensorView, sizes: number[]): TensorView {
  const [b, h, t, e] = sizes as [number, number, number, number];
  const x1 = slice(x, [0, 0, 0, 0], [b, h, t, e / 2]);
  const x2 = slice(x, [0, 0, 0, e / 2], [b, h, t, e]);
  const c = broadcast(cos, [true, true, false, false]);
  const s = broadcast(sin, [true, true, false, false]);
  return cast(add(mul(x, c), mul(cat([neg(x2), x1], 3), s)), 'BFloat16');
}

/** The attention half of a decoder block with B 2, T 40, D 256, H 4, Hkv 2, E 64. */
function attentionBlock(): Fusion {
  const [bsz, t, d, h, hkv, e] = [2, 40, 256, 4, 2, 64];
  const f = new Fusion();
  const x = input(f, [bsz, t, d]);
  const wNorm = input(f, [d]);
  const wq = input(f, [h * e, d]);
  const wk = input(f, [hkv * e, d]);
  const wv = input(f, [hkv * e, d]);
  const wo = input(f, [d, h * e]);
  const cos = input(f, [t, e], 'Float');
  const sin = input(f, [t, e], 'Float');
  const normed = cast(rmsNorm(x, 1, wNorm).output, 'BFloat16');
  const heads = (w: TensorView, n: number): TensorView => permute(reshape(linear(normed, w), [bsz, t, n, e]), [0, 2, 1, 3]);
  const q = rope(heads(wq, h), cos, sin, [bsz, h, t, e]);
  const k = rope(heads(wk, hkv), cos, sin, [bsz, hkv, t, e]);
  const attn = sdpfaFwd(q, k, heads(wv, hkv), { isCausal: true });
  const merged = reshape(permute(attn.output, [0, 2, 1, 3]), [bsz, t, h * e]);
  f.addOutput(cast(add(x, linear(merged, wo)), 'BFloat16'));
  return f;
}

describe('attention segments', () => {
  it('sdpfa_fwd alone is one attention segment with parameters from the layouts (GQA, L ≠ S, default scale)', () => {
    const sf = segment(forwardFusion({ lse: true }), [contiguous([2, 8, 33, 64]), contiguous([2, 2, 70, 64]), contiguous([2, 2, 70, 64])]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['attention']);
    expect(segmentKindOf('attention')).toBe('attention');
    const p = attentionParams(sf);
    if (p.op !== 'sdpfa_fwd') throw new Error('not the forward');
    expect([p.batch, p.heads, p.kvHeads, p.queryLength, p.keyLength, p.headDim]).toEqual([2, 8, 2, 33, 70, 64]);
    expect(p.scale).toEqual({ constant: 1 / 8 });
    expect(p.variant).toEqual({ dtype: 'BFloat16', headDim: 64, causal: false, bias: 'none', dropout: false });
    // contiguous [2, 8, 33, 64]: strides 8·33·64, 33·64, 64, 1
    expect(p.tensors.query.strides).toEqual([16896, 2112, 64, 1]);
    expect(p.tensors.key.strides).toEqual([8960, 4480, 64, 1]);
    expect([p.tensors.output, p.tensors.logsumexp, p.tensors.philoxSeed, p.tensors.philoxOffset]).toEqual([0, 1, null, null]);
    expect(p.seed).toEqual({ constant: 0n });
  });

  it('a causal forward with a broadcast additive bias and an explicit scale: bias strides 0 on the broadcast dims', () => {
    const sf = segment(forwardFusion({ causal: true, bias: 'additive', scale: 0.3 }), [
      contiguous([1, 4, 16, 128]),
      contiguous([1, 4, 24, 128]),
      contiguous([1, 4, 24, 128]),
      { sizes: [1, 1, 16, 24], strides: [384, 384, 24, 1] },
    ]);
    const p = attentionParams(sf);
    expect(p.variant).toEqual({ dtype: 'BFloat16', headDim: 128, causal: true, bias: 'additive', biasDtype: 'BFloat16', dropout: false });
    expect(p.scale).toEqual({ constant: 0.3 });
    if (p.op !== 'sdpfa_fwd' || p.tensors.bias === null) throw new Error('no bias');
    expect(p.tensors.bias.strides).toEqual([0, 0, 24, 1]);
    expect(heuristicParamsToString(p)).toMatch(/Problem: N 1 H 4 Hkv 4 L 16 S 24 E 128\nVariant: BFloat16, causal true \(top-left aligned\), bias additive BFloat16, dropout none/);
  });

  it('a bool mask is the mask variant', () => {
    const sf = segment(forwardFusion({ bias: 'bool' }), [contiguous([1, 2, 8, 32]), contiguous([1, 2, 8, 32]), contiguous([1, 2, 8, 32]), contiguous([1, 2, 8, 8])]);
    expect(attentionParams(sf).variant.bias).toBe('bool');
  });

  it('sdpfa_bwd is one attention segment reading the forward outputs', () => {
    const f = new Fusion();
    const [go, q, k, v, o] = [0, 1, 2, 3, 4].map(() => input(f, [-1, -1, -1, -1]));
    const lse = input(f, [-1, -1, -1], 'Float');
    const seed = input(f, [2], 'UInt64');
    const offset = input(f, [], 'UInt64');
    const g = sdpfaBwd(go as TensorView, q as TensorView, k as TensorView, v as TensorView, o as TensorView, lse, 0, true, seed, offset);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
    const qs = contiguous([2, 4, 20, 64]);
    const ks = contiguous([2, 2, 50, 64]);
    const sf = segment(f, [qs, qs, ks, ks, qs, contiguous([2, 4, 20]), contiguous([2]), contiguous([])]);
    expect(sf.groups.map((x) => x.schedulerType)).toEqual(['attention']);
    const p = attentionParams(sf);
    if (p.op !== 'sdpfa_bwd') throw new Error('not the backward');
    expect([p.heads, p.kvHeads, p.queryLength, p.keyLength, p.variant.causal, p.tensors.logsumexp, p.tensors.philoxSeed]).toEqual([4, 2, 20, 50, true, 5, 6]);
    expect([p.tensors.gradQuery, p.tensors.gradKey, p.tensors.gradValue]).toEqual([0, 1, 2]);
    expect(fusionIrSegmentsToString(sf)).toMatch(/1 segment \(3 kernels\)/);
  });

  it('refuses layouts the kernels cannot read, naming the tensor and the rule', () => {
    const refusal = (f: Fusion, layouts: Layout[]): string => {
      const r = analyzeAttentionSegment(f, makeRuntimeInfo(f, layouts));
      if (r.ok) throw new Error('accepted');
      return r.reason;
    };
    const qkv = (q: Layout, k: Layout = contiguous([1, 2, 8, 64])): Layout[] => [q, k, k];
    expect(refusal(forwardFusion(), qkv({ sizes: [1, 2, 8, 64], strides: [1024, 1, 128, 2] }))).toMatch(/query T\d+ has stride 2 in its last dim \(E\): the kernels need it contiguous/);
    expect(refusal(forwardFusion(), qkv(contiguous([1, 2, 8, 36]), contiguous([1, 2, 8, 36])))).toMatch(/stride 36 in dim 2 \(L\), not a multiple of 8 elements: the kernels copy 16-byte rows/);
    expect(refusal(forwardFusion(), qkv({ sizes: [1, 2, 8, 64], alignment: 8 }))).toMatch(/query T\d+'s data pointer is 8-byte aligned: the kernels need 16 bytes/);
    expect(refusal(forwardFusion(), qkv(contiguous([1, 3, 8, 64])))).toMatch(/query heads 3 are not a multiple of key\/value heads 2/);
    expect(refusal(forwardFusion(), qkv(contiguous([1, 2, 8, 264]), contiguous([1, 2, 8, 264])))).toMatch(/head dim E 264 is outside the attention kernels' range 8…256/);
    const f32 = new Fusion();
    const [a, b, c] = [0, 1, 2].map(() => input(f32, [-1, -1, -1, -1], 'Float')) as [TensorView, TensorView, TensorView];
    f32.addOutput(sdpfaFwd(a, b, c).output);
    expect(refusal(f32, qkv(contiguous([1, 2, 8, 64])))).toMatch(/sdpfa_fwd on Float T\d+: the attention kernels are BFloat16 \/ Half/);
    const pre = new Fusion();
    const [x, y, z] = [0, 1, 2].map(() => input(pre, [-1, -1, -1, -1])) as [TensorView, TensorView, TensorView];
    pre.addOutput(sdpfaFwd(cast(mul(x, x), 'BFloat16'), y, z).output);
    expect(refusal(pre, qkv(contiguous([1, 2, 8, 64])))).toMatch(/attention prologues and epilogues are not fused into the attention kernel yet: the segment also computes/);
  });

  it('a prologue is its own kernel, the boundary reason stated', () => {
    const f = new Fusion();
    const [x, y, z] = [0, 1, 2].map(() => input(f, [-1, -1, -1, -1])) as [TensorView, TensorView, TensorView];
    f.addOutput(sdpfaFwd(cast(mul(x, x), 'BFloat16'), y, z).output);
    const l = contiguous([1, 2, 8, 64]);
    const sf = segment(f, [l, l, l]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise', 'attention']);
    expect(sf.edges[0]?.reason).toMatch(/attention: attention prologues and epilogues are not fused into the attention kernel yet/);
  });

  it('the attention half of a decoder block: norm, GEMMs, RoPE kernels around one attention segment (dumps golden)', () => {
    const f = attentionBlock();
    const sf = segment(f, [contiguous([2, 40, 256]), contiguous([256]), contiguous([256, 256]), contiguous([128, 256]), contiguous([128, 256]), contiguous([256, 256]), contiguous([40, 64]), contiguous([40, 64])]);
    const types = sf.groups.map((g) => g.schedulerType);
    expect(types.filter((t) => t === 'attention')).toHaveLength(1);
    expect(types.filter((t) => t === 'matmul')).toHaveLength(4);
    // V is a view (a permute of the linear's output): its strides are the launch plan's (the
    // runtime's compile-plan test checks that segment's parameters); here the segments and reasons.
    const text = fusionIrSegmentsToString(sf);
    expect(checkGolden(text, `${dir}attention_block.fusion_ir_segments.txt`, process.env.UPDATE_GOLDEN === '1').diff).toBe('');
  });
});
