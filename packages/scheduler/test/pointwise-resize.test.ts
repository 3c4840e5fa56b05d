// Slice / pad / cat in the pointwise scheduler (pointwise/resize/): which fusions it takes and
// the refusal reasons, the vectorization limit resize shifts impose, the schedule (recomputed
// producers, one input cache per index space) evaluating like the fusion, RoPE as one
// segment (scheduler_params and segmented_fusion goldens) and a resize before a reduction as
// a segment boundary whose reason names the resize.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  add, cast, cat, checkGolden, evaluate, exp, expand, Fusion, HostTensor, indexSelect, makeTensor, mul, neg, pad, reshape, slice, size, strideOrder, sum, type DataType,
  type TensorView,
} from '@tsfuser/fusion-ir';
import {
  canSchedulePointwise, computePointwiseHeuristics, defaultSchedulerRegistry, fusionIrSegmentsToString, heuristicParamsToString, makeRuntimeInfo,
  schedulePointwise, segmentedFusionToString, segmentFusion,
} from '../src/index.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function rope(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1, -1, -1], dtype });
  const c = makeTensor(f, { shape: [1, -1, 1, -1], dtype });
  const s = makeTensor(f, { shape: [1, -1, 1, -1], dtype });
  f.addInput(x);
  f.addInput(c);
  f.addInput(s);
  const xf = cast(x, 'Float');
  const b = [size(x, 0), size(x, 1), size(x, 2)];
  const rotated = cat([neg(slice(xf, [0, 0, 0, 64], [...b, 128])), slice(xf, [0, 0, 0, 0], [...b, 64])], 3);
  f.addOutput(cast(add(mul(xf, cast(c, 'Float')), mul(rotated, cast(s, 'Float'))), dtype));
  return f;
}

function single(shape: number[], build: (x: TensorView, f: Fusion) => TensorView[], dtype: DataType = 'Float'): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: shape.map(() => -1), dtype });
  f.addInput(x);
  for (const o of build(x, f)) f.addOutput(o);
  return f;
}

function values(sizes: number[], seed: number): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues('Float', sizes, Array.from({ length: n }, (_, k) => Math.sin(k * 1.37 + seed)));
}

