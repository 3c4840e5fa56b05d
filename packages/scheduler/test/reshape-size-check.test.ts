// bindExtents checks a reshape's sizes against its input once the inputs are known: a symbolic
// request whose product is not the input's element count is refused with PyTorch's wording
// (the split-derived output extents would otherwise round it to another shape silently).
import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor, mul, reshape, size } from '@tsfuser/fusion-ir';
import { bindExtents, makeRuntimeInfo, tensorSizes } from '../src/index.js';

describe('reshape sizes at bind time', () => {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  const y = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addInput(y);
  const out = mul(reshape(y, [size(x, 0), size(x, 1)]), 2);
  f.addOutput(out);

  it('binds a reshape whose sizes hold the input', () => {
    const b = bindExtents(f, makeRuntimeInfo(f, [{ sizes: [3, 5] }, { sizes: [15] }]));
    expect(tensorSizes(out, b)).toEqual([3, 5]);
  });

  it('refuses one whose sizes do not, naming the reshape and both counts', () => {
    expect(() => bindExtents(f, makeRuntimeInfo(f, [{ sizes: [22, 15] }, { sizes: [15] }]))).toThrow(/reshape producing T\d+: shape \[22, 15\] is invalid for input of size 15/);
  });
});
