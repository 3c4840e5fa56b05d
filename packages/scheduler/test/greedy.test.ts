// The greedy scheduler (scans and sorts): what it accepts and refuses (with reasons), and how the
// segmenter splits a fusion with pointwise work around a cumsum into pointwise → greedy →
// pointwise, each boundary with its reason.
import { Fusion, add, argsort, cast, cumsum, makeTensor, mul, topk } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { GreedyScheduler, defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, nvFuserAcceptors, segmentFusion } from '../src/index.js';

function cumsumWithPointwise(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
  f.addInput(x);
  f.addOutput(add(cast(cumsum(mul(cast(x, 'Float'), 2), 1), 'Half'), 1));
  return f;
}

describe('greedy scheduler', () => {
  it('takes one scan or sort alone and refuses anything around it with a reason', () => {
    const g = new GreedyScheduler();
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(cumsum(x, 1));
    expect(g.canSchedule(f, makeRuntimeInfo(f, [{ sizes: [4, 8] }]))).toEqual({ ok: true });
    const pw = cumsumWithPointwise();
    const r = g.canSchedule(pw, makeRuntimeInfo(pw, [{ sizes: [4, 8] }]));
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(/UnaryOp producing T\d+ is not part of a cumsum kernel/);
  });
  it('refuses argsort rows longer than the shared-memory sort and topk with a symbolic k', () => {
    const g = new GreedyScheduler();
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(argsort(x, 1));
    const r = g.canSchedule(f, makeRuntimeInfo(f, [{ sizes: [2, 5000] }]));
    expect(r.ok ? '' : r.reason).toMatch(/argsort producing T\d+: rows of 5000 elements do not fit the shared-memory sort \(at most 4096\)/);
    const h = new Fusion();
    const y = makeTensor(h, { shape: [-1], dtype: 'Float' });
    const k = h.newSymbolicScalar('Int');
    h.addInput(y);
    h.addInput(k);
    h.addOutput(topk(y, k).values);
    const q = g.canSchedule(h, makeRuntimeInfo(h, [{ sizes: [10] }, null]));
    expect(q.ok ? '' : q.reason).toMatch(/topk producing T\d+: k is not a constant/);
  });
  it('segments pointwise work around a cumsum into three segments with their reasons', () => {
    const f = cumsumWithPointwise();
    const info = makeRuntimeInfo(f, [{ sizes: [64, 1000] }]);
    for (const picker of [defaultSchedulerRegistry(), nvFuserAcceptors()]) {
      const sf = segmentFusion(f, info, picker);
      expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise', 'greedy', 'pointwise']);
      const text = fusionIrSegmentsToString(sf);
      expect(text).toMatch(/ScanOp producing T\d+ \(a scan or sort along a dim\) is left to the greedy scheduler/);
    }
  });
});

describe('greedy scan vectorization', () => {
  it('vectorizes contiguous inner rows only: not a permuted input whose scanned dim has stride 1 but is not innermost', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(cumsum(x, 0));
    const g = new GreedyScheduler();
    const kernelOf = (strides: number[]): unknown => g.computeHeuristics(f, makeRuntimeInfo(f, [{ sizes: [64, 8], strides }])).kernel;
    expect(kernelOf([1, 64])).toMatchObject({ kind: 'scan', vectorized: false });
    const h = new Fusion();
    const y = makeTensor(h, { shape: [-1, -1], dtype: 'Float' });
    h.addInput(y);
    h.addOutput(cumsum(y, 1));
    expect(g.computeHeuristics(h, makeRuntimeInfo(h, [{ sizes: [8, 64] }])).kernel).toMatchObject({ kind: 'scan', vectorized: true });
    expect(g.computeHeuristics(h, makeRuntimeInfo(h, [{ sizes: [8, 64], alignment: 4 }])).kernel).toMatchObject({ kind: 'scan', vectorized: false });
  });
});
