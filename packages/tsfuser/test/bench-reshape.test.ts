// The reshape workload of `tsfuser bench` (reshape_layer_norm_prologue_bf16): one inner
// persistent kernel at its bench size, reading x through the reshape with 8-wide bf16 loads; and
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
