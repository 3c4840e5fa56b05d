// nvcc compile check (-cubin, sm_90) of slice / pad / cat kernels: every kernel segment of 40
// random resize fusions (test-support's resize-random.ts, seeded: TSFUSER_SEED), plus RoPE and a
// three-way cat (both dims) at sizes that need 64-bit indexing, and the bench's pad (the offsets' kernel-start computations in
// both index types).
import { describe, expect, it } from 'vitest';
import { cat, Fusion, makeTensor, pad } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { randomResizeCase, ropeFusion } from '@tsfuser/test-support';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, runtimeInfoOf, segmentsWithInputs } from './shape-ops-simulation.js';

describe.skipIf(!hasNvcc)('slice / pad / cat kernels compile with nvcc', () => {
  it('random resize fusions, and RoPE and cat with 64-bit indexing', async () => {
    const seed = baseSeed();
    const kernels: CompiledKernel[] = [];
    for (let it = 0; it < 40; it += 1) {
      const c = randomResizeCase(seed + it);
      for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
        if (s.type === 'expr_eval' || s.type === 'no_op') continue;
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 30000 + kernels.length }));
      }
    }
    const rope = ropeFusion('BFloat16', 128);
    const big = compileFusion(rope, makeRuntimeInfo(rope, [{ sizes: [128, 4096, 32, 128] }, { sizes: [1, 4096, 1, 128] }, { sizes: [1, 4096, 1, 128] }]), { fusionId: 39000 });
    expect(big.indexType).toBe('Int');
    kernels.push(big);
    for (const dim of [0, 1]) {
      const f = new Fusion();
      const ts = [0, 1, 2].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' }));
      ts.forEach((t) => f.addInput(t));
      f.addOutput(cat(ts, dim));
      kernels.push(compileFusion(f, makeRuntimeInfo(f, [0, 1, 2].map(() => ({ sizes: [262144, 4096] }))), { fusionId: 39001 + dim }));
    }
    const p = new Fusion();
    const x = makeTensor(p, { shape: [-1, -1], dtype: 'BFloat16' });
    p.addInput(x);
    p.addOutput(pad(x, [8, 8, 1, 1]));
    kernels.push(compileFusion(p, makeRuntimeInfo(p, [{ sizes: [8192, 4096] }]), { fusionId: 39003 }));
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'resize', context: `TSFUSER_SEED=${seed}`, cubin: true });
  }, 300_000);
});
