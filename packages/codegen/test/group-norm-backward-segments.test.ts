// group_norm backward (the sweep's group_norm_bwd: x, dy [N, G, C/G, S], weight [G, C/G], mean
// and invstd [N, G]) segments into three kernels that read only fusion inputs — inner
// persistent dx (both per-group reductions over [C/G, S]), dw and db reductions over [N, S] —
// because x̂ = (x − mean)·invstd and dy·w are recomputed by each segment instead of crossing
// between them (scheduler segmentation/recompute-inputs.ts; 4 kernels and full-size f32
// intermediates before). Each kernel is simulated against the reference evaluator of its
// segment, and the segments' outputs against the whole fusion's, at random sizes (seed printed).
import { describe, expect, it } from 'vitest';
import {
  broadcast, cast, div, Fusion, HostTensor, makeTensor, mul, size, sub, sum, evaluate,
  type DataType, type TensorView, type Val, type EvalValue,
} from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, segmentFusion } from '@tsfuser/scheduler';
import { baseSeed, compareOutput, normwiseSlack, randomTensor, runtimeInfoOf, seeded } from '@tsfuser/test-support';
import { simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

/** group_norm backward as the sweep defines it (sweep-batch-norm-definitions.ts groupNormBackwardDef). */
function groupNormBackward(dtype: DataType): Fusion {
  const f = new Fusion();
  const input = (rank: number, dt: DataType): TensorView => {
    const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: dt });
    f.addInput(t);
    return t;
  };
  const [x0, dy0, w0, mean, invstd] = [input(4, dtype), input(4, dtype), input(2, dtype), input(2, 'Float'), input(2, 'Float')];
  const x = cast(x0, 'Float');
  const dy = cast(dy0, 'Float');
  const perGroup = (t: TensorView): TensorView => broadcast(t, [false, false, true, true]);
  const xhat = mul(sub(x, perGroup(mean)), perGroup(invstd));
  const g = mul(dy, broadcast(cast(w0, 'Float'), [true, false, false, true]));
  const n = mul(size(x0, 2), size(x0, 3));
  const meanG = perGroup(div(sum(g, [2, 3]), n));
  const meanGx = perGroup(div(sum(mul(g, xhat), [2, 3]), n));
  f.addOutput(cast(mul(sub(sub(g, meanG), mul(xhat, meanGx)), perGroup(invstd)), dtype));
  f.addOutput(cast(sum(mul(dy, xhat), [0, 3]), dtype));
  f.addOutput(cast(sum(dy, [0, 3]), dtype));
  return f;
}

function inputsOf(dtype: DataType, [nb, groups, cpg, s]: readonly number[], r: () => number): HostTensor[] {
  const stats = (positive: boolean): HostTensor => {
    const t = randomTensor('Float', [nb as number, groups as number], r);
    return positive ? HostTensor.fromValues('Float', t.sizes, t.toNumbers().map((v) => 0.5 + Math.abs(v) / 4)) : t;
  };
  const x4 = [nb, groups, cpg, s] as number[];
  return [randomTensor(dtype, x4, r), randomTensor(dtype, x4, r), randomTensor(dtype, [groups, cpg] as number[], r), stats(false), stats(true)];
}

describe('group_norm backward: three kernels reading only fusion inputs', () => {
  const cases: { dtype: DataType; sizes: number[] }[] = [
    { dtype: 'Float', sizes: [2, 4, 2, 64] },
    { dtype: 'BFloat16', sizes: [3, 8, 2, 40] },
    { dtype: 'Half', sizes: [2, 2, 3, 33] }, // odd spatial size: scalar accesses
  ];
  const r0 = seeded(seed + 900);
  const int = (lo: number, hi: number): number => lo + Math.floor(r0() * (hi - lo + 1));
  for (let i = 0; i < 3; i += 1) cases.push({ dtype: (['Float', 'BFloat16', 'Half'] as const)[int(0, 2)] ?? 'Float', sizes: [int(1, 4), 2 * int(1, 4), int(1, 3), int(1, 12) * 8 + int(0, 1)] });

  for (const [k, c] of cases.entries()) {
    it(`${c.dtype} [${c.sizes.join(', ')}]`, () => {
      const label = `group_norm_bwd ${c.dtype} [${c.sizes.join(', ')}] (TSFUSER_SEED=${seed})`;
      const fusion = groupNormBackward(c.dtype);
      const inputs = inputsOf(c.dtype, c.sizes, seeded(seed + k));
      const sf = segmentFusion(fusion, runtimeInfoOf(fusion, inputs), defaultSchedulerRegistry());
      // Independent segments: their order follows their earliest expression.
      expect(sf.groups.map((g) => g.schedulerType).sort().join('+'), label).toBe('inner_persistent+reduction+reduction');
      expect(sf.edges, label).toEqual([]);
      const whole = evaluate(fusion, inputs) as HostTensor[];
      for (const g of sf.groups) {
        // No edges: every segment reads fusion inputs only.
        const args: EvalValue[] = g.inputs.map((v: Val) => {
          const at = fusion.inputs.indexOf(v);
          if (at < 0) throw new Error(`${label}: segment ${g.id} reads T${v.name}, not a fusion input`);
          return inputs[at] as HostTensor;
        });
        simulateAndCheck(g.fusion, args, `${label} segment ${g.id} [${g.schedulerType}]`);
        const outs = evaluate(g.fusion, args) as HostTensor[];
        g.outputs.forEach((v, j) => {
          const at = fusion.outputs.indexOf(v);
          expect(at, label).toBeGreaterThanOrEqual(0);
          const want = whole[at] as HostTensor;
          compareOutput(want, outs[j] as HostTensor, `${label}: output ${at} from segment ${g.id}`, normwiseSlack(want, c.dtype), c.dtype);
        });
      }
    });
  }
});
