// The kernel simulator's vector check: a global LoadStore of `width` elements must start at a
// multiple of `width` and end inside its tensor, as one vector load or store on the GPU must
// (the simulator runs the lanes one by one, which alone would hide a misaligned vector). A
// vectorized pointwise kernel simulates as is, and fails by name once one of its vector loads is
// shifted by one element.
import { describe, expect, it } from 'vitest';
import { add, evaluate, Fusion, HostTensor, makeTensor } from '@tsfuser/fusion-ir';
import { iadd, iconst } from '../src/kernel-ir/index-expr.js';
import { mapLeaves } from '../src/kernel-ir/walk.js';
import type { Kernel } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { lowerWith, poisonedOutput, randomTensor, seeded } from './shape-ops-simulation.js';

function vectorizedAdd() {
  const fusion = new Fusion();
  const [a, b] = [0, 1].map(() => {
    const t = makeTensor(fusion, { shape: [-1, -1], dtype: 'Float' });
    fusion.addInput(t);
    return t;
  });
  fusion.addOutput(add(a!, b!));
  const r = seeded(3);
  const inputs = [randomTensor('Float', [128, 256], r), randomTensor('Float', [128, 256], r)];
  // Aligned device pointers, as the runtime's allocations are: the scheduler may vectorize.
  const sim = lowerWith(fusion, makeRuntimeInfo(fusion, inputs.map((t) => ({ sizes: t.sizes, strides: t.strides, alignment: 256 }))));
  const run = (kernel: Kernel): HostTensor => {
    const out = poisonedOutput(fusion.outputs[0] as never, evaluate(fusion, inputs)[0] as HostTensor);
    return simulateKernel(kernel, sim.compiled.launch, [...inputs, out])[2] as HostTensor;
  };
  return { sim, run, want: evaluate(fusion, inputs)[0] as HostTensor };
}

describe('kernel simulator: vector accesses', () => {
  it('simulates an aligned vectorized kernel and refuses one whose vector load is shifted by an element', () => {
    const { sim, run, want } = vectorizedAdd();
    let widest = 1;
    mapLeaves(sim.kernel.body, (s) => {
      if (s.kind === 'LoadStore') widest = Math.max(widest, s.width);
      return s;
    });
    expect(widest, 'the add of two [128, 256] f32 tensors is vectorized').toBeGreaterThan(1);
    expect(Array.from(run(sim.kernel).toNumbers())).toEqual(Array.from(want.toNumbers()));
    let shifted = false;
    const body = mapLeaves(sim.kernel.body, (s) => {
      if (s.kind !== 'LoadStore' || s.width === 1 || s.in.memory !== 'Global' || shifted) return s;
      shifted = true;
      return { ...s, in: { ...s.in, index: iadd(s.in.index, iconst(1)) } };
    });
    expect(shifted).toBe(true);
    expect(() => run({ ...sim.kernel, body })).toThrow(/simulator: vector access of \d+ at T\d+\[\d+\] is not aligned to its width/);
  });
});
