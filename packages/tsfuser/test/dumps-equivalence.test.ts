// The compile-side dumps made without a GPU (reference backend, sm_90, an H100's properties) are
// what the GPU path compiles: FusionExecutorCache — the GPU backend's executor — runs on a fake
// H100 (test/fake-device.ts: real segmentation, heuristics, lowering, CUDA and launch planning;
// no kernels run) and prints its own dumps; both must be the same text, and the target's launch
// plan must launch the same kernels with the same grids, blocks and shared memory. A one-kernel
// fusion's dumps are also codegen's compileFusion output for the same inputs.
import { compileFusion } from '@tsfuser/codegen';
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { H100_PROPERTIES, makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

const EXECUTOR_PRINTED = ['fusion_ir_presched', 'segmented_fusion', 'fusion_ir_segments', 'scheduler_params', 'fusion_ir', 'fusion_ir_math', 'kernel_ir', 'cuda_kernel', 'launch_param'];

// Inner persistent (one kernel), reduction + pointwise (two segments), inner-outer persistent
// (grid-synchronizing, zeroed work buffers), outer persistent.
const FIXTURE_FILES = ['softmax.py', 'issue785_gelu_bias_grad.py', 'layer_norm_backward.py', 'batch_norm_channels_last.py'];

async function load(file: string) {
  const { definition, inputs } = await loadDefinition(file, FIXTURES);
  const plan = planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES });
  return { definition, inputs: plan.inputs };
}

describe('compile-side dumps without a GPU equal the GPU path for an H100', () => {
  it("a single-kernel fusion's cuda_kernel and scheduler_params are codegen's compileFusion for the same inputs", async () => {
    const { definition, inputs } = await load('softmax.py');
    const fusion = definition.fusionIr();
    const sizes = inputs.map((t) => (t instanceof Tensor ? { sizes: t.sizes, strides: t.strides, alignment: 256 } : null));
    const k = compileFusion(fusion, makeRuntimeInfo(fusion, sizes, H100_PROPERTIES));
    await definition.execute(inputs, { backend: 'reference', dump: new Set(['cuda_kernel', 'scheduler_params']), captureDebugOutput: true });
    expect(definition.debugOutput()).toBe(k.dumps.schedulerParams + k.dumps.cuda);
  });

  for (const file of FIXTURE_FILES) {
    it(file, async () => {
      const { definition, inputs } = await load(file);
      for (const name of EXECUTOR_PRINTED) {
        const gpuText: string[] = [];
        const { device } = fakeDevice();
        new FusionExecutorCache(definition.fusionIr(), device, { dump: new Set([name]), dumpSink: (t) => void gpuText.push(t) }).runFusion(inputs);
        await definition.execute(inputs, { backend: 'reference', dump: new Set([name]), captureDebugOutput: true });
        expect(definition.debugOutput(), `${file}: ${name}`).toBe(gpuText.join(''));
        expect(gpuText.join('').length, `${file}: ${name} is empty`).toBeGreaterThan(0);
      }
    });
  }

  for (const file of FIXTURE_FILES) {
    it(`${file}: the same launches`, async () => {
      const { definition, inputs } = await load(file);
      const fake = fakeDevice();
      new FusionExecutorCache(definition.fusionIr(), fake.device, { concurrentSegments: false }).runFusion(inputs);
      const target = compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET);
      const planned = target.plan.steps
        .filter((s) => s.grid.every((g) => g > 0))
        .map((s) => ({ kernel: s.kernel.kernelName, grid: s.grid, block: [...s.kernel.launch.block], sharedBytes: s.kernel.launch.sharedMemBytes }));
      expect(planned).toEqual(fake.launches);
      // And the CUDA NVRTC would compile is the full source of each planned kernel.
      expect(target.plan.steps.map((s) => fake.sources.get(`${s.kernel.kernelName}.cu`))).toEqual(target.plan.steps.map((s) => s.kernel.source));
    });
  }
});
