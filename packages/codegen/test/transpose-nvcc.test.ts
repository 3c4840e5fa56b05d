// nvcc -cubin (sm_90: ptxas too) of the transpose scheduler's kernels: every transpose fixture
// (full sizes, H100 heuristics) and 24 random transposes. Slow tier.
import { describe, expect, it } from 'vitest';
import { randomTransposeCase, transposeFixtures } from '@tsfuser/test-support';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { baseSeed, runtimeInfoOf, seeded } from './shape-ops-simulation.js';

const seed = baseSeed();

describe.skipIf(!hasNvcc)('transpose kernels compile with nvcc (sm_90 cubin)', () => {
  it('every fixture and 24 random transposes', async () => {
    const kernels: CompiledKernel[] = [];
    const cases = [...transposeFixtures(), ...Array.from({ length: 24 }, (_, i) => randomTransposeCase(seeded(seed + i), i))];
    for (const c of cases) {
      const inputs = c.inputs(seeded(seed));
      const k = compileFusion(c.fusion, runtimeInfoOf(c.fusion, inputs), { fusionId: 30000 + kernels.length });
      kernels.push(k);
    }
    expect(kernels.filter((k) => k.params.schedulerType === 'transpose').length).toBeGreaterThan(20);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'transpose', context: `TSFUSER_SEED=${seed}`, cubin: true });
  }, 300_000);
});
