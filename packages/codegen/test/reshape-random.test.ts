// Random fusions mixing reshapes with pointwise work, some ending in a sum (test-support
// reshape-random.ts): each must be one pointwise (or reduction) kernel, simulated against the reference evaluator (seed printed; the base seed
// from TSFUSER_SEED). RESHAPE_RANDOM_COUNT sets how many (default 30).
import { describe, expect, it } from 'vitest';
import { randomReshapeCase } from '@tsfuser/test-support';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const count = Number(process.env.RESHAPE_RANDOM_COUNT ?? 30);

describe('random reshape fusions', () => {
  it(`${count} cases from seed ${seed}`, () => {
    for (let k = 0; k < count; k += 1) {
      const c = randomReshapeCase(seed + k);
      const label = `random reshape ${seed + k} (${c.description})`;
      try {
        const segments = segmentsWithInputs(c.fusion, c.inputs);
        if (c.segments !== '*') expect(segments.map((s) => s.type).join('+')).toBe(c.segments);
        for (const s of segments) simulateAndCheck(s.fusion, s.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
  });
});
