// The matmul and attention schedulers' canSchedule is a check (issue 32): it reads the segment's
// pattern and runtime layouts (one analysis entry of the HeuristicDataCache) and computes no
// heuristics; computeHeuristics makes the parameters from that entry, once per cache; a
// refusal is the same at acceptance and at computeHeuristics; segmentation of a multi-candidate
// fusion (an MLP: every merge candidate holding the GEMM is asked) leaves each segment's cache
// with 0 heuristics until the executor path asks for them.
import { describe, expect, it } from 'vitest';
import { add, Fusion, linear, makeTensor, matmul, relu, sdpfaFwd, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { AttentionScheduler, defaultSchedulerRegistry, HeuristicDataCache, makeRuntimeInfo, MatmulScheduler, segmentFusion, type Scheduler } from '../src/index.js';

function input(f: Fusion, rank: number, dtype: DataType = 'BFloat16'): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

function linearRelu(): Fusion {
  const f = new Fusion();
  const x = input(f, 2);
  const w = input(f, 2);
  const b = input(f, 1);
  f.addOutput(relu(linear(x, w, b)));
  return f;
}

function attention(): Fusion {
  const f = new Fusion();
  const [q, k, v] = [input(f, 4), input(f, 4), input(f, 4)] as [TensorView, TensorView, TensorView];
  f.addOutput(sdpfaFwd(q, k, v, { isCausal: true }).output);
  return f;
}

const info = (f: Fusion, sizes: number[][]): ReturnType<typeof makeRuntimeInfo> => makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));

const CASES: { name: string; s: () => Scheduler; fusion: () => Fusion; ok: number[][]; refused: number[][]; reason: RegExp }[] = [
  { name: 'matmul (linear + bias + relu)', s: () => new MatmulScheduler(), fusion: linearRelu, ok: [[64, 128], [256, 128], [256]], refused: [[64, 0], [256, 0], [256]], reason: /K = 0/ },
  { name: 'attention (causal sdpfa_fwd)', s: () => new AttentionScheduler(), fusion: attention, ok: [[2, 8, 64, 64], [2, 8, 64, 64], [2, 8, 64, 64]], refused: [[2, 8, 64, 264], [2, 8, 64, 264], [2, 8, 64, 264]], reason: /264/ },
];

describe('library-call and attention acceptance computes no heuristics', () => {
  for (const c of CASES) {
    it(`${c.name}: accepts with 0 heuristics; computeHeuristics then computes them once`, () => {
      const fusion = c.fusion();
      const ri = info(fusion, c.ok);
      const s = c.s();
      const cache = new HeuristicDataCache(fusion, ri);
      expect(s.canSchedule(fusion, ri, cache)).toEqual({ ok: true });
      expect(s.canSchedule(fusion, ri, cache)).toEqual({ ok: true });
      expect(cache.counts.heuristics).toBe(0);
      expect(cache.counts.schedules).toBe(0);
      const p = s.computeHeuristics(fusion, ri, cache);
      expect(s.computeHeuristics(fusion, ri, cache) === p).toBe(true);
      expect(cache.counts.heuristics).toBe(1);
      // The same parameters as without a cache (the cache changes when, not what).
      expect(c.s().computeHeuristics(fusion, ri)).toEqual(p);
    });

    it(`${c.name}: a refusal at acceptance (0 heuristics) is the refusal computeHeuristics throws`, () => {
      const fusion = c.fusion();
      const ri = info(fusion, c.refused);
      const s = c.s();
      const cache = new HeuristicDataCache(fusion, ri);
      const r = s.canSchedule(fusion, ri, cache);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.reason).toMatch(c.reason);
      expect(cache.counts.heuristics).toBe(0);
      expect(() => s.computeHeuristics(fusion, ri, cache)).toThrow(r.reason);
    });
  }

  it('segmentation asks the matmul scheduler for every candidate and leaves each segment with 0 heuristics computed', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w1 = input(f, 2);
    const w2 = input(f, 2);
    const h = relu(linear(x, w1));
    f.addOutput(add(matmul(h, w2), 1));
    const sf = segmentFusion(f, info(f, [[64, 128], [256, 128], [256, 64]]), defaultSchedulerRegistry());
    const gemms = sf.groups.filter((g) => g.schedulerType === 'matmul');
    expect(gemms.length).toBe(2);
    for (const g of gemms) {
      expect(g.analysis?.counts.heuristics, `group ${g.id}`).toBe(0);
      defaultSchedulerRegistry().get('matmul').computeHeuristics(g.fusion, g.analysis?.runtimeInfo ?? info(g.fusion, []), g.analysis);
      expect(g.analysis?.counts.heuristics, `group ${g.id}`).toBe(1);
    }
  });
});
