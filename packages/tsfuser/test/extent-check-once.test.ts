// Input extents are checked once on the executor path (issue 32 step 6): FusionExecutorCache binds
// the inputs' extents (bindArguments) before segmentation and hands those bindings to the
// segmenter and the compile plan, which do not bind them again. Runs the real executor cache on
// the fake H100 (test/fake-device.ts: no kernels run).
import { Tensor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { defaultSchedulerRegistry, segmentationPlanner, type ExtentBindings, type Segmenter } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { fakeDevice } from './fake-device.js';
import { FIXTURES } from './helpers.js';

describe('input extents checked once on the executor path', () => {
  for (const file of ['softmax.py', 'layer_norm_backward.py']) {
    it(`${file}: the segmenter gets the executor's bindings of every symbolic input extent`, async () => {
      const { definition, inputs: specs } = await loadDefinition(file, FIXTURES);
      const inputs = planInputs(definition.inputs(), specs, { seed: 0, cwd: FIXTURES }).inputs;
      const seen: (ExtentBindings | undefined)[] = [];
      const plan = segmentationPlanner(defaultSchedulerRegistry());
      const segmenter: Segmenter = (fusion, info, bindings) => {
        seen.push(bindings);
        return plan(fusion, info, bindings);
      };
      const { device } = fakeDevice();
      const fusion = definition.fusionIr();
      const cache = new FusionExecutorCache(fusion, device, { concurrentSegments: false, segmenter });
      cache.runFusion(inputs);
      expect(seen.length).toBe(1);
      const bindings = seen[0];
      if (bindings === undefined) throw new Error(`${file}: the segmenter was given no bindings`);
      const ran = cache.lastPlan();
      if (ran === null) throw new Error(`${file}: no plan after runFusion`);
      let symbolic = 0;
      ran.fusion.inputs.forEach((v, i) => {
        const t = inputs[i];
        if (v.kind !== 'tensorView' || !(t instanceof Tensor)) return;
        v.domain.logicalNoReductions().forEach((id, d) => {
          const extent = id.logicalExtent();
          if (!bindings.has(extent)) return;
          symbolic += 1;
          expect(bindings.get(extent), `${file} input ${i} dim ${d}`).toBe(t.sizes[d]);
        });
      });
      expect(symbolic).toBeGreaterThan(0);
    });
  }
});
