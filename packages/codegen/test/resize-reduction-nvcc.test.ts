// nvcc compile check (-ptx, sm_90) of reduction kernels that take a slice, pad or cat on their
// input side (test-support resize-reduction-random.ts; the simulation test checks their values).
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { randomResizeReductionCase } from '@tsfuser/test-support';
import { baseSeed, runtimeInfoOf, segmentsWithInputs } from './shape-ops-simulation.js';

describe.skipIf(!hasNvcc)('slice / pad / cat inside reduction kernels: nvcc', () => {
  it('20 random cases compile', async () => {
    const seed = baseSeed();
    const kernels: CompiledKernel[] = [];
    for (let it = 0; it < 20; it += 1) {
      const c = randomResizeReductionCase(seed + it);
      for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
        if (s.type === 'expr_eval' || s.type === 'no_op') continue;
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 31000 + kernels.length }));
      }
    }
    expect(kernels.length).toBe(20);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'resize-reduction', context: `TSFUSER_SEED=${seed}` });
  }, 120_000);
});
