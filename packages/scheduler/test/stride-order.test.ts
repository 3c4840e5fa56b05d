// Stride-ordered outputs in the scheduler (stride-order.ts): the pointwise scheduler takes them
// and its vectorization reads their permuted strides; every other scheduler refuses them with one
// reason naming the output; segmentation hands the stride-ordered part to a pointwise segment, and
// a segment reading a stride-ordered intermediate declares its allocation order (planned dense in
// that order).
import { add, broadcast, Fusion, makeTensor, mul, strideOrder, sum } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { computePointwiseHeuristics, defaultSchedulerRegistry, makeRuntimeInfo, permutedAllocationOrder, segmentFusion, stridesInOrder } from '../src/index.js';

describe('stride-ordered outputs', () => {
  it('strides in an allocation order, outermost first', () => {
    expect(stridesInOrder([2, 3, 4], null)).toEqual([12, 4, 1]);
    expect(stridesInOrder([2, 3, 4], [1, 2, 0])).toEqual([1, 8, 2]);
  });

  it('pointwise takes them and vectorizes only the outputs whose innermost dim stays innermost', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(strideOrder(mul(x, 2), [1, 0]));
    f.addOutput(strideOrder(add(x, 1), [0, 1]));
    const info = makeRuntimeInfo(f, [{ sizes: [256, 1024] }]);
    const picked = defaultSchedulerRegistry().pick(f, info);
    expect(picked.scheduler.type).toBe('pointwise');
    const p = computePointwiseHeuristics(f, info);
    expect(p.vectorizationFactor).toBeGreaterThan(1);
    expect(p.vectorizedOutputs).toEqual([0]);
  });

  it('the other schedulers refuse them; segmentation gives them a pointwise segment whose reader declares the order', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const t = strideOrder(mul(x, 3), [0, 1]);
    f.addOutput(t);
    f.addOutput(add(x, broadcast(sum(t, [1]), [false, true])));
    const info = makeRuntimeInfo(f, [{ sizes: [64, 96] }]);
    const picked = defaultSchedulerRegistry().tryPick(f, info);
    expect(picked.scheduler).toBeNull();
    for (const type of ['reduction', 'inner_persistent']) {
      expect(picked.rejected.find((r) => r.type === type)?.reason).toMatch(new RegExp(`^output T${t.name} has a stride order \\(allocation order of dims \\[1, 0\\]\\); the .* scheduler does not write stride-ordered outputs yet \\(only pointwise does\\)$`));
    }
    const sf = segmentFusion(f, info, defaultSchedulerRegistry());
    const types = sf.groups.map((g) => g.schedulerType);
    expect(types[0]).toBe('pointwise');
    const reader = sf.groups.find((g) => g.inputs.includes(t));
    expect(reader).toBeDefined();
    const input = reader?.fusion.inputs.find((v) => v.kind === 'tensorView' && v.name === t.name);
    expect(input?.kind === 'tensorView' ? permutedAllocationOrder(input) : null).toEqual([1, 0]);
  });
});
