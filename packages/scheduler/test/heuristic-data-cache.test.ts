// HeuristicDataCache: one cache per (fusion, runtime info) shared by canSchedule and
// computeHeuristics — the heuristics are computed once (and a failure is not recomputed), a
// persistent scheduler's acceptance checks the launch its heuristics choose and never
// schedules, the scheduler's overrides apply at acceptance, and the can-schedule files compute
// neither heuristics nor a schedule.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, mul, permute, softmax, sum, type TensorView } from '@tsfuser/fusion-ir';
import {
  defaultSchedulerRegistry, HeuristicDataCache, InnerPersistentScheduler, makeRuntimeInfo, PointwiseScheduler, sameRuntimeInfo, SchedulerRegistry, segmentFusion, segmentKindOf,
} from '../src/index.js';

/**
 * The default registry without the schedulers of library-call and attention segments (their
 * acceptance reads a pattern and layout analysis: library-can-schedule.test.ts); the counts
 * below are the generated-kernel schedulers'.
 */
function kernelRegistry(): SchedulerRegistry {
  const kinds = new Set(['view', 'empty', 'kernel', 'greedy']);
  return new SchedulerRegistry(defaultSchedulerRegistry().schedulers.filter((s) => kinds.has(segmentKindOf(s.type))));
}

function softmaxFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  f.addOutput(softmax(x, 1));
  return f;
}

function addFusion(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1] });
  const b = makeTensor(f, { shape: [-1, -1] });
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  return f;
}

