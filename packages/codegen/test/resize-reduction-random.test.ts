// Slice / pad / cat on the input side of a reduction (test-support resize-reduction-random.ts):
// each random case is ONE reduction kernel (the resize fused into it, no pointwise segment
// writing an intermediate), simulated like the reference evaluator (norm-wise for the sums).
// Also: the four examples (Float and Half), welford over a slice of a pad, unrolled
// loads over a cat of a pad, permutes of the outer dims with a resize, a grid reduction over a
// cat. A resize after the reduction stays a segment boundary with a reason
// naming it. Seeded (TSFUSER_SEED, printed on failure); 600 cases over 15 seeds passed when
// this was written.
import { describe, expect, it } from 'vitest';
import { cast, cat, exp, Fusion, makeTensor, max, pad, permute, slice, sum, welford, type TensorView } from '@tsfuser/fusion-ir';
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

  it("the issue's examples: sum(pad(x)), sum(slice(x)), max(cat([a, b], 1)), sum(exp(pad(x))) are one reduction kernel each", () => {
    const cases: { name: string; build: (f: Fusion, a: TensorView, b: TensorView) => TensorView }[] = [
      { name: 'sum(pad(x))', build: (_f, a) => sum(pad(a, [3, -2], 1.5), [1]) },
      { name: 'sum(slice(x))', build: (_f, a) => sum(slice(a, [1, 5], [6, 60], [2, 3]), [0]) },
      { name: 'max(cat([a, b], 1))', build: (_f, a, b) => max(cat([a, b], 1), [1]) },
      { name: 'sum(exp(pad(x)))', build: (_f, a) => sum(exp(pad(a, [0, 0, 2, 1])), [0, 1]) },
    ];
    for (const dtype of ['Float', 'Half'] as const) {
      for (const c of cases) {
        const f = new Fusion();
        const [a, b] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1], dtype })) as [TensorView, TensorView];
        f.addInput(a);
        f.addInput(b);
        f.addOutput(c.build(f, cast(a, 'Float'), cast(b, 'Float')));
        const r = seeded(7);
        const inputs = [randomTensor(dtype, [9, 64], r), randomTensor(dtype, [9, 33], r)];
        const label = `${c.name} ${dtype}`;
        expect(segmentsWithInputs(f, inputs).map((s) => s.type), label).toEqual(['reduction']);
        simulateAndCheck(f, inputs, label);
      }
    }
  });

  it('welford (var_mean) over a slice of a pad, over the inner, an outer and every dim', () => {
    for (const dims of [[1], [0], [0, 1]]) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
      f.addInput(x);
      const w = welford(slice(pad(cast(x, 'Float'), [2, -1, 1, 3], 0.5), [1, 0], [9, 30], [1, 2]), dims);
      f.addOutput(w.avg);
      f.addOutput(w.varSum);
      const inputs = [randomTensor('Half', [7, 37], seeded(1))];
      expect(segmentsWithInputs(f, inputs).map((s) => s.type)).toEqual(['reduction']);
      simulateAndCheck(f, inputs, `welford over [${dims.join(', ')}]`);
    }
  });

  it('unrolled (not vectorized) loads of an inner reduction over a cat of a pad', () => {
    const f = new Fusion();
    const [a, b] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'Half' })) as [TensorView, TensorView];
    f.addInput(a);
    f.addInput(b);
    f.addOutput(sum(exp(cat([pad(cast(a, 'Float'), [3, -2], 0.25), cast(b, 'Float')], 1)), [1]));
    const r = seeded(4);
    const inputs = [randomTensor('Half', [133, 701], r), randomTensor('Half', [133, 100], r)];
    expect(segmentsWithInputs(f, inputs).map((s) => s.type)).toEqual(['reduction']);
    const p = simulateAndCheck(f, inputs, 'unrolled cat of a pad').compiled.params;
    expect(p.schedulerType === 'reduction' ? [p.vectorizeInnerReduction, p.unrollFactorInnerReduction] : null).toEqual([false, 2]);
  });

  it('a permute of the outer dims before or after the resize, in the same reduction kernel', () => {
    const builds: ((x: TensorView) => TensorView)[] = [
      (x) => sum(pad(permute(x, [1, 0, 2]), [1, 2, 0, 0, 3, 1], 0.5), [2]),
      (x) => sum(pad(permute(x, [1, 0, 2]), [0, 0, 2, 1], 0.5), [0]),
      (x) => sum(permute(slice(x, [1, 0, 0], [4, 5, 9], [1, 2, 1]), [1, 0, 2]), [1, 2]),
      (x) => sum(exp(permute(pad(x, [0, 0, 1, 1]), [1, 0, 2])), [2]),
    ];
    builds.forEach((build, i) => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' });
      f.addInput(x);
      f.addOutput(build(cast(x, 'Float')));
      const inputs = [randomTensor('Float', [5, 6, 9], seeded(1))];
      expect(segmentsWithInputs(f, inputs).map((s) => s.type), `case ${i}`).toEqual(['reduction']);
      simulateAndCheck(f, inputs, `permute and resize, case ${i}`);
    });
  });

  it('a cat along the reduced outer dim in a grid reduction (blockIdx.y splits the rows of the cat)', () => {
    const f = new Fusion();
    const [a, b] = [0, 1].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'Float' })) as [TensorView, TensorView];
    f.addInput(a);
    f.addInput(b);
    f.addOutput(sum(cat([a, b], 0), [0]));
    const r = seeded(3);
    const inputs = [randomTensor('Float', [5000, 3], r), randomTensor('Float', [3001, 3], r)];
    expect(segmentsWithInputs(f, inputs).map((s) => s.type)).toEqual(['reduction']);
    const sim = simulateAndCheck(f, inputs, 'grid cat');
    expect(sim.compiled.params.schedulerType === 'reduction' && sim.compiled.params.crossGridInnerReduction).toBe(true);
  });

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
