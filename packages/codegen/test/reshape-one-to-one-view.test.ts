// A one-dim to one-dim reshape ([i0] → [12]: the extents equal only at run time) before a
// reduction, with size-1 dims around it: the loops propagate through its logical ID as through a
// copy (fusion-ir propagator.ts), so every tensor before it is inlined with the reduction input.
// It failed to lower before ("not inlined past loop position 1 … no static size"; codegen
// reshape-random seed 1556255735). Simulated against the reference evaluator, random inputs.
import { describe, expect, it } from 'vitest';
import { abs, Fusion, makeTensor, reshape, size, sum, type TensorView } from '@tsfuser/fusion-ir';
import { baseSeed, randomTensor, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

function fusionOf(build: (x: TensorView) => TensorView): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addOutput(build(x));
  return f;
}

describe('one-dim to one-dim reshapes before a reduction', () => {
  const seed = baseSeed();
  const cases: [string, Fusion][] = [
    ['[1,1,12] → [i0,1,1] → [-1,6], sum all', fusionOf((x) => sum(reshape(reshape(abs(reshape(x, [1, 1, 12])), [size(x, 0), 1, 1]), [-1, 6]), [0, 1]))],
    ['[12] → [i0] → [-1,6], sum dim 1', fusionOf((x) => sum(reshape(reshape(abs(reshape(x, [12])), [size(x, 0)]), [-1, 6]), [1]))],
    ['[1,12] → [i0,1] → [-1], sum', fusionOf((x) => sum(reshape(reshape(abs(reshape(x, [1, 12])), [size(x, 0), 1]), [-1]), [0]))],
  ];
  for (const [name, fusion] of cases) {
    it(`${name}: one reduction kernel, simulated (seed ${seed})`, () => {
      const inputs = [randomTensor('Float', [12], seeded(seed))];
      const segments = segmentsWithInputs(fusion, inputs);
      expect(segments.map((s) => s.type)).toEqual(['reduction']);
      for (const s of segments) simulateAndCheck(s.fusion, s.inputs, `${name} seed ${seed}`);
    });
  }
});
