// PointwiseParams.fastDivision (codegen's fast division by run-time extents): on for Int32
// indexing while every index value stays below 2^30 (tensor sizes, offsets, the launch's points),
// off with PointwiseOverrides.fastDivision false (also through the default registry's options),
// off for 64-bit indexing; the lowering options carry it, and only for pointwise kernels.
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import { computePointwiseHeuristics, defaultSchedulerRegistry, makeRuntimeInfo, type PointwiseParams } from '../src/index.js';

function broadcastAdd(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1, -1] });
  const b = makeTensor(f, { shape: [-1, 1, -1] });
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  return f;
}

function params(n: number, overrides = {}): PointwiseParams {
  const f = broadcastAdd();
  return computePointwiseHeuristics(f, makeRuntimeInfo(f, [{ sizes: [n, 3, 5] }, { sizes: [n, 1, 5] }]), overrides);
}

describe('PointwiseParams.fastDivision', () => {
  it('is on for Int32 indexing below 2^30 index values, off past them, for Int indexing and when overridden', () => {
    expect(params(7).fastDivision).toBe(true);
    expect(params(7, { fastDivision: false }).fastDivision).toBe(false);
    // 15 · 2^27 elements: Int32 indexing, but past 2^30
    const big = params(1 << 27);
    expect(big.indexType).toBe('Int32');
    expect(big.fastDivision).toBe(false);
    expect(params(1 << 25).fastDivision).toBe(true);
    const wide = params(1 << 28);
    expect(wide.indexType).toBe('Int');
    expect(wide.fastDivision).toBe(false);
  });

  it('reaches the lowering options of pointwise kernels only; the default registry takes the override', () => {
    const f = broadcastAdd();
    const info = makeRuntimeInfo(f, [{ sizes: [7, 3, 5] }, { sizes: [7, 1, 5] }]);
    for (const [registry, want] of [[defaultSchedulerRegistry(), true], [defaultSchedulerRegistry({ pointwise: { fastDivision: false } }), false]] as const) {
      const { scheduler, analysis } = registry.pick(f, info);
      scheduler.computeHeuristics(f, info, analysis);
      const o = analysis.scheduled(scheduler).lowering;
      expect(o.kind === 'loopNest' && o.fastDivision).toBe(want);
    }
    const r = new Fusion();
    const x = makeTensor(r, { shape: [-1, -1] });
    r.addInput(x);
    r.addOutput(sum(x, [1]));
    const rinfo = makeRuntimeInfo(r, [{ sizes: [64, 100] }]);
    const { scheduler, analysis } = defaultSchedulerRegistry().pick(r, rinfo);
    scheduler.computeHeuristics(r, rinfo, analysis);
    const o = analysis.scheduled(scheduler).lowering;
    expect(o.kind === 'loopNest' && o.fastDivision).toBe(false);
  });
});
