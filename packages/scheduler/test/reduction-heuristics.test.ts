// Reduction scheduler: heuristics decisions, refusals with reasons, the scheduled loop
// structure, and that a scheduled fusion evaluates exactly like the unscheduled one.
import { describe, expect, it } from 'vitest';
import {
  add, broadcast, evaluate, expand, Fusion, HostTensor, makeTensor, max, mul, binaryOp, prod, ReductionOp, reductionInit, reductionOutput, sum, varMean,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import {
  defaultSchedulerRegistry, heuristicParamsToString, makeRuntimeInfo, ReductionScheduler, type ReductionParams,
} from '../src/index.js';

const s = new ReductionScheduler();
const pre = new ReductionScheduler({ preReductionOutputs: true });

function reduction(shape: number[], axes: number[], opts: { dtype?: DataType; keepdim?: boolean; op?: typeof sum } = {}): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype: opts.dtype ?? 'Float' });
  f.addInput(x);
  f.addOutput((opts.op ?? sum)(mul(x, 2), axes, opts.keepdim ?? false));
  return f;
}

function params(f: Fusion, sizes: number[][], alignment?: number): ReductionParams {
  return s.computeHeuristics(f, makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z, ...(alignment === undefined ? {} : { alignment }) }))));
}

describe('reduction heuristics', () => {
  it('inner reduction: TIDx reduces (block reduction), BIDx iterates, vectorized loads', () => {
    const p = params(reduction([128, 4096], [1]), [[128, 4096]]);
    expect(p.fastestDim).toBe(true);
    expect(p.crossBlockInnerReduction).toBe(true);
    expect(p.blockDimInnerReduction).toBe('TIDx');
    expect(p.gridDimIterDom).toBe('BIDx');
    expect(p.vectorizeInnerReduction).toBe(true);
    expect(p.unrollFactorInnerReduction).toBe(4);
    expect(p.vectorizedInputs).toEqual([0]);
    expect(p.lparams.gdimx * p.lparams.bdimy).toBeGreaterThanOrEqual(128);
    expect(params(reduction([128, 4096], [1], { dtype: 'Half' }), [[128, 4096]]).unrollFactorInnerReduction).toBe(8);
    // odd extent or misaligned pointer: no vectorization
    expect(params(reduction([128, 4095], [1]), [[128, 4095]]).vectorizeInnerReduction).toBe(false);
    expect(params(reduction([128, 4096], [1]), [[128, 4096]], 4).vectorizeInnerReduction).toBe(false);
  });

  it('narrow inner reductions put several rows in a block (TIDy)', () => {
    const p = params(reduction([10000, 7], [1]), [[10000, 7]]);
    expect(p.lparams.bdimx).toBe(8);
    expect(p.lparams.bdimy).toBeGreaterThan(1);
    expect(p.multipleReductionsPerBlock).toBe(true);
    expect(p.lparams.gdimx).toBe(Math.ceil(10000 / p.lparams.bdimy));
  });

  it('outer reduction: TIDx iterates, TIDy reduces when BIDx alone leaves the GPU idle', () => {
    const few = params(reduction([4096, 128], [0]), [[4096, 128]]);
    expect(few.fastestDim).toBe(false);
    expect(few.blockDimIterDom).toBe('TIDx');
    expect(few.blockDimInnerReduction).toBe('TIDy');
    expect(few.lparams.bdimy).toBeGreaterThan(1);
    const many = params(reduction([64, 1 << 20], [0]), [[64, 1 << 20]]);
    expect(many.crossBlockInnerReduction).toBe(false);
    expect(many.lparams.bdimy).toBe(1);
    expect(many.unrollFactorInnerReduction).toBe(4); // 64 rows
    expect(params(reduction([4096, 8192], [0]), [[4096, 8192]]).unrollFactorInnerReduction).toBe(8);
  });

  it('grid reduction over blockIdx.y when few outputs leave SMs idle and the reduction is long', () => {
    const inner = params(reduction([8, 100000], [1]), [[8, 100000]]);
    expect(inner.crossGridInnerReduction).toBe(true);
    expect(inner.gridDimInnerReduction).toBe('BIDy');
    expect(inner.lparams.gdimy).toBe(inner.gridReductionBlocksY);
    expect(inner.lparams.gdimy).toBeGreaterThan(1);
    expect(inner.gridReductionWorkSlots).toBe(inner.lparams.gdimx * inner.lparams.bdimy * inner.lparams.gdimy);
    expect(inner.gridReductionSemaphores).toBe(inner.lparams.gdimx);
    const outer = params(reduction([100000, 64], [0]), [[100000, 64]]);
    expect(outer.crossGridInnerReduction).toBe(true);
    // each thread's iteration-vector lanes are partials of their own
    expect(outer.gridReductionWorkSlots).toBe(outer.lparams.gdimx * outer.lparams.bdimx * outer.unrollFactorIterDom * outer.lparams.gdimy);
    const full = params(reduction([1 << 20], [0]), [[1 << 20]]);
    expect(full.crossGridInnerReduction).toBe(true);
    expect(heuristicParamsToString(full)).toContain('cross grid - blockIdx.y');
    // many outputs, or a short reduction: no grid reduction
    expect(params(reduction([4096, 4096], [1]), [[4096, 4096]]).crossGridInnerReduction).toBe(false);
    expect(params(reduction([8, 100], [1]), [[8, 100]]).crossGridInnerReduction).toBe(false);
  });

  it('full and multi-axis reductions', () => {
    const full = params(reduction([33, 17], [0, 1]), [[33, 17]]);
    expect(full.fastestDim).toBe(true);
    expect(full.gridDimIterDom).toBe('Serial');
    expect(full.lparams.gdimx).toBe(1);
    expect(full.lparams.bdimx).toBe(1024); // 561 elements: one block, too short for a grid reduction
    expect(full.crossGridInnerReduction).toBe(false);
    const mid = params(reduction([5, 6, 7], [0, 2]), [[5, 6, 7]]);
    expect(mid.fastestDim).toBe(true);
    expect(mid.lparams.bdimx).toBe(64); // next power of two of 5 * 7
    expect(mid.lparams.gdimx * mid.lparams.bdimy).toBeGreaterThanOrEqual(6);
    const outer2 = params(reduction([16, 32, 64], [0, 1]), [[16, 32, 64]]);
    expect(outer2.fastestDim).toBe(false);
  });

  it('divisibility facts follow the sizes; size 0 launches no block', () => {
    expect(params(reduction([256, 1024], [1]), [[256, 1024]]).divisibleSplits.every((d) => d)).toBe(true);
    expect(params(reduction([255, 1001], [1]), [[255, 1001]]).divisibleSplits).toContain(false);
    expect(params(reduction([0, 5], [1]), [[0, 5]]).lparams.gdimx).toBe(0);
    expect(params(reduction([5, 0], [1]), [[5, 0]]).lparams.gdimx).toBeGreaterThan(0);
  });

  it('prints nvFuser-style scheduler_params', () => {
    const text = heuristicParamsToString(params(reduction([128, 4096], [1]), [[128, 4096]]));
    expect(text).toContain('===== Reduction Parameters ========');
    expect(text).toContain('Red On Fastest Dim');
    expect(text).toContain('Inner Reduction Domain: cross block - threadIdx.x / vectorize / factor 4');
    expect(heuristicParamsToString(params(reduction([4096, 128], [0]), [[4096, 128]]))).toContain('Red On Slow Dim');
  });
});

