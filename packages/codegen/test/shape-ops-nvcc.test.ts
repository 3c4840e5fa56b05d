// nvcc compile check (-ptx, sm_90) of every kernel segment of the shape-ops fixtures
// (shape-ops-fixtures.ts): factories, expanded outputs, stride-0 inputs, segments around a
// reshape, zero-size reductions.
import { describe, expect, it } from 'vitest';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { shapeOpsFixtures } from '@tsfuser/test-support';
import { baseSeed, runtimeInfoOf, seeded, segmentsWithInputs } from './shape-ops-simulation.js';

const seed = baseSeed();

describe.skipIf(!hasNvcc)('shape-ops kernels compile with nvcc', () => {
  it('every kernel segment of every fixture', async () => {
    const kernels: CompiledKernel[] = [];
    for (const [k, fx] of shapeOpsFixtures().entries()) {
      for (const s of segmentsWithInputs(fx.fusion, fx.inputs(seeded(seed + k)))) {
        if (s.type === 'expr_eval' || s.type === 'no_op') continue;
        kernels.push(compileFusion(s.fusion, runtimeInfoOf(s.fusion, s.inputs), { fusionId: 20000 + kernels.length }));
      }
    }
    expect(kernels.length).toBeGreaterThan(30);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'shape-ops', context: `TSFUSER_SEED=${seed}` });
  }, 120_000);
});
