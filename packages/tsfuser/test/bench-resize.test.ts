// The resize workloads of `tsfuser bench` (cat3_dim0/1_bf16, pad_bf16, rope_bf16): each is one
// vectorized pointwise kernel at its bench sizes, and RoPE computes what its PyTorch twin in
// tools/bench/pytorch_bench.py computes (x·cos + cat(−x[…, D/2:], x[…, :D/2])·sin, checked on a
// small size on the reference backend with the formula written out).
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { resizeWorkloads, ropeDefinition } from '../src/bench/resize-workloads.js';
import { randomHost, Random } from '../src/bench/device-inputs.js';

describe('resize bench workloads', () => {
  it('are one pointwise kernel with 8-wide bf16 accesses at their bench sizes, loads evict-last in L1 and L2 (RoPE: cos / sin only)', () => {
    for (const w of resizeWorkloads()) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes })));
      expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType), w.name).toEqual(['pointwise']);
      const k = compileFusion(fusion, info);
      expect(k.source, w.name).toContain('loadGlobalToLocalEvictLastL2<__bfloat, 8>');
      expect(k.source, w.name).toContain('loadLocalToGlobal<__bfloat, 8>');
      // A plain vector load of a fusion input: RoPE streams x (T0) plain; the cats and pad hint every input.
      const plainInputLoad = /loadGlobalToLocal<__bfloat, 8>\(&T\d+\[0\], &T(\d+)\[/g;
      const plainInputs = [...k.source.matchAll(plainInputLoad)].map((m) => Number(m[1]));
      expect([...new Set(plainInputs)], w.name).toEqual(w.name === 'rope_bf16' ? [0] : []);
    }
  });

  it('rope_bf16 is rotate-half RoPE', async () => {
    const rng = new Random(7);
    const [b, s, h, d] = [2, 3, 2, 128];
    const x = randomHost('BFloat16', [b, s, h, d], [s * h * d, h * d, d, 1], rng);
    const cos = randomHost('BFloat16', [1, s, 1, d], [s * d, d, d, 1], rng);
    const sin = randomHost('BFloat16', [1, s, 1, d], [s * d, d, d, 1], rng);
    const [out] = await ropeDefinition().execute([x, cos, sin].map((t) => Tensor.fromHost(t)), { backend: 'reference' });
    const got = (out as Tensor).toHost() as HostTensor;
    for (let i = 0; i < b * s * h * d; i += 1) {
      const k = i % d;
      const si = Math.floor(i / (h * d)) % s;
      const rot = k < d / 2 ? -x.getNumber(i + d / 2) : x.getNumber(i - d / 2);
      const want = x.getNumber(i) * cos.getNumber(si * d + k) + rot * sin.getNumber(si * d + k);
      // One bf16 rounding of the float result: half a unit in the last place (2^-8 relative).
      expect(Math.abs(got.getNumber(i) - want)).toBeLessThanOrEqual(2 ** -8 * Math.max(1, Math.abs(want)));
    }
  });
});