describe('reduction canSchedule', () => {
  const reason = (f: Fusion, sizes: number[][]): string => {
    const r = s.canSchedule(f, makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z }))));
    return r.ok ? 'ok' : r.reason;
  };

  it('accepts one reduction with pointwise before and after, keepdim, and the registry picks it', () => {
    const f = reduction([8, 9], [1], { keepdim: true });
    expect(reason(f, [[8, 9]])).toBe('ok');
    const ri = makeRuntimeInfo(f, [{ sizes: [8, 9] }]);
    expect(defaultSchedulerRegistry().pick(f, ri).scheduler.type).toBe('reduction');
  });

  it('refuses two reductions and broadcasts of the result meeting the reduced dims', () => {
    const two = new Fusion();
    const x = makeTensor(two, { shape: [-1, -1] });
    two.addInput(x);
    two.addOutput(sum(max(x, [1]), [0]));
    expect(reason(two, [[4, 4]])).toMatch(/one reduction pattern, the fusion has 2/);

    const norm = new Fusion();
    const y = makeTensor(norm, { shape: [-1, -1] });
    norm.addInput(y);
    norm.addOutput(binaryOp('sub', y, sum(y, [1], true)));
    expect(reason(norm, [[4, 4]])).toMatch(/persistent/);

    // Welford is accepted (reduction-welford.test.ts), but not broadcast back over its row
    const w = new Fusion();
    const z = makeTensor(w, { shape: [-1, -1] });
    w.addInput(z);
    w.addOutput(binaryOp('sub', z, varMean(z, [1], 1, true).mean));
    expect(reason(w, [[4, 4]])).toMatch(/persistent/);

    const rank0 = new Fusion();
    const r0 = makeTensor(rank0, { shape: [] });
    rank0.addInput(r0);
    rank0.addOutput(sum(r0, []));
    expect(reason(rank0, [[]])).toMatch(/reduces no dim/);

    const expanded = new Fusion();
    const e0 = makeTensor(expanded, { shape: [-1] });
    expanded.addInput(e0);
    const ex = expand(broadcast(e0, [true, false]), [expanded.index(5), e0.domain.logical[0]?.extent ?? 1]);
    // A ReductionOp over an expanded broadcast dim (fusion-ir's sum squeezes such dims instead,
    // as nvFuser does: sum(ex, [0]) is squeeze(ex) * 5, a pointwise fusion).
    const over = reductionOutput(ex, [0], 'Float');
    new ReductionOp(expanded, 'add', reductionInit(ex, 'add', 'Float'), over, ex);
    expanded.addOutput(over);
    expect(reason(expanded, [[9]])).toMatch(/reduces the expanded broadcast dim 0/);
    const squeezed = new Fusion();
    const q0 = makeTensor(squeezed, { shape: [-1] });
    squeezed.addInput(q0);
    squeezed.addOutput(sum(expand(broadcast(q0, [true, false]), [squeezed.index(5), q0.domain.logical[0]?.extent ?? 1]), [0]));
    expect(reason(squeezed, [[9]])).toMatch(/no reduction/);

    const none = new Fusion();
    const a = makeTensor(none, { shape: [-1] });
    none.addInput(a);
    none.addOutput(mul(a, 2));
    expect(reason(none, [[4]])).toMatch(/no reduction/);
  });

  it('accepts kept expanded broadcast dims (extent-1 loops, stride-0 outputs): the heuristics of one row', () => {
    for (const keepdim of [false, true]) {
      // An expanded input (stride-0 rows, contiguity None) and an expand inside the fusion.
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], expanded: [true, false], contiguity: [null, true] });
      f.addInput(x);
      f.addOutput(sum(mul(x, 2), [1], keepdim));
      const info = makeRuntimeInfo(f, [{ sizes: [37, 4096], strides: [0, 1] }]);
      expect(s.canSchedule(f, info)).toEqual({ ok: true });
      const one = reduction([1, 4096], [1], { keepdim });
      expect(heuristicParamsToString(s.computeHeuristics(f, info))).toBe(heuristicParamsToString(params(one, [[1, 4096]])));
      const g = new Fusion();
      const y = makeTensor(g, { shape: [-1] });
      g.addInput(y);
      g.addOutput(sum(expand(broadcast(mul(y, 2), [true, false]), [g.index(37), y.domain.logical[0]?.extent ?? 1]), [1], keepdim));
      expect(reason(g, [[4096]])).toBe('ok');
      expect(s.computeHeuristics(g, makeRuntimeInfo(g, [{ sizes: [4096] }])).lparams.gdimx).toBe(1);
    }
  });

  it('outputs computed before the reduction: written in its loops (nvFuser), refused with preReductionOutputs: false or when not full-size', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const y = mul(x, 2);
    f.addOutput(y);
    f.addOutput(sum(y, [1]));
    const ri = makeRuntimeInfo(f, [{ sizes: [4, 4] }]);
    expect(new ReductionScheduler().canSchedule(f, ri)).toEqual({ ok: true });
    const off = new ReductionScheduler({ preReductionOutputs: false }).canSchedule(f, ri);
    expect(off.ok ? '' : off.reason).toMatch(/output T\d+ is computed before the reduction T\d+ \(a pre-reduction output is left to segmentation\)/);

    // An output of only the kept dims, computed before the reduction: it has no element per
    // iteration of the reduction loops, so the kernel cannot write it there.
    const g = new Fusion();
    const a = makeTensor(g, { shape: [-1, -1] });
    const b = makeTensor(g, { shape: [-1] });
    g.addInput(a);
    g.addInput(b);
    const b2 = mul(b, 3);
    g.addOutput(b2);
    g.addOutput(sum(add(a, broadcast(b2, [true, false])), [0]));
    const partial = new ReductionScheduler().canSchedule(g, makeRuntimeInfo(g, [{ sizes: [4, 6] }, { sizes: [6] }]));
    expect(partial.ok ? '' : partial.reason).toMatch(/output T\d+ is computed before the reduction T\d+ over 1 of 2 dims, not over all of its input T\d+'s dims/);
  });

  it('an unconnected output is refused (nvFuser isConnectedFusionGraph)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const z = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(z);
    f.addOutput(sum(x, [1]));
    f.addOutput(mul(z, 2));
    expect(reason(f, [[4, 4], [4, 4]])).toMatch(/the fusion is 2 unconnected tensor graphs/);
  });
});

