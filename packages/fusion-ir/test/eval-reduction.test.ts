import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { Fusion, HostTensor, evaluate, makeTensor } from '../src/index.js';
import { close, randomTensor } from './eval-helpers.js';

function reduce(f: (t: ops.TensorView) => ops.TensorView, x: HostTensor): HostTensor {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: x.sizes.map(() => -1), dtype: x.dtype });
  fusion.addInput(t0);
  fusion.addOutput(f(t0));
  return evaluate(fusion, [x])[0] as HostTensor;
}

describe('reference evaluator: reductions', () => {
  it('sum over [0, 1] of a 3-d tensor', () => {
    const x = randomTensor('Double', [3, 4, 5], false);
    const y = reduce((t) => ops.sum(t, [0, 1]), x);
    expect(y.sizes).toEqual([5]);
    for (let k = 0; k < 5; k += 1) {
      let s = 0;
      for (let i = 0; i < 12; i += 1) s += x.getNumber(i * 5 + k);
      expect(close(y.getNumber(k), s, 'Double')).toBe(true);
    }
  });

  it('max propagates NaN, keepdim keeps the rank, size-0 dims give the init value', () => {
    const x = HostTensor.fromValues('Float', [2, 3], [1, NaN, 3, 4, 5, 6]);
    expect(reduce((t) => ops.max(t, [1]), x).toNumbers()).toEqual([NaN, 6]);
    const k = reduce((t) => ops.max(t, [1], true), x);
    expect(k.sizes).toEqual([2, 1]);
    const empty = HostTensor.empty('Float', [2, 0]);
    expect(reduce((t) => ops.sum(t, [1]), empty).toNumbers()).toEqual([0, 0]);
    expect(reduce((t) => ops.max(t, [1]), empty).toNumbers()).toEqual([-Infinity, -Infinity]);
  });

  it('integral sum accumulates in Int (int64)', () => {
    const x = HostTensor.fromValues('Int32', [3], [2147483647, 2147483647, 2]);
    const y = reduce((t) => ops.sum(t, [0]), x);
    expect(y.dtype).toBe('Int');
    expect(y.get(0)).toBe(4294967296n);
  });

  it('random prod and min against a direct loop', () => {
    const x = randomTensor('Float', [6, 7]);
    const p = reduce((t) => ops.prod(t, [0]), x);
    const m = reduce((t) => ops.min(t, [1]), x);
    for (let j = 0; j < 7; j += 1) {
      let acc = 1;
      for (let i = 0; i < 6; i += 1) acc *= x.getNumber(i * 7 + j);
      expect(close(p.getNumber(j), Math.fround(acc), 'Float')).toBe(true);
    }
    for (let i = 0; i < 6; i += 1) {
      const row = x.toNumbers().slice(i * 7, i * 7 + 7);
      const want = row.some(Number.isNaN) ? NaN : Math.min(...row);
      expect(close(m.getNumber(i), want, 'Float')).toBe(true);
    }
  });
});
