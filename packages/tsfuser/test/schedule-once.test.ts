// Schedule once (issue 18): the executor cache makes each kernel with the scheduler the
// segmentation plan chose and the heuristics it computed once — FusionExecutor.compile gets that
// choice and picks nothing itself (no SchedulerRegistry.pick while it compiles), and codegen's
// generateKernel takes a scheduled fusion and never computes heuristics. Runs the real
// FusionExecutorCache on the fake H100 (test/fake-device.ts: no kernels run).
import { compileFusion, generateKernel } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { FusionExecutor, FusionExecutorCache } from '@tsfuser/runtime';
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
      const original = FusionExecutor.compile.bind(FusionExecutor);
      const pick = vi.spyOn(SchedulerRegistry.prototype, 'pick');
      const chosen: string[] = [];
      let picksWhileCompiling = 0;
      vi.spyOn(FusionExecutor, 'compile').mockImplementation((device, fusion, info, options = {}) => {
        expect(options.choice, `${file}: FusionExecutor.compile without the plan's choice`).toBeDefined();
        chosen.push(options.choice?.scheduler.type ?? 'none');
        const before = pick.mock.calls.length;
        const executor = original(device, fusion, info, options);
        picksWhileCompiling += pick.mock.calls.length - before;
        return executor;
      });
      const { device } = fakeDevice();
      new FusionExecutorCache(definition.fusionIr(), device, { concurrentSegments: false }).runFusion(inputs);
      const planned = compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET).plan.groups.map((g) => g.schedulerType).filter((t) => t !== 'expr_eval' && t !== 'no_op');
      expect(chosen).toEqual(planned);
      expect(chosen.length).toBeGreaterThan(0);
      expect(picksWhileCompiling).toBe(0);
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
