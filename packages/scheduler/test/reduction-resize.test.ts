// The reduction scheduler with slice / pad / cat before its reduction (reduction/
// resize-before-reduction.ts): what it accepts and refuses (with the reasons shown in
// segmentation explanations), and the inner reduction's vector width across a resize
// (pointwise/resize/vectorize.ts's resizeVectorLimit). Codegen's resize-reduction tests
// simulate the kernels.
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, pad, reshape, slice, sum, type TensorView } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, ReductionScheduler, type ReductionParams } from '@tsfuser/scheduler';

function fusionOf(shapes: number[][], build: (xs: TensorView[]) => TensorView): Fusion {
  const f = new Fusion();
  const xs = shapes.map((s) => makeTensor(f, { shape: s.map(() => -1), dtype: 'Float' }));
  for (const x of xs) f.addInput(x);
  f.addOutput(build(xs));
  return f;
}

const info = (f: Fusion, shapes: number[][]): ReturnType<typeof makeRuntimeInfo> => makeRuntimeInfo(f, shapes.map((sizes) => ({ sizes })));

describe('reduction scheduler: slice / pad / cat before the reduction', () => {
  const s = new ReductionScheduler();

  it('accepts pad, slice and cat before the reduction', () => {
    const shapes = [[6, 40]];
    const padded = fusionOf(shapes, ([x]) => sum(pad(x as TensorView, [1, 2], 3), [1]));
    expect(s.canSchedule(padded, info(padded, shapes))).toEqual({ ok: true });
    const f = fusionOf(shapes, ([x]) => sum(slice(x as TensorView, [1, 3], [5, 40], [1, 2]), [0]));
    expect(s.canSchedule(f, info(f, shapes))).toEqual({ ok: true });
  });

  it('refuses a resize after the reduction and a resize with a reshape, naming them', () => {
    const shapes = [[6, 40]];
    const after = fusionOf(shapes, ([x]) => pad(sum(x as TensorView, [1]), [1, 1]));
    expect(s.canSchedule(after, info(after, shapes))).toEqual({ ok: false, reason: expect.stringContaining('pad producing T2 after the reduction of T0') });
    const viewed = fusionOf(shapes, ([x]) => sum(pad(reshape(x as TensorView, [240]), [1, 1]), [0]));
    expect(s.canSchedule(viewed, info(viewed, shapes))).toEqual({ ok: false, reason: expect.stringContaining('and a reshape (producing T1) in one reduction kernel are not supported yet') });
  });

  it('narrows the inner vector to the pad width, and drops it under a stepped slice', () => {
    const shapes = [[5, 252], [5, 256]];
    const padded = fusionOf(shapes, ([x, y]) => sum(add(pad(x as TensorView, [2, 2]), y as TensorView), [1]));
    const p = s.computeHeuristics(padded, info(padded, shapes)) as ReductionParams;
    expect([p.vectorizeInnerReduction, p.unrollFactorInnerReduction]).toEqual([true, 2]);
    const plain = fusionOf([[5, 256], [5, 256]], ([x, y]) => sum(add(x as TensorView, y as TensorView), [1]));
    expect((s.computeHeuristics(plain, info(plain, [[5, 256], [5, 256]])) as ReductionParams).unrollFactorInnerReduction).toBe(4);
    const stepped = fusionOf([[5, 512], [5, 256]], ([x, y]) => sum(add(slice(x as TensorView, [0, 0], [5, 512], [1, 2]), y as TensorView), [1]));
    expect((s.computeHeuristics(stepped, info(stepped, [[5, 512], [5, 256]])) as ReductionParams).vectorizeInnerReduction).toBe(false);
  });
});
