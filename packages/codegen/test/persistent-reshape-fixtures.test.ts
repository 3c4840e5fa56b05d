// Every persistent reshape fixture (test-support persistent-reshape-fixtures.ts): segmented with
// the default registry as the executor does (each names its segments: one persistent kernel,
// or the boundary it documents), each kernel segment simulated against the reference evaluator
// on random inputs (seed printed). persistent-reshape-nvcc.test.ts compiles them with nvcc.
import { describe, expect, it } from 'vitest';
import { persistentReshapeFixtures } from '@tsfuser/test-support';
import { baseSeed, checkViews, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

describe('persistent reshape fixtures', () => {
  for (const [k, fx] of persistentReshapeFixtures().entries()) {
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
