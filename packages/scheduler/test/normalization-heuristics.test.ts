// Inner persistent scheduler: heuristics decisions (vectorization, persistent batch, threads per
// row, rows per block, divisibility), the scheduler_params dump, refusals with reasons, the
// scheduled loop structure (persistent buffers at position 3), the default registry's choice,
// and that a scheduled fusion evaluates exactly like the unscheduled one.
import { describe, expect, it } from 'vitest';
import {
  add, broadcast, cast, evaluate, Fusion, HostTensor, layerNorm, welford, logSoftmax, makeTensor, mean, mul, rmsNorm, rsqrt, softmax, sub, sum,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import {
  chooseBatches, defaultSchedulerRegistry, H100_PROPERTIES, heuristicParamsToString, InnerPersistentScheduler, makeRuntimeInfo, PERSISTENT_POSITION,
  RESERVED_SHARED_MEM_PER_BLOCK, sharedMemForBlockCap,
  segmentPlanFor, type InnerPersistentParams,
} from '../src/index.js';

const s = new InnerPersistentScheduler();

function softmaxFusion(rank: number, dtype: DataType = 'Float'): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: Array.from({ length: rank }, () => -1), dtype });
  f.addInput(x);
  f.addOutput(softmax(x, rank - 1));
  return f;
}

function twoPassLayerNorm(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(x);
  const xf = dtype === 'Float' ? x : cast(x, 'Float');
  const mu = mean(xf, [1], true);
  const xm = sub(xf, mu);
  const y = mul(xm, rsqrt(add(mean(mul(xm, xm), [1], true), 1e-5)));
  f.addOutput(dtype === 'Float' ? y : cast(y, dtype));
  f.addOutput(mu);
  return f;
}

function params(f: Fusion, sizes: number[][], alignment?: number): InnerPersistentParams {
  return s.computeHeuristics(f, makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z, ...(alignment === undefined ? {} : { alignment }) }))));
}

function randomInput(dtype: DataType, sizes: number[]): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => (Math.random() - 0.5) * 8));
}

