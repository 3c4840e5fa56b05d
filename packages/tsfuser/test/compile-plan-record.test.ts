// One compile plan (issue 32): on the executor path every compiled segment's heuristics are
// computed once and its fusion scheduled once, for a fixture of each kernel scheduler; the
// dumps, --explain and fd.lastCudaCode after an execute read the plan that ran (no heuristics
// or schedule more) and equal what ran — for a multi-segment fusion and for a grid-synchronizing
// kernel rescheduled after the occupancy query; and the analyses lowering reads (exact maps,
// reshape index graph, resize index spaces) are built once per compiled segment, by the
// scheduler's final step, none more for the dumps. Runs the GPU backend's FusionExecutorCache on
// the fake H100 (test/fake-device.ts: kernels are compiled from their sources, not run).
import type { Fusion } from '@tsfuser/fusion-ir';
import { FusionExecutorCache, planKernels, type CompilePlan } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, HeuristicDataCache, fusionIrSegmentsToString, segmentKindOf, type Scheduler } from '@tsfuser/scheduler';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { explainSegments } from '../src/cli/explain.js';
import { targetCompilationOf } from '../src/dumps/compile-for-target.js';
import { renderDumps } from '../src/dumps/render-dumps.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import type { Backend, ExecuteInput } from '../src/execute/backend.js';
import { FusionCache, FusionDefinition, Tensor } from '../src/index.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

async function load(file: string): Promise<{ definition: FusionDefinition; inputs: ExecuteInput[] }> {
  const { definition, inputs } = await loadDefinition(file, FIXTURES);
  return { definition, inputs: planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs };
}

/** The GPU backend's path on the fake device: one FusionExecutorCache per fusion, the plan it ran handed on. */
function fakeGpuBackend(blocksPerSm?: number): Backend & { caches: Map<Fusion, FusionExecutorCache> } {
  const fake = fakeDevice(blocksPerSm === undefined ? {} : { blocksPerSm });
  const caches = new Map<Fusion, FusionExecutorCache>();
  return {
    name: 'gpu',
    caches,
    availability: () => ({ available: true }),
    run: (fusion, inputs, options) => {
      let cache = caches.get(fusion);
      if (cache === undefined) {
        cache = new FusionExecutorCache(fusion, fake.device, { concurrentSegments: false });
        caches.set(fusion, cache);
      }
      cache.setDumps(options.dump ?? new Set(), options.dumpSink);
      const outputs = cache.runFusion([...inputs]);
      const plan = cache.lastPlan();
      if (plan !== null) options.onPlan?.(plan);
      return Promise.resolve(outputs);
    },
  };
}

/**
 * Counts what is computed (not read from a cache): heuristics per generated-kernel scheduler
 * type, and schedules. (Library-call and attention segments are counted in
 * compile-plan-counts.test.ts; these tests are about kernels, their dumps and lowering.)
 */
function countWork(): { heuristics: Map<string, number>; schedules: Map<string, number>; total: () => number } {
  const heuristics = new Map<string, number>();
  const schedules = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  const original = HeuristicDataCache.prototype.heuristics;
  vi.spyOn(HeuristicDataCache.prototype, 'heuristics').mockImplementation(function (this: HeuristicDataCache, scheduler, compute) {
    return original.call(this, scheduler, () => {
      const kind = segmentKindOf(scheduler.type);
      if (kind === 'kernel' || kind === 'greedy') bump(heuristics, scheduler.type);
      return compute();
    });
  });
  for (const s of defaultSchedulerRegistry().schedulers) {
    const proto = Object.getPrototypeOf(s) as Scheduler;
    const schedule = proto.schedule;
    vi.spyOn(proto, 'schedule').mockImplementation(function (this: Scheduler, fusion, params) {
      bump(schedules, this.type);
      return schedule.call(this, fusion, params);
    });
  }
  const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
  return { heuristics, schedules, total: () => sum(heuristics) + sum(schedules) };
}

/** Kernel segments of a plan by scheduler type, counted. */
function kernelSegmentsByType(plan: CompilePlan): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of planKernels(plan)) m.set(s.scheduler.type, (m.get(s.scheduler.type) ?? 0) + 1);
  return m;
}

