// Reduction scheduler with Welford (var_mean, welford): canSchedule accepts one WelfordOp over
// raw values with the same shapes as a sum (inner, outer, multi-axis, keepdim, grid), the
// heuristics are the sum's, the schedule rFactors all three outputs (avg, varSum, n) into
// partial states merged by a second WelfordOp, and the scheduled fusion evaluates exactly like
// the unscheduled one. Persistent normalizations with Welford still go to inner_persistent;
// those that cannot be persistent are segmented with the Welford in a reduction group.
import { describe, expect, it } from 'vitest';
import {
  evaluate, Fusion, HostTensor, layerNorm, makeTensor, mul, sum, varMean, welford, WelfordOp,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import {
  computeReductionHeuristics, defaultSchedulerRegistry, heuristicParamsToString, makeRuntimeInfo, ReductionScheduler, segmentPlanFor, type ReductionParams,
} from '../src/index.js';

const s = new ReductionScheduler();

function varMeanFusion(shape: number[], axes: number[], opts: { dtype?: DataType; keepdim?: boolean } = {}): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype: opts.dtype ?? 'Float' });
  f.addInput(x);
  const r = varMean(x, axes, 1, opts.keepdim ?? false);
  f.addOutput(r.var);
  f.addOutput(r.mean);
  return f;
}

function info(f: Fusion, sizes: number[][]): ReturnType<typeof makeRuntimeInfo> {
  return makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));
}

function params(f: Fusion, sizes: number[][]): ReductionParams {
  return s.computeHeuristics(f, info(f, sizes));
}

function randomInput(dtype: DataType, sizes: number[]): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => (Math.random() - 0.5) * 8));
}

describe('reduction scheduler: Welford', () => {
  it('accepts var_mean / welford (inner, outer, multi-axis, keepdim, Half) and the registry picks it', () => {
    const cases: [Fusion, number[][]][] = [
      [varMeanFusion([-1, -1], [1]), [[64, 1000]]],
      [varMeanFusion([-1, -1], [0]), [[1000, 64]]],
      [varMeanFusion([-1, -1, -1], [0, 1]), [[16, 512, 4096]]],
      [varMeanFusion([-1, -1], [1], { keepdim: true, dtype: 'Half' }), [[8, 9]]],
      [varMeanFusion([-1, -1], [1], { dtype: 'BFloat16' }), [[64, 65536]]],
    ];
    for (const [f, sizes] of cases) {
      expect(s.canSchedule(f, info(f, sizes))).toEqual({ ok: true });
      expect(defaultSchedulerRegistry().pick(f, info(f, sizes)).scheduler.type).toBe('reduction');
    }
    const raw = new Fusion();
    const x = makeTensor(raw, { shape: [-1, -1] });
    raw.addInput(x);
    const w = welford(mul(x, 2), [0]);
    raw.addOutput(w.avg);
    raw.addOutput(w.varSum);
    raw.addOutput(w.n);
    expect(s.canSchedule(raw, info(raw, [[30, 7]]))).toEqual({ ok: true });
  });

  it('refuses a Welford that merges partial states, two reduction patterns, and a broadcast back (layer_norm: inner_persistent)', () => {
    // A merge of partial states (what rFactor builds): the raw welford's outputs, redefined.
    const merge = new Fusion();
    const [a, m, n] = [makeTensor(merge, { shape: [-1, -1] }), makeTensor(merge, { shape: [-1, -1] }), makeTensor(merge, { shape: [-1, -1], dtype: 'Index' })];
    for (const t of [a, m, n]) merge.addInput(t);
    const raw = welford(a, [1]);
    merge.removeExpr(raw.avg.definition as WelfordOp);
    new WelfordOp(merge, raw, { avg: a, varSum: m, n });
    merge.addOutput(raw.avg);
    const reason = s.canSchedule(merge, info(merge, [[4, 5], [4, 5], [4, 5]]));
    expect(reason.ok ? 'ok' : reason.reason).toMatch(/merges partial states/);

    const two = varMeanFusion([-1, -1], [1]);
    two.addOutput(sum(two.inputs[0] as TensorView, [0]));
    const r2 = s.canSchedule(two, info(two, [[4, 5]]));
    expect(r2.ok ? 'ok' : r2.reason).toMatch(/one reduction pattern/);

    const ln = new Fusion();
    const y = makeTensor(ln, { shape: [-1, -1] });
    ln.addInput(y);
    const r = layerNorm(y, 1, null, null);
    ln.addOutput(r.output);
    const ri = info(ln, [[1024, 1024]]);
    const r3 = s.canSchedule(ln, ri);
    expect(r3.ok ? 'ok' : r3.reason).toMatch(/persistent/);
    expect(defaultSchedulerRegistry().pick(ln, ri).scheduler.type).toBe('inner_persistent');
  });

  it('heuristics are the sum heuristics without iteration vectors: inner block, outer TIDy, grid for few long rows', () => {
    // Welford keeps one column per thread in an outer reduction (outer-vectorization.ts: its
    // three-state lanes are not grouped), so it matches the sum's schedule at iterVector 1.
    const sumOf = (shape: number[], axes: number[], iterVector?: number): ReductionParams => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: shape.map(() => -1) });
      f.addInput(x);
      f.addOutput(sum(x, axes));
      return computeReductionHeuristics(f, info(f, [shape]), iterVector === undefined ? {} : { iterVector });
    };
    const outerSum = sumOf([4096, 128], [0]);
    expect(outerSum.vectorizeIterDom).toBe(true);
    expect(params(varMeanFusion([-1, -1], [0]), [[4096, 128]]).vectorizeIterDom).toBe(false);
    for (const [shape, axes] of [[[128, 4096], [1]], [[4096, 128], [0]], [[4, 50000], [1]], [[50000, 4], [0]], [[16, 512, 4096], [0, 1]]] as const) {
      const p = params(varMeanFusion(shape.map(() => -1), [...axes]), [[...shape]]);
      expect(heuristicParamsToString(p)).toBe(heuristicParamsToString(sumOf([...shape], [...axes], 1)));
    }
    const grid = params(varMeanFusion([-1, -1], [1]), [[4, 50000]]);
    expect(grid.crossGridInnerReduction).toBe(true);
    // var_mean(x[16, 512, 4096], dims=[0, 1]): an outer reduction over 8192 rows, TIDx over 4096 columns
    const big = params(varMeanFusion([-1, -1, -1], [0, 1]), [[16, 512, 4096]]);
    expect(big.fastestDim).toBe(false);
    expect(big.blockDimIterDom).toBe('TIDx');
  });

  it('schedule: rFactor of all three outputs into partial states merged by a second WelfordOp', () => {
    const f = varMeanFusion([-1, -1], [1]);
    const sched = s.schedule(f.clone().fusion, params(f, [[64, 1000]]));
    const welfords = sched.fusion.exprs().filter((e): e is WelfordOp => e.kind === 'WelfordOp');
    expect(welfords).toHaveLength(2);
    const [partial, final] = welfords as [WelfordOp, WelfordOp];
    expect(partial.inVarSum()).toBeNull();
    expect(final.inputs).toEqual(partial.outputs);
    const loops = final.outputs.map((o) => (o as TensorView).domain.loop.map((id) => `${id.isReduction() ? 'r' : 'i'}${id.parallelType}`).join(' '));
    expect(new Set(loops).size).toBe(1);
    expect(loops[0]).toMatch(/^iBIDx .*rTIDx$/);
  });

  const cases: { name: string; shape: number[]; axes: number[]; dtype?: DataType; keepdim?: boolean }[] = [
    { name: 'inner odd', shape: [37, 1001], axes: [1] },
    { name: 'outer odd Half', shape: [999, 37], axes: [0], dtype: 'Half' },
    { name: 'multi-axis [0, 1]', shape: [16, 32, 64], axes: [0, 1] },
    { name: 'multi-axis [0, 2] keepdim BFloat16', shape: [5, 6, 7], axes: [0, 2], keepdim: true, dtype: 'BFloat16' },
    { name: 'grid inner', shape: [4, 50000], axes: [1] },
    { name: 'grid outer', shape: [50000, 4], axes: [0] },
    { name: 'size-1 reduced', shape: [7, 1], axes: [1] },
    { name: 'size-0 reduced', shape: [5, 0], axes: [1] },
  ];
  for (const c of cases) {
    it(`scheduled Welford evaluates like the unscheduled fusion: ${c.name}`, () => {
      const f = varMeanFusion(c.shape.map(() => -1), c.axes, { ...(c.dtype ? { dtype: c.dtype } : {}), ...(c.keepdim ? { keepdim: true } : {}) });
      const ri = info(f, [c.shape]);
      expect(s.canSchedule(f, ri)).toEqual({ ok: true });
      const sched = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
      const x = randomInput(c.dtype ?? 'Float', c.shape);
      const want = evaluate(f, [x]) as HostTensor[];
      const got = evaluate(sched.fusion, [x]) as HostTensor[];
      expect(got.map((t) => t.toNumbers())).toEqual(want.map((t) => t.toNumbers()));
    });
  }
});

