// Permutes inside reduction and normalization kernels (test-support permute-reduction-random.ts):
// a permute that keeps the innermost dim innermost joins the reduction or persistent kernel
// (one kernel segment, no pointwise segment before it), and every kernel simulates like the
// reference evaluator. A permute that moves the innermost dim stays a boundary (the transpose
// scheduler's). Seeded (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { cast, Fusion, makeTensor, permute, sum } from '@tsfuser/fusion-ir';
import { randomPermuteReductionCase, randomTensor, seeded } from '@tsfuser/test-support';
import { baseSeed, checkViews, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

describe('permute inside reduction and normalization kernels', () => {
  it('random cases: one reduction or persistent kernel each, simulated like the evaluator', () => {
    const base = baseSeed();
    for (let it = 0; it < 30; it += 1) {
      const c = randomPermuteReductionCase(base + it);
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      const kernels = segments.filter((s) => s.type !== 'expr_eval' && s.type !== 'no_op');
      expect(kernels.map((s) => s.type), label).toHaveLength(1);
      expect(['reduction', 'inner_persistent', 'outer_persistent'], label).toContain(kernels[0]?.type);
      try {
        for (const s of segments) {
          if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
          else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
        }
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
  }, 120_000);

  it('a permute that moves the innermost dim is a boundary before the reduction', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(sum(permute(cast(x, 'Float'), [0, 2, 1]), [2]));
    const inputs = [randomTensor('Float', [3, 5, 64], seeded(1))];
    const types = segmentsWithInputs(f, inputs).map((s) => s.type);
    expect(types).toContain('reduction');
    expect(types.length).toBeGreaterThan(1);
  });
});
