// The transpose workloads of `tsfuser bench` (transpose_f32, transpose_bf16, permute_bshd_bf16):
// at their bench sizes the 2-D transposes are one transpose-scheduler kernel staging the input
// through a shared tile with 16-byte vectors on both sides, and the head merge one vectorized
// pointwise kernel (D stays innermost); a small-size variant of each runs on the reference
// backend and returns the values of x.permute(…), as its PyTorch twin's .contiguous().
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { permuteDefinition, transposeWorkloads } from '../src/bench/transpose-workloads.js';
import { randomHost, Random } from '../src/bench/device-inputs.js';

describe('transpose bench workloads', () => {
  it('schedule as nvFuser would at their bench sizes', () => {
    const want: Record<string, { scheduler: string; text: string[] }> = {
      transpose_f32: { scheduler: 'transpose', text: ['__syncthreads();', 'loadSharedToLocal<float, 4>', 'loadGlobalToLocal<float, 4>', 'loadLocalToGlobal<float, 4>'] },
      transpose_bf16: { scheduler: 'transpose', text: ['__syncthreads();', 'loadSharedToLocal<__bfloat, 8>', 'loadGlobalToLocal<__bfloat, 8>', 'loadLocalToGlobal<__bfloat, 8>'] },
      permute_bshd_bf16: { scheduler: 'pointwise', text: ['loadGlobalToLocalEvictLastL2<__bfloat, 8>', 'loadLocalToGlobal<__bfloat, 8>'] },
    };
    for (const w of transposeWorkloads()) {
      const fusion = w.build().fusionIr();
      const info = makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes })));
      const expected = want[w.name];
      expect(expected, w.name).toBeDefined();
      expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType), w.name).toEqual([expected?.scheduler]);
      const k = compileFusion(fusion, info);
      for (const t of expected?.text ?? []) expect(k.source, `${w.name}: ${t}`).toContain(t);
    }
  });

  for (const [name, sizes, perm, dtype] of [
    ['transpose_f32', [37, 21], [1, 0], 'Float'],
    ['transpose_bf16', [18, 40], [1, 0], 'BFloat16'],
    ['permute_bshd_bf16', [2, 3, 5, 8], [0, 2, 1, 3], 'BFloat16'],
  ] as const) {
    it(`${name} at a small size on the reference backend is x.permute(${perm.join(', ')}).contiguous()`, async () => {
      const rng = new Random(11);
      const strides = sizes.map((_, d) => sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      const x = randomHost(dtype, [...sizes], strides, rng);
      const [out] = await permuteDefinition(sizes.length, perm, dtype).execute([Tensor.fromHost(x)], { backend: 'reference' });
      const got = (out as Tensor).toHost() as HostTensor;
      const outSizes = perm.map((d) => sizes[d] as number);
      expect(got.sizes).toEqual(outSizes);
      // Values in logical order (getNumber): the reference backend may hand back a strided view;
      // the GPU runtime allocates the output row-major, as its stride order asks.
      const n = outSizes.reduce((a, b) => a * b, 1);
      for (let i = 0; i < n; i += 1) {
        // Output element i at index (o_0, …) reads x at x_{perm[k]} = o_k.
        let rest = i;
        const o = outSizes.map(() => 0);
        for (let k = outSizes.length - 1; k >= 0; k -= 1) {
          o[k] = rest % (outSizes[k] as number);
          rest = Math.floor(rest / (outSizes[k] as number));
        }
        const xi = new Array<number>(sizes.length).fill(0);
        perm.forEach((d, k) => {
          xi[d] = o[k] as number;
        });
        const flat = xi.reduce((acc, v, d) => acc + v * (strides[d] as number), 0);
        expect(got.getNumber(i)).toBe(x.getNumber(flat));
      }
    });
  }
});
