// The expr_eval scheduler (metadata-only fusions: every output a view of an input). Views are
// checked against the reference evaluator: the layout viewLayouts computes, applied to the
// input's storage, must read the values the evaluator gives the output — for random chains of
// broadcast / squeeze / expand / permute / slice / reshape over inputs with random layouts
// (seeded; the seed is printed on failure). Also: refusals with reasons, PyTorch's view rule,
// registry priority, and segmentation around a reshape the kernels cannot take.
import {
  add, broadcast, evaluate, expand, Fusion, HostTensor, makeTensor, mul, permute, reshape, set, size, slice, squeeze, sum,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import {
  bindExtents, defaultSchedulerRegistry, ExprEvalScheduler, fusionIrSegmentsToString, heuristicParamsToString, makeRuntimeInfo,
  segmentFusion, viewLayouts, viewStrides,
} from '../src/index.js';

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A tensor of `sizes` over a larger storage: dims permuted in memory, padded rows, an offset. */
function stridedInput(sizes: readonly number[], r: () => number, dense: boolean): HostTensor {
  const order = sizes.map((_, d) => d);
  if (!dense) order.sort(() => r() - 0.5);
  const strides = new Array<number>(sizes.length).fill(0);
  let acc = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    strides[d] = acc;
    acc *= (sizes[d] as number) + (dense ? 0 : Math.floor(r() * 2));
  }
  const offset = dense ? 0 : Math.floor(r() * 3);
  const storage = HostTensor.fromValues('Float', [acc + offset], Array.from({ length: acc + offset }, (_, i) => i + 0.5));
  return new HostTensor('Float', [...sizes], strides, storage.data, offset);
}

function checkViews(fusion: Fusion, inputs: readonly HostTensor[], label: string): void {
  const info = makeRuntimeInfo(fusion, inputs.map((t) => ({ sizes: t.sizes, strides: t.strides })));
  const pick = defaultSchedulerRegistry().tryPick(fusion, info);
  if (pick.scheduler?.type !== 'expr_eval') throw new Error(`${label}: not expr_eval (${pick.rejected.map((x) => `${x.type}: ${x.reason}`).join('; ')})`);
  const layouts = viewLayouts(fusion, info.inputs.map((i) => (i.kind === 'tensor' ? i : null)), bindExtents(fusion, info));
  const want = evaluate(fusion, inputs) as HostTensor[];
  fusion.outputs.forEach((o, i) => {
    const l = layouts.get(o as TensorView);
    if (l === undefined) throw new Error(`${label}: output ${i} has no layout`);
    const src = inputs[l.input] as HostTensor;
    const got = new HostTensor(src.dtype, l.sizes, l.strides, src.data, src.offset + l.offset).toNumbers();
    const w = (want[i] as HostTensor).toNumbers();
    expect(l.sizes, `${label}: output ${i} sizes`).toEqual([...(want[i] as HostTensor).sizes]);
    expect(got, `${label}: output ${i} values`).toEqual(w);
  });
}

describe('viewStrides (PyTorch computeStride)', () => {
  it('splits and merges contiguous chunks, refuses to merge across a gap', () => {
    expect(viewStrides([4, 6], [6, 1], [2, 2, 3, 2])).toEqual([12, 6, 2, 1]);
    expect(viewStrides([2, 3, 4], [12, 4, 1], [6, 4])).toEqual([4, 1]);
    expect(viewStrides([4, 6], [1, 4], [24])).toBeNull(); // a transpose cannot be flattened
    expect(viewStrides([4, 6], [1, 4], [4, 2, 3])).toEqual([1, 12, 4]); // but its contiguous dim can split
    expect(viewStrides([3, 1, 5], [10, 99, 2], [3, 5, 1])).toEqual([10, 2, 2]);
    expect(viewStrides([], [], [1, 1])).toEqual([1, 1]);
  });
});