function randomInput(dtype: DataType, sizes: number[]): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => (Math.random() - 0.5) * 8));
}

describe('reduction schedule', () => {
  it('loop structure: input [BIDx, TIDy, TIDx, S, V], partial rFactor, block-reduced output', () => {
    const f = reduction([128, 4096], [1]);
    const p = params(f, [[128, 4096]]);
    const sched = s.schedule(f.clone().fusion, p);
    const types = sched.reference.domain.loop.map((id) => id.parallelType);
    expect(types[0]).toBe('BIDx');
    expect(types[2]).toBe('TIDx');
    const reductions = sched.fusion.exprs().filter((e) => e.kind === 'ReductionOp');
    expect(reductions).toHaveLength(2);
    const final = reductions[1]?.outputs[0] as TensorView;
    expect(final.domain.loop.map((id) => `${id.isReduction() ? 'r' : 'i'}${id.parallelType}`)).toEqual(['iBIDx', 'iSerial', 'rTIDx']);
    expect(sched.divisibleSplits.size).toBe(p.divisibleSplits.filter((d) => d).length);
  });

  const cases: { name: string; build: () => Fusion; sizes: number[][] }[] = [
    { name: 'inner sum', build: () => reduction([37, 1001], [1]), sizes: [[37, 1001]] },
    { name: 'outer max', build: () => reduction([999, 37], [0], { op: max }), sizes: [[999, 37]] },
    { name: 'multi-axis keepdim', build: () => reduction([5, 6, 7], [0, 2], { keepdim: true }), sizes: [[5, 6, 7]] },
    {
      name: 'pre-reduction output',
      build: () => {
        const f = new Fusion();
        const x = makeTensor(f, { shape: [-1, -1] });
        f.addInput(x);
        const y = mul(x, 2);
        f.addOutput(y);
        f.addOutput(sum(y, [0]));
        return f;
      },
      sizes: [[70, 33]],
    },
    { name: 'full prod', build: () => reduction([3, 5], [0, 1], { op: prod }), sizes: [[3, 5]] },
    { name: 'half inner', build: () => reduction([16, 300], [1], { dtype: 'Half' }), sizes: [[16, 300]] },
    {
      name: 'bias after',
      build: () => {
        const f = new Fusion();
        const x = makeTensor(f, { shape: [-1, -1] });
        const b = makeTensor(f, { shape: [-1] });
        f.addInput(x);
        f.addInput(b);
        f.addOutput(add(sum(x, [1]), b));
        return f;
      },
      sizes: [[20, 50], [20]],
    },
    {
      name: 'broadcast before',
      build: () => {
        const f = new Fusion();
        const x = makeTensor(f, { shape: [-1, -1] });
        const b = makeTensor(f, { shape: [-1] });
        f.addInput(x);
        f.addInput(b);
        f.addOutput(sum(mul(x, broadcast(b, [true, false])), [0]));
        return f;
      },
      sizes: [[300, 20], [20]],
    },
  ];
  for (const c of cases) {
    it(`scheduled fusion evaluates like the unscheduled one: ${c.name}`, () => {
      const f = c.build();
      const ri = makeRuntimeInfo(f, c.sizes.map((z) => ({ sizes: z })));
      expect(pre.canSchedule(f, ri)).toEqual({ ok: true });
      const sched = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
      const inputs = f.inputs.map((v, i) => randomInput((v as TensorView).dtype, c.sizes[i] as number[]));
      const want = evaluate(f, inputs) as HostTensor[];
      const got = evaluate(sched.fusion, inputs) as HostTensor[];
      expect(got.map((t) => t.toNumbers())).toEqual(want.map((t) => t.toNumbers()));
    });
  }
});

