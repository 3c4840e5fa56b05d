// Random persistent (normalization) fusions with reshapes before, between and after the row
// reductions (test-support persistent-reshape-random.ts): each must be one inner or outer
// persistent kernel, simulated against the reference evaluator (seed printed; the base seed from
// TSFUSER_SEED). PERSISTENT_RESHAPE_RANDOM_COUNT sets how many (default 40).
import { describe, expect, it } from 'vitest';
import { randomPersistentReshapeCase } from '@tsfuser/test-support';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const count = Number(process.env.PERSISTENT_RESHAPE_RANDOM_COUNT ?? 40);

describe('random persistent fusions with reshapes', () => {
  it(`${count} cases from seed ${seed}`, () => {
    for (let k = 0; k < count; k += 1) {
      const c = randomPersistentReshapeCase(seed + k);
      const label = `random persistent reshape ${seed + k} (${c.description})`;
      try {
        const segments = segmentsWithInputs(c.fusion, c.inputs);
        expect(segments.map((s) => s.type).join('+')).toBe(c.segments);
        for (const s of segments) simulateAndCheck(s.fusion, s.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
  });
});
