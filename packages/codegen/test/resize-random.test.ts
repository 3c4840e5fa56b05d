// Random fusions mixing slice / pad / cat with pointwise work (test-support's resize-random.ts):
// segmented with the default registry as the executor does, every kernel simulated against
// the reference evaluator. Seeded (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { randomResizeCase, tierCount } from '@tsfuser/test-support';
import { baseSeed, checkViews, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

/** Seeds that failed once, run every time (72530195: a zero pad beside a real one read out of bounds). */
const REGRESSIONS = [72530195];

describe('random slice / pad / cat fusions', () => {
  it('simulate like the reference evaluator, segment by segment', () => {
    const base = baseSeed();
    let pointwise = 0;
    // The fast test tier (testTier): the seed's first 10 cases and the regressions.
    const count = tierCount(60, 10);
    for (let it = 0; it < count + REGRESSIONS.length; it += 1) {
      const seed = it < count ? base + it : (REGRESSIONS[it - count] as number);
      const c = randomResizeCase(seed);
      const label = `seed ${seed} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      try {
        for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
          if (s.type === 'pointwise') pointwise += 1;
          if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
          else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
        }
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
    expect(pointwise).toBeGreaterThan(tierCount(30, 1));
  }, 120_000);
});