describe('outer reduction overrides (tuning experiments)', () => {
  it('forces columns per block, unroll, TIDy rows and grid blocks; the schedule still evaluates like the fusion', () => {
    const f = reduction([-1, -1, -1], [0, 1]);
    const info = makeRuntimeInfo(f, [{ sizes: [4, 32, 256] }]);
    const forced = new ReductionScheduler({}, { bdimx: 64, unroll: 4, bdimy: 4, gdimy: 2, iterVector: 1 });
    const p = forced.computeHeuristics(f, info);
    expect(p.lparams).toMatchObject({ bdimx: 64, bdimy: 4, gdimx: 4, gdimy: 2 });
    expect(p.vectorizeIterDom).toBe(false);
    expect(p.unrollFactorInnerReduction).toBe(4);
    expect(p.crossGridInnerReduction).toBe(true);
    const x = HostTensor.fromValues('Float', [4, 32, 256], Array.from({ length: 4 * 32 * 256 }, () => Math.random() - 0.5));
    const want = (evaluate(f, [x])[0] as HostTensor).toNumbers();
    const got = (evaluate(forced.schedule(f.clone().fusion, p).fusion, [x])[0] as HostTensor).toNumbers();
    got.forEach((g, i) => expect(Math.abs(g - (want[i] as number))).toBeLessThan(1e-4));
  });
});

