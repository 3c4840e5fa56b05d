import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { EvaluationError, Fusion, HostTensor, evaluate, makeTensor, roundToHalf } from '../src/index.js';
import { close, randomTensor } from './eval-helpers.js';

function runUnary(f: (t: ops.TensorView) => ops.TensorView, input: HostTensor): HostTensor {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: input.sizes.map(() => -1), dtype: input.dtype });
  fusion.addInput(t0);
  fusion.addOutput(f(t0));
  return evaluate(fusion, [input])[0] as HostTensor;
}

const FLOAT_UNARY: [string, (t: ops.TensorView) => ops.TensorView, (x: number) => number][] = [
  ['exp', ops.exp, Math.exp],
  ['log', ops.log, Math.log],
  ['sin', ops.sin, Math.sin],
  ['tanh', ops.tanh, Math.tanh],
  ['sqrt', ops.sqrt, Math.sqrt],
  ['rsqrt', ops.rsqrt, (x) => 1 / Math.sqrt(x)],
  ['abs', ops.abs, Math.abs],
  ['neg', ops.neg, (x) => -x],
  ['reciprocal', ops.reciprocal, (x) => 1 / x],
  ['sigmoid', ops.sigmoid, (x) => 1 / (1 + Math.exp(-x))],
  ['relu', ops.relu, (x) => (Number.isNaN(x) ? x : Math.max(x, 0))],
  ['silu', ops.silu, (x) => x / (1 + Math.exp(-x))],
  ['floor', ops.floor, Math.floor],
  ['trunc', ops.trunc, Math.trunc],
  ['log1p', ops.log1p, Math.log1p],
  ['expm1', ops.expm1, Math.expm1],
];

describe('reference evaluator: unary float ops', () => {
  for (const dtype of ['Float', 'Double', 'Half', 'BFloat16'] as const) {
    for (const [name, op, ref] of FLOAT_UNARY) {
      it(`${name} ${dtype}`, () => {
        const x = randomTensor(dtype, [3, 17]);
        const y = runUnary(op, x);
        expect(y.dtype).toBe(dtype);
        const xs = x.toNumbers();
        const ys = y.toNumbers();
        xs.forEach((v, i) => {
          const want = ref(v);
          if (!close(ys[i] as number, want, dtype)) throw new Error(`${name}(${v}) = ${ys[i]}, want ${want}`);
        });
      });
    }
  }

  it('erf, erfc, erfinv and lgamma match known values', () => {
    const x = HostTensor.fromValues('Double', [5], [0, 0.5, -1, 2, 3.5]);
    const erf = runUnary(ops.erf, x).toNumbers();
    [0, 0.5204998778130465, -0.8427007929497149, 0.9953222650189527, 0.9999992569016276].forEach((w, i) =>
      expect(erf[i]).toBeCloseTo(w, 14));
    const erfc = runUnary(ops.erfc, x).toNumbers();
    expect(erfc[4]).toBeCloseTo(7.430983723414128e-7, 18);
    const inv = runUnary(ops.erfinv, HostTensor.fromValues('Double', [3], [0.5, -0.9, 0.999])).toNumbers();
    [0.4769362762044699, -1.1630871536766743, 2.3267537655135246].forEach((w, i) => expect(inv[i]).toBeCloseTo(w, 12));
    const lg = runUnary(ops.lgamma, HostTensor.fromValues('Double', [4], [0.5, 1, 10, -2.5])).toNumbers();
    [Math.log(Math.sqrt(Math.PI)), 0, Math.log(362880), -0.05624371649767405].forEach((w, i) => expect(lg[i]).toBeCloseTo(w, 12));
  });

  it('integral input to float math computes in Float', () => {
    const x = randomTensor('Int32', [10], false);
    const y = runUnary(ops.exp, x);
    expect(y.dtype).toBe('Float');
    x.toNumbers().forEach((v, i) => expect(close(y.getNumber(i), Math.fround(Math.exp(v)), 'Float')).toBe(true));
  });

  it('predicates on NaN/inf/-0', () => {
    const x = HostTensor.fromValues('Float', [5], [NaN, Infinity, -Infinity, -0, 1]);
    expect(runUnary(ops.isnan, x).toNumbers()).toEqual([1, 0, 0, 0, 0]);
    expect(runUnary(ops.isinf, x).toNumbers()).toEqual([0, 1, 1, 0, 0]);
    expect(runUnary(ops.isfinite, x).toNumbers()).toEqual([0, 0, 0, 1, 1]);
    expect(runUnary(ops.signbit, x).toNumbers()).toEqual([0, 0, 1, 1, 0]);
  });
});

function runBinary(f: (a: ops.TensorView, b: ops.TensorView) => ops.TensorView, a: HostTensor, b: HostTensor): HostTensor {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: a.sizes.map((s) => (s === 1 ? 1 : -1)), dtype: a.dtype });
  const t1 = makeTensor(fusion, { shape: b.sizes.map((s) => (s === 1 ? 1 : -1)), dtype: b.dtype });
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(f(t0, t1));
  return evaluate(fusion, [a, b])[0] as HostTensor;
}