describe('inner persistent heuristics', () => {
  it('Float 4096: 16-byte vectors, 4 persistent batches, 256 threads per row', () => {
    const p = params(softmaxFusion(2), [[1024, 4096]]);
    expect(p.vectorizeInnerReduction).toBe(true);
    expect(p.unrollFactorInnerReduction).toBe(4);
    expect(p.batchesPerBlockInnerReduction).toBe(4);
    expect(p.lparams).toMatchObject({ bdimx: 256, bdimy: 1, gdimx: 1024 });
    expect(p.divisibleSplits).toEqual([true, true, true]);
    expect(p.vectorizedInputs).toEqual([0]);
    expect(p.vectorizedOutputs).toEqual([0]);
    expect(p.persistentBufferSize).toBe(4096 * 4);
  });

  it('fewer rows than SMs: wider blocks (fewer persistent batches)', () => {
    const few = params(softmaxFusion(2), [[64, 8192]]);
    const many = params(softmaxFusion(2), [[4096, 8192]]);
    expect(few.lparams.bdimx).toBeGreaterThan(many.lparams.bdimx);
    expect(few.lparams.bdimx * few.batchesPerBlockInnerReduction * 4).toBeGreaterThanOrEqual(8192);
  });

  it('BFloat16 4096: 8-element vectors; threads × batches × vec covers the row', () => {
    const p = params(softmaxFusion(2, 'BFloat16'), [[16384, 4096]]);
    expect(p.unrollFactorInnerReduction).toBe(8);
    const { bdimx } = p.lparams;
    expect(bdimx % 32).toBe(0);
    expect(bdimx * p.batchesPerBlockInnerReduction * 8).toBeGreaterThanOrEqual(4096);
  });

  it('odd rows: no vectors, padded batches predicated (divisible false)', () => {
    const p = params(softmaxFusion(2), [[64, 5001]]);
    expect(p.vectorizeInnerReduction).toBe(false);
    expect(p.unrollFactorInnerReduction).toBe(1);
    const { bdimx } = p.lparams;
    const b = p.batchesPerBlockInnerReduction;
    // the TIDx extent ⌈5001 / B⌉ rounded up to a warp multiple (extra threads predicated off)
    expect(bdimx % 32).toBe(0);
    expect(bdimx).toBeGreaterThanOrEqual(Math.ceil(5001 / b));
    expect(bdimx - Math.ceil(5001 / b)).toBeLessThan(32);
    expect(bdimx).toBeLessThanOrEqual(1024);
    expect(p.divisibleSplits[1]).toBe(5001 % b === 0);
  });

  it('row parameters (weight, bias) are vectorized through their broadcast', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
    const w = makeTensor(f, { shape: [-1], dtype: 'BFloat16' });
    const b = makeTensor(f, { shape: [-1], dtype: 'BFloat16' });
    f.addInput(x);
    f.addInput(w);
    f.addInput(b);
    f.addOutput(layerNorm(x, 1, w, b).output);
    const ri = makeRuntimeInfo(f, [{ sizes: [64, 4096] }, { sizes: [4096] }, { sizes: [4096] }]);
    const p = s.computeHeuristics(f, ri);
    expect(p.vectorizedInputs).toEqual([0, 1, 2]);
    const sf = s.schedule(f.clone().fusion, p);
    const readers = [1, 2].map((i) => (sf.fusion.inputs[i] as TensorView).uses.map((u) => u.kind));
    expect(readers).toEqual([['BroadcastOp'], ['BroadcastOp']]);
    const vectorized = sf.fusion.allTvs().filter((tv) => tv.definition?.kind === 'BroadcastOp' && tv.nDims() === 5 && tv.axis(4).parallelType === 'Vectorize');
    expect(vectorized).toHaveLength(2);
    const inputs = [randomInput('BFloat16', [3, 4096]), randomInput('BFloat16', [4096]), randomInput('BFloat16', [4096])];
    const want = evaluate(f, inputs) as HostTensor[];
    const got = evaluate(sf.fusion, inputs) as HostTensor[];
    const g = (got[0] as HostTensor).toNumbers();
    (want[0] as HostTensor).toNumbers().forEach((v, k) => expect(Math.abs((g[k] as number) - v)).toBeLessThanOrEqual(1.6e-2 * Math.max(1, Math.abs(v))));
  });

  it('row parameters load first by default for 4-byte rows with ≥ 64 row bytes per thread, within the register budget', () => {
    const ln = (dtype: DataType, params: 0 | 1 | 2): Fusion => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      const w = params >= 1 ? makeTensor(f, { shape: [-1], dtype }) : undefined;
      const b = params === 2 ? makeTensor(f, { shape: [-1], dtype }) : undefined;
      if (w !== undefined) f.addInput(w);
      if (b !== undefined) f.addInput(b);
      f.addOutput(layerNorm(x, 1, w, b).output);
      return f;
    };
    const at = (f: Fusion, n: number, h: number, overrides: ConstructorParameters<typeof InnerPersistentScheduler>[0] = {}): InnerPersistentParams =>
      new InnerPersistentScheduler(overrides).computeHeuristics(f, makeRuntimeInfo(f, f.inputs.map((_, i) => ({ sizes: i === 0 ? [n, h] : [h] }))));
    // Float, weight and bias, 4 batches of 4: 4·4·(4+4) = 128 bytes per thread, the budget.
    const f32 = at(ln('Float', 2), 16384, 4096);
    expect(f32.batchesPerBlockInnerReduction * f32.unrollFactorInnerReduction).toBe(16);
    expect(f32.hoistRowParamLoads).toBe(true);
    expect(heuristicParamsToString(f32)).toContain('Row parameters loaded before the reductions');
    // 16-bit rows keep their loads in place (the registers cost occupancy they cannot spare).
    expect(at(ln('BFloat16', 2), 16384, 4096).hoistRowParamLoads).toBe(false);
    expect(at(ln('Half', 1), 16384, 4096).hoistRowParamLoads).toBe(false);
    // Past the budget: 8 batches of 4 Float, weight and bias = 256 bytes per thread.
    expect(at(ln('Float', 2), 16384, 8192).batchesPerBlockInnerReduction * 4 * 8).toBeGreaterThan(128);
    expect(at(ln('Float', 2), 16384, 8192).hoistRowParamLoads).toBe(false);
    expect(at(ln('Float', 1), 16384, 8192).hoistRowParamLoads).toBe(true);
    // Short Float rows keep too few bytes in flight per thread: 1024 → B·vec = 4, 16 bytes.
    const short = at(ln('Float', 2), 16384, 1024);
    expect(short.batchesPerBlockInnerReduction * short.unrollFactorInnerReduction * 4).toBeLessThan(64);
    expect(short.hoistRowParamLoads).toBe(false);
    // Nothing to hoist without row parameters; an override wins either way.
    expect(at(ln('Float', 0), 16384, 4096).hoistRowParamLoads).toBe(false);
    expect(at(ln('Float', 2), 16384, 4096, { hoistRowParamLoads: false }).hoistRowParamLoads).toBe(false);
    expect(at(ln('BFloat16', 2), 16384, 4096, { hoistRowParamLoads: true }).hoistRowParamLoads).toBe(true);
  });

  it('rows go through shared memory by bulk copy only when asked (the H100 default, capped at 3 blocks per SM, cost layer_norm f32 12 µs on the H200)', () => {
    const ln = (dtype: DataType, params: 0 | 2): Fusion => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      const w = params === 2 ? makeTensor(f, { shape: [-1], dtype }) : undefined;
      const b = params === 2 ? makeTensor(f, { shape: [-1], dtype }) : undefined;
      if (w !== undefined) f.addInput(w);
      if (b !== undefined) f.addInput(b);
      f.addOutput(layerNorm(x, 1, w, b).output);
      return f;
    };
    const at = (f: Fusion, h: number, overrides: ConstructorParameters<typeof InnerPersistentScheduler>[0] = {}, device = H100_PROPERTIES): InnerPersistentParams =>
      new InnerPersistentScheduler(overrides).computeHeuristics(f, makeRuntimeInfo(f, f.inputs.map((_, i) => ({ sizes: i === 0 ? [16384, h] : [h] })), device));
    // The default: register loads, 256 threads × B = 4 × vec 4, parameters hoisted, no cap.
    const f32 = at(ln('Float', 2), 4096);
    expect([f32.bulkLoadRows, f32.maxBlocksPerSm, f32.minSharedMemBytes]).toEqual([false, 0, 0]);
    expect([f32.batchesPerBlockInnerReduction, f32.lparams.bdimx, f32.unrollFactorInnerReduction, f32.hoistRowParamLoads]).toEqual([4, 256, 4, true]);
    for (const p of [at(ln('BFloat16', 2), 4096), at(ln('Float', 0), 4096), at(ln('Float', 2), 2048), at(ln('Float', 2), 3584), at(ln('Float', 2), 1024)]) {
      expect([p.bulkLoadRows, p.maxBlocksPerSm, p.minSharedMemBytes]).toEqual([false, 0, 0]);
      expect(heuristicParamsToString(p)).not.toContain('cp.async.bulk');
    }
    // Asked for with the H100's cap: 3 blocks of (request + the 1 KB the SM reserves) fit in 228 KB; a fourth does not.
    const bulk = at(ln('Float', 2), 4096, { bulkLoadRows: true, maxBlocksPerSm: 3 });
    expect([bulk.bulkLoadRows, bulk.maxBlocksPerSm]).toEqual([true, 3]);
    const perSm = H100_PROPERTIES.sharedMemPerSm as number;
    expect(3 * (bulk.minSharedMemBytes + RESERVED_SHARED_MEM_PER_BLOCK)).toBeLessThanOrEqual(perSm);
    expect(4 * (bulk.minSharedMemBytes + RESERVED_SHARED_MEM_PER_BLOCK)).toBeGreaterThan(perSm);
    expect(bulk.minSharedMemBytes % 128).toBe(0);
    expect(heuristicParamsToString(bulk)).toContain('Rows copied to shared memory with cp.async.bulk');
    expect(heuristicParamsToString(bulk)).toContain(`At most 3 blocks per SM (${bulk.minSharedMemBytes} bytes of shared memory per block)`);
    expect(at(ln('Float', 2), 4096, { bulkLoadRows: true })).toMatchObject({ bulkLoadRows: true, maxBlocksPerSm: 0, minSharedMemBytes: 0 });
    // No cp.async.bulk before sm_90, even when asked for; an unknown shared memory size means no cap.
    const a100 = { ...H100_PROPERTIES, name: 'A100', computeCapability: [8, 0] as const, sharedMemPerSm: 167936, sharedMemPerBlockOptin: 166912 };
    expect(at(ln('Float', 2), 4096, {}, a100).bulkLoadRows).toBe(false);
    expect(at(ln('Float', 2), 4096, { bulkLoadRows: true }, a100).bulkLoadRows).toBe(false);
    const unknown = { ...H100_PROPERTIES, sharedMemPerSm: undefined, sharedMemPerBlockOptin: undefined };
    expect(at(ln('Float', 2), 4096, {}, unknown).bulkLoadRows).toBe(false);
    expect(at(ln('Float', 2), 4096, { bulkLoadRows: true, maxBlocksPerSm: 3 }, unknown)).toMatchObject({ bulkLoadRows: true, maxBlocksPerSm: 0, minSharedMemBytes: 0 });
    // Overrides: on without a cap, off, or a cap alone.
    expect(at(ln('BFloat16', 2), 4096, { bulkLoadRows: true, maxBlocksPerSm: 0 })).toMatchObject({ bulkLoadRows: true, maxBlocksPerSm: 0, minSharedMemBytes: 0 });
    expect(at(ln('Float', 2), 4096, { bulkLoadRows: false })).toMatchObject({ bulkLoadRows: false, maxBlocksPerSm: 0, batchesPerBlockInnerReduction: 4 });
    const capped = at(ln('Float', 0), 4096, { maxBlocksPerSm: 2 });
    expect([capped.bulkLoadRows, capped.maxBlocksPerSm]).toEqual([false, 2]);
    expect(sharedMemForBlockCap(H100_PROPERTIES, 2)).toBe(capped.minSharedMemBytes);
  });

  it('misaligned pointers and outer strides turn vectorization off', () => {
    expect(params(softmaxFusion(2), [[64, 4096]], 4).vectorizeInnerReduction).toBe(false);
    expect(params(softmaxFusion(2), [[64, 4096]], 8).unrollFactorInnerReduction).toBe(2);
  });

  it('short rows share a block on threadIdx.y; few rows keep one row per block', () => {
    const p = params(softmaxFusion(2), [[10000, 7]]);
    expect(p.lparams.bdimx).toBe(7);
    expect(p.lparams.bdimy).toBeGreaterThan(1);
    expect(p.blockDimIterDom).toBe('TIDy');
    expect(p.multipleReductionsPerBlock).toBe(true);
    expect(p.lparams.gdimx).toBe(Math.ceil(10000 / p.lparams.bdimy));
    expect(p.divisibleSplits[2]).toBe(10000 % p.lparams.bdimy === 0);
    expect(params(softmaxFusion(2), [[3, 7]]).lparams.bdimy).toBe(1);
  });

  it('rows of one element: one thread per row', () => {
    const p = params(softmaxFusion(3), [[4, 5, 1]]);
    expect(p.lparams.bdimx).toBe(1);
    expect(p.lparams.gdimx * p.lparams.bdimy).toBeGreaterThanOrEqual(20);
  });

  it('chooseBatches: within 1024 threads, warp-multiple blocks, ≥ 128 threads', () => {
    expect(chooseBatches(1024, 32)).toEqual({ batches: 4, bdimx: 256, extent: 256 });
    expect(chooseBatches(5, 32)).toEqual({ batches: 1, bdimx: 5, extent: 5 });
    expect(chooseBatches(125, 32)).toEqual({ batches: 1, bdimx: 128, extent: 125 });
    const big = chooseBatches(20000, 32);
    expect(big).not.toBeNull();
    expect((big?.bdimx ?? 0) * (big?.batches ?? 0)).toBeGreaterThanOrEqual(20000);
    expect(big?.bdimx ?? 2000).toBeLessThanOrEqual(1024);
    expect(chooseBatches(40000, 32)).toBeNull();
  });

  it('chooseBatches prefers a batch that divides the row (layer_norm f32 at 16384: 8 × 512, not 13 × 320)', () => {
    // 4096 vectors of 4 floats, 13 batches allowed (layer_norm's buffers): measured 70% of the
    // copy floor at 13 × 320 threads, 98% at 8 × 512 (H100, 2026-11-24).
    expect(chooseBatches(4096, 13)).toEqual({ batches: 8, bdimx: 512, extent: 512 });
    // Where no batch divides the row (4099 is prime) every batch pays the same, and the row still fits.
    const odd = chooseBatches(4099, 13);
    expect(odd === null ? 0 : odd.batches * odd.extent).toBeGreaterThanOrEqual(4099);
    // An even batch near the target still wins outright.
    expect(chooseBatches(4608, 13)).toEqual({ batches: 12, bdimx: 384, extent: 384 });
  });

  it('scheduler_params dump in nvFuser layout', () => {
    const text = heuristicParamsToString(params(softmaxFusion(2, 'Half'), [[128, 1000]]));
    expect(text).toContain('===== Reduction Parameters ========');
    expect(text).toContain('Persistent Kernel');
    expect(text).toContain('Inner Reduction Domain: cross block - threadIdx.x /  pad to warp / persistent batch - 1 / vectorize / factor 8');
    expect(text).toContain('Project Persistent Buffers');
    expect(text).toContain('Batches per block: 1');
    expect(text).toContain('Launch Parameters: BlockDim.x = 128, BlockDim.y = 1, BlockDim.z = 1, GridDim.x = 128');
  });
});

