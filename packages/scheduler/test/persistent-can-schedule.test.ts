// The persistent schedulers' canSchedule never schedules nor computes heuristics (issue 32;
// nvFuser's canScheduleRunTime only checks): acceptance is the structural checks
// (can-schedule.ts) plus the bounds the launch must fit with the scheduler's own overrides
// (launch-bounds.ts) and the resize-buffer check (persistent/persistent-acceptance.ts). Counted
// through the HeuristicDataCache: 0 schedules and 0 heuristics at acceptance, the heuristics
// computed once by computeHeuristics; a launch-bounds refusal is exactly the heuristics'
// SchedulingError (same message) over a sweep of sizes and overrides; overrides that
// leave no launch are refusals at acceptance; and every fusion accepted then schedules without
// a refusal (the checks predict what the schedule used to decide), over a sweep of sizes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { broadcast, cast, exp, Fusion, makeTensor, mul, pad, rmsNorm, slice, softmax, sub, sum, cat, neg, add, type TensorView } from '@tsfuser/fusion-ir';
import {
  HeuristicDataCache, InnerOuterPersistentScheduler, InnerPersistentScheduler, makeRuntimeInfo, OuterPersistentScheduler, type Scheduler,
} from '../src/index.js';
import { resizePersistentBufferRefusal } from '../src/persistent/persistent-acceptance.js';
import { innerPersistentLaunchRefusal } from '../src/inner-persistent/launch-bounds.js';
import { outerPersistentLaunchRefusal } from '../src/outer-persistent/launch-bounds.js';
import { innerOuterPersistentLaunchRefusal } from '../src/inner-outer-persistent/launch-bounds.js';
import { layerNormBackwardFusion, layerNormBackwardSizes } from './layer-norm-backward-fixture.js';

function fusionOf(ranks: number[], build: (xs: TensorView[]) => TensorView[], dtype: 'Float' | 'BFloat16' = 'Float'): Fusion {
  const f = new Fusion();
  const xs = ranks.map((r) => makeTensor(f, { shape: Array.from({ length: r }, () => -1), dtype }));
  for (const x of xs) f.addInput(x);
  for (const o of build(xs)) f.addOutput(o);
  return f;
}
const at = (xs: TensorView[], i: number): TensorView => xs[i] as TensorView;
const info = (f: Fusion, sizes: number[][]): ReturnType<typeof makeRuntimeInfo> => makeRuntimeInfo(f, sizes.map((z) => ({ sizes: z })));

const softmaxFusion = (): Fusion => fusionOf([2], (xs) => [softmax(at(xs, 0), 1)]);
const minusColumnSum = (): Fusion => fusionOf([2], (xs) => [sub(at(xs, 0), broadcast(sum(at(xs, 0), [0]), [true, false]))]);

interface Case {
  name: string;
  scheduler: () => Scheduler;
  fusion: () => Fusion;
  sizes: (n: number, h: number) => number[][];
}

const CASES: Case[] = [
  { name: 'inner_persistent softmax', scheduler: () => new InnerPersistentScheduler(), fusion: softmaxFusion, sizes: (n, h) => [[n, h]] },
  { name: 'outer_persistent x - sum(x, 0)', scheduler: () => new OuterPersistentScheduler(), fusion: minusColumnSum, sizes: (n, h) => [[h, n]] },
  { name: 'inner_outer_persistent layer_norm backward', scheduler: () => new InnerOuterPersistentScheduler(), fusion: () => layerNormBackwardFusion('Float', -1), sizes: (n, h) => layerNormBackwardSizes(n, h) },
];