describe('HeuristicDataCache', () => {
  it('a persistent scheduler accepts with no heuristics and no schedule; computeHeuristics computes them once and the kernel is scheduled once', () => {
    const fusion = softmaxFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [1024, 4096] }]);
    const choice = kernelRegistry().pick(fusion, info);
    expect(choice.scheduler.type).toBe('inner_persistent');
    const { analysis } = choice;
    expect(analysis.counts).toEqual({ heuristics: 0, schedules: 0, bindings: 1 });
    const params = choice.scheduler.computeHeuristics(fusion, info, analysis);
    const scheduled = analysis.scheduled(choice.scheduler);
    expect(choice.scheduler.computeHeuristics(fusion, info, analysis) === params).toBe(true);
    expect(analysis.scheduled(choice.scheduler) === scheduled).toBe(true);
    expect(scheduled.params === params).toBe(true);
    expect(analysis.counts).toEqual({ heuristics: 1, schedules: 1, bindings: 1 });
    // The same params as a fresh computation (the cache changes when, not what).
    expect(new InnerPersistentScheduler().computeHeuristics(fusion, info)).toEqual(params);
  });

  it('a pointwise acceptance computes no heuristics; computeHeuristics then computes them once', () => {
    const fusion = addFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [64, 128] }, { sizes: [64, 128] }]);
    const { scheduler, analysis } = kernelRegistry().pick(fusion, info);
    expect(scheduler).toBeInstanceOf(PointwiseScheduler);
    expect(analysis.counts).toEqual({ heuristics: 0, schedules: 0, bindings: 1 });
    const p = scheduler.computeHeuristics(fusion, info, analysis);
    expect(scheduler.computeHeuristics(fusion, info, analysis) === p).toBe(true);
    expect(analysis.counts.heuristics).toBe(1);
  });

  it('overrides apply at acceptance: a forced batch count that leaves too many threads per row is a refusal, not a compile error', () => {
    const fusion = softmaxFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [1024, 8192] }]);
    expect(new InnerPersistentScheduler().canSchedule(fusion, info)).toEqual({ ok: true });
    const forced = new InnerPersistentScheduler({ batches: 1 });
    const cache = new HeuristicDataCache(fusion, info);
    const r = forced.canSchedule(fusion, info, cache);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/1 batches leave 2048 threads per row/);
    // The failure is memoized: asking again computes nothing and throws the same reason.
    expect(() => forced.computeHeuristics(fusion, info, cache)).toThrow(/2048 threads per row/);
    expect(cache.counts.heuristics).toBe(1);
  });

  it('a cache answers only for its fusion and an equal runtime info', () => {
    const fusion = softmaxFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [64, 1000] }]);
    const cache = new HeuristicDataCache(fusion, info);
    // Identity compared directly: the matcher would print (and walk) a whole Fusion graph.
    const reused = (f: Fusion, ri: typeof info): boolean => HeuristicDataCache.for(f, ri, cache) === cache;
    expect(reused(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 1000] }]))).toBe(true);
    expect(reused(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 1001] }]))).toBe(false);
    expect(reused(fusion, makeRuntimeInfo(fusion, [{ sizes: [64, 1000], alignment: 4 }]))).toBe(false);
    expect(reused(softmaxFusion(), info)).toBe(false);
    expect(sameRuntimeInfo(info, { ...info, device: { ...info.device, smCount: 1 } })).toBe(false);
  });

  it('segmentation hands each group the analyses its acceptance made', () => {
    const fusion = softmaxFusion();
    const info = makeRuntimeInfo(fusion, [{ sizes: [256, 2048] }]);
    const [group] = segmentFusion(fusion, info, kernelRegistry()).groups;
    expect(group?.schedulerType).toBe('inner_persistent');
    expect(group?.analysis?.describes(group.fusion, info)).toBe(true);
    expect(group?.analysis?.counts).toEqual({ heuristics: 0, schedules: 0, bindings: 1 });
  });

  it('one extent binding per (fusion, runtime info): acceptance, heuristics and schedule of each scheduler read it', () => {
    const input = (f: Fusion): TensorView => {
      const tv = makeTensor(f, { shape: [-1, -1] });
      f.addInput(tv);
      return tv;
    };
    const cases: { type: string; sizes: number[]; build: (f: Fusion) => void }[] = [
      { type: 'pointwise', sizes: [64, 128], build: (f) => f.addOutput(mul(input(f), 2)) },
      { type: 'transpose', sizes: [512, 1024], build: (f) => f.addOutput(mul(permute(input(f), [1, 0]), 2)) },
      { type: 'reduction', sizes: [4096, 64], build: (f) => f.addOutput(sum(input(f), [0])) },
      { type: 'inner_persistent', sizes: [1024, 4096], build: (f) => f.addOutput(softmax(input(f), 1)) },
      { type: 'expr_eval', sizes: [64, 128], build: (f) => f.addOutput(permute(input(f), [1, 0])) },
    ];
    for (const c of cases) {
      const f = new Fusion();
      c.build(f);
      const info = makeRuntimeInfo(f, [{ sizes: c.sizes }]);
      const { scheduler, analysis } = kernelRegistry().pick(f, info);
      expect(scheduler.type, c.type).toBe(c.type);
      scheduler.computeHeuristics(f, info, analysis);
      if (segmentKindOf(scheduler.type) === 'kernel') analysis.scheduled(scheduler);
      expect(analysis.counts.bindings, `${c.type}: bindings made`).toBe(1);
    }
  });

  it('outside the cache, scheduler/src binds extents only where no cache exists (the segmenter without the caller\'s bindings, a default)', () => {
    const src = fileURLToPath(new URL('../src', import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
    const binding = files(src)
      .filter((p) => !/[/\\](matmul|attention)[/\\]/.test(p))
      .flatMap((p) =>
        readFileSync(p, 'utf8')
          .split('\n')
          .filter((line) => /\bbindExtents\s*\(/.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*'))
          .map((line) => `${p.slice(src.length + 1)}: ${line.trim().slice(0, 60)}`),
      );
    expect(binding).toEqual([
      'heuristic-data-cache.ts: return bindExtents(this.fusion, this.runtimeInfo);',
      'persistent/persistent-buffer.ts: export function persistentBufferBytes(fusion: Fusion, runtim',
      'runtime-info.ts: export function bindExtents(fusion: Fusion, info: RuntimeInf',
      'segmentation/segment-fusion.ts: this.bindings = bindings ?? bindExtents(fusion, info);',
    ]);
  });

  it('the can-schedule files compute no heuristics and schedule nothing', () => {
    for (const dir of ['inner-persistent', 'outer-persistent', 'inner-outer-persistent', 'pointwise', 'reduction', 'transpose', 'expr-eval']) {
      const source = readFileSync(fileURLToPath(new URL(`../src/${dir}/can-schedule.ts`, import.meta.url)), 'utf8');
      expect(source, dir).not.toMatch(/\bcompute\w*Heuristics\s*\(/);
      expect(source, dir).not.toMatch(/\bschedule(Pointwise|Reduction|Transpose|InnerPersistent|OuterPersistent|InnerOuterPersistent)\s*\(/);
      expect(source, dir).not.toMatch(/\.scheduled\(|scheduleRefusal\(/);
    }
  });
});