describe('inner persistent canSchedule', () => {
  const info = (f: Fusion, sizes: number[][]) => makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));

  it('takes softmax, log_softmax, two-pass layer_norm and rms_norm', () => {
    const ls = new Fusion();
    const x = makeTensor(ls, { shape: [-1, -1], dtype: 'Half' });
    ls.addInput(x);
    ls.addOutput(logSoftmax(x, 1));
    const rms = new Fusion();
    const y = makeTensor(rms, { shape: [-1, -1], dtype: 'BFloat16' });
    const w = makeTensor(rms, { shape: [-1], dtype: 'BFloat16' });
    rms.addInput(y);
    rms.addInput(w);
    rms.addOutput(rmsNorm(y, 1, w).output);
    expect(s.canSchedule(softmaxFusion(2), info(softmaxFusion(2), [[64, 1000]]))).toEqual({ ok: true });
    expect(s.canSchedule(ls, info(ls, [[64, 1000]]))).toEqual({ ok: true });
    expect(s.canSchedule(rms, info(rms, [[64, 4096], [4096]]))).toEqual({ ok: true });
    const ln = twoPassLayerNorm('BFloat16');
    expect(s.canSchedule(ln, info(ln, [[64, 4096]]))).toEqual({ ok: true });
  });

  it('takes Welford layer_norm (translated to two sums); refuses a used Welford count', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const ln = layerNorm(x, 1);
    f.addOutput(ln.output);
    f.addOutput(ln.mean);
    f.addOutput(ln.invstd);
    expect(s.canSchedule(f, info(f, [[64, 1000]]))).toEqual({ ok: true });
    const g = new Fusion();
    const y = makeTensor(g, { shape: [-1, -1] });
    g.addInput(y);
    const w = welford(y, [1]);
    g.addOutput(add(w.varSum, broadcast(mul(w.avg, 0), [false])));
    g.addOutput(sub(y, broadcast(w.avg, [false, true])));
    g.addOutput(w.n);
    const r = s.canSchedule(g, info(g, [[64, 1000]]));
    expect(r.ok ? '' : r.reason).toMatch(/count output T\d+ is used/);
  });

  it('refuses empty rows, a plain reduction, and rows too long for registers', () => {
    const empty = s.canSchedule(softmaxFusion(2), info(softmaxFusion(2), [[64, 0]]));
    expect(empty.ok ? '' : empty.reason).toMatch(/empty/);
    const noRows = s.canSchedule(softmaxFusion(2), info(softmaxFusion(2), [[0, 64]]));
    expect(noRows.ok ? '' : noRows.reason).toMatch(/no rows/);
    const plain = new Fusion();
    const p = makeTensor(plain, { shape: [-1, -1] });
    plain.addInput(p);
    plain.addOutput(sum(p, [1]));
    const pr = s.canSchedule(plain, info(plain, [[64, 64]]));
    expect(pr.ok ? '' : pr.reason).toMatch(/no persistent buffer/);
    const long = s.canSchedule(softmaxFusion(2), info(softmaxFusion(2), [[4096, 200001]]));
    expect(long.ok).toBe(false);
  });
});

