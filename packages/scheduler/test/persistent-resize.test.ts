// Slice / pad / cat in the persistent schedulers (persistent/resize-before-row.ts): what the inner one
// takes (resizes on the input side of the row; resizes of the normalized row that come back
// into the row, RoPE after rms_norm; a slice of the normalized row written as an output) and the
// refusal reasons of the rest, shown in segmentation explanations (fusion_ir_segments goldens):
// a pad or a stepped slice of the normalized row written as an output, a resize of the kept
// dims after the reduction, a resize with a reshape; the outer and inner-outer persistent
// schedulers take them too (the inner-outer one no sliced output). Codegen's persistent-resize
// tests simulate the kernels. Also: the row vector across a pad, a slice start, a stepped slice
// and a sliced output.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, broadcast, cast, cat, checkGolden, div, exp, Fusion, makeTensor, max, mul, neg, pad, reshape, rmsNorm, slice, sub, sum, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, fusionIrSegmentsToString, InnerOuterPersistentScheduler, InnerPersistentScheduler, makeRuntimeInfo, OuterPersistentScheduler, segmentFusion } from '../src/index.js';
import { recomputeChain } from '../src/inner-outer-persistent/projection.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function fusionOf(shapes: number[][], build: (xs: TensorView[]) => TensorView[]): Fusion {
  const f = new Fusion();
  const xs = shapes.map((s) => makeTensor(f, { shape: s.map(() => -1), dtype: 'Float' }));
  for (const x of xs) f.addInput(x);
  for (const o of build(xs)) f.addOutput(o);
  return f;
}

const info = (f: Fusion, shapes: number[][]): ReturnType<typeof makeRuntimeInfo> => makeRuntimeInfo(f, shapes.map((sizes) => ({ sizes })));
const at = (xs: TensorView[], i: number): TensorView => xs[i] as TensorView;
const centered = (x: TensorView): TensorView => sub(x, broadcast(sum(x, [1]), [false, true]));

function softmaxOverPad(x: TensorView): TensorView {
  const t1 = pad(x, [0, 8, 0, 0], 0);
  const e = exp(sub(t1, broadcast(max(t1, [1]), [false, true])));
  return div(e, broadcast(sum(e, [1]), [false, true]));
}