describe('persistent canSchedule never schedules', () => {
  for (const c of CASES) {
    it(`${c.name}: accepts with no heuristics and no schedule (launch bounds only); computeHeuristics then computes them once`, () => {
      const fusion = c.fusion();
      const ri = info(fusion, c.sizes(1024, 1024));
      const s = c.scheduler();
      const cache = new HeuristicDataCache(fusion, ri);
      expect(s.canSchedule(fusion, ri, cache)).toEqual({ ok: true });
      expect(cache.counts).toEqual({ heuristics: 0, schedules: 0, bindings: 1 });
      const p = s.computeHeuristics(fusion, ri, cache);
      expect(s.computeHeuristics(fusion, ri, cache) === p).toBe(true);
      expect(cache.counts.heuristics).toBe(1);
      // The executor path then schedules once, from those parameters.
      expect(cache.scheduled(s).params === p).toBe(true);
      expect(cache.counts).toEqual({ heuristics: 1, schedules: 1, bindings: 1 });
    });

    it(`${c.name}: every accepted size schedules (the checks predict the schedule), refusals make no schedule`, () => {
      const seen = { accepted: 0, refused: 0 };
      for (const n of [1, 7, 256, 1000, 4096, 70000]) {
        for (const h of [1, 3, 64, 1000, 4096, 16384, 65536]) {
          const fusion = c.fusion();
          const ri = info(fusion, c.sizes(n, h));
          const s = c.scheduler();
          const cache = new HeuristicDataCache(fusion, ri);
          const r = s.canSchedule(fusion, ri, cache);
          expect(cache.counts.schedules, `${n}x${h}`).toBe(0);
          if (r.ok) {
            seen.accepted += 1;
            expect(() => cache.scheduled(s), `${n}x${h}`).not.toThrow();
          } else {
            seen.refused += 1;
          }
        }
      }
      // The sweep exercises both outcomes (a sweep that only accepts or only refuses proves nothing).
      expect(seen.accepted).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(0);
    });
  }

  it('overrides apply at acceptance: launches the overrides leave impossible are refusals, with the heuristics\' reason and no schedule', () => {
    const refusals: { s: Scheduler; fusion: Fusion; sizes: number[][]; reason: RegExp }[] = [
      { s: new InnerPersistentScheduler({ batches: 1 }), fusion: softmaxFusion(), sizes: [[1024, 8192]], reason: /1 batches leave 2048 threads per row/ },
      { s: new OuterPersistentScheduler({ bdimx: 32, batches: 1 }), fusion: minusColumnSum(), sizes: [[1000, 256]], reason: /32×1000 threads per block, more than 1024/ },
      { s: new InnerOuterPersistentScheduler({ bdimy: 4096 }), fusion: layerNormBackwardFusion('Float', -1), sizes: layerNormBackwardSizes(1024, 1024), reason: /bdimy 4096 is not a row count per block/ },
    ];
    for (const { s, fusion, sizes, reason } of refusals) {
      const ri = info(fusion, sizes);
      const cache = new HeuristicDataCache(fusion, ri);
      const r = s.canSchedule(fusion, ri, cache);
      expect(r.ok, s.type).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
      expect(cache.counts.schedules).toBe(0);
      // The same scheduler without the override takes the fusion.
      const plain = Object.getPrototypeOf(s).constructor as new () => Scheduler;
      expect(new plain().canSchedule(fusion, ri), s.type).toEqual({ ok: true });
    }
  });

  it('a launch-bounds refusal is the heuristics\' own error, and an accepted launch has heuristics (sweep of sizes and overrides)', () => {
    const launchRefusal = {
      inner_persistent: innerPersistentLaunchRefusal,
      outer_persistent: outerPersistentLaunchRefusal,
      inner_outer_persistent: innerOuterPersistentLaunchRefusal,
    };
    const schedulers: [keyof typeof launchRefusal, () => Scheduler, object, () => Fusion, (n: number, h: number) => number[][]][] = [];
    for (const o of [{}, { batches: 1 }, { batches: 4 }, { bdimy: 2 }, { bdimy: 8, batches: 2 }]) {
      schedulers.push(['inner_persistent', () => new InnerPersistentScheduler(o), o, softmaxFusion, (n, h) => [[n, h]]]);
      schedulers.push(['inner_outer_persistent', () => new InnerOuterPersistentScheduler(o), o, () => layerNormBackwardFusion('Float', -1), (n, h) => layerNormBackwardSizes(n, h)]);
    }
    for (const o of [{}, { bdimx: 32, batches: 1 }, { bdimx: 8, batches: 64 }]) schedulers.push(['outer_persistent', () => new OuterPersistentScheduler(o), o, minusColumnSum, (n, h) => [[h, n]]]);
    const seen = { refused: 0, launched: 0 };
    for (const [type, make, overrides, build] of schedulers) {
      for (const n of [1, 7, 1000, 70000]) {
        for (const h of [3, 1000, 16384, 65536, 300000]) {
          const fusion = build();
          const sizes = schedulers.find((x) => x[0] === type && x[2] === overrides)?.[4](n, h) ?? [];
          const ri = info(fusion, sizes);
          const cache = new HeuristicDataCache(fusion, ri);
          const refusal = launchRefusal[type](cache, overrides);
          const where = `${type} ${JSON.stringify(overrides)} ${n}x${h}`;
          if (refusal !== null) {
            seen.refused += 1;
            expect(() => make().computeHeuristics(fusion, ri, cache), where).toThrow(refusal);
          } else {
            seen.launched += 1;
            expect(() => make().computeHeuristics(fusion, ri, cache), where).not.toThrow();
          }
        }
      }
    }
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.launched).toBeGreaterThan(0);
  });

  it('the persistent schedulers\' canSchedule reads no scheduled fusion and computes no heuristics (source)', () => {
    for (const dir of ['inner-persistent', 'outer-persistent', 'inner-outer-persistent']) {
      const source = readFileSync(fileURLToPath(new URL(`../src/${dir}/index.ts`, import.meta.url)), 'utf8');
      const body = source.slice(source.indexOf('  canSchedule('), source.indexOf('  computeHeuristics('));
      expect(body.length, dir).toBeGreaterThan(0);
      expect(body, dir).not.toMatch(/\.scheduled\(|scheduleRefusal|\.schedule\(|schedule(Inner|Outer)\w*\(|computeHeuristics|compute\w*Heuristics/);
    }
  });
});

describe('resizePersistentBufferRefusal (the schedule\'s two-phase resize refusal, predicted)', () => {
  const refusal = (f: Fusion, sizes: number[][]): string | null => resizePersistentBufferRefusal(new HeuristicDataCache(f, info(f, sizes)));

  it('refuses a tensor that feeds a pad and is read again after the row\'s reduction', () => {
    const f = fusionOf([2], (xs) => {
      const y = exp(at(xs, 0));
      const p = pad(y, [0, 8, 0, 0], 0);
      const s = broadcast(sum(p, [1]), [false, true]);
      return [sub(p, s), mul(y, s)];
    });
    expect(refusal(f, [[6, 32]])).toMatch(/T1 feeds a slice, pad or cat and is read in two phases of the row/);
  });

  it('takes resizes of fusion inputs, resizes read in one phase, RoPE after rms_norm, and fusions without resizes', () => {
    const overPad = fusionOf([2], (xs) => {
      const t = pad(cast(at(xs, 0), 'Float'), [0, 8, 0, 0], 0);
      return [sub(t, broadcast(sum(t, [1]), [false, true]))];
    });
    expect(refusal(overPad, [[6, 32]])).toBeNull();
    const rope = fusionOf([2, 1, 2, 2], (xs) => {
      const y = rmsNorm(at(xs, 0), 1, at(xs, 1), 1e-6).output;
      const rot = cat([neg(slice(y, [0, 16], [6, 32], [1, 1])), slice(y, [0, 0], [6, 16], [1, 1])], 1);
      return [add(mul(y, at(xs, 2)), mul(rot, at(xs, 3)))];
    });
    expect(refusal(rope, [[6, 32], [32], [6, 32], [6, 32]])).toBeNull();
    expect(refusal(softmaxFusion(), [[6, 32]])).toBeNull();
  });
});
