// nvcc compile check (sm_90) of reduction kernels with a reshape after the reduction (test-support
// reduction-reshape-random.ts; the simulation test reduction-reshape-random.test.ts checks their
// values): 12 random cases with a reshape after the reduction, each one reduction kernel.
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { hasReshapeAfterReduction, randomReductionReshapeCase } from '@tsfuser/test-support';
import { baseSeed, runtimeInfoOf } from './shape-ops-simulation.js';

describe.skipIf(!hasNvcc)('reshapes after the reduction inside reduction kernels: nvcc', () => {
  it('12 random cases compile', async () => {
    const seed = baseSeed();
    const kernels: CompiledKernel[] = [];
    for (let it = 0; kernels.length < 12; it += 1) {
      if (it > 200) throw new Error(`TSFUSER_SEED=${seed}: too few random cases with a reshape after the reduction`);
      const c = randomReductionReshapeCase(seed + it);
      if (!hasReshapeAfterReduction(c.fusion)) continue;
      const k = compileFusion(c.fusion, runtimeInfoOf(c.fusion, c.inputs), { fusionId: 32000 + kernels.length });
      expect(k.params.schedulerType, `seed ${seed + it}`).toBe('reduction');
      kernels.push(k);
    }
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'reduction-reshape', cubin: true, context: `TSFUSER_SEED=${seed}` });
  }, 120_000);
});
