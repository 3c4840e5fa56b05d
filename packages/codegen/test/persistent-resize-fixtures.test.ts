// Every persistent resize fixture (test-support persistent-resize-fixtures.ts): segmented with
// the default registry as the executor does (each names its segments: one inner_persistent
// kernel, or the boundary it documents), each kernel segment simulated against the reference
// evaluator on random inputs (seed printed); the vector width of the BFloat16 softmax over a
// pad and of a BFloat16 slice of the normalized row stored at its shifted index.
// persistent-resize-nvcc.test.ts compiles them with nvcc.
import { describe, expect, it } from 'vitest';
import { persistentResizeFixtures, sliceOfNormalizedRow, softmaxOverPad } from '@tsfuser/test-support';
import { baseSeed, checkViews, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

describe('persistent resize fixtures', () => {
  for (const [k, fx] of persistentResizeFixtures().entries()) {
    it(fx.name, () => {
      const inputs = fx.inputs(seeded(seed + k));
      const label = `${fx.name} (TSFUSER_SEED=${seed})`;
      const segments = segmentsWithInputs(fx.fusion, inputs);
      if (fx.segments !== '*') expect(segments.map((s) => s.type).join('+'), label).toBe(fx.segments);
      else expect(segments.length, label).toBeGreaterThan(1);
      for (const s of segments) {
        if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
        else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
      }
    });
  }

  it('the BFloat16 softmax over a pad of 8 reads and writes the row in vectors of 8', () => {
    const fx = softmaxOverPad('BFloat16', 6, 64);
    const sim = simulateAndCheck(fx.fusion, fx.inputs(seeded(seed)), fx.name);
    const p = sim.compiled.params;
    expect(p.schedulerType === 'inner_persistent' ? [p.unrollFactorInnerReduction, p.vectorizedInputs, p.vectorizedOutputs] : null).toEqual([8, [0], [0]]);
    expect(sim.compiled.source).toContain('loadGlobalToLocal<__bfloat, 8>');
  });

  it('a BFloat16 slice [8, 40) of the normalized row is stored in vectors of 8 at the shifted index, inside the slice only', () => {
    const fx = sliceOfNormalizedRow('BFloat16', 6, 64, 8, 40);
    const sim = simulateAndCheck(fx.fusion, fx.inputs(seeded(seed)), fx.name);
    const p = sim.compiled.params;
    expect(p.schedulerType === 'inner_persistent' ? [p.unrollFactorInnerReduction, p.vectorizedOutputs] : null).toEqual([8, [0]]);
    expect(sim.compiled.source).toMatch(/loadLocalToGlobal<__bfloat, 8>\(&T\d+\[blockIdx\.x \* T\d+\.alloc_stride\[0\] \+ \(threadIdx\.x \* 8 \+ r\d+ \* \(-1\)\)\]/);
  });

  it('layer_norm backward over a cat projects its buffers to the inputs where it can and still computes the same', () => {
    const fx = persistentResizeFixtures().find((x) => x.name === 'layer_norm_backward_over_cat_BFloat16');
    if (fx === undefined) throw new Error('fixture missing');
    const sim = simulateAndCheck(fx.fusion, fx.inputs(seeded(seed + 99)), fx.name);
    expect(sim.compiled.params.schedulerType === 'inner_outer_persistent' && sim.compiled.params.projectPersistentBuffers).toBe(true);
  });
});
