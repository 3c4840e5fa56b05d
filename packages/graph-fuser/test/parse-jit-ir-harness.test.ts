// The differential harness itself must catch wrong results: compare() rejects wrong values, dtypes,
// sizes and NaN/inf mismatches, and accepts differences within the dtype's tolerance.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { compare, generateInputs } from './helpers/differential.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';
import { makeRef } from './helpers/ref-tensor.js';

describe('differential harness', () => {
  const expected = makeRef('Float', [2, 2], [1, -2, Infinity, NaN]);

  it('accepts equal results and differences within tolerance', () => {
    expect(compare('o', HostTensor.fromValues('Float', [2, 2], [1, -2, Infinity, NaN]), expected)).toBeNull();
    expect(compare('o', HostTensor.fromValues('Float', [2, 2], [1 + 1e-6, -2, Infinity, NaN]), expected)).toBeNull();
  });

  it('rejects wrong values, NaN/inf mismatches, dtypes and sizes', () => {
    expect(compare('o', HostTensor.fromValues('Float', [2, 2], [1.001, -2, Infinity, NaN]), expected)).toMatch(/element 0 is 1\.00/);
    expect(compare('o', HostTensor.fromValues('Float', [2, 2], [1, -2, -Infinity, NaN]), expected)).toMatch(/element 2/);
    expect(compare('o', HostTensor.fromValues('Float', [2, 2], [1, -2, Infinity, 0]), expected)).toMatch(/element 3/);
    expect(compare('o', HostTensor.fromValues('Half', [2, 2], [1, -2, Infinity, NaN]), expected)).toMatch(/dtype Half, expected Float/);
    expect(compare('o', HostTensor.fromValues('Float', [4], [1, -2, Infinity, NaN]), expected)).toMatch(/sizes \[4\], expected \[2, 2\]/);
    expect(compare('o', 3, expected)).toMatch(/returned 3/);
  });

  it('draws fresh inputs each time, laid out with the strides of the type', () => {
    const g = graphOf([`%x : Float(2, 3, 4, strides=[12, 1, 3], requires_grad=0, device=cuda:0)`, `%y : ${T('Float', 3)}`], '%o : Tensor = aten::relu(%x)', ['o']);
    const a = generateInputs(g);
    const b = generateInputs(g);
    const [ta, tb] = [a.eval[0], b.eval[0]];
    if (!(ta instanceof HostTensor) || !(tb instanceof HostTensor)) throw new Error('expected tensors');
    expect(ta.strides).toEqual([12, 1, 3]);
    expect(ta.toNumbers()).not.toEqual(tb.toNumbers());
  });
});
