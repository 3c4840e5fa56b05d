// 60 random transpose fusions (test-support's randomTransposeCase: rank 2–4, random permutations
// and sizes, f32 / bf16 / f16, pointwise work before and after, permuted input views) compiled
// for a small simulated device (2 SMs, so most take the transpose scheduler), every kernel IR pass
// verified, simulated and compared with the reference evaluator. Seeded (TSFUSER_SEED, printed on
// failure). Slow tier.
import { describe, expect, it } from 'vitest';
import { randomTransposeCase, tierCount } from '@tsfuser/test-support';
import { simulateOnDevice, SMALL_DEVICE } from './transpose-simulation.js';
import { baseSeed, seeded } from './shape-ops-simulation.js';

describe('random transposes (simulated)', () => {
  it('60 random cases match the reference evaluator', () => {
    const seed = baseSeed();
    const kinds = new Map<string, number>();
    // The fast test tier (testTier): the seed's first 8 cases, at least one a transpose kernel.
    const count = tierCount(60, 8);
    for (let i = 0; i < count; i += 1) {
      const r = seeded(seed + i);
      const c = randomTransposeCase(r, i, 2500 + Math.floor(r() * 12000));
      const label = `${c.name} seed ${seed + i} (TSFUSER_SEED=${seed}, iteration ${i})`;
      const { params } = simulateOnDevice(c.fusion, c.inputs(seeded(seed + 5000 + i)), null, seed + i, SMALL_DEVICE, label);
      kinds.set(params.schedulerType, (kinds.get(params.schedulerType) ?? 0) + 1);
    }
    expect(kinds.get('transpose') ?? 0, JSON.stringify([...kinds])).toBeGreaterThan(tierCount(30, 0));
  }, 300_000);
});
