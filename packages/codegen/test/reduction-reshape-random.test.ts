// Reshapes AFTER a reduction, in the reduction kernel (scheduler reduction/
// reshape-after-reduction.ts, views-after-reduction.ts): random cases (test-support
// reduction-reshape-random.ts) are drawn until 30 have a reshape after the reduction (a reshape
// that only adds or removes size-1 dims is a broadcast / squeeze, no reshape); each of those is
// asserted to be ONE reduction segment and simulated against the reference evaluator
// (norm-wise for the reductions), with every tensor past the reshape on the reduction's
// iteration loops (not its own logical loops). Seeded (TSFUSER_SEED, printed on failure).
// Fixtures: the example (Float / Half / BFloat16), inner and outer reductions with
// merging, splitting, regrouping and size-1 reshapes, several outputs, welford, dynamic
// reshapes, full and grid reductions; a reshape merging kept dims around the reduced one, and one of the result expanded
// over the reduced dim again, stay boundaries, named.
import { describe, expect, it } from 'vitest';
import { add, broadcast, cast, exp, expand, Fusion, loopExprs, makeTensor, max, mean, mul, reshape, size, sum, varMean, type DataType, type EvalValue, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, type RuntimeInfo } from '@tsfuser/scheduler';
import { hasReshapeAfterReduction, randomReductionReshapeCase } from '@tsfuser/test-support';
import { compileFusion } from '../src/index.js';
import { baseSeed, randomTensor, runtimeInfoOf, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

describe('a reshape after a reduction, in the reduction kernel', () => {
  it('random cases: 30 with a reshape after the reduction, one reduction kernel each, simulated like the evaluator', () => {
    const base = baseSeed();
    let taken = 0;
    for (let it = 0; taken < 30; it += 1) {
      if (it > 300) throw new Error(`TSFUSER_SEED=${base}: only ${taken} of 300 random cases had a reshape after the reduction`);
      const c = randomReductionReshapeCase(base + it);
      if (!hasReshapeAfterReduction(c.fusion)) continue;
      taken += 1;
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type), label).toEqual(['reduction']);
      expect(unalignedPastReshapes(c.fusion, runtimeInfoOf(c.fusion, c.inputs)), label).toEqual([]);
      try {
        simulateAndCheck(c.fusion, c.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
  }, 60_000);
});

/** Tensors of the scheduled kernel past a reshape that still iterate their logical dims (no loop transforms). */
function unalignedPastReshapes(fusion: Fusion, info: RuntimeInfo): string[] {
  const reg = defaultSchedulerRegistry();
  const { scheduler } = reg.pick(fusion, info);
  const scheduled = scheduler.schedule(fusion.clone().fusion, scheduler.computeHeuristics(fusion, info)).fusion;
  const past = new Set<unknown>();
  for (const e of scheduled.exprs()) if (e.kind === 'ViewOp' || e.inputs.some((v) => past.has(v))) for (const o of e.outputs) past.add(o);
  return scheduled.allTvs().filter((tv) => past.has(tv) && tv.nDims() > 0 && loopExprs(tv).length === 0).map((tv) => `T${tv.name}`);
}

function build(dtype: DataType, shape: readonly number[], body: (f: Fusion, x: TensorView) => TensorView[]): { fusion: Fusion; inputs: EvalValue[] } {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype });
  f.addInput(x);
  const outs = body(f, dtype === 'Float' ? x : cast(x, 'Float'));
  for (const o of outs) f.addOutput(o);
  return { fusion: f, inputs: [randomTensor(dtype, shape, seeded(11))] };
}