describe('reference evaluator: binary ops', () => {
  it('float arithmetic with broadcasting and NaN-propagating maximum', () => {
    const a = randomTensor('Float', [4, 1]);
    const b = randomTensor('Float', [4, 6]);
    const add = runBinary(ops.add, a, b);
    const mx = runBinary(ops.maximum, a, b);
    for (let i = 0; i < 4; i += 1) {
      for (let j = 0; j < 6; j += 1) {
        const x = a.getNumber(i);
        const y = b.getNumber(i * 6 + j);
        expect(close(add.getNumber(i * 6 + j), Math.fround(x + y), 'Float')).toBe(true);
        const want = Number.isNaN(x) || Number.isNaN(y) ? NaN : Math.max(x, y);
        expect(close(mx.getNumber(i * 6 + j), want, 'Float')).toBe(true);
      }
    }
  });

  it('integer div truncates, floordiv floors, remainder follows the divisor, fmod the dividend', () => {
    const a = HostTensor.fromValues('Int', [4], [7n, -7n, 7n, -7n]);
    const b = HostTensor.fromValues('Int', [4], [2n, 2n, -2n, -2n]);
    expect(runBinary(ops.div, a, b).toNumbers()).toEqual([3, -3, -3, 3]);
    expect(runBinary(ops.floordiv, a, b).toNumbers()).toEqual([3, -4, -4, 3]);
    expect(runBinary(ops.remainder, a, b).toNumbers()).toEqual([1, 1, -1, -1]);
    expect(runBinary(ops.fmod, a, b).toNumbers()).toEqual([1, -1, 1, -1]);
    expect(runBinary(ops.truediv, a, b).toNumbers()).toEqual([3.5, -3.5, -3.5, 3.5]);
  });

  it('Int32 wraps on overflow and integer division by zero is an error', () => {
    const a = HostTensor.fromValues('Int32', [2], [2147483647, -2147483648]);
    const b = HostTensor.fromValues('Int32', [2], [1, -1]);
    expect(runBinary(ops.add, a, b).toNumbers()).toEqual([-2147483648, -2147483649 + 2 ** 32]);
    const z = HostTensor.fromValues('Int32', [2], [1, 0]);
    expect(() => runBinary(ops.div, a, z)).toThrow(EvaluationError);
  });

  it('comparisons with NaN', () => {
    const a = HostTensor.fromValues('Float', [3], [NaN, 1, 2]);
    const b = HostTensor.fromValues('Float', [3], [NaN, 1, 3]);
    expect(runBinary(ops.eq, a, b).toNumbers()).toEqual([0, 1, 0]);
    expect(runBinary(ops.ne, a, b).toNumbers()).toEqual([1, 0, 1]);
    expect(runBinary(ops.lt, a, b).toNumbers()).toEqual([0, 0, 1]);
  });

  it('half results are rounded at each op', () => {
    const a = randomTensor('Half', [64], false);
    const b = randomTensor('Half', [64], false);
    const y = runBinary(ops.mul, a, b);
    for (let i = 0; i < 64; i += 1) expect(y.getNumber(i)).toBe(roundToHalf(a.getNumber(i) * b.getNumber(i)));
  });

  it('strided (transposed) inputs read the right elements', () => {
    const base = randomTensor('Float', [3, 5], false);
    const transposed = new HostTensor('Float', [5, 3], [1, 5], base.data);
    const other = randomTensor('Float', [5, 3], false);
    const y = runBinary(ops.sub, transposed, other);
    for (let i = 0; i < 5; i += 1) {
      for (let j = 0; j < 3; j += 1) {
        expect(y.getNumber(i * 3 + j)).toBe(Math.fround(base.getNumber(j * 5 + i) - other.getNumber(i * 3 + j)));
      }
    }
  });
});

describe('reference evaluator: input checking', () => {
  it('names the input and dim on size mismatch', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, -1] });
    const t1 = makeTensor(fusion, { shape: [-1, -1] });
    fusion.addInput(t0);
    fusion.addInput(t1);
    fusion.addOutput(ops.add(t0, t1));
    const a = randomTensor('Float', [2, 3]);
    expect(() => evaluate(fusion, [a, randomTensor('Float', [2, 3, 1])])).toThrow(/input 1 \(T1\): expected rank 2/);
    expect(() => evaluate(fusion, [a, randomTensor('Double', [2, 3])])).toThrow(/input 1 \(T1\): expected dtype Float, got Double/);
  });

  it('a broadcast dim must have size 1', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [1, -1] });
    fusion.addInput(t0);
    fusion.addOutput(ops.neg(t0));
    expect(() => evaluate(fusion, [randomTensor('Float', [2, 3])])).toThrow(/dim 0 is a broadcast dim and must have size 1, got 2/);
  });
});
