// Outer persistent scheduler: heuristics decisions (threads over the kept dim, the persistent
// batch, threads over the reduced dim, divisibility), the scheduler_params dump, refusals with
// reasons (inner reductions, no persistent buffer, oversize columns, size-0 dims), its place in
// the default registry (after inner persistent, nvFuser's order) and the segmentation that
// follows (one outer_persistent group, or reduction + pointwise when the column does not fit),
// the scheduled loop structure (persistent buffers at position 3, reductions across
// threadIdx.y), and that a scheduled fusion evaluates exactly like the unscheduled one.
import { describe, expect, it } from 'vitest';
import {
  add, batchNorm, broadcast, cast, evaluate, Fusion, HostTensor, makeTensor, mean, mul, rsqrt, softmax, sub, sum, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import {
  chooseOuterBlock, defaultSchedulerRegistry, heuristicParamsToString, makeRuntimeInfo, OUTER_PERSISTENT_POSITION, OuterPersistentScheduler,
  PointwiseScheduler, ReductionScheduler, SchedulerRegistry, segmentPlanFor, type OuterPersistentParams,
} from '../src/index.js';

const s = new OuterPersistentScheduler();

function batchNormTwoPass(dtype: DataType, rank = 2): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: Array.from({ length: rank }, () => -1), dtype });
  f.addInput(x);
  const axes = Array.from({ length: rank - 1 }, (_, d) => d);
  const flags = Array.from({ length: rank }, (_, d) => d < rank - 1);
  const xf = dtype === 'Float' ? x : cast(x, 'Float');
  const mu = mean(xf, axes);
  const xm = sub(xf, broadcast(mu, flags));
  const invstd = rsqrt(add(mean(mul(xm, xm), axes), 1e-5));
  const y = mul(xm, broadcast(invstd, flags));
  f.addOutput(dtype === 'Float' ? y : cast(y, dtype));
  f.addOutput(mu);
  return f;
}

function minusSum(dtype: DataType = 'Float'): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(x);
  f.addOutput(sub(x, broadcast(sum(x, [0]), [true, false])));
  return f;
}

function params(f: Fusion, sizes: number[][]): OuterPersistentParams {
  return s.computeHeuristics(f, makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z }))));
}

function info(f: Fusion, sizes: number[][]): ReturnType<typeof makeRuntimeInfo> {
  return makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));
}

describe('outer persistent heuristics', () => {
  it('chooseOuterBlock: the largest batch that leaves ≥ 128 threads per SM, then the widest block that fits', () => {
    // The choices measured fastest on the H100 (codegen-outer-persistent-variants).
    expect(chooseOuterBlock(4096, 4096, 64, 4)).toEqual({ bdimx: 8, bdimy: 64, batches: 64 }); // batch_norm f32 4096²
    expect(chooseOuterBlock(4096, 4096, 64, 2)).toEqual({ bdimx: 16, bdimy: 64, batches: 64 }); // bf16
    expect(chooseOuterBlock(1024, 8192, 64, 2)).toEqual({ bdimx: 8, bdimy: 128, batches: 64 }); // channels-last bf16
    expect(chooseOuterBlock(16384, 1024, 64, 4)).toEqual({ bdimx: 32, bdimy: 16, batches: 64 }); // x − mean(x, 0)
    // Too little work for 128 threads per SM at any batch: the batch with the most threads.
    expect(chooseOuterBlock(256, 64, 64)).toEqual({ bdimx: 16, bdimy: 64, batches: 1 });
    expect(chooseOuterBlock(3, 7, 64)).toEqual({ bdimx: 3, bdimy: 7, batches: 1 });
    expect(chooseOuterBlock(1001, 1, 64)).toEqual({ bdimx: 32, bdimy: 1, batches: 1 });
    // A smaller batch when the largest would leave SMs idle (4096 columns of 256 rows).
    expect(chooseOuterBlock(4096, 256, 64, 4)).toEqual({ bdimx: 32, bdimy: 8, batches: 32 });
    expect(chooseOuterBlock(8, 1024 * 65, 64)).toBeNull();
  });

  it('batch norm Float [64, 256]: TIDx over C, TIDy over N with a persistent batch', () => {
    const p = params(batchNormTwoPass('Float'), [[64, 256]]);
    expect(p.lparams).toMatchObject({ bdimx: 16, bdimy: 64, gdimx: 16 });
    expect(p.batchesPerBlockInnerReduction).toBe(1);
    expect(p.divisibleSplits).toEqual([true, true]);
    expect(p.blockDimInnerReduction).toBe('TIDy');
    expect(p.fastestDim).toBe(false);
  });

  it('odd sizes are not divisible; every block fits 1024 threads and the register budget', () => {
    for (const [n, c] of [[7, 3], [1000, 1001], [4096, 1001], [1, 1], [4096, 1]]) {
      for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
        const p = params(batchNormTwoPass(dtype), [[n as number, c as number]]);
        const { bdimx, bdimy, gdimx } = p.lparams;
        expect(bdimx * bdimy).toBeLessThanOrEqual(1024);
        expect(bdimy * p.batchesPerBlockInnerReduction).toBeGreaterThanOrEqual(n as number);
        expect(gdimx * bdimx).toBeGreaterThanOrEqual(c as number);
        expect(p.batchesPerBlockInnerReduction).toBeLessThanOrEqual(64);
      }
    }
    expect(params(minusSum(), [[7, 3]]).divisibleSplits).toEqual([true, true]);
    expect(params(minusSum(), [[1000, 1001]]).divisibleSplits).toEqual([false, false]);
  });

  it('scheduler_params dump in nvFuser layout', () => {
    const text = heuristicParamsToString(params(batchNormTwoPass('Half'), [[1000, 32]]));
    expect(text).toContain('Red On Slow Dim');
    expect(text).toContain('Persistent Kernel');
    expect(text).toContain('Inner Reduction Domain: cross block - threadIdx.y / persistent batch - ');
    expect(text).toContain('Iteration Domain: blockIdx.x / threadIdx.x / ');
  });
});

