// Stride-ordered outputs (nvFuser's fd.ops.stride_order / add_output(…, stride_order=…)) through
// the pointwise scheduler, on the fixtures of @tsfuser/test-support's stride-order-fixtures.ts
// (also simulated in shape-ops-fixtures.test.ts and compiled in shape-ops-nvcc.test.ts): every
// output buffer is allocated as the runtime allocates it (dense in its allocation order) and
// poisoned; the simulated kernel must write every element through the permuted strides. Here:
// the strides themselves, which outputs take vectorized stores, and the other schedulers'
// refusal. Simulated against the reference evaluator (seed printed).
import { evaluate, type EvalValue, type Fusion, type HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry } from '@tsfuser/scheduler';
import { strideOrderFixtures, type ShapeOpsFixture } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { baseSeed, lowerWith, poisonedOutput, runtimeInfoOf, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

function fixture(name: string): ShapeOpsFixture {
  const fx = strideOrderFixtures().find((f) => f.name === name);
  if (fx === undefined) throw new Error(`no stride-order fixture ${name}`);
  return fx;
}

/** The strides the simulated kernel's outputs were allocated with (as the runtime would). */
function outputStrides(fusion: Fusion, inputs: readonly EvalValue[]): number[][] {
  const want = evaluate(fusion, inputs) as HostTensor[];
  return fusion.outputs.map((o, i) => [...poisonedOutput(o as TensorView, want[i] as HostTensor).strides]);
}

describe('stride-ordered outputs in pointwise kernels', () => {
  it('3-d outputs in three stride orders beside a plain one: written through the permuted strides', () => {
    const fx = fixture('stride_order_3d_three_orders');
    const inputs = fx.inputs(seeded(seed));
    simulateAndCheck(fx.fusion, inputs, label(fx.name));
    // stride_order[d] is dim d's rank (rank-1 = outermost): [0, 2, 1] puts dim 1 outermost, dim 0 innermost.
    expect(outputStrides(fx.fusion, inputs)).toEqual([
      [1, 5 * 129, 5],
      [129, 5 * 129, 1],
      [1, 5, 5 * 37],
      [37 * 129, 129, 1],
    ]);
  });

  it('vectorized stores only where the innermost logical dim stays innermost', () => {
    for (const dtype of ['Float', 'Half'] as const) {
      const transposed = fixture(`stride_order_transposed_${dtype}`);
      // Compiled only: shape-ops-fixtures.test.ts simulates these kernels.
      const a = lowerWith(transposed.fusion, runtimeInfoOf(transposed.fusion, transposed.inputs(seeded(seed + 1))));
      const kept = fixture(`stride_order_inner_kept_${dtype}`);
      const b = lowerWith(kept.fusion, runtimeInfoOf(kept.fusion, kept.inputs(seeded(seed + 2))));
      if (a.compiled.params.schedulerType !== 'pointwise' || b.compiled.params.schedulerType !== 'pointwise') throw new Error('expected pointwise kernels');
      // The transposed output's inner stride is 64: no wide stores (its input still takes wide loads).
      expect(a.compiled.params.vectorizedOutputs).toEqual([]);
      expect(a.compiled.params.vectorizedInputs).toEqual([0]);
      expect(b.compiled.params.vectorizationFactor).toBeGreaterThan(1);
      expect(b.compiled.params.vectorizedOutputs).toEqual([0]);
    }
  });

  it('the other schedulers refuse a stride-ordered output with one reason; segmentation gives it a pointwise segment', () => {
    const fx = fixture('stride_order_after_reduction');
    const inputs = fx.inputs(seeded(seed + 4));
    const picked = defaultSchedulerRegistry().tryPick(fx.fusion, runtimeInfoOf(fx.fusion, inputs));
    expect(picked.scheduler).toBeNull();
    const reasons = picked.rejected.map((x) => `${x.type}: ${x.reason}`).join('\n');
    expect(reasons).toMatch(/inner_persistent: output T\d+ has a stride order \(allocation order of dims \[1, 0\]\); the inner persistent scheduler does not write stride-ordered outputs yet \(only pointwise does\)/);
    const segments = segmentsWithInputs(fx.fusion, inputs);
    expect(segments.map((s) => s.type)).toEqual(['reduction', 'pointwise']);
    const last = segments[1] as { fusion: Fusion; inputs: EvalValue[] };
    simulateAndCheck(last.fusion, last.inputs, label('pointwise segment after the reduction'));
  });
});
