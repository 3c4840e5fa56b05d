// The reshape workload of `tsfuser bench` (reshape_layer_norm_prologue_bf16): one inner
// persistent kernel at its bench size, reading x through the reshape with 8-wide bf16 loads and
// writing the reshaped-back output with 8-wide stores, scheduled exactly as the same layer_norm
// on the un-reshaped [B·S, H·D] rows is (same vector, batch, threads, vectorized tensors); and
// at a small size on the reference backend it computes what PyTorch computes
// (test-fixtures/torch-values/reshape-layer-norm.json, written by
// tools/torch-values/reshape_layer_norm_values.py: F.layer_norm in float32 on the reshaped
// input, rounded to bf16, reshaped back).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import type { InnerPersistentParams } from '@tsfuser/scheduler';
import { FusionDefinition } from '../src/definition/fusion-definition.js';
import { Tensor } from '@tsfuser/device';
import { reshapeLayerNormDefinition, reshapeWorkloads } from '../src/bench/reshape-workloads.js';

interface TorchValues {
  sizes: [number, number, number];
  x: number[];
  weight: number[];
  bias: number[];
  expected: number[];
}

const torchValues = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/reshape-layer-norm.json', import.meta.url)), 'utf8')) as TorchValues;

describe('reshape bench workloads', () => {
  it('reshape_layer_norm_prologue_bf16 is one inner persistent kernel with 8-wide bf16 loads of x', () => {
    for (const w of reshapeWorkloads()) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes })));
      expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType), w.name).toEqual(['inner_persistent']);
      const k = compileFusion(fusion, info);
      expect(k.source, w.name).toMatch(/loadGlobalToLocal<__bfloat, 8>\(&T\d+\[0\], &T0\[/);
    }
  });

  it('the prologue at its bench shape is scheduled like the un-reshaped layer_norm: same vector for x and the output', () => {
    const [b, s, hd] = [8, 4096, 4096];
    const rows = FusionDefinition.build((fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
      const w = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
      const bias = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
      const xf = fd.ops.cast(x, 'Float');
      const [variance, mean] = fd.ops.varMean(xf, [1], 0, false);
      const shape = xf.shape();
      const invstd = fd.ops.rsqrt(fd.ops.add(fd.ops.broadcastInDim(variance, shape, [0]), fd.defineConstant(1e-5)));
      const normed = fd.ops.mul(fd.ops.sub(xf, fd.ops.broadcastInDim(mean, shape, [0])), invstd);
      const wf = fd.ops.cast(fd.ops.broadcastInDim(w, shape, [1]), 'Float');
      const bf = fd.ops.cast(fd.ops.broadcastInDim(bias, shape, [1]), 'Float');
      fd.addOutput(fd.ops.cast(fd.ops.add(fd.ops.mul(normed, wf), bf), 'BFloat16'));
    }).fusionIr();
    const prologue = reshapeLayerNormDefinition(b, s, hd).fusionIr();
    const plain = compileFusion(rows, makeRuntimeInfo(rows, [[b * s, hd], [hd], [hd]].map((sz) => ({ sizes: sz }))));
    const reshaped = compileFusion(prologue, makeRuntimeInfo(prologue, [[b, s, hd], [hd], [hd]].map((sz) => ({ sizes: sz }))));
    const pick = (p: InnerPersistentParams): object => ({
      vectorize: p.vectorizeInnerReduction,
      factor: p.unrollFactorInnerReduction,
      batches: p.batchesPerBlockInnerReduction,
      lparams: p.lparams,
      vectorizedInputs: p.vectorizedInputs,
      vectorizedOutputs: p.vectorizedOutputs,
    });
    expect(reshaped.params.schedulerType).toBe('inner_persistent');
    expect(pick(reshaped.params as InnerPersistentParams)).toEqual(pick(plain.params as InnerPersistentParams));
    expect((reshaped.params as InnerPersistentParams).unrollFactorInnerReduction).toBe(8);
    expect((reshaped.params as InnerPersistentParams).vectorizedOutputs).toEqual([0]);
    // The reshaped-back output: one 8-wide store per vector, its index free of division.
    const out = [...reshaped.source.matchAll(/Tensor<__bfloat, 3, 3> (T\d+)/g)].map((m) => m[1]).pop() as string;
    const stores = reshaped.source.split('\n').filter((l) => l.includes(`&${out}[`) || l.includes(` ${out}[`));
    expect(stores.length).toBe(1);
    expect(stores[0]).toMatch(new RegExp(`loadLocalToGlobal<__bfloat, 8>\\(&${out}\\[[^/%]*\\]`));
  });

  it('computes what PyTorch computes (reference backend, [2, 3, 64])', async () => {
    const [b, s, hd] = torchValues.sizes;
    const x = HostTensor.fromValues('BFloat16', [b, s, hd], torchValues.x);
    const w = HostTensor.fromValues('BFloat16', [hd], torchValues.weight);
    const bias = HostTensor.fromValues('BFloat16', [hd], torchValues.bias);
    const [out] = await reshapeLayerNormDefinition(b, s, hd).execute([x, w, bias].map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const got = (out as Tensor).toHost() as HostTensor;
    expect(got.sizes).toEqual([b, s, hd]);
    torchValues.expected.forEach((want, i) => {
      // Both round a float32 result to bf16 once; the float32 results may differ in the last
      // bits (reduction order), so allow one bf16 unit in the last place (2^-7 relative).
      expect(Math.abs(got.getNumber(i) - want), `element ${i}`).toBeLessThanOrEqual(2 ** -7 * Math.max(1, Math.abs(want)));
    });
  });
});