describe('outer persistent canSchedule', () => {
  it('accepts batch-norm-like fusions (2-D and channels-last 4-D, Welford batchNorm)', () => {
    expect(s.canSchedule(batchNormTwoPass('Float'), info(batchNormTwoPass('Float'), [[64, 256]]))).toEqual({ ok: true });
    const f4 = batchNormTwoPass('BFloat16', 4);
    expect(s.canSchedule(f4, info(f4, [[2, 3, 4, 64]]))).toEqual({ ok: true });
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    f.addInput(x);
    const r = batchNorm(x, null, null, null, null, 0.1, 1e-5, true, true);
    f.addOutput(r.output);
    expect(s.canSchedule(f, info(f, [[100, 40]]))).toEqual({ ok: true });
  });

  it('refuses with reasons: inner reductions, plain reductions, oversize columns, size-0 dims', () => {
    const soft = new Fusion();
    const x = makeTensor(soft, { shape: [-1, -1], dtype: 'Float' });
    soft.addInput(x);
    soft.addOutput(softmax(x, 1));
    const r1 = s.canSchedule(soft, info(soft, [[8, 8]]));
    expect(r1.ok).toBe(false);
    if (!r1.ok) expect(r1.reason).toMatch(/inner_persistent/);

    const plain = new Fusion();
    const y = makeTensor(plain, { shape: [-1, -1], dtype: 'Float' });
    plain.addInput(y);
    plain.addOutput(sum(y, [0]));
    const r2 = s.canSchedule(plain, info(plain, [[8, 8]]));
    expect(r2.ok).toBe(false);
    if (!r2.ok) expect(r2.reason).toMatch(/persistent buffer/);

    const big = batchNormTwoPass('Float');
    const r3 = s.canSchedule(big, info(big, [[100_000, 64]]));
    expect(r3.ok).toBe(false);
    if (!r3.ok) expect(r3.reason).toMatch(/bytes|threads/);

    const r4 = s.canSchedule(minusSum(), info(minusSum(), [[0, 8]]));
    expect(r4.ok).toBe(false);
    const r5 = s.canSchedule(minusSum(), info(minusSum(), [[8, 0]]));
    expect(r5.ok).toBe(false);
  });

  it('is in the default registry after inner persistent (nvFuser priority order), which picks it', () => {
    const types = defaultSchedulerRegistry().schedulers.map((x) => x.type);
    expect(types).toContain('outer_persistent');
    expect(types.indexOf('outer_persistent')).toBeGreaterThan(types.indexOf('inner_persistent'));
    expect(types.indexOf('outer_persistent')).toBeGreaterThan(types.indexOf('reduction'));
    const f = batchNormTwoPass('Float');
    const choice = defaultSchedulerRegistry().pick(f, info(f, [[64, 256]]));
    expect(choice.scheduler.type).toBe('outer_persistent');
    expect(choice.rejected.map((r) => r.type)).toEqual(['expr_eval', 'matmul', 'attention', 'transpose', 'pointwise', 'reduction', 'inner_persistent']);
  });
});

