// Random fusions mixing shape ops with pointwise and reduction work (shape-ops-random.ts):
// segmented with the default registry as the executor does, every kernel segment simulated and
// every expr_eval segment's views checked against the reference evaluator. Seeded
// (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { randomShapeOpsCase } from '@tsfuser/test-support';
import { baseSeed, checkViews, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

describe('random shape-op fusions', () => {
  it('simulate like the reference evaluator, segment by segment', () => {
    const base = baseSeed();
    const kinds = new Set<string>();
    for (let it = 0; it < 40; it += 1) {
      const c = randomShapeOpsCase(base + it);
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      try {
        for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
          kinds.add(s.type);
          if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
          else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
        }
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
    expect(kinds.has('pointwise')).toBe(true);
  }, 60_000);
});
