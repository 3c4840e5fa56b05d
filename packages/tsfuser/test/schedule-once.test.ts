// Schedule once (issues 18 and 32): the executor cache runs a compile plan whose kernel segments
// are made with the scheduler the segmentation chose and the heuristics computed once — nothing
// picks a scheduler again (no SchedulerRegistry.pick while the plan is built), and codegen's
// generateKernel takes a scheduled fusion and never computes heuristics. Runs the real
// FusionExecutorCache on the fake H100 (test/fake-device.ts: no kernels run).
import { compileFusion, generateKernel } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache, type CompilePlan } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, SchedulerRegistry } from '@tsfuser/scheduler';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

async function load(file: string) {
  const { definition, inputs } = await loadDefinition(file, FIXTURES);
  return { definition, inputs: planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('schedule once', () => {
  for (const file of ['softmax.py', 'issue785_gelu_bias_grad.py', 'layer_norm_backward.py', 'batch_norm_channels_last.py']) {
    it(`${file}: each kernel is made with the plan's scheduler and heuristics; nothing is picked while compiling`, async () => {
      const { definition, inputs } = await load(file);
      const pick = vi.spyOn(SchedulerRegistry.prototype, 'pick');
      const { device } = fakeDevice();
      const cache = new FusionExecutorCache(definition.fusionIr(), device, { concurrentSegments: false });
      cache.runFusion(inputs);
      // The segmentation chose every scheduler (tryPick); no kernel segment picks one again.
      expect(pick.mock.calls.length).toBe(0);
      const ran = cache.lastPlan();
      if (ran === null) throw new Error(`${file}: no plan after runFusion`);
      const kinds = (plan: CompilePlan): string[] => plan.segments.flatMap((s) => (s.kind === 'kernel' || s.kind === 'greedy' ? [s.scheduler.type] : []));
      const chosen = kinds(ran);
      expect(chosen).toEqual(ran.segmentation.groups.map((g) => g.schedulerType).filter((t) => t !== 'expr_eval' && t !== 'no_op'));
      expect(chosen).toEqual(kinds(compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET).compiled));
      expect(chosen.length).toBeGreaterThan(0);
      // Each kernel segment's kernel was generated from its scheduled fusion, scheduled with its params.
      for (const s of ran.segments) if (s.kind === 'kernel' || s.kind === 'greedy') expect(s.scheduled.params === s.params && s.kernel.params === s.params, file).toBe(true);
    });
  }

  it('generateKernel takes a scheduled fusion: same kernel as compileFusion, no heuristics computed; launch requirements from the kernel', async () => {
    const registry = defaultSchedulerRegistry();
    for (const [file, resident] of [['softmax.py', false], ['layer_norm_backward.py', true]] as const) {
      const { definition, inputs } = await load(file);
      const fusion = definition.fusionIr();
      const info = makeRuntimeInfo(fusion, inputs.map((t) => (t instanceof Tensor ? { sizes: t.sizes, strides: t.strides, alignment: 256 } : null)), H100_PROPERTIES);
      const whole = compileFusion(fusion, info, { registry });
      const { scheduler } = registry.pick(fusion, info);
      const params = scheduler.computeHeuristics(fusion, info);
      if (params.schedulerType === 'expr_eval' || params.schedulerType === 'no_op') throw new Error(`${file}: no kernel`);
      const scheduled = scheduler.schedule(fusion.clone().fusion, params);
      const heuristics = registry.schedulers.map((s) => vi.spyOn(Object.getPrototypeOf(s) as { computeHeuristics: () => unknown }, 'computeHeuristics'));
      const kernel = generateKernel(scheduled);
      expect(heuristics.reduce((n, spy) => n + spy.mock.calls.length, 0), file).toBe(0);
      expect(kernel.source).toBe(whole.source);
      expect(kernel.requirements).toEqual({ allBlocksResident: resident });
      vi.restoreAllMocks();
    }
  });
});
