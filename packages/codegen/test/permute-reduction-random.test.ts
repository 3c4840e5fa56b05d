// Permutes inside reduction and normalization kernels (test-support permute-reduction-random.ts):
// a permute that keeps the innermost dim innermost joins the reduction or persistent kernel
// (one kernel segment, no pointwise segment before it), and every kernel simulates like the
// reference evaluator. A permute that moves the innermost dim stays a boundary (the transpose
// scheduler's). Seeded (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import { broadcast, cast, Fusion, makeTensor, mul, permute, sub, sum, truediv, type TensorView } from '@tsfuser/fusion-ir';
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
      expect(['reduction', 'inner_persistent', 'outer_persistent', 'inner_outer_persistent'], label).toContain(kernels[0]?.type);
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

  it('layer_norm backward on inputs permuted [1, 0, 2] is one inner-outer persistent kernel (Float, BFloat16 through casts)', () => {
    // Its projection recomputes the permute for the outer reductions: the copy must permute too
    // (it was a plain set, and the kernel then failed to lower).
    const seed = baseSeed();
    for (const [dtype, [A, B, H]] of [['Float', [3, 5, 40]], ['BFloat16', [8, 16, 256]], ['Float', [2, 7, 1030]]] as const) {
      const f = new Fusion();
      const [go0, x0] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1, -1], dtype })) as [TensorView, TensorView];
      const [mean, rstd] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'Float' })) as [TensorView, TensorView];
      const w = makeTensor(f, { shape: [-1], dtype });
      for (const t of [go0, x0, mean, rstd, w]) f.addInput(t);
      const go = permute(cast(go0, 'Float'), [1, 0, 2]);
      const x = permute(cast(x0, 'Float'), [1, 0, 2]);
      const rstdB = broadcast(rstd, [false, false, true]);
      const xhat = mul(sub(x, broadcast(mean, [false, false, true])), rstdB);
      const g = mul(go, broadcast(cast(w, 'Float'), [true, true, false]));
      const a = broadcast(sum(mul(g, xhat), [2]), [false, false, true]);
      const b = broadcast(sum(g, [2]), [false, false, true]);
      f.addOutput(cast(mul(sub(sub(g, truediv(b, H)), truediv(mul(xhat, a), H)), rstdB), dtype));
      f.addOutput(cast(sum(mul(go, xhat), [0, 1]), dtype));
      f.addOutput(cast(sum(go, [0, 1]), dtype));
      const r = seeded(seed);
      const inputs = [randomTensor(dtype, [A, B, H], r), randomTensor(dtype, [A, B, H], r), randomTensor('Float', [B, A], r), randomTensor('Float', [B, A], r), randomTensor(dtype, [H], r)];
      const label = `layer_norm backward ${dtype} [${A}, ${B}, ${H}] permuted (TSFUSER_SEED=${seed})`;
      const segments = segmentsWithInputs(f, inputs);
      expect(segments.map((s) => s.type), label).toEqual(['inner_outer_persistent']);
      for (const s of segments) simulateAndCheck(s.fusion, s.inputs, label);
    }
  });
});
