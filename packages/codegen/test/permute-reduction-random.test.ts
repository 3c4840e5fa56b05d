// Permutes inside reduction and normalization kernels (test-support permute-reduction-random.ts):
// a permute that keeps the innermost dim innermost joins the reduction or persistent kernel
// (one kernel segment, no pointwise segment before it), and every kernel simulates like the
// reference evaluator. A permute that moves the innermost dim stays a boundary (the transpose
// scheduler's). Seeded (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { broadcast, cast, Fusion, makeTensor, mul, permute, sub, sum, truediv } from '@tsfuser/fusion-ir';
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

  it('inner-outer persistent (layer_norm backward on inputs permuted [1, 0, 2]): the permute stays a boundary, every segment simulates', () => {
    const [A, B, H] = [3, 5, 40];
    const f = new Fusion();
    const [go0, x0] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' })) as [ReturnType<typeof makeTensor>, ReturnType<typeof makeTensor>];
    const [mean, rstd] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'Float' })) as [ReturnType<typeof makeTensor>, ReturnType<typeof makeTensor>];
    const w = makeTensor(f, { shape: [-1], dtype: 'Float' });
    for (const t of [go0, x0, mean, rstd, w]) f.addInput(t);
    const go = permute(go0, [1, 0, 2]);
    const x = permute(x0, [1, 0, 2]);
    const rstdB = broadcast(rstd, [false, false, true]);
    const xhat = mul(sub(x, broadcast(mean, [false, false, true])), rstdB);
    const g = mul(go, broadcast(w, [true, true, false]));
    const a = broadcast(sum(mul(g, xhat), [2]), [false, false, true]);
    const b = broadcast(sum(g, [2]), [false, false, true]);
    f.addOutput(mul(sub(sub(g, truediv(b, H)), truediv(mul(xhat, a), H)), rstdB));
    f.addOutput(sum(mul(go, xhat), [0, 1]));
    f.addOutput(sum(go, [0, 1]));
    const r = seeded(5);
    const inputs = [[A, B, H], [A, B, H], [B, A], [B, A], [H]].map((s) => randomTensor('Float', s, r));
    const segments = segmentsWithInputs(f, inputs);
    expect(segments.map((s) => s.type)).toContain('inner_outer_persistent');
    expect(segments.map((s) => s.type)).toContain('expr_eval');
    for (const s of segments) {
      if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, 'layer_norm backward, permuted');
      else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, 'layer_norm backward, permuted');
    }
  });
});