describe('a reshape after a reduction: fixtures', () => {
  const one = (label: string, c: { fusion: Fusion; inputs: EvalValue[] }): void => {
    expect(segmentsWithInputs(c.fusion, c.inputs).map((s) => s.type), label).toEqual(['reduction']);
    expect(unalignedPastReshapes(c.fusion, runtimeInfoOf(c.fusion, c.inputs)), label).toEqual([]);
    simulateAndCheck(c.fusion, c.inputs, label);
  };

  it("the issue's example: sum over the inner dim, the kept dims merged, + T1 (Float, Half and BFloat16 with casts)", () => {
    for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1, -1], dtype });
      const y = makeTensor(f, { shape: [-1], dtype });
      f.addInput(x);
      f.addInput(y);
      const t = add(reshape(sum(cast(x, 'Float'), [2]), [24]), cast(y, 'Float'));
      f.addOutput(dtype === 'Float' ? t : cast(t, dtype));
      const r = seeded(5);
      one(`issue example ${dtype}`, { fusion: f, inputs: [randomTensor(dtype, [6, 4, 99], r), randomTensor(dtype, [24], r)] });
    }
  });

  it('inner and outer reductions; merge, split, regroup and size-1 dims of the kept dims; odd row counts', () => {
    const cases: [string, readonly number[], (f: Fusion, x: TensorView) => TensorView[]][] = [
      ['outer sum, kept [5, 7] merged', [33, 5, 7], (_f, x) => [mul(reshape(sum(x, [0]), [35]), 2)]],
      ['outer max, kept [35] split [5, 7]', [19, 35], (_f, x) => [reshape(max(x, [0]), [5, 7])]],
      ['inner sum, kept [6, 10] regrouped [4, 15]', [6, 10, 31], (_f, x) => [exp(mul(reshape(sum(x, [2]), [4, 15]), 0.01))]],
      ['inner sum over two dims, kept [3, 1, 7] → [21, 1]', [3, 1, 7, 4, 9], (_f, x) => [reshape(sum(x, [3, 4]), [21, 1])]],
      ['keepdim sum [9, 1] → [3, 3]', [9, 40], (_f, x) => [reshape(sum(x, [1], true), [3, 3])]],
      ['[K0, R, K1] split inside K1', [3, 50, 8], (_f, x) => [reshape(sum(x, [1]), [3, 2, 4])]],
      ['[K0, R1, K2, R3]: K0 and K2 one group, merged', [2, 5, 3, 7], (_f, x) => [reshape(sum(x, [1, 3]), [6])]],
      ['two outputs: the sums and their reshape', [7, 3, 65], (_f, x) => {
        const s = sum(x, [2]);
        return [s, add(reshape(s, [21]), 1)];
      }],
      ['two reshapes of one result', [4, 6, 17], (_f, x) => {
        const s = mean(x, [2]);
        return [reshape(s, [24]), reshape(s, [2, 12])];
      }],
      ['a reshape of a reshape', [4, 6, 17], (_f, x) => [reshape(add(reshape(sum(x, [2]), [24]), 1), [3, 8])]],
      ['var_mean, both reshaped', [5, 6, 70], (_f, x) => {
        const vm = varMean(x, [2], 1);
        return [reshape(vm.mean, [30]), reshape(vm.var, [30])];
      }],
    ];
    for (const [label, shape, body] of cases) one(label, build('Float', shape, body));
  });

  it('dynamic reshapes after the reduction: sizes from size() and from Int scalar inputs', () => {
    one('sizes from size()', build('Float', [5, 7, 33], (_f, x) => [add(reshape(sum(x, [2]), [mul(size(x, 0), size(x, 1))]), 1)]));
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    const s0 = f.newSymbolicScalar('Int');
    f.addInput(x);
    f.addInput(s0);
    f.addOutput(cast(mul(reshape(sum(cast(x, 'Float'), [1]), [s0, -1]), 3), 'Half'));
    one('sizes from an Int input', { fusion: f, inputs: [randomTensor('Half', [12, 130], seeded(2)), 4n] });
  });

  it('a full reduction reshaped to size-1 dims; a grid reduction (blockIdx.y over the row) reshaped', () => {
    for (const [label, body] of [
      ['sum over every dim → [1, 1]', (x: TensorView) => exp(reshape(sum(x, [0, 1]), [1, 1]))],
      ['keepdim sum over every dim → [1]', (x: TensorView) => mul(reshape(sum(x, [0, 1], true), [1]), 2)],
    ] as const) {
      const c = build('Float', [7, 300], (_f, x) => [body(x)]);
      expect(segmentsWithInputs(c.fusion, c.inputs).map((s) => s.type), label).toEqual(['reduction']);
      simulateAndCheck(c.fusion, c.inputs, label);
    }
    const c = build('Float', [4, 200000], (_f, x) => [mul(reshape(sum(x, [1]), [2, 2]), 2)]);
    one('grid reduction → [2, 2]', c);
    const p = compileFusion(c.fusion, runtimeInfoOf(c.fusion, c.inputs)).params;
    expect(p.schedulerType === 'reduction' && p.crossGridInnerReduction).toBe(true);
  });

  it('a reshape of the result expanded over the reduced dim again is a boundary naming it', () => {
    const c = build('Float', [5, 29], (_f, x) => [mul(reshape(expand(broadcast(sum(x, [1]), [false, true]), [size(x, 0), size(x, 1)]), [-1]), 2)]);
    const verdict = defaultSchedulerRegistry().get('reduction').canSchedule(c.fusion, runtimeInfoOf(c.fusion, c.inputs));
    expect(verdict.ok ? '' : verdict.reason).toMatch(/^reshape producing T\d+ after the reduction T\d+ reads the expanded broadcast dim 1 of T\d+/);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    expect(segments.map((s) => s.type)).toEqual(['reduction', 'pointwise']);
    for (const s of segments) simulateAndCheck(s.fusion, s.inputs, `expanded reshape, ${s.type} segment`);
  });

  it('a reshape merging the kept dims around the reduced one is a boundary naming it; both segments simulate', () => {
    const c = build('Float', [4, 9, 6], (_f, x) => [add(reshape(sum(x, [1]), [24]), 1)]);
    const verdict = defaultSchedulerRegistry().get('reduction').canSchedule(c.fusion, runtimeInfoOf(c.fusion, c.inputs));
    expect(verdict.ok ? '' : verdict.reason).toMatch(/^reshape producing T\d+ after the reduction T\d+ joins its kept dim 0 with its kept dim 2, which the reduction schedule merges apart/);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    expect(segments.map((s) => s.type)).toEqual(['reduction', 'pointwise']);
    for (const s of segments) simulateAndCheck(s.fusion, s.inputs, `interfering reshape, ${s.type} segment`);
  });
});
