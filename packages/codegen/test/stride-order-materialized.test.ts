// Stride-ordered results of expressions only non-pointwise schedulers compute (a reduction, a
// reshape): the pre-segmentation pass materializeStrideOrders lets the expression write
// a plain tensor and adds a copy carrying the stride order, so the GPU path runs them as the
// expression's segment followed by a pointwise segment that writes the stride order. Each segment
// of the rewritten fusion is simulated against the reference evaluator (seed printed), and the
// rewritten fusion computes what the original does, in the original's output strides.
import { add, evaluate, Fusion, HostTensor, makeTensor, max, mul, reshape, setStrideOrder, sum, type EvalValue, type LoadStoreOp, type TensorView } from '@tsfuser/fusion-ir';
import { materializeStrideOrders, permutedAllocationOrder, pointwiseWritable } from '@tsfuser/scheduler';
import { randomTensor } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { baseSeed, seeded, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const label = (s: string): string => `${s} (TSFUSER_SEED=${seed})`;

interface Case {
  name: string;
  build: () => Fusion;
  inputs: (r: () => number) => EvalValue[];
  segments: string[];
}

const CASES: Case[] = [
  {
    name: 'sum over the last dim, output in [1, 0] order',
    build: () => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1, -1] });
      f.addInput(x);
      const s = sum(x, [2]);
      setStrideOrder(s, [0, 1]);
      f.addOutput(s);
      return f;
    },
    inputs: (r) => [randomTensor('Float', [24, 40, 33], r)],
    segments: ['reduction', 'pointwise'],
  },
  {
    name: 'max over the middle dim, stride-ordered, also read by a pointwise output',
    build: () => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1, -1] });
      f.addInput(x);
      const m = max(x, [1]);
      setStrideOrder(m, [0, 1]);
      f.addOutput(m);
      f.addOutput(mul(m, 2));
      return f;
    },
    inputs: (r) => [randomTensor('Float', [12, 70, 9], r)],
    segments: [],
  },
  {
    name: 'reshape result in [2, 0, 1] order',
    build: () => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [6, 20] });
      f.addInput(x);
      const y = reshape(add(x, 1), [2, 3, 20]);
      setStrideOrder(y, [0, 2, 1]);
      f.addOutput(y);
      return f;
    },
    inputs: (r) => [randomTensor('Float', [6, 20], r)],
    segments: [],
  },
];

describe('materializeStrideOrders', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const original = c.build();
      const inputs = c.inputs(seeded(seed));
      const rewritten = materializeStrideOrders(original);
      expect(rewritten).not.toBe(original);
      expect(rewritten.inputs).toHaveLength(original.inputs.length);
      expect(rewritten.outputs).toHaveLength(original.outputs.length);
      // Every stride-ordered tensor of the result is computed by a pointwise expression, and the
      // ones the original computed otherwise are now copies.
      for (const tv of rewritten.allTvs()) {
        if (permutedAllocationOrder(tv) === null || tv.definition === null) continue;
        expect(pointwiseWritable(tv.definition), `T${tv.name} (${tv.definition.kind})`).toBe(true);
      }
      const copies = rewritten.outputs.filter((o) => (o as TensorView).definition?.kind === 'LoadStoreOp' && ((o as TensorView).definition as LoadStoreOp).opType === 'Set');
      expect(copies.length).toBeGreaterThan(0);
      // Same values, same output strides (the reference allocates stride orders as the runtime does).
      const want = evaluate(original, inputs) as HostTensor[];
      const got = evaluate(rewritten, inputs) as HostTensor[];
      want.forEach((w, i) => {
        const g = got[i] as HostTensor;
        expect(g.strides, `output ${i}`).toEqual(w.strides);
        expect(g.toNumbers(), `output ${i}`).toEqual(w.toNumbers());
      });
      // The original is untouched: its stride-ordered outputs are still the non-pointwise results.
      expect(original.outputs.some((o) => permutedAllocationOrder(o as TensorView) !== null && (o as TensorView).definition?.kind !== 'LoadStoreOp')).toBe(true);
      // Every segment of the rewritten fusion compiles and its kernel matches the reference.
      const segments = segmentsWithInputs(rewritten, inputs);
      if (c.segments.length > 0) expect(segments.map((s) => s.type)).toEqual(c.segments);
      segments.forEach((s, k) => {
        if (s.type === 'expr_eval' || s.type === 'no_op') return;
        simulateAndCheck(s.fusion, s.inputs, label(`${c.name}: segment ${k} (${s.type})`));
      });
    });
  }

  it('returns the fusion itself when every stride order is on a pointwise result', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const y = mul(x, 2);
    setStrideOrder(y, [0, 1]);
    f.addOutput(y);
    expect(materializeStrideOrders(f)).toBe(f);
  });
});
