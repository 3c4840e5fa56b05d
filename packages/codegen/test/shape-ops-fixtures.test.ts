// Every shape-ops fixture: segmented with the default registry as the executor does (the
// schedulers it names), each kernel segment simulated against the reference evaluator on
// random inputs (seed printed). shape-ops-nvcc.test.ts compiles the same kernels with nvcc.
import { describe, expect, it } from 'vitest';
import { shapeOpsFixtures, tierCases } from '@tsfuser/test-support';
import { baseSeed, checkViews, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

describe('shape-ops fixtures', () => {
  it('segments as named; every kernel segment simulates like the evaluator', () => {
    // The fast test tier (testTier): an evenly spread 8 of the fixtures (each with its own seed).
    for (const [k, fx] of tierCases([...shapeOpsFixtures().entries()], 8)) {
      const inputs = fx.inputs(seeded(seed + k));
      const label = `${fx.name} (TSFUSER_SEED=${seed})`;
      try {
        const segments = segmentsWithInputs(fx.fusion, inputs);
        expect(segments.map((s) => s.type).join('+'), label).toBe(fx.segments);
        for (const s of segments) {
          if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
          else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
        }
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
  });
});