describe('outer reductions: iteration-dim vectors (outerReductionHeuristic vectorize_iter_dom)', () => {
  const outer = (sizes: number[], dtype: 'Float' | 'BFloat16', overrides = {}) => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: sizes.map(() => -1), dtype });
    f.addInput(x);
    f.addOutput(sum(x, [0]));
    return new ReductionScheduler({}, overrides).computeHeuristics(f, makeRuntimeInfo(f, [{ sizes }]));
  };

  it('16 bytes a lane group (bf16 8, f32 4), narrower when the kept extent needs it, 1 when nothing divides; dumped like nvFuser', () => {
    const bf = outer([8192, 4096], 'BFloat16');
    expect(bf.vectorizeIterDom).toBe(true);
    expect(bf.unrollFactorIterDom).toBe(8);
    expect(bf.vectorizedInputs).toEqual([0]);
    // 4096 columns / 8 = 512 vector columns over blocks of bdimx vector columns
    expect(bf.lparams.gdimx * bf.lparams.bdimx).toBe(512);
    expect(bf.divisibleSplits[0]).toBe(true);
    expect(heuristicParamsToString(bf)).toContain('Iteration Domain: blockIdx.x / threadIdx.x / vectorize / factor 8');
    expect(outer([8192, 4096], 'Float').unrollFactorIterDom).toBe(4);
    expect(outer([100, 4100], 'BFloat16').unrollFactorIterDom).toBe(4);
    expect(outer([100, 4099], 'Float').vectorizeIterDom).toBe(false);
    expect(heuristicParamsToString(outer([100, 4099], 'Float'))).not.toContain('vectorize');
  });

  it('iterVector caps the vector (1: the scalar schedule of one column per thread)', () => {
    expect(outer([8192, 4096], 'BFloat16', { iterVector: 4 }).unrollFactorIterDom).toBe(4);
    const scalar = outer([8192, 4096], 'BFloat16', { iterVector: 1 });
    expect(scalar.vectorizeIterDom).toBe(false);
    expect(scalar.unrollFactorIterDom).toBe(1);
    expect(scalar.vectorizedInputs).toEqual([]);
  });

  it('the vectorized schedule evaluates like the fusion (random inputs, seed printed)', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    let state = seed;
    const rand = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    for (const sizes of [[37, 264], [200, 3, 136]]) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: sizes.map(() => -1), dtype: 'Float' });
      f.addInput(x);
      f.addOutput(sum(x, [0]));
      const sched = new ReductionScheduler();
      const info = makeRuntimeInfo(f, [{ sizes }]);
      const p = sched.computeHeuristics(f, info);
      expect(p.vectorizeIterDom, `${sizes.join('x')}`).toBe(true);
      const n = sizes.reduce((a, b) => a * b, 1);
      const xs = HostTensor.fromValues('Float', sizes, Array.from({ length: n }, rand));
      const want = (evaluate(f, [xs])[0] as HostTensor).toNumbers();
      const got = (evaluate(sched.schedule(f.clone().fusion, p).fusion, [xs])[0] as HostTensor).toNumbers();
      got.forEach((g, i) => expect(Math.abs(g - (want[i] as number)), `seed ${seed}`).toBeLessThan(1e-4));
    }
  });
});
