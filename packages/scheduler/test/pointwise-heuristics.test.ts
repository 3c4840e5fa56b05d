import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, PointwiseScheduler, type PointwiseParams } from '../src/index.js';
import { addFusion, broadcastAddMul } from './fixtures.js';

const s = new PointwiseScheduler();

function heuristics(f: Fusion, inputs: Parameters<typeof makeRuntimeInfo>[1]): PointwiseParams {
  return s.computeHeuristics(f, makeRuntimeInfo(f, inputs));
}

describe('pointwise heuristics', () => {
  it('vector width follows dtype, alignment, contiguity and the innermost extent', () => {
    expect(heuristics(addFusion(2), [{ sizes: [1024, 1024] }, { sizes: [1024, 1024] }]).vectorizationFactor).toBe(4);
    expect(heuristics(addFusion(2, 'Half'), [{ sizes: [1024, 1024] }, { sizes: [1024, 1024] }]).vectorizationFactor).toBe(8);
    expect(heuristics(addFusion(2, 'Double'), [{ sizes: [1024, 1024] }, { sizes: [1024, 1024] }]).vectorizationFactor).toBe(2);
    expect(heuristics(addFusion(2), [{ sizes: [1024, 1024], alignment: 8 }, { sizes: [1024, 1024] }]).vectorizationFactor).toBe(2);
    expect(heuristics(addFusion(2), [{ sizes: [1023, 1023] }, { sizes: [1023, 1023] }]).vectorizationFactor).toBe(1);
    // contiguous rows merge: a vector may span rows when the flattened extent divides
    expect(heuristics(addFusion(2), [{ sizes: [1024, 1023] }, { sizes: [1024, 1023] }]).vectorizationFactor).toBe(4);
    // innermost stride 2: that input is not vectorizable, the other still is
    const p = heuristics(addFusion(2), [{ sizes: [1024, 1024], strides: [2048, 2] }, { sizes: [1024, 1024] }]);
    expect(p.vectorizedInputs).toEqual([1]);
    // an odd row stride breaks alignment of every row start
    expect(heuristics(addFusion(2), [{ sizes: [1024, 1024], strides: [1025, 1] }, { sizes: [1024, 1024] }]).vectorizationFactor).toBe(1);
  });

  it('2-D schedule with a break point for [64,1,8192] + [64,512,8192]; 1-D without broadcasts', () => {
    const { fusion } = broadcastAddMul();
    const p = heuristics(fusion, [{ sizes: [64, 1, 8192] }, { sizes: [64, 512, 8192] }]);
    expect(p.breakPoint).toBe(2);
    expect(p.lparams.gdimy).toBe(64 * 512);
    expect(p.lparams.gdimx * p.lparams.bdimx * p.vectorizationFactor * p.unrollFactorInner).toBeGreaterThanOrEqual(8192);
    expect(heuristics(addFusion(3), [{ sizes: [64, 512, 8192] }, { sizes: [64, 512, 8192] }]).breakPoint).toBe(0);
  });

  it('grid limits: gridDim.y is split beyond 65535', () => {
    const { fusion } = broadcastAddMul();
    const p = heuristics(fusion, [{ sizes: [70000, 1, 256] }, { sizes: [70000, 8, 256] }]);
    expect(p.breakPoint).toBeGreaterThan(0);
    expect(p.lparams.gdimy).toBeLessThanOrEqual(65535);
    expect(p.splitGridYDim).toBe(true);
  });

  it('divisibility facts follow the sizes', () => {
    expect(heuristics(addFusion(1), [{ sizes: [1 << 20] }, { sizes: [1 << 20] }]).divisibleSplits.every((d) => d)).toBe(true);
    expect(heuristics(addFusion(1), [{ sizes: [1000] }, { sizes: [1000] }]).divisibleSplits).toContain(false);
  });

  it('prints nvFuser-style scheduler_params', async () => {
    const { heuristicParamsToString } = await import('../src/index.js');
    const text = heuristicParamsToString(heuristics(addFusion(1), [{ sizes: [1 << 20] }, { sizes: [1 << 20] }]));
    expect(text).toContain('===== Pointwise Parameters ========');
    expect(text).toContain('Vectorize, Factor: 4');
  });

  it('rejects reductions with a reason; the registry reports it', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1] });
    f.addInput(a);
    f.addOutput(sum(a, [1]));
    const ri = makeRuntimeInfo(f, [{ sizes: [4, 4] }]);
    const r = s.canSchedule(f, ri);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/reduction/);
    // the registry records the pointwise refusal and hands the fusion to the reduction scheduler
    const choice = defaultSchedulerRegistry().pick(f, ri);
    expect(choice.scheduler.type).toBe('reduction');
    expect(choice.rejected.map((x) => `${x.type}: ${x.reason}`).join()).toMatch(/pointwise: reduction/);
  });

  it('rejects sizes that contradict the fusion', () => {
    const { fusion } = broadcastAddMul();
    const r = s.canSchedule(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 3, 8192] }, { sizes: [64, 512, 8192] }]));
    expect(r.ok).toBe(false);
  });

  it('schedules: reference loop [BIDx, TIDx, V], input caches inlined before the per-thread loops', () => {
    const f = addFusion(2);
    const p = heuristics(f, [{ sizes: [1024, 1024] }, { sizes: [1024, 1024] }]);
    const sched = s.schedule(f.clone().fusion, p);
    const types = sched.reference.domain.loop.map((id) => id.parallelType);
    expect(types[0]).toBe('BIDx');
    expect(types).toContain('TIDx');
    expect(types[types.length - 1]).toBe('Vectorize');
    expect(sched.divisibleSplits.size).toBe(p.divisibleSplits.filter((d) => d).length);
  });
});

describe('pointwise overrides (tuning knobs)', () => {
  const info = (f: Fusion) => makeRuntimeInfo(f, [{ sizes: [64, 1, 8192] }, { sizes: [64, 512, 8192] }]);

  it('a forced 1-D schedule derives a consistent grid and divisibility', () => {
    const f = broadcastAddMul().fusion;
    const p = new PointwiseScheduler({ breakPoint: 0, unroll: 2 }).computeHeuristics(f, info(f));
    expect(p.breakPoint).toBe(0);
    expect(p.unrollFactorInner).toBe(2);
    expect(p.lparams.gdimx * p.lparams.bdimx * p.unrollFactorInner * p.vectorizationFactor).toBe(64 * 512 * 8192);
    expect(p.divisibleSplits).toEqual([true, true, true]);
  });

  it('a forced block width keeps 128 threads in a 2-D schedule', () => {
    const f = broadcastAddMul().fusion;
    const p = new PointwiseScheduler({ bdimx: 64 }).computeHeuristics(f, info(f));
    expect(p.breakPoint).toBe(2);
    expect(p.lparams.bdimx * p.lparams.bdimy).toBe(128);
    expect(p.lparams.gdimx).toBe(Math.ceil(8192 / 4 / 64 / p.unrollFactorInner));
  });

  it('without overrides the heuristic is unchanged', () => {
    const f = broadcastAddMul().fusion;
    expect(new PointwiseScheduler({}).computeHeuristics(f, info(f))).toEqual(new PointwiseScheduler().computeHeuristics(f, info(f)));
  });
});
