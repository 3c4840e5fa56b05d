// Inner-outer persistent codegen, slow tier (split from inner-outer-persistent-simulation.test.ts
// so the two files run in parallel): every fixture simulated against the reference evaluator with
// ungrouped allreduces and with grouped ones plus next-row prefetch, and seeded random N × H ×
// dtype cases as scheduled by default. The fast test tier (testTier) simulates two of the fixtures
// and two random cases within a smaller element budget.
import { describe, it } from 'vitest';
import { buildLayerNormBackward, layerNormBackwardFixtures, seededRandom, testSeed, tierCases, tierCount } from '@tsfuser/test-support';
import { simulateAndCompare } from './inner-outer-lowering.js';

describe('inner-outer persistent codegen: grouped allreduces (groupInnerReductions, the default)', () => {
  it.each(tierCases(layerNormBackwardFixtures(), 2).map((c) => [c.name, c] as const))('%s simulates like the fusion (ungrouped, and grouped + prefetch)', (_name, c) => {
    simulateAndCompare(c, { groupInnerReductions: false });
    simulateAndCompare(c, { prefetchNextRow: true });
  });
});

describe('inner-outer persistent codegen: random shapes', () => {
  it('seeded random N × H × dtype, simulated against the evaluator', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const dtypes = ['Float', 'Half', 'BFloat16'] as const;
    // The simulator's time grows with N·H: a budget of elements keeps the run within the timeout
    // whatever the seed draws (a case past it is skipped, the next one drawn).
    let budget = tierCount(2_500_000, 150_000);
    for (let i = 0; i < tierCount(8, 3); i += 1) {
      const dtype = dtypes[Math.floor(rand() * 3)] ?? 'Float';
      const rows = 1 + Math.floor(rand() ** 2 * 700);
      const hidden = 1 + Math.floor(rand() ** 2 * 1500);
      if (rows * hidden > budget) continue;
      budget -= rows * hidden;
      try {
        simulateAndCompare(buildLayerNormBackward(dtype, rows, hidden));
      } catch (error) {
        throw new Error(`seed ${seed} case ${i} (${dtype} ${rows}×${hidden}): ${(error as Error).message}`);
      }
    }
  }, 300_000);
});
