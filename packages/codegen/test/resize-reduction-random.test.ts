// Slice / pad / cat on the input side of a reduction (test-support resize-reduction-random.ts):
// each random case is ONE reduction kernel (the resize fused into it, no pointwise segment
// writing an intermediate), simulated like the reference evaluator (norm-wise for the sums).
// A resize after the reduction stays a segment boundary with a reason naming it. Seeded
// (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { cast, Fusion, makeTensor, pad, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry } from '@tsfuser/scheduler';
import { randomResizeReductionCase, randomTensor, runtimeInfoOf, seeded } from '@tsfuser/test-support';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

describe('slice / pad / cat before a reduction, in the reduction kernel', () => {
  it('random cases: one reduction kernel each, simulated like the evaluator', () => {
    const base = baseSeed();
    for (let it = 0; it < 40; it += 1) {
      const c = randomResizeReductionCase(base + it);
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type), label).toEqual(['reduction']);
      try {
        simulateAndCheck(c.fusion, c.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
  }, 120_000);

  it('a pad after the reduction is a boundary, and the reduction scheduler says why', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(pad(sum(cast(x, 'Float'), [1]), [1, 2], 0.5));
    const inputs = [randomTensor('Float', [5, 7], seeded(3))];
    const verdict = defaultSchedulerRegistry().get('reduction').canSchedule(f, runtimeInfoOf(f, inputs));
    expect(verdict.ok ? '' : verdict.reason).toMatch(/pad producing T\d+ after the reduction/);
    const types = segmentsWithInputs(f, inputs).map((s) => s.type);
    expect(types).toContain('reduction');
    expect(types.length).toBeGreaterThan(1);
    for (const s of segmentsWithInputs(f, inputs)) if (s.type !== 'expr_eval' && s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, 'pad after sum');
  });
});