/**
 * Each kernel segment's lowering analyses (ScheduledFusion.analyses, made by the scheduler's final
 * step, read by lowering): built once each — one exact map (two with slice / pad / cat: through
 * them and not), one reshape index graph, index spaces only with resizes; a greedy kernel reads none.
 */
function expectAnalysesBuiltOnce(plan: CompilePlan, where: string): void {
  for (const s of planKernels(plan)) {
    const a = s.scheduled.analyses;
    const expected = s.kind === 'greedy' ? { exactMaps: 0, reshapeIndexGraphs: 0, indexSpaces: 0 } : { exactMaps: a.hasResize ? 2 : 1, reshapeIndexGraphs: 1, indexSpaces: a.hasResize ? 1 : 0 };
    expect({ ...a.counts }, `${where}: segment ${s.groupId} (${s.scheduler.type}) analyses built`).toEqual(expected);
  }
}

const FILES = ['softmax.py', 'issue785_gelu_bias_grad.py', 'layer_norm_backward.py', 'batch_norm_channels_last.py', 'rms_norm.py', 'embedding_lookup.py'];

describe('one compile plan', () => {
  for (const file of FILES) {
    it(`${file}: one heuristics computation and one schedule per compiled segment; none more for the dumps, --explain and lastCudaCode`, async () => {
      const { definition, inputs } = await load(file);
      const backend = fakeGpuBackend();
      const work = countWork();
      await definition.execute(inputs, { backend, dumpsFromEnvironment: false });
      const ran = definition.lastExecutedPlan();
      if (ran === null) throw new Error(`${file}: the fake GPU backend ran no plan`);
      const perType = kernelSegmentsByType(ran);
      expect(perType.size, file).toBeGreaterThan(0);
      expect(work.heuristics, `${file}: heuristics computed per scheduler`).toEqual(perType);
      expect(work.schedules, `${file}: schedules per scheduler`).toEqual(perType);
      const before = work.total();
      const dumped: string[] = [];
      renderDumps(targetCompilationOf(ran, DEFAULT_TARGET), definition.fusionIr(), inputs, new Set(['cuda_full', 'host_ir', 'scheduler_verbose', 'index_type']), (t) => void dumped.push(t));
      const explained = explainSegments(definition.fusionIr(), inputs, ran);
      const code = definition.lastCudaCode();
      expect(work.total(), `${file}: work after the execute`).toBe(before);
      expectAnalysesBuiltOnce(ran, file);
      expect(dumped.join('').length).toBeGreaterThan(0);
      expect(explained.startsWith(fusionIrSegmentsToString(ran.segmentation.segmented ?? (undefined as never)))).toBe(true);
      expect(code).toBe(planKernels(ran).map((s) => s.kernel.dumps.cuda).join(''));
    });
  }

  it('a transpose, a greedy (scan) and a pad fusion: one heuristics computation and one schedule each', async () => {
    const scan = FusionDefinition.build((fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: true });
      fd.addOutput(fd.ops.cumsum(x, 1));
    }, { cache: new FusionCache() });
    const transpose = FusionDefinition.build((fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: true });
      fd.addOutput(fd.ops.mul(fd.ops.permute(x, [1, 0]), 2.0));
    }, { cache: new FusionCache() });
    const padded = FusionDefinition.build((fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: true });
      fd.addOutput(fd.ops.add(fd.ops.pad(x, [1, 1]), 1.0));
    }, { cache: new FusionCache() });
    for (const [fd, input, type] of [
      [scan, Tensor.from(new Float32Array(64 * 128).fill(1), [64, 128], 'Float'), 'greedy'],
      [transpose, Tensor.from(new Float32Array(512 * 1024).fill(1), [512, 1024], 'Float'), 'transpose'],
      [padded, Tensor.from(new Float32Array(64 * 128).fill(1), [64, 128], 'Float'), 'pointwise'],
    ] as const) {
      const work = countWork();
      await fd.execute([input], { backend: fakeGpuBackend(), dumpsFromEnvironment: false });
      const ran = fd.lastExecutedPlan();
      if (ran === null) throw new Error(`${type}: no plan`);
      expect(kernelSegmentsByType(ran)).toEqual(new Map([[type, 1]]));
      expect(work.heuristics).toEqual(new Map([[type, 1]]));
      expect(work.schedules).toEqual(new Map([[type, 1]]));
      expect(fd.lastCudaCode().length).toBeGreaterThan(0);
      expectAnalysesBuiltOnce(ran, type);
      if (fd === padded) expect(planKernels(ran)[0]?.scheduled.analyses.hasResize).toBe(true);
      vi.restoreAllMocks();
    }
  });

  it('multi-segment: the dumps, --explain and lastCudaCode of an execute equal what the executor ran', async () => {
    const { definition, inputs } = await load('issue785_gelu_bias_grad.py');
    const backend = fakeGpuBackend();
    const printed: string[] = [];
    await definition.execute(inputs, { backend, dumpsFromEnvironment: false, dump: new Set(['fusion_ir_segments', 'cuda_kernel', 'cuda_full']), dumpSink: (t) => void printed.push(t) });
    const ran = definition.lastExecutedPlan();
    if (ran === null) throw new Error('no plan');
    const kernels = planKernels(ran).map((s) => s.kernel);
    expect(kernels.length).toBeGreaterThan(1);
    const text = printed.join('');
    // cuda_kernel is printed by the executor as it compiles, cuda_full rendered from the plan: both are the plan's kernels.
    for (const k of kernels) {
      expect(text).toContain(k.dumps.cuda);
      expect(text).toContain(k.source);
    }
    expect(definition.lastCudaCode({ intrinsicCode: true })).toBe(kernels.map((k) => k.source).join(''));
    expect(definition.lastScheduledFusionIr()).toBe(kernels.map((k) => k.dumps.fusionIr).join(''));
    // The executor printed fusion_ir_segments for the segmentation --explain now reads.
    const explained = explainSegments(definition.fusionIr(), inputs, ran);
    const segments = ran.segmentation.dumps?.fusionIrSegments ?? '';
    expect(segments.length).toBeGreaterThan(0);
    expect(text).toContain(segments);
    expect(explained.startsWith(segments)).toBe(true);
  });

  it('occupancy rescheduling: the plan that ran holds the rescheduled kernel, and the dumps and lastCudaCode show it', async () => {
    const { definition } = await load('layer_norm_backward.py');
    // 4096 rows: a grid of more blocks than SMs, so the driver's answer of one block per SM (fewer
    // than the heuristics' estimate) has the kernel planned again.
    const rows = 4096;
    const bf16 = (n: number): Uint16Array => new Uint16Array(n).fill(0x3f80);
    const inputs: ExecuteInput[] = [
      Tensor.from(bf16(rows * 1024), [rows, 1024], 'BFloat16'),
      Tensor.from(bf16(rows * 1024), [rows, 1024], 'BFloat16'),
      Tensor.from(new Float32Array(rows), [rows], 'Float'),
      Tensor.from(new Float32Array(rows).fill(1), [rows], 'Float'),
      Tensor.from(bf16(1024), [1024], 'BFloat16'),
    ];
    const backend = fakeGpuBackend(1);
    const work = countWork();
    await definition.execute(inputs, { backend, dumpsFromEnvironment: false });
    const ran = definition.lastExecutedPlan();
    if (ran === null) throw new Error('no plan');
    const [segment] = planKernels(ran);
    if (segment === undefined || segment.kind !== 'kernel' || segment.params.schedulerType !== 'inner_outer_persistent') throw new Error('expected one inner-outer persistent kernel');
    expect(segment.params.blocksPerSm).toBe(1);
    expect(segment.grid[0]).toBeLessThanOrEqual(132);
    // Planned twice (the estimate, then the driver's occupancy): two computations, two schedules, no more.
    expect(work.heuristics).toEqual(new Map([['inner_outer_persistent', 2]]));
    expect(work.schedules).toEqual(new Map([['inner_outer_persistent', 2]]));
    const before = work.total();
    expect(definition.lastCudaCode()).toBe(segment.kernel.dumps.cuda);
    const dumped: string[] = [];
    renderDumps(targetCompilationOf(ran, DEFAULT_TARGET), definition.fusionIr(), inputs, new Set(['launch_param', 'host_ir']), (t) => void dumped.push(t));
    expect(dumped.join('')).toContain(segment.kernel.dumps.launchParams);
    expect(work.total()).toBe(before);
    // The rescheduled kernel's scheduled fusion was lowered once; the dumps built nothing more.
    expectAnalysesBuiltOnce(ran, 'rescheduled');
  });
});
