import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { EvaluationError, Fusion, HostTensor, evaluate, makeTensor } from '../src/index.js';
import { inputLike, randomTensor, runFusion } from './eval-helpers.js';

describe('evaluator inputs', () => {
  it('an extent shared by two inputs must agree: the error names input, tensor, dim and both sizes', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1] });
    fusion.addInput(t0);
    const extents = t0.domain.logical.map((id) => id.extent);
    // a second input that reuses t0's extents
    const t2 = fusion.newTensorFromDomain(extents.map((e) => fusion.newIterDomain(e, 'Iteration')), 'Float');
    fusion.addInput(t2);
    fusion.addOutput(ops.add(t0, t2));
    const a = randomTensor('Float', [2, 3]);
    expect(evaluate(fusion, [a, randomTensor('Float', [2, 3])])).toHaveLength(1);
    expect(() => evaluate(fusion, [a, randomTensor('Float', [2, 4])])).toThrow(
      /input 1 \(T\d+\): dim 1 has size 4 but its extent i\d+ is 3 from input 0 \(T0\) dim 1/,
    );
  });

  it('operands whose sizes do not broadcast are an error, not a silent misread', () => {
    const x = randomTensor('Float', [2, 3]);
    const y = randomTensor('Float', [2, 4]);
    expect(() => runFusion((f) => f.addOutput(ops.add(inputLike(f, x), inputLike(f, y))), [x, y])).toThrow(/do not broadcast/);
  });

  it('strided, offset and stride-0 (expanded) inputs read the right elements', () => {
    const base = randomTensor('Float', [40]);
    const strided = new HostTensor('Float', [3, 4], [1, 9], base.data, 2); // column-major-ish with offset
    const expanded = new HostTensor('Float', [3, 4], [1, 0], base.data, 5); // stride 0 along dim 1
    const [y] = runFusion((f) => f.addOutput(ops.mul(inputLike(f, strided), inputLike(f, expanded))), [strided, expanded]) as [HostTensor];
    const b = base.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const r = Math.floor(i / 4);
      const c = i % 4;
      expect(Object.is(v, Math.fround((b[2 + r + 9 * c] as number) * (b[5 + r] as number)))).toBe(true);
    });
  });

  it('size-1 broadcast inputs and rank-0 tensors', () => {
    const row = randomTensor('Double', [1, 5]);
    const col = randomTensor('Double', [4, 1]);
    const scalarTensor = HostTensor.fromValues('Double', [], [2.5]);
    const [y] = runFusion((f) => {
      const s = inputLike(f, scalarTensor);
      f.addOutput(ops.mul(ops.add(inputLike(f, row, true), inputLike(f, col, true)), s));
    }, [scalarTensor, row, col]) as [HostTensor];
    expect(y.sizes).toEqual([4, 5]);
    const r = row.toNumbers();
    const c = col.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const want = ((r[i % 5] as number) + (c[Math.floor(i / 5)] as number)) * 2.5;
      expect(Number.isNaN(want) ? Number.isNaN(v) : v === want).toBe(true);
    });
  });

  it('scalar inputs, scalar expressions and scalar outputs', () => {
    const x = randomTensor('Float', [3, 8], false);
    const outs = runFusion((f) => {
      const t = inputLike(f, x);
      const alpha = f.newSymbolicScalar('Double');
      const k = f.newSymbolicScalar('Int');
      f.addInput(alpha);
      f.addInput(k);
      f.addOutput(ops.mul(t, alpha));
      f.addOutput(ops.add(ops.mul(k, 3), 1) as ops.Scalar);
      const extent = t.domain.logical[1]?.extent as ops.Scalar;
      f.addOutput(ops.binaryOp('ceilDiv', extent, f.index(3)));
      f.addOutput(ops.cast(alpha, 'Int32'));
    }, [x, 1.5, 4n]);
    const y = outs[0] as HostTensor;
    x.toNumbers().forEach((v, i) => expect(y.getNumber(i)).toBe(Math.fround(v * 1.5)));
    expect(outs.slice(1)).toEqual([13n, 3n, 1n]);
  });

  it('wrong input count, kind, dtype or storage are errors', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1] });
    fusion.addInput(t0);
    fusion.addOutput(ops.neg(t0));
    expect(() => evaluate(fusion, [])).toThrow(/1 inputs but 0/);
    expect(() => evaluate(fusion, [3])).toThrow(/must be a tensor/);
    expect(() => evaluate(fusion, [randomTensor('Half', [3])])).toThrow(/expected dtype Float, got Half/);
    expect(() => evaluate(fusion, [new HostTensor('Float', [5], [2], new Float32Array(6))])).toThrow(EvaluationError);
  });

  // Large inputs are evaluated element by element without a per-element allocation; the time this
  // takes is a benchmark's question, not a unit test's (no timing is asserted here).
  it('evaluates 4 M elements per op: spot values against a direct loop', () => {
    const x = HostTensor.empty('Float', [8, 128, 64, 64]);
    const d = x.data as Float32Array;
    for (let i = 0; i < d.length; i += 1) d[i] = Math.random() - 0.5;
    const [y] = runFusion((f) => {
      const a = inputLike(f, x);
      f.addOutput(ops.sum(ops.mul(ops.relu(a), a), [1]));
    }, [x]) as [HostTensor];
    expect(y.sizes).toEqual([8, 64, 64]);
    const out = y.data as Float32Array;
    for (const [n, h, w] of [[0, 0, 0], [3, 17, 63], [7, 63, 5]] as const) {
      let expected = 0;
      for (let c = 0; c < 128; c += 1) {
        const v = d[((n * 128 + c) * 64 + h) * 64 + w] as number;
        expected += Math.fround(Math.max(v, 0) * v);
      }
      expect(out[(n * 64 + h) * 64 + w]).toBeCloseTo(expected, 4);
    }
  });
});