describe('segmentation: Welford that cannot be persistent goes to the reduction scheduler', () => {
  function layerNormFusion(shape: number[], dtype: DataType = 'Float'): Fusion {
    const f = new Fusion();
    const x = makeTensor(f, { shape: shape.map(() => -1), dtype });
    const w = makeTensor(f, { shape: [-1], dtype });
    f.addInput(x);
    f.addInput(w);
    const r = layerNorm(x, 1, w, null);
    f.addOutput(r.output);
    f.addOutput(r.mean);
    f.addOutput(r.invstd);
    return f;
  }
  const plan = (f: Fusion, sizes: number[][]): string =>
    segmentPlanFor(f, info(f, sizes), defaultSchedulerRegistry()).groups.map((g) => g.schedulerType ?? 'none').join('+');

  it('persistent rows: one inner_persistent kernel (Welford translated to sums there)', () => {
    expect(plan(layerNormFusion([-1, -1]), [[1024, 4096], [4096]])).toBe('inner_persistent');
  });

  it('rows too long for registers, or empty rows: the Welford is a reduction segment', () => {
    expect(plan(layerNormFusion([-1, -1]), [[4, 1 << 20], [1 << 20]])).toBe('reduction+pointwise');
    expect(plan(layerNormFusion([-1, -1]), [[4, 0], [0]])).toBe('reduction+pointwise');
    const vm = varMeanFusion([-1, -1], [1]);
    expect(plan(vm, [[64, 65536]])).toBe('reduction');
    const both = varMeanFusion([-1, -1], [1]);
    both.addOutput(mul(both.inputs[0] as TensorView, 2));
    expect(plan(both, [[64, 1000]])).toContain('reduction');
  });
});