describe('inner persistent schedule', () => {
  it('persistent buffers stay at position 3; reductions are [BIDx, TIDy, rTIDx] after rFactor', () => {
    const f = softmaxFusion(2, 'Half');
    const ri = makeRuntimeInfo(f, [{ sizes: [128, 1000] }]);
    const sf = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
    expect(sf.reference.nDims()).toBe(5);
    // the reference is the Float cast of the input; the Half input cache is the vectorized load
    expect(sf.reference.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'Serial', 'TIDx', 'Serial', 'Serial']);
    const cache = sf.fusion.allTvs().find((tv) => tv.definition?.inputs[0] === sf.fusion.inputs[0]);
    expect(cache?.axis(4).parallelType).toBe('Vectorize');
    const blockReductions = sf.fusion.exprs().filter((e) => e.kind === 'ReductionOp' && (e.outputs[0] as TensorView).nDims() === 3);
    expect(blockReductions).toHaveLength(2);
    // x itself, projected from its Float cast (read by max and by x - max: the cast is
    // recomputed per phase), and exp(x - max) (read by sum and the division)
    const persistent = sf.fusion.allTvs().filter((tv) => tv.memoryType === 'Local' && tv.nDims() === 5 && tv.computeAtPosition === PERSISTENT_POSITION && !tv.domain.loop.some((id) => id.isReduction()));
    expect(persistent.map((tv) => tv.dtype)).toEqual(['Half', 'Float']);
  });

  it('a scheduled fusion evaluates exactly like the unscheduled one', () => {
    const cases: [Fusion, number[][]][] = [
      [softmaxFusion(2, 'Half'), [[6, 1000]]],
      [softmaxFusion(3), [[3, 4, 37]]],
      [twoPassLayerNorm('BFloat16'), [[5, 129]]],
    ];
    const wf = new Fusion();
    const wx = makeTensor(wf, { shape: [-1, -1], dtype: 'Half' });
    const ww = makeTensor(wf, { shape: [-1], dtype: 'Half' });
    wf.addInput(wx);
    wf.addInput(ww);
    const wln = layerNorm(wx, 1, ww, null);
    wf.addOutput(wln.output);
    wf.addOutput(wln.mean);
    wf.addOutput(wln.invstd);
    const welfordCases: [Fusion, number[][]][] = [[wf, [[4, 300], [300]]]];
    for (const [f, sizes] of cases) {
      const ri = makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));
      const sf = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
      const inputs = f.inputs.map((v, i) => randomInput((v as TensorView).dtype, sizes[i] as number[]));
      const want = evaluate(f, inputs) as HostTensor[];
      const got = evaluate(sf.fusion, inputs) as HostTensor[];
      want.forEach((w, i) => expect((got[i] as HostTensor).toNumbers()).toEqual(w.toNumbers()));
    }
    // Welford becomes two sums: equal up to float rounding (Half output: a Half ulp).
    for (const [f, sizes] of welfordCases) {
      const ri = makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));
      const sf = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
      expect(sf.fusion.exprs().some((e) => e.kind === 'WelfordOp')).toBe(false);
      const inputs = f.inputs.map((v, i) => randomInput((v as TensorView).dtype, sizes[i] as number[]));
      const want = evaluate(f, inputs) as HostTensor[];
      const got = evaluate(sf.fusion, inputs) as HostTensor[];
      want.forEach((w, i) => {
        const g = (got[i] as HostTensor).toNumbers();
        w.toNumbers().forEach((x, k) => expect(Math.abs((g[k] as number) - x)).toBeLessThanOrEqual(2e-3 * Math.max(1, Math.abs(x))));
      });
    }
  });

  it('the default registry picks inner_persistent for softmax and segments size-0 rows elsewhere', () => {
    const f = softmaxFusion(2);
    const ri = makeRuntimeInfo(f, [{ sizes: [64, 1000] }]);
    expect(defaultSchedulerRegistry().pick(f, ri).scheduler.type).toBe('inner_persistent');
    const plan = segmentPlanFor(f, makeRuntimeInfo(f, [{ sizes: [64, 0] }]));
    expect(plan.groups.every((g) => g.schedulerType !== 'inner_persistent')).toBe(true);
  });
});