describe('inner persistent scheduler: slice / pad / cat', () => {
  const s = new InnerPersistentScheduler();

  it('takes a pad, a cat and a stepped slice before the row, and RoPE after rms_norm', () => {
    const shapes = [[6, 32], [6, 17]];
    const cases = [
      fusionOf(shapes, (xs) => [softmaxOverPad(at(xs, 0))]),
      fusionOf(shapes, (xs) => [centered(cat([at(xs, 0), at(xs, 1)], 1))]),
      fusionOf(shapes, (xs) => [centered(slice(at(xs, 0), [1, 2], [6, 32], [2, 3]))]),
      fusionOf([[6, 32], [32], [6, 32], [6, 32]], (xs) => {
        const y = rmsNorm(at(xs, 0), 1, at(xs, 1), 1e-6).output;
        const rot = cat([neg(slice(y, [0, 16], [6, 32], [1, 1])), slice(y, [0, 0], [6, 16], [1, 1])], 1);
        return [add(mul(y, at(xs, 2)), mul(rot, at(xs, 3)))];
      }),
    ];
    for (const [k, f] of cases.entries()) {
      const sizes = k === 3 ? [[6, 32], [32], [6, 32], [6, 32]] : shapes;
      expect(s.canSchedule(f, info(f, sizes)), `case ${k}`).toEqual({ ok: true });
    }
  });

  it('softmax over a pad is one inner_persistent segment (golden)', () => {
    const f = fusionOf([[6, 32]], (xs) => [softmaxOverPad(cast(at(xs, 0), 'Float'))]);
    const sf = segmentFusion(f, info(f, [[6, 32]]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['inner_persistent']);
    expect(checkGolden(fusionIrSegmentsToString(sf), `${dir}softmax_over_pad.fusion_ir_segments.txt`, update).diff).toBe('');
  });

  it('a slice of the normalized row written as an output is one inner_persistent segment (golden); a stepped one is a boundary', () => {
    const f = fusionOf([[6, 32]], (xs) => [slice(centered(at(xs, 0)), [0, 8], [6, 24], [1, 1])]);
    expect(s.canSchedule(f, info(f, [[6, 32]]))).toEqual({ ok: true });
    const sf = segmentFusion(f, info(f, [[6, 32]]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['inner_persistent']);
    expect(checkGolden(fusionIrSegmentsToString(sf), `${dir}slice_of_normalized_row.fusion_ir_segments.txt`, update).diff).toBe('');
    const stepped = fusionOf([[6, 32]], (xs) => [slice(centered(at(xs, 0)), [0, 1], [6, 32], [1, 2])]);
    expect(s.canSchedule(stepped, info(stepped, [[6, 32]]))).toEqual({ ok: false, reason: expect.stringContaining('slice producing T4 after the row\'s reduction reaches output T4 outside the row\'s index space') });
  });

  it('a pad of the normalized row written as an output is a boundary; the explanation names the pad (golden)', () => {
    const f = fusionOf([[6, 32]], (xs) => [pad(centered(at(xs, 0)), [2, 2], 0)]);
    const verdict = s.canSchedule(f, info(f, [[6, 32]]));
    expect(verdict).toEqual({ ok: false, reason: 'pad producing T4 after the row\'s reduction reaches output T4 outside the row\'s index space (a resized row written as an output is not supported by the inner_persistent scheduler yet: a segment boundary)' });
    const sf = segmentFusion(f, info(f, [[6, 32]]), defaultSchedulerRegistry());
    expect(sf.groups.length).toBeGreaterThan(1);
    const text = fusionIrSegmentsToString(sf);
    expect(text).toContain('inner_persistent: pad producing T4 after the row\'s reduction reaches output T4');
    expect(checkGolden(text, `${dir}pad_of_normalized_row.fusion_ir_segments.txt`, update).diff).toBe('');
  });

  it('refuses a resize of the kept dims after the reduction and a resize with a reshape; the outer and inner-outer persistent schedulers take a pad, the inner-outer one no sliced output', () => {
    const rows = fusionOf([[6, 32]], (xs) => {
      const y = centered(at(xs, 0));
      return [add(slice(pad(y, [0, 0, 1, 0], 0), [0, 0], [6, 32], [1, 1]), y)];
    });
    expect(s.canSchedule(rows, info(rows, [[6, 32]]))).toEqual({ ok: false, reason: expect.stringContaining('after the row\'s reduction resizes dim 0, which the reduction of T0 keeps') });
    const viewed = fusionOf([[6, 32]], (xs) => [centered(pad(reshape(at(xs, 0), [12, 16]), [1, 1]))]);
    expect(s.canSchedule(viewed, info(viewed, [[6, 32]]))).toEqual({ ok: false, reason: expect.stringContaining('and a reshape (producing T1) in one inner_persistent kernel are not supported yet') });
    const outer = fusionOf([[64, 6]], (xs) => {
      const x = pad(at(xs, 0), [1, 1]);
      return [sub(x, broadcast(sum(x, [0]), [true, false]))];
    });
    expect(new OuterPersistentScheduler().canSchedule(outer, info(outer, [[64, 6]]))).toEqual({ ok: true });
    const innerOuter = fusionOf([[64, 6]], (xs) => {
      const x = pad(at(xs, 0), [1, 1]);
      return [sub(x, broadcast(sum(x, [1]), [false, true])), sum(x, [0])];
    });
    const io = new InnerOuterPersistentScheduler();
    expect(io.canSchedule(innerOuter, info(innerOuter, [[64, 6]]))).toEqual({ ok: true });
    const ioSliced = fusionOf([[64, 6]], (xs) => {
      const x = pad(at(xs, 0), [1, 1]);
      return [slice(sub(x, broadcast(sum(x, [1]), [false, true])), [0, 2], [64, 6], [1, 1]), sum(x, [0])];
    });
    expect(io.canSchedule(ioSliced, info(ioSliced, [[64, 6]]))).toEqual({
      ok: false,
      reason: expect.stringContaining('not supported by the inner_outer_persistent scheduler yet'),
    });
  });

  it('the inner-outer projection to inputs recomputes pointwise chains only: a buffer computed through a cat is kept as computed', () => {
    const f = fusionOf([[8, 24], [8, 16]], (xs) => {
      const x = cat([at(xs, 0), at(xs, 1)], 1);
      return [mul(x, 2), mul(at(xs, 0), 2)];
    });
    const [throughCat, pointwise] = f.outputs as TensorView[];
    expect(recomputeChain(throughCat as TensorView, new Set())).toBeNull();
    expect(recomputeChain(pointwise as TensorView, new Set())?.length).toBe(1);
  });

  it('narrows the row vector across a pad, a slice start or a sliced output length, and drops it under a stepped slice', () => {
    const bf16 = (shapes: number[][], build: (xs: TensorView[]) => TensorView[]): Fusion => {
      const f = new Fusion();
      const xs = shapes.map((sz) => makeTensor(f, { shape: sz.map(() => -1), dtype: 'BFloat16' }));
      for (const x of xs) f.addInput(x);
      for (const o of build(xs.map((x) => cast(x, 'Float')))) f.addOutput(cast(o, 'BFloat16'));
      return f;
    };
    const vec = (f: Fusion, shapes: number[][]): number => {
      const p = s.computeHeuristics(f, info(f, shapes));
      return p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1;
    };
    const shapes = [[6, 64]];
    expect(vec(bf16(shapes, (xs) => [softmaxOverPad(at(xs, 0))]), shapes)).toBe(8);
    const padTwo = bf16(shapes, (xs) => [centered(pad(at(xs, 0), [2, 2]))]);
    expect(vec(padTwo, shapes)).toBe(2);
    const sliced = bf16(shapes, (xs) => [centered(slice(at(xs, 0), [0, 4], [6, 64], [1, 1]))]);
    expect(vec(sliced, shapes)).toBe(4);
    const stepped = bf16([[6, 128]], (xs) => [centered(slice(at(xs, 0), [0, 0], [6, 128], [1, 2]))]);
    expect(vec(stepped, [[6, 128]])).toBe(1);
    const window = bf16(shapes, (xs) => [slice(centered(at(xs, 0)), [0, 8], [6, 20], [1, 1])]);
    expect(vec(window, shapes)).toBe(4);
  });
});