describe('expr_eval: metadata-only fusions are views', () => {
  it('fixed chains: unsqueeze + expand, permute + reshape, slice with steps and negative bounds, squeeze, set', () => {
    const r = seeded(7);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], contiguity: false });
    f.addInput(x);
    f.addOutput(expand(broadcast(x, [false, true, false, false]), [size(x, 0), 5, size(x, 1), size(x, 2)]));
    f.addOutput(permute(x, [2, 0, 1]));
    f.addOutput(slice(x, [0, -3, 1], [2, 100, 7], [1, 2, 3]));
    f.addOutput(set(x));
    checkViews(f, [stridedInput([3, 8, 9], r, false)], 'fixed chains');
    const g = new Fusion();
    const y = makeTensor(g, { shape: [-1, 1, -1] });
    g.addInput(y);
    g.addOutput(reshape(squeeze(y, [1]), [2, -1, 3]));
    checkViews(g, [stridedInput([4, 1, 6], r, true)], 'squeeze + reshape');
  });

  it('random chains over random layouts (seeded)', () => {
    const base = Number(process.env.TSFUSER_SEED ?? Math.floor(Math.random() * 2 ** 30));
    let viewed = 0;
    for (let it = 0; it < 150; it += 1) {
      const r = seeded(base + it);
      const rank = 1 + Math.floor(r() * 3);
      const sizes = Array.from({ length: rank }, () => 1 + Math.floor(r() * 5));
      const f = new Fusion();
      const x = makeTensor(f, { shape: sizes.map(() => -1), contiguity: false });
      f.addInput(x);
      let t: TensorView = x;
      let cur = [...sizes];
      for (let k = 0; k < 1 + Math.floor(r() * 4); k += 1) {
        const op = Math.floor(r() * 5);
        if (op === 0) {
          const dims = cur.map((_, d) => d).sort(() => r() - 0.5);
          t = permute(t, dims);
          cur = dims.map((d) => cur[d] as number);
        } else if (op === 1 && cur.length < 4) {
          const at = Math.floor(r() * (cur.length + 1));
          t = broadcast(t, [...cur.map(() => false).slice(0, at), true, ...cur.map(() => false).slice(at)]);
          cur.splice(at, 0, 1);
        } else if (op === 2) {
          const starts = cur.map((s) => Math.floor(r() * s) - (r() < 0.3 ? s : 0));
          const stops = cur.map((s) => 1 + Math.floor(r() * (s + 2)));
          const steps = cur.map(() => 1 + Math.floor(r() * 2));
          t = slice(t, starts, stops, steps);
          cur = cur.map((s, d) => {
            const norm = (i: number): number => Math.min(Math.max(i < 0 ? i + s : i, 0), s);
            const a = norm(starts[d] as number);
            return Math.ceil((Math.max(norm(stops[d] as number), a) - a) / (steps[d] as number));
          });
        } else if (op === 3) {
          const numel = cur.reduce((a, b) => a * b, 1);
          t = reshape(t, [numel]);
          cur = [numel];
        } else {
          const dims = cur.flatMap((s, d) => (s === 1 ? [d] : []));
          if (dims.length > 0) {
            t = squeeze(t, dims);
            cur = cur.filter((s) => s !== 1);
          }
        }
      }
      f.addOutput(t);
      const input = stridedInput(sizes, r, r() < 0.4);
      const info = makeRuntimeInfo(f, [{ sizes: input.sizes, strides: input.strides }]);
      const accepted = new ExprEvalScheduler().canSchedule(f, info);
      try {
        if (!accepted.ok) {
          // Only a reshape the strides cannot view is refused, and it says so.
          expect(accepted.reason).toMatch(/cannot be viewed as .* without a copy/);
          continue;
        }
        viewed += 1;
        checkViews(f, [input], `iteration ${it}`);
      } catch (e) {
        throw new Error(`seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}): ${(e as Error).message}`);
      }
    }
    expect(viewed).toBeGreaterThan(50);
  });

  it('refuses math, factories and non-viewable reshapes with a reason naming the tensor', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], contiguity: false });
    f.addInput(x);
    f.addOutput(reshape(x, [-1]));
    const s = new ExprEvalScheduler();
    expect(s.canSchedule(f, makeRuntimeInfo(f, [{ sizes: [4, 6], strides: [6, 1] }]))).toEqual({ ok: true });
    expect(s.canSchedule(f, makeRuntimeInfo(f, [{ sizes: [4, 6], strides: [1, 4] }]))).toEqual({
      ok: false,
      reason: 'reshape producing T1: sizes [4, 6] with strides [1, 4] cannot be viewed as [24] without a copy',
    });
    const g = new Fusion();
    const y = makeTensor(g, { shape: [-1] });
    g.addInput(y);
    g.addOutput(mul(y, 2));
    expect(s.canSchedule(g, makeRuntimeInfo(g, [{ sizes: [4] }]))).toEqual({ ok: false, reason: 'BinaryOp producing T1 computes new values (not a view of an input)' });
    expect(heuristicParamsToString(s.computeHeuristics())).toContain('===== Expr Eval Parameters ========');
    expect(() => s.schedule(g, s.computeHeuristics())).toThrow(/has no kernel to schedule/);
  });
});

describe('expr_eval in the registry and in segmentation', () => {
  it('a reshape between pointwise ops is one pointwise kernel (indexed through the reshape)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const y = mul(x, 2);
    const z = reshape(y, [size(x, 0), 2, -1]);
    f.addOutput(add(z, 1));
    const info = makeRuntimeInfo(f, [{ sizes: [8, 64] }]);
    const sf = segmentFusion(f, info, defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise']);
  });

  it('a reshape feeding a reduction is one reduction kernel; one after it merging kept dims around the reduced one forces a boundary, named', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(sum(reshape(mul(x, 2), [size(x, 0), 4, -1]), [2]));
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 64] }]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction']);

    const g = new Fusion();
    const y = makeTensor(g, { shape: [-1, -1, -1] });
    g.addInput(y);
    g.addOutput(add(reshape(sum(y, [1]), [-1]), 1));
    const sg = segmentFusion(g, makeRuntimeInfo(g, [{ sizes: [4, 6, 8] }]), defaultSchedulerRegistry());
    expect(sg.groups.map((s) => s.schedulerType)).toEqual(['reduction', 'pointwise']);
    const dump = fusionIrSegmentsToString(sg);
    expect(dump).toContain('2 segments (2 kernels)');
    expect(dump).toMatch(/reduction: reshape producing T\d+ after the reduction T\d+ joins its kept dim 0 with its kept dim 2, which the reduction schedule merges apart/);
  });

  it('a reshape of a 0-size tensor is left to expr_eval (no split/merge to index through)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [0, 6] });
    f.addInput(x);
    f.addOutput(add(reshape(x, [3, 0]), 1));
    const pick = defaultSchedulerRegistry().tryPick(f, makeRuntimeInfo(f, [{ sizes: [0, 6] }]));
    expect(pick.rejected.find((r) => r.type === 'pointwise')?.reason).toMatch(/reshape producing T\d+ has no split\/merge from its input's dims/);
  });

  it('a fusion that only permutes and expands is picked by expr_eval before pointwise', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, 1] });
    f.addInput(x);
    f.addOutput(expand(permute(x, [1, 0]), [4, size(x, 0)]));
    const pick = defaultSchedulerRegistry().pick(f, makeRuntimeInfo(f, [{ sizes: [5, 1] }]));
    expect(pick.scheduler.type).toBe('expr_eval');
    expect(pick.rejected).toEqual([]);
  });
});
