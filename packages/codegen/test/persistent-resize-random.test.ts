// Random persistent (normalization) fusions with slice / pad / cat (test-support
// persistent-resize-random.ts), simulated against the reference evaluator (norm-wise for the
// reductions; seed printed; the base seed from TSFUSER_SEED): inner persistent ones (resizes on
// the input side of the row, of the normalized row coming back into it, windows of it as
// outputs), each ONE inner_persistent kernel — the resize fused into it, no pointwise segment
// writing an intermediate — every other one also under forced parameters (several persistent
// batches, two rows per block); half as many outer persistent (batch_norm-like) ones, each ONE
// outer_persistent kernel, every other one again under forced batches; a quarter as many
// inner-outer persistent (layer_norm backward-like) ones, each ONE inner_outer_persistent
// kernel. PERSISTENT_RESIZE_RANDOM_COUNT sets how many inner ones (default 40).
import { describe, expect, it } from 'vitest';
import { randomInnerOuterPersistentResizeCase, randomOuterPersistentResizeCase, randomPersistentResizeCase } from '@tsfuser/test-support';
import { InnerPersistentScheduler, OuterPersistentScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const count = Number(process.env.PERSISTENT_RESIZE_RANDOM_COUNT ?? 40);

describe('random persistent fusions with slice / pad / cat', () => {
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
        // Every other case again with 3 persistent batches and 4 columns per block.
        if (k % 2 === 0) simulateAndCheck(c.fusion, c.inputs, `${label} (forced: 3 batches, bdimx 4)`, new SchedulerRegistry([new OuterPersistentScheduler({ batches: 3, bdimx: 4 })]));
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 800)}`);
      }
    }
  }, 120_000);

  it(`${Math.ceil(count / 4)} inner-outer persistent cases from seed ${seed}`, () => {
    for (let k = 0; k < Math.ceil(count / 4); k += 1) {
      const c = randomInnerOuterPersistentResizeCase(seed + k);
      const label = `random inner-outer persistent resize ${seed + k} (TSFUSER_SEED=${seed}, iteration ${k}; ${c.description})`;
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