describe('inner persistent overrides (tuning experiments)', () => {
  it('forces the persistent batch, rows per block, vector width and projection, and the schedule still evaluates like the fusion', () => {
    const f = softmaxFusion(2, 'BFloat16');
    const info = makeRuntimeInfo(f, [{ sizes: [64, 4096] }]);
    const base = s.computeHeuristics(f, info);
    expect(base.projectPersistentBuffers).toBe(true);
    const forced = new InnerPersistentScheduler({ batches: 4, bdimy: 2, maxVectorBytes: 8, project: false });
    const p = forced.computeHeuristics(f, info);
    expect(p.unrollFactorInnerReduction).toBe(4); // 8 bytes of bf16
    expect(p.batchesPerBlockInnerReduction).toBe(4);
    expect(p.lparams.bdimx).toBe(4096 / 4 / 4);
    expect(p.lparams.bdimy).toBe(2);
    expect(p.lparams.gdimx).toBe(32);
    expect(p.projectPersistentBuffers).toBe(false);
    expect(() => new InnerPersistentScheduler({ batches: 1 }).computeHeuristics(f, makeRuntimeInfo(f, [{ sizes: [8, 65536] }]))).toThrow(/threads per row/);
    expect(() => new InnerPersistentScheduler({ batches: 1, bdimy: 4 }).computeHeuristics(f, info)).toThrow(/512×4 threads per block/);
    const x = HostTensor.fromValues('BFloat16', [64, 4096], Array.from({ length: 64 * 4096 }, () => (Math.random() - 0.5) * 8));
    const want = evaluate(f, [x])[0] as HostTensor;
    const scheduled = forced.schedule(f.clone().fusion, p).fusion;
    const got = evaluate(scheduled, [x])[0] as HostTensor;
    expect(got.toNumbers()).toEqual(want.toNumbers());
  });
});
