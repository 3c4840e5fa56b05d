// The reduction scheduler with a reshape after its reduction (reduction/reshape-after-reduction.ts):
// nvFuser's reductionInterferingView grouping of the reduction tensor's dims, the reshapes it
// takes and the ones it refuses, with the reasons shown in segmentation explanations. Codegen's
// reduction-reshape tests simulate the kernels.
import { describe, expect, it } from 'vitest';
import { add, broadcast, Fusion, iota, makeTensor, reshape, size, sum, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, ReductionScheduler, segmentFusion } from '@tsfuser/scheduler';
import { reductionMergeGroups } from '../src/reduction/reshape-after-reduction.js';

function verdict(shape: number[], dims: number[], newShape: number[]): string {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype: 'Float' });
  f.addInput(x);
  f.addOutput(reshape(sum(x, dims), newShape));
  const v = new ReductionScheduler().canSchedule(f, makeRuntimeInfo(f, [{ sizes: shape }]));
  return v.ok ? 'ok' : v.reason;
}

function groupsOf(shape: number[], dims: number[]): number[][] {
  const f = new Fusion();
  const x: TensorView = makeTensor(f, { shape: shape.map(() => -1), dtype: 'Float' });
  f.addInput(x);
  return reductionMergeGroups(sum(x, dims));
}

describe('reshape after the reduction', () => {
  it("groups the reduction's dims as nvFuser does: the innermost run, then the innermost kind's other dims, then the rest", () => {
    expect(groupsOf([2, 3, 4], [2])).toEqual([[2], [1, 0]]);
    expect(groupsOf([2, 3, 4], [0])).toEqual([[2, 1], [0]]);
    expect(groupsOf([2, 3, 4], [1])).toEqual([[2], [1], [0]]);
    expect(groupsOf([2, 3, 4, 5], [1, 3])).toEqual([[3], [2, 0], [1]]);
  });

  it('takes merges, splits and regroupings of the kept dims of an inner or outer reduction', () => {
    expect(verdict([4, 6, 32], [2], [24])).toBe('ok');
    expect(verdict([4, 6, 32], [2], [2, 12])).toBe('ok');
    expect(verdict([32, 4, 6], [0], [8, 3])).toBe('ok');
    expect(verdict([3, 32, 8], [1], [3, 2, 4])).toBe('ok');
    // [K0, R1, K2, R3]: K0 and K2 are one group (the kept dims inside the innermost reduced run).
    expect(verdict([2, 5, 3, 7], [1, 3], [6])).toBe('ok');
  });

  it('refuses a merge of the kept dims around the reduced one, naming the reshape', () => {
    expect(verdict([3, 32, 8], [1], [24])).toMatch(/^reshape producing T\d+ after the reduction T\d+ joins its kept dim 0 with its kept dim 2, which the reduction schedule merges apart \(nvFuser's reductionInterferingView\)/);
    expect(verdict([2, 3, 5, 4], [2], [2, 12])).toMatch(/joins its kept dims 0, 1 with its kept dim 3, which/);
  });

  it('leaves dims of extent 1 out of the groups: [1, R, K] merged to [K] is no interference', () => {
    expect(verdict([1, 32, 8], [1], [8])).toBe('ok');
  });
});

describe('iota and a reshape in a reduction fusion', () => {
  // iota [i1] broadcast and added to x [i0, i1], reshaped to [i0·i1 / 4, 4] and row-summed: the
  // iota is computed from the reduction input's indices, which do not cross the reshape, so the
  // reduction scheduler refuses (lowering could not index it) and the segmenter makes the iota,
  // the add and the reshape a pointwise kernel before the reduction (random shape-op seed 20682).
  function iotaReshapeSum(): Fusion {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    const t = add(x, broadcast(iota(f, size(x, 1), 0, 0.5, 'Float'), [true, false]));
    f.addOutput(sum(reshape(t, [-1, 4]), [1]));
    return f;
  }

  it('the reduction scheduler refuses it, naming the iota; segmentation puts a pointwise kernel first', () => {
    const f = iotaReshapeSum();
    const info = makeRuntimeInfo(f, [{ sizes: [6, 8] }]);
    const v = new ReductionScheduler().canSchedule(f, info);
    expect(v.ok).toBe(false);
    expect(v.ok ? '' : v.reason).toMatch(/^IotaOp producing T\d+ is on the other side of a reshape from the reduction input T\d+ \(reduction scheduler\)$/);
    expect(segmentFusion(f, info, defaultSchedulerRegistry()).groups.map((g) => g.schedulerType)).toEqual(['pointwise', 'reduction']);
  });

  it('an iota on the reduction input side of no reshape stays in the reduction kernel', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(sum(add(x, broadcast(iota(f, size(x, 1), 0, 0.5, 'Float'), [true, false])), [1]));
    expect(new ReductionScheduler().canSchedule(f, makeRuntimeInfo(f, [{ sizes: [6, 8] }])).ok).toBe(true);
  });
});