describe('outer persistent segmentation (default registry)', () => {
  const groups = (f: Fusion, sizes: number[][]): (string | null)[] => segmentPlanFor(f, info(f, sizes)).groups.map((g) => g.schedulerType);
  it('one outer_persistent segment when the column fits; reduction + pointwise segments when it does not', () => {
    const f = batchNormTwoPass('Float');
    expect(groups(f, [[1000, 256]])).toEqual(['outer_persistent']);
    const m = minusSum();
    expect(groups(m, [[1024, 4096]])).toEqual(['outer_persistent']);
    const big = groups(m, [[100_000, 8]]);
    expect(big.length).toBeGreaterThan(1);
    expect(big).not.toContain('outer_persistent');
    expect(big).toContain('reduction');
  });

  it('channels-last Welford batch norm (training) is one outer_persistent segment; NCHW is inner_persistent', () => {
    const make = (channelsLast: boolean): Fusion => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1, -1, -1], dtype: 'BFloat16' });
      f.addInput(x);
      const r = batchNorm(x, null, null, null, null, 0.1, 1e-5, true, channelsLast);
      f.addOutput(r.output);
      f.addOutput(r.mean);
      f.addOutput(r.invstd);
      return f;
    };
    expect(groups(make(true), [[8, 16, 16, 256]])).toEqual(['outer_persistent']);
    // NCHW reduces the innermost dim too (N, H, W): nvFuser's inner persistent pattern.
    expect(groups(make(false), [[8, 32, 16, 16]])).toEqual(['inner_persistent']);
  });

  it('an explicit registry without it still segments batch norm into reduction + pointwise', () => {
    const reg = new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler()]);
    const f = batchNormTwoPass('Float');
    const plan = segmentPlanFor(f, info(f, [[1000, 256]]), reg);
    expect(plan.groups.map((g) => g.schedulerType)).not.toContain('outer_persistent');
    expect(plan.groups.length).toBeGreaterThan(1);
  });
});

describe('outer persistent schedule', () => {
  it('loop structure [BIDx, TIDx, rTIDy, rS]; persistent buffers at position 3; values unchanged', () => {
    for (const [f, sizes] of [[batchNormTwoPass('Half'), [[1000, 33]]], [minusSum(), [[7, 3]]], [batchNormTwoPass('Float', 4), [[2, 3, 5, 17]]]] as const) {
      const ri = info(f, sizes as unknown as number[][]);
      const p = s.computeHeuristics(f, ri);
      const scheduled = s.schedule(f.clone().fusion, p);
      const ref = scheduled.reference;
      expect(ref.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'TIDx', 'TIDy', 'Serial']);
      const blockReductions = scheduled.fusion.exprs().filter((e) => {
        const o = e.outputs[0];
        return e.kind === 'ReductionOp' && o !== undefined && o.kind === 'tensorView' && o.domain.loop.some((id) => id.isReduction() && id.parallelType === 'TIDy');
      });
      expect(blockReductions.length).toBeGreaterThan(0);
      const kept = scheduled.fusion.allTvs().filter((t) => !t.isFusionInput() && t.computeAtPosition === OUTER_PERSISTENT_POSITION && t.nDims() === 4);
      expect(kept.length).toBeGreaterThan(0);
      const shape = (sizes as unknown as number[][])[0] as number[];
      const n = shape.reduce((a, b) => a * b, 1);
      const xs = [HostTensor.fromValues((f.inputs[0] as TensorView).dtype, shape, Array.from({ length: n }, () => Math.random() * 4 - 2))];
      const want = evaluate(f, xs) as HostTensor[];
      const got = evaluate(scheduled.fusion, xs) as HostTensor[];
      want.forEach((w, i) => expect((got[i] as HostTensor).toNumbers()).toEqual(w.toNumbers()));
    }
  });
});

describe('outer persistent overrides (tuning experiments)', () => {
  it('forces columns per block and the persistent batch; the schedule still evaluates like the fusion', () => {
    const f = minusSum();
    const info = makeRuntimeInfo(f, [{ sizes: [256, 96] }]);
    const forced = new OuterPersistentScheduler({ bdimx: 8, batches: 4 });
    const p = forced.computeHeuristics(f, info);
    expect(p.lparams).toMatchObject({ bdimx: 8, bdimy: 64, gdimx: 12 });
    expect(p.batchesPerBlockInnerReduction).toBe(4);
    expect(() => new OuterPersistentScheduler({ bdimx: 32, batches: 4 }).computeHeuristics(f, info)).toThrow(/32×64 threads per block/);
    const x = HostTensor.fromValues('Float', [256, 96], Array.from({ length: 256 * 96 }, () => Math.random() - 0.5));
    const want = (evaluate(f, [x])[0] as HostTensor).toNumbers();
    const got = (evaluate(forced.schedule(f.clone().fusion, p).fusion, [x])[0] as HostTensor).toNumbers();
    got.forEach((g, i) => expect(Math.abs(g - (want[i] as number))).toBeLessThan(1e-4));
  });
});
