// Every reshape fixture (test-support reshape-fixtures.ts): segmented with the default registry
// as the executor does, each kernel segment simulated against the reference evaluator on random
// inputs (seed printed). reshape-nvcc.test.ts compiles the same kernels with nvcc.
import { describe, expect, it } from 'vitest';
import { reshapeFixtures } from '@tsfuser/test-support';
import { baseSeed, checkViews, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

describe('reshape fixtures', () => {
  for (const [k, fx] of reshapeFixtures().entries()) {
    it(fx.name, () => {
      const inputs = fx.inputs(seeded(seed + k));
      const label = `${fx.name} (TSFUSER_SEED=${seed})`;
      const segments = segmentsWithInputs(fx.fusion, inputs);
      expect(segments.map((s) => s.type).join('+'), label).toBe(fx.segments);
      for (const s of segments) {
        if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
        else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
      }
    });
  }
});
