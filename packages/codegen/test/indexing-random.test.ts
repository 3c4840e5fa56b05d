// Slow tier. Seeded random indexed-load fusions (test-support's randomIndexingCase: op, rank,
// dim, sizes 1–40, dtypes, Int/Int32 indices, an optional consumer) compiled with the default
// registry, simulated and compared with the reference evaluator; and every indexing fixture's
// kernel compiled by nvcc (-cubin, sm_90). Replay a failure with TSFUSER_SEED=<seed>.
import { describe, expect, it } from 'vitest';
import type { EvalValue } from '@tsfuser/fusion-ir';
import { indexingCases, indexingInputs, randomIndexingCase, seededRandom, testSeed, tierCount } from '@tsfuser/test-support';
import { compileFusion, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { runtimeInfoOf, simulateAndCheck } from './shape-ops-simulation.js';

const seed = testSeed();
/** Random fusions simulated: the fast test tier (testTier) runs the first 10 of the seed's 60. */
const COUNT = tierCount(60, 10);

describe(`random indexed-load fusions (seed ${seed})`, () => {
  it(`${COUNT} fusions simulate to the reference's values`, () => {
    const next = seededRandom(seed);
    for (let k = 0; k < COUNT; k += 1) {
      const c = randomIndexingCase(next, k);
      const inputs = indexingInputs(c, next) as EvalValue[];
      simulateAndCheck(c.fusion, inputs, `${c.name} (TSFUSER_SEED=${seed})`);
    }
  }, 120_000);
});

describe.skipIf(!hasNvcc)('indexed-load kernels compile with nvcc', () => {
  it('every fixture at two sizes, and 20 random fusions', async () => {
    const kernels: CompiledKernel[] = [];
    const next = seededRandom(seed);
    const cases = [...indexingCases(13, 37), ...indexingCases(64, 4096), ...Array.from({ length: 20 }, (_, k) => randomIndexingCase(next, k))];
    for (const c of cases) {
      const inputs = indexingInputs(c, next) as EvalValue[];
      kernels.push(compileFusion(c.fusion, runtimeInfoOf(c.fusion, inputs), { fusionId: 30000 + kernels.length }));
    }
    expect(kernels.length).toBe(cases.length);
    await compileKernelsWithNvcc(kernels, { chunks: 2, label: 'indexing', context: `TSFUSER_SEED=${seed}`, cubin: true });
  }, 240_000);
});