describe('pointwise scheduler: slice, pad and cat', () => {
  it('takes RoPE as one pointwise segment, vectorized by 8 (goldens: scheduler_params, segmented_fusion)', () => {
    const f = rope('BFloat16');
    const info = makeRuntimeInfo(f, [{ sizes: [8, 4096, 32, 128] }, { sizes: [1, 4096, 1, 128] }, { sizes: [1, 4096, 1, 128] }]);
    expect(canSchedulePointwise(f, info)).toEqual({ ok: true });
    const params = computePointwiseHeuristics(f, info);
    expect(params.vectorizationFactor).toBe(8);
    expect(checkGolden(heuristicParamsToString(params), `${dir}rope.scheduler_params.txt`, update).diff).toBe('');
    const sf = segmentFusion(f, info, defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise']);
    expect(checkGolden(segmentedFusionToString(sf) + fusionIrSegmentsToString(sf), `${dir}rope.segmented_fusion.txt`, update).diff).toBe('');
  });

  it('the schedule recomputes shared producers and caches inputs per index space; it evaluates like the fusion', () => {
    const f = single([6, 10], (x) => {
      const y = exp(x);
      return [add(mul(y, 2), cat([slice(y, [0, 5], [6, 10]), neg(slice(y, [0, 0], [6, 5]))], 1))];
    });
    const info = makeRuntimeInfo(f, [{ sizes: [6, 10] }]);
    const scheduled = schedulePointwise(f.clone().fusion, computePointwiseHeuristics(f, info));
    const exps = scheduled.fusion.exprs().filter((e) => e.kind === 'UnaryOp' && e.op === 'exp');
    expect(exps.length).toBe(3);
    const caches = scheduled.fusion.exprs().filter((e) => e.kind === 'LoadStoreOp' && e.inputs[0] === scheduled.fusion.inputs[0]);
    expect(caches.length).toBe(3);
    const input = values([6, 10], 1);
    const want = (evaluate(f, [input])[0] as HostTensor).toNumbers();
    const got = (evaluate(scheduled.fusion, [input])[0] as HostTensor).toNumbers();
    got.forEach((v, k) => expect(v).toBeCloseTo(want[k] as number, 12));
  });

  it('an expression reading two inputs in a shifted space gets a cache of each in that space (regression: the second input shared one cache)', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1] });
    const b = makeTensor(f, { shape: [-1, -1] });
    f.addInput(a);
    f.addInput(b);
    const p = mul(a, b);
    f.addOutput(cat([p, neg(p)], 0));
    const info = makeRuntimeInfo(f, [{ sizes: [4, 6] }, { sizes: [4, 6] }]);
    const scheduled = schedulePointwise(f.clone().fusion, computePointwiseHeuristics(f, info));
    for (const input of scheduled.fusion.inputs) {
      expect(scheduled.fusion.exprs().filter((e) => e.kind === 'LoadStoreOp' && e.inputs[0] === input).length).toBe(2);
    }
    const inputs = [values([4, 6], 1), values([4, 6], 2)];
    const want = (evaluate(f, inputs)[0] as HostTensor).toNumbers();
    const got = (evaluate(scheduled.fusion, inputs)[0] as HostTensor).toNumbers();
    got.forEach((v, k) => expect(v).toBeCloseTo(want[k] as number, 12));
  });

  it('limits vectorization to what every shift along the innermost dim allows', () => {
    const catOf = (widths: number[]): Fusion => {
      const f = new Fusion();
      const ts = widths.map(() => makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' }));
      ts.forEach((t) => f.addInput(t));
      f.addOutput(cat(ts, 1));
      return f;
    };
    const heur = (f: Fusion, sizes: number[][]): number => computePointwiseHeuristics(f, makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s })))).vectorizationFactor;
    expect(heur(catOf([512, 256]), [[4096, 512], [4096, 256]])).toBe(8);
    expect(heur(catOf([516, 252]), [[4096, 516], [4096, 252]])).toBe(4);
    expect(heur(catOf([513, 255]), [[4096, 513], [4096, 255]])).toBe(1);
    const stepped = single([4096, 1024], (x) => [slice(x, [0, 0], [4096, 1024], [1, 2])]);
    expect(heur(stepped, [[4096, 1024]])).toBe(1);
    const padded = single([4096, 1024], (x) => [pad(x, [8, 8])]);
    expect(heur(padded, [[4096, 1024]])).toBe(4);
    const padOdd = single([4096, 1024], (x) => [pad(x, [2, 6])]);
    expect(heur(padOdd, [[4096, 1024]])).toBe(2);
  });

  it('refuses with a reason an output outside the reference space; takes a pad of an expanded or size-1 broadcast and run-time pad widths', () => {
    const bcast = new Fusion();
    const b = makeTensor(bcast, { shape: [1, -1] });
    bcast.addInput(b);
    // fusion-ir's pad materializes an expanded broadcast it pads (squeeze, broadcast, expand +
    // where, as nvFuser does: test_pad_expanded_empty), so no PadOp resizes a broadcast dim.
    bcast.addOutput(pad(expand(b, [4, -1]), [0, 0, 1, 1]));
    expect(bcast.exprs().some((e) => e.kind === 'PadOp' && (e.inputs[0] as TensorView).domain.logical[0]?.isBroadcast() === true)).toBe(false);
    expect(canSchedulePointwise(bcast, makeRuntimeInfo(bcast, [{ sizes: [1, 8] }]))).toEqual({ ok: true });
    const size1 = new Fusion();
    const b1 = makeTensor(size1, { shape: [1, -1] });
    size1.addInput(b1);
    size1.addOutput(pad(b1, [0, 0, 1, 1]));
    expect(canSchedulePointwise(size1, makeRuntimeInfo(size1, [{ sizes: [1, 8] }]))).toEqual({ ok: true });

    const two = single([6, 10], (x) => [mul(x, 2), slice(x, [0, 0], [6, 4])]);
    const r2 = canSchedulePointwise(two, makeRuntimeInfo(two, [{ sizes: [6, 10] }]));
    expect(r2).toEqual({ ok: false, reason: expect.stringContaining("is not in the reference T") });

    const dyn = new Fusion();
    const x = makeTensor(dyn, { shape: [-1] });
    const w = dyn.newSymbolicScalar('Int');
    dyn.addInput(x);
    dyn.addInput(w);
    dyn.addOutput(pad(x, [w, 0]));
    // fusion-ir's pad builds run-time widths as an index_select + where (no PadOp), which the scheduler takes.
    const r3 = canSchedulePointwise(dyn, makeRuntimeInfo(dyn, [{ sizes: [8] }, null]));
    expect(r3).toEqual({ ok: true });
  });

  it('a pad before a reduction joins the reduction kernel (one segment)', () => {
    const f = single([8, 30], (x) => [sum(pad(x, [1, 1]), [1])]);
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 30] }]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction']);
    expect(checkGolden(fusionIrSegmentsToString(sf), `${dir}pad_then_sum.fusion_ir_segments.txt`, update).diff).toBe('');
  });

  it('a pad after a reduction is a segment boundary; the explanation names the pad', () => {
    const f = single([8, 30], (x) => [pad(sum(x, [1]), [1, 1])]);
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 30] }]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction', 'pointwise']);
    const text = fusionIrSegmentsToString(sf);
    expect(text).toContain('pad producing T2 after the reduction of T0 is not supported by the reduction scheduler (a slice, pad or cat after a reduction is a segment boundary)');
    expect(checkGolden(text, `${dir}sum_then_pad.fusion_ir_segments.txt`, update).diff).toBe('');
  });

  it('refuses a resize in one kernel with a reshape, an indexed load or a stride-ordered output (one reason naming both); segmentation splits them', () => {
    const viewed = single([4, 6], (x) => [pad(reshape(mul(x, 2), [24]), [1, 1])]);
    const lookup = new Fusion();
    const table = makeTensor(lookup, { shape: [-1, -1] });
    const ids = makeTensor(lookup, { shape: [-1], dtype: 'Int' });
    lookup.addInput(table);
    lookup.addInput(ids);
    lookup.addOutput(pad(indexSelect(table, 0, ids), [1, 1]));
    const ordered = single([6, 10], (x) => [strideOrder(mul(pad(x, [1, 1]), 2), [0, 1])]);
    const cases: [Fusion, number[][], string][] = [
      [viewed, [[4, 6]], 'a slice, pad or cat (pad producing T3) and a reshape (producing T2) in one pointwise kernel are not supported yet'],
      [lookup, [[10, 8], [5]], 'a slice, pad or cat (pad producing T4) and an indexed load (index_select producing T3) in one pointwise kernel are not supported yet'],
      [ordered, [[6, 10]], 'a slice, pad or cat (pad producing T1) and a stride-ordered output (T3, allocation order [1, 0]) in one pointwise kernel are not supported yet'],
    ];
    for (const [f, sizes, reason] of cases) {
      const info = makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s })));
      expect(canSchedulePointwise(f, info)).toEqual({ ok: false, reason });
      const sf = segmentFusion(f, info, defaultSchedulerRegistry());
      expect(sf.groups.length).toBeGreaterThan(1);
      expect(fusionIrSegmentsToString(sf)).toContain(reason);
    }
  });
});
