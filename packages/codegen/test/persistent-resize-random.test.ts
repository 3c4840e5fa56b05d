// Random inner persistent (normalization) fusions with slice / pad / cat on the input side of
// the row (test-support persistent-resize-random.ts): each must be ONE inner_persistent kernel
// (the resize fused into it, no pointwise segment writing an intermediate), simulated against
// the reference evaluator (norm-wise for the row reductions; seed printed; the base seed from
// TSFUSER_SEED); every other one also under forced parameters (several persistent batches, two
// rows per block); then half as many outer persistent (batch_norm-like) ones, each ONE
// outer_persistent kernel. PERSISTENT_RESIZE_RANDOM_COUNT sets how many (default 40).
import { describe, expect, it } from 'vitest';
import { randomOuterPersistentResizeCase, randomPersistentResizeCase } from '@tsfuser/test-support';
import { InnerPersistentScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const count = Number(process.env.PERSISTENT_RESIZE_RANDOM_COUNT ?? 40);

describe('random inner persistent fusions with slice / pad / cat before the row', () => {
  it(`${count} cases from seed ${seed}`, () => {
    for (let k = 0; k < count; k += 1) {
      const c = randomPersistentResizeCase(seed + k);
      const label = `random persistent resize ${seed + k} (TSFUSER_SEED=${seed}, iteration ${k}; ${c.description})`;
      try {
        const segments = segmentsWithInputs(c.fusion, c.inputs);
        expect(segments.map((s) => s.type).join('+')).toBe(c.segments);
        simulateAndCheck(c.fusion, c.inputs, label);
        // Every other case again under forced parameters: 2 or 3 persistent batches per thread
        // and two rows per block (threadIdx.y), which the heuristics pick only for larger sizes.
        if (k % 2 === 0) {
          const forced = new SchedulerRegistry([new InnerPersistentScheduler({ batches: 2 + (k % 4) / 2, bdimy: 2 })]);
          simulateAndCheck(c.fusion, c.inputs, `${label} (forced: ${2 + (k % 4) / 2} batches, bdimy 2)`, forced);
        }
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 800)}`);
      }
    }
  }, 120_000);

  it(`${Math.ceil(count / 2)} outer persistent cases from seed ${seed}`, () => {
    for (let k = 0; k < Math.ceil(count / 2); k += 1) {
      const c = randomOuterPersistentResizeCase(seed + k);
      const label = `random outer persistent resize ${seed + k} (TSFUSER_SEED=${seed}, iteration ${k}; ${c.description})`;
      try {
        const segments = segmentsWithInputs(c.fusion, c.inputs);
        expect(segments.map((s) => s.type).join('+')).toBe(c.segments);
        simulateAndCheck(c.fusion, c.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 800)}`);
      }
    }
  }, 120_000);
});
