// nvcc compile check (-ptx, sm_90) of inner and outer persistent kernels with slice / pad / cat
// (test-support persistent-resize-fixtures.ts and persistent-resize-random.ts; the simulation
// tests check their values): every kernel segment of the fixtures, of 20 random inner and of 10
// random outer persistent cases.
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { persistentResizeFixtures, randomOuterPersistentResizeCase, randomPersistentResizeCase } from '@tsfuser/test-support';
import { baseSeed, runtimeInfoOf, seeded, segmentsWithInputs } from './shape-ops-simulation.js';

describe.skipIf(!hasNvcc)('slice / pad / cat inside persistent kernels: nvcc', () => {
  it('the fixtures, 20 random inner and 10 random outer persistent cases compile', async () => {
    const seed = baseSeed();
    const kernels: CompiledKernel[] = [];
    const add = (fusion: Parameters<typeof segmentsWithInputs>[0], inputs: Parameters<typeof segmentsWithInputs>[1]): void => {
      for (const s of segmentsWithInputs(fusion, inputs)) {
        if (s.type === 'expr_eval' || s.type === 'no_op') continue;
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 32000 + kernels.length }));
      }
    };
    for (const fx of persistentResizeFixtures()) add(fx.fusion, fx.inputs(seeded(seed)));
    let persistent = 0;
    for (let it = 0; it < 20; it += 1) {
      const c = randomPersistentResizeCase(seed + it);
      const before = kernels.length;
      add(c.fusion, c.inputs);
      persistent += kernels.length - before;
    }
    expect(persistent).toBe(20);
    for (let it = 0; it < 10; it += 1) {
      const c = randomOuterPersistentResizeCase(seed + it);
      add(c.fusion, c.inputs);
    }
    expect(kernels.length).toBeGreaterThanOrEqual(persistent + 10);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'persistent-resize', context: `TSFUSER_SEED=${seed}` });
  }, 180_000);
});
