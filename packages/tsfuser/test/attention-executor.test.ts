// Attention segments through FusionExecutorCache on the fake H100 (test/fake-device.ts: kernels
// are "compiled" and their launches recorded, no values computed): the executor runs the plan's
// sequence — a pointwise prologue kernel, the generated attention forward (its grid, block and
// dynamic shared memory those of codegen's kernel for the problem), the relu after it — and a
// second call with other sizes of the same variant reuses the compiled attention kernel; an
// sdpfa_fwd → sdpfa_bwd definition launches the forward, then the backward's preprocess, main
// and dQ-convert kernels, in that order.
import { cast, Fusion, HostTensor, makeTensor, mul, relu, sdpfaBwd, sdpfaFwd, type TensorView } from '@tsfuser/fusion-ir';
import { generateAttentionForward } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { fakeDevice } from './fake-device.js';

function input(f: Fusion): TensorView {
  const tv = makeTensor(f, { shape: [-1, -1, -1, -1], dtype: 'BFloat16' });
  f.addInput(tv);
  return tv;
}

function zeros(sizes: number[]): Tensor {
  return Tensor.fromHost(HostTensor.fromValues('BFloat16', sizes, new Array<number>(sizes.reduce((a, b) => a * b, 1)).fill(0)));
}

describe('attention segments in FusionExecutorCache', () => {
  it('prologue kernel → attention forward → relu kernel, launched in sequence; the attention kernel compiles once', () => {
    const f = new Fusion();
    const [q, k, v] = [input(f), input(f), input(f)];
    f.addOutput(relu(sdpfaFwd(cast(mul(q, 0.5), 'BFloat16'), k, v, { isCausal: true }).output));
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(f, fake.device);
    cache.runFusion([zeros([2, 4, 24, 64]), zeros([2, 2, 40, 64]), zeros([2, 2, 40, 64])]).forEach((t) => t.dispose());
    expect(cache.lastPlan()?.segments.map((s) => s.kind)).toEqual(['kernel', 'attention', 'kernel']);
    const kernel = generateAttentionForward({ dtype: 'BFloat16', headDim: 64, causal: true, bias: 'none', dropout: false });
    expect(fake.launches.map((l) => l.kernel)).toEqual([expect.stringMatching(/^nvfuser_pointwise/), kernel.name, expect.stringMatching(/^nvfuser_pointwise/)]);
    const attention = fake.launches[1];
    expect(attention?.grid).toEqual([...kernel.grid({ batch: 2, heads: 4, kvHeads: 2, queryLength: 24, keyLength: 40 })]);
    expect(attention?.block).toEqual([...kernel.block]);
    expect(attention?.sharedBytes).toBe(kernel.sharedBytes);
    // other sizes, same variant: a new launch plan, the same compiled attention kernel
    cache.runFusion([zeros([1, 8, 300, 64]), zeros([1, 8, 300, 64]), zeros([1, 8, 300, 64])]).forEach((t) => t.dispose());
    expect(fake.launches[4]?.grid).toEqual([...kernel.grid({ batch: 1, heads: 8, kvHeads: 8, queryLength: 300, keyLength: 300 })]);
    expect([...fake.sources.keys()].filter((n) => n.startsWith(kernel.name))).toHaveLength(1);
  });

  it('sdpfa_fwd → sdpfa_bwd launches the forward, then preprocess, main and convert', () => {
    const f = new Fusion();
    const [q, k, v, go] = [input(f), input(f), input(f), input(f)];
    const r = sdpfaFwd(q, k, v);
    const g = sdpfaBwd(go, q, k, v, r.output, r.logsumexp, 0, false, r.philoxSeed, r.philoxOffset);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
    const fake = fakeDevice();
    const cache = new FusionExecutorCache(f, fake.device);
    const s = [1, 2, 33, 128];
    cache.runFusion([zeros(s), zeros(s), zeros(s), zeros(s)]).forEach((t) => t.dispose());
    expect(cache.lastPlan()?.segments.map((x) => x.kind)).toEqual(['attention', 'attention']);
    expect(fake.launches.map((l) => l.kernel)).toEqual([
      expect.stringMatching(/^tsfuser_attention_fwd_(wgmma_)?bf16_e128/),
      expect.stringMatching(/preprocess/),
      expect.stringMatching(/^tsfuser_attention_bwd_bf16_e128/),
      expect.stringMatching(/convert/),
    ]);
  });
});
